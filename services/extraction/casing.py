"""Labels keep the capitals of names as the respondent wrote them ("Netflix", "Dr Patel", "I").

Labels are compared lower-case everywhere (here, in the graph store, in the slot discovery), but the
interviewer says them back, and "Thinking of netflix and youtube, …" reads as if it did not listen.
Each word of a normalised (lower-case) label takes the case it has where the respondent wrote it:

- within the label's own quote first, then anywhere in the answer: a capital that is not merely
  the start of a sentence ("I use Netflix"), or capitals inside the word ("YouTube", "BBC"), make
  the word a name; a word written lower-case mid-sentence stays lower-case, even if the interview
  knows it as a name ("max volume" is not "Max");
- where the answer does not tell (the word opens a sentence, the answer is shouted in capitals, or
  an LLM label paraphrases), a name the interview already knows, as a whole phrase: the concept's
  vocabulary ("Prime Video") and the labels of existing nodes; a name of several words is taken
  even where the respondent wrote it lower-case ("prime video");
- a word that opens a sentence right before a name's next word is part of the name ("Prime Video
  is …");
- the pronoun "I" is always written so ("the one I cancelled").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import lru_cache

_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s*|[\"“(]\s*)$")
_I_FORMS = {"i": "I", "i'm": "I'm", "i've": "I've", "i'd": "I'd", "i'll": "I'll"}
# An answer with more capitals than this share of its letters is shouted: its capitals say nothing.
_SHOUTED = 0.6


def _shouted(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) >= 8 and sum(ch.isupper() for ch in letters) / len(letters) > _SHOUTED


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"  # the regular expressions' \w


def _letters_ascii(text: str) -> bool:
    """Whether every letter of `text` is ASCII: then lower-casing keeps every offset and compares
    letters exactly as the regular expressions' IGNORECASE does (which also equates a few other
    letters: "ſ" with "s", "ı" with "i")."""
    return text.isascii() or all(ch.isascii() or not ch.isalpha() for ch in text)


def _occurrences(word: str, text: str, start: int, end: int) -> Iterator[tuple[int, str]]:
    r"""(offset, as written) of each whole-word, case-insensitive occurrence of `word` in
    text[start:end], left to right and not overlapping: the matches of
    `(?<!\w)word(?!\w)` with IGNORECASE, `finditer(text, start, end)` (whose look-behind sees the
    text before `start`, and whose look-ahead ends at `end`).

    A pattern compiled for every word was most of the casing's time (each new word of an answer
    is a new pattern, compiled in Python); when every letter of the word and the text is ASCII,
    `str.find` on the lower-cased text finds the same matches."""
    if not (word.isascii() and _letters_ascii(text)):
        pattern = _word_pattern(word)
        yield from ((m.start(), m.group()) for m in pattern.finditer(text, start, end))
        return
    lowered, needle = text.lower(), word.lower()
    at = lowered.find(needle, start, end)
    while at >= 0:
        after = at + len(needle)
        if (at == 0 or not _is_word_char(text[at - 1])) and (after >= end or not _is_word_char(text[after])):
            yield at, text[at:after]
            at = lowered.find(needle, after, end)
        else:
            at = lowered.find(needle, at + 1, end)


@lru_cache(maxsize=1024)
def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)", re.IGNORECASE)


def _written(word: str, text: str, start: int, end: int) -> tuple[str | None, bool]:
    """How `word` is written in text[start:end]: (cased form or None, whether the text told)."""
    told = False
    for at, seen in _occurrences(word, text, start, end):
        if any(ch.isupper() for ch in seen[1:]):
            return seen, True  # "YouTube", "BBC": capitals inside a word are never a sentence start
        if _SENTENCE_START.search(text[:at]):
            continue  # "Netflix and …" at a sentence start: its capital says nothing
        if seen[:1].isupper():
            return seen, True
        told = True  # written lower-case mid-sentence: a common word here
    return None, told


@lru_cache(maxsize=16)
def _known_phrases(known: tuple[str, ...]) -> list[list[str]]:
    """Names the interview knows, as word lists, longest first (so "Apple TV+" wins over "Apple").
    Cached: every label of an answer is cased against the same names (the concept's vocabulary
    and up to 80 existing labels). Callers must not change the lists."""
    phrases = {tuple(k.split()) for k in known if any(ch.isupper() for ch in k)}
    return sorted((list(p) for p in phrases if p), key=len, reverse=True)


def cased_label(
    label: str,
    text: str,
    quote: tuple[int, int] | None = None,
    known: Iterable[str] = (),
) -> str:
    """`label` (normalised, lower-case) with the capitals of the names in it (see the module doc).

    `quote` is the label's span in `text`; `known` are names the interview already knows.
    """
    words = label.split(" ")
    text = text.replace("’", "'")
    shouted = _shouted(text)
    out: list[str | None] = []
    for word in words:
        if word in _I_FORMS:
            out.append(_I_FORMS[word])
            continue
        if shouted or not any(ch.isalpha() for ch in word):
            out.append(None)
            continue
        form, told = _written(word, text, *quote) if quote else (None, False)
        if form is None and not told:
            form, told = _written(word, text, 0, len(text))
        out.append(form if form is not None else (word if told else None))
    for j in range(len(words) - 1, -1, -1):
        nxt = out[j + 1] if j + 1 < len(words) else None
        if out[j] is None and not shouted and nxt is not None and nxt[:1].isupper() and nxt != "I":
            # "Prime Video is …": the capital of a sentence's first word says nothing on its own,
            # but before the next word of a name it is part of the name as written
            first = next(_occurrences(words[j], text, 0, len(text)), None)
            if first is not None and first[1][:1].isupper():
                out[j] = first[1]
    lowered = [w.lower() for w in words]
    for phrase in _known_phrases(tuple(known)):
        size = len(phrase)
        target = [p.lower() for p in phrase]
        for i in range(len(words) - size + 1):
            span = range(i, i + size)
            # a word written lower-case mid-sentence is a common word ("max volume"), but a whole
            # phrase of several words that matches a name is the name ("prime video")
            if lowered[i : i + size] == target and all(out[j] is None or size > 1 for j in span):
                for j, known_word in zip(span, phrase, strict=True):
                    out[j] = known_word
    return " ".join(o if o is not None else w for o, w in zip(out, words, strict=True))
