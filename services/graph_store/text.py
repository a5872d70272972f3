"""Label normalisation and verbatim-quote location.

Labels are compared (exact dedup, the unique constraint, endpoint resolution) in a normalised
form: Unicode NFKC, case-folded, typographic quotes/dashes unified, whitespace collapsed, and
surrounding punctuation stripped. The label as extracted is what is stored and shown.

A quote is evidence only if it occurs in the utterance. LLMs often change case, spacing or the
apostrophe style of a quote, so the search tolerates those differences, but what is stored is the
exact substring of the utterance with its character offsets (Python `str` indices).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

# Typographic characters LLMs substitute freely (curly quotes, dashes, NBSP-like spaces).
_TRANSLATE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201f": '"',
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
    }
)
_WS = re.compile(r"\s+")
_EDGE_PUNCT = " \t\n\r\"'`.,;:!?()[]{}<>-*_"
_WRAPPERS = "\"'`\u2018\u2019\u201c\u201d"
_ELLIPSES = ("...", "\u2026")


def normalise_label(label: str) -> str:
    """The comparison form of a concept label (`"  Saves  Money." -> "saves money"`)."""
    text = unicodedata.normalize("NFKC", label).translate(_TRANSLATE).casefold()
    return _WS.sub(" ", text).strip(_EDGE_PUNCT)


@dataclass(frozen=True)
class LocatedQuote:
    """A quote found in an utterance: `utterance[start:end] == text`."""

    text: str
    start: int
    end: int


def _folded_with_map(text: str) -> tuple[str, list[int]]:
    """Lower-cased, whitespace-collapsed `text` plus, per output char, its index in `text`.

    Per-character lowering keeps the map exact even where lowering changes length ("İ" -> "i̇").
    """
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch.isspace():
            if chars and chars[-1] == " ":
                continue
            chars.append(" ")
            index.append(i)
            continue
        for low in ch.translate(_TRANSLATE).lower():
            chars.append(low)
            index.append(i)
    return "".join(chars), index


def _is_word_char(text: str, i: int) -> bool:
    return 0 <= i < len(text) and text[i].isalnum()


def _find_bounded(haystack: str, needle: str) -> int:
    """First occurrence of `needle` on word boundaries, else the first occurrence, else -1."""
    first = haystack.find(needle)
    pos = first
    while pos != -1:
        starts_ok = not (_is_word_char(haystack, pos - 1) and _is_word_char(needle, 0))
        ends_ok = not (_is_word_char(haystack, pos + len(needle)) and _is_word_char(needle, len(needle) - 1))
        if starts_ok and ends_ok:
            return pos
        pos = haystack.find(needle, pos + 1)
    return first


def _candidates(quote: str) -> list[str]:
    """The quote as given, then without wrapping quotation marks or leading/trailing ellipses."""
    out = [quote.strip()]
    trimmed = quote.strip()
    for _ in range(2):
        for ell in _ELLIPSES:
            trimmed = trimmed.removeprefix(ell).removesuffix(ell).strip()
        trimmed = trimmed.strip(_WRAPPERS).strip()
    if trimmed and trimmed != out[0]:
        out.append(trimmed)
    return [c for c in out if c]


def locate_quote(quote: str, utterance: str, start: int = -1, end: int = -1) -> LocatedQuote | None:
    """Where `quote` occurs in `utterance` (exact first, then case/whitespace-insensitive).

    `start`/`end` are the extractor's offsets: used when they point at exactly the quote, otherwise
    ignored. Returns None when the quote does not occur: it must not be stored as evidence.
    """
    if 0 <= start < end <= len(utterance) and utterance[start:end] == quote:
        return LocatedQuote(quote, start, end)
    for cand in _candidates(quote):
        pos = _find_bounded(utterance, cand)
        if pos != -1:
            return LocatedQuote(utterance[pos : pos + len(cand)], pos, pos + len(cand))
        folded_text, index = _folded_with_map(utterance)
        folded_quote, _ = _folded_with_map(cand)
        folded_quote = folded_quote.strip()
        if not folded_quote:
            continue
        fpos = _find_bounded(folded_text, folded_quote)
        if fpos != -1:
            start = index[fpos]
            end = index[fpos + len(folded_quote) - 1] + 1
            return LocatedQuote(utterance[start:end], start, end)
    return None
