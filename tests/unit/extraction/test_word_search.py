"""The casing's word search and the quote search without compiled patterns, against the regular
expressions they replace (the reference here): same matches, same offsets, for any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from services.extraction.casing import _occurrences, cased_label
from services.extraction.checking import locate_quote

# Letters that meet case rules at their edges: ASCII, accented, the ones IGNORECASE equates with
# ASCII letters ("ſ" ~ "s", "ı" ~ "i", the Kelvin sign ~ "k"), word and non-word punctuation.
_ALPHABET = "abAB sSiIkK_-'.,é\u017f\u0131\u212a’“”2"
_texts = st.text(alphabet=_ALPHABET, max_size=40)
_words = st.text(alphabet="abAB sSiIkK_-'é\u017f2", min_size=1, max_size=4).filter(lambda w: w.strip() == w)


def _reference(word: str, text: str, start: int, end: int) -> list[tuple[int, str]]:
    pattern = re.compile(rf"(?<![\w]){re.escape(word)}(?!\w)", re.IGNORECASE)
    return [(m.start(), m.group()) for m in pattern.finditer(text, start, end)]


@settings(max_examples=600, deadline=None)
@given(word=_words, text=_texts, data=st.data())
def test_occurrences_match_the_regular_expression(word: str, text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert list(_occurrences(word, text, start, end)) == _reference(word, text, start, end)


def test_occurrences_edges() -> None:
    # the look-behind sees the text before the start; the look-ahead ends at the end
    assert list(_occurrences("ab", "xab ab", 1, 6)) == [(4, "ab")]
    assert list(_occurrences("ab", "ab abx", 0, 5)) == [(0, "ab"), (3, "ab")]
    # after a match the search goes on after it (no overlapping matches)
    assert list(_occurrences("a-a", "a-a-a", 0, 5)) == [(0, "a-a")]
    # case-insensitive, as written
    assert list(_occurrences("netflix", "Netflix or NETFLIX", 0, 18)) == [(0, "Netflix"), (11, "NETFLIX")]
    # non-ASCII letters go through the regular expression ("ſ" is an "s" to IGNORECASE)
    assert list(_occurrences("so", "ſo so", 0, 5)) == [(0, "ſo"), (3, "so")]


def test_cased_label_with_non_ascii_letters() -> None:
    assert cased_label("café nero", "We met at Café Nero again.") == "Café Nero"
    assert cased_label("netflix", "I watch Netflix — “always”.") == "Netflix"


def _reference_quote(text: str, quote: str, hint: int | None) -> tuple[int, int] | None:
    quote = quote.strip()
    if not quote:
        return None
    if hint is not None and text[hint : hint + len(quote)] == quote:
        return hint, hint + len(quote)
    found = [m.start() for m in re.finditer(re.escape(quote), text)]
    if found:
        start = min(found, key=lambda s: abs(s - hint)) if hint is not None else found[0]
        return start, start + len(quote)
    m = re.compile(r"\s+".join(re.escape(w) for w in quote.split()), re.IGNORECASE).search(text)
    return (m.start(), m.end()) if m else None


@settings(max_examples=600, deadline=None)
@given(
    text=st.text(alphabet="aab A.", max_size=30), quote=st.text(alphabet="aab A", max_size=5), data=st.data()
)
def test_locate_quote_matches_the_regular_expression(text: str, quote: str, data: st.DataObject) -> None:
    hint = data.draw(st.none() | st.integers(0, len(text)))
    assert locate_quote(text, quote, hint) == _reference_quote(text, quote, hint)


def test_locate_quote_overlapping_occurrences_are_not_counted() -> None:
    # "aa" in "aaa": the regular expression finds only offset 0; a hint at 1 is nearest to it
    assert locate_quote("aaa", "aa", 2) == (0, 2)
