"""Lemma-based token handling shared by the offline respondent and the metrics.

Both sides of every comparison (question ↔ element phrasing, graph label ↔ element phrasing,
question ↔ earlier question) go through the same `Lemmatizer`, so "cancelling" matches "cancel"
and "headphones" matches "headphone". Lemmas come from the English lookup table of
`spacy-lookups-data` (read directly from its gzipped JSON: importing spaCy would cost seconds).
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


STOP_WORDS: frozenset[str] = _words(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me might
    more most my myself no nor not now of off on once only or other our ours ourselves out over own same
    she should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves 's 'm 're 've 'll 'd n't s t don didn doesn isn wasn
    really quite bit lot lots thing things something anything everything kind sort way one ones
    yes yeah well oh okay ok maybe guess think mean suppose say said"""
)
"""Function words and fillers that never decide a match."""

QUESTION_WORDS: frozenset[str] = _words(
    """important importance matter matters mattered give gives gave giving tell describe example exactly
    particular personally achieve happen happened happening make makes made possible difference
    differently different compare compared option options choose chose choosing pick picked notice look
    looking else besides apart alongside aside moment time times occasion specific specifically again
    right true correct understood understand sound sounds own words sum summary check capture whole
    experience remember start started first next last before finish wrap end ask asked question
    like would could please thank thanks share help bigger picture"""
)
"""Interviewer boilerplate: ignored when matching a question against what the respondent said."""


@cache
def _lemma_table() -> Mapping[str, str]:
    """The English lemma lookup table (immutable view; loaded once per process)."""
    import spacy_lookups_data

    path = Path(spacy_lookups_data.__file__).parent / "data" / "en_lemma_lookup.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        table: dict[str, str] = json.load(fh)
    return MappingProxyType(table)


class Lemmatizer:
    """Lower-cases, tokenises and lemmatises text; drops stop words on request."""

    def __init__(self, table: Mapping[str, str] | None = None) -> None:
        self._table = table if table is not None else _lemma_table()

    def lemma(self, word: str) -> str:
        """The lookup lemma of one lower-cased word (the word itself when unknown)."""
        return self._table.get(word, word)

    def tokens(self, text: str) -> list[str]:
        """Lemmas of every word of `text`, in order (apostrophe suffixes split off)."""
        out: list[str] = []
        for raw in _WORD.findall(text.lower().replace("’", "'")):
            word, _, suffix = raw.partition("'")
            if word:
                out.append(self.lemma(word))
            if suffix:
                out.append("'" + suffix)
        return out

    def content(self, text: str, extra_stop: Iterable[str] = ()) -> frozenset[str]:
        """The set of content lemmas of `text` (stop words and `extra_stop` removed)."""
        return frozenset(self.content_sequence(text, extra_stop))

    def content_sequence(self, text: str, extra_stop: Iterable[str] = ()) -> list[str]:
        """The content lemmas of `text` in word order (repeats kept)."""
        stop = STOP_WORDS | frozenset(extra_stop)
        return [t for t in self.tokens(text) if t not in stop and len(t) > 1]


def token_f1(a: frozenset[str], b: frozenset[str]) -> float:
    """Dice overlap of two lemma sets: 2·|a∩b| / (|a|+|b|), 0 when either is empty."""
    if not a or not b:
        return 0.0
    return 2.0 * len(a & b) / (len(a) + len(b))


def coverage(part: frozenset[str], whole: frozenset[str]) -> float:
    """Share of `part`'s lemmas that occur in `whole` (0 for an empty `part`): how fully a text
    names a phrase."""
    return len(part & whole) / len(part) if part else 0.0


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a∩b| / |a∪b|, 0 when both are empty."""
    union = a | b
    return len(a & b) / len(union) if union else 0.0


def normalise_question(text: str) -> str:
    """Lower-cased words only: the key for exact repeated-question detection."""
    return " ".join(re.findall(r"[a-z0-9']+", text.lower().replace("’", "'")))


def capitalise(text: str) -> str:
    """First letter upper-cased, the rest untouched."""
    return text[:1].upper() + text[1:] if text else text


_LEAD_WORDS = STOP_WORDS | _words(
    "mainly looking after next like yes pretty thank thanks whereas honestly well there's it's that's "
    "i'd i'm sure nobody everyone everybody someone somebody nothing everything"
)


def decapitalise(text: str) -> str:
    """Lower-case the first letter when the sentence starts with a function word (not "I" or a name)."""
    first = text.split(" ", 1)[0].strip(",.!?").lower()
    if first in {"i", "i'm", "i've", "i'd", "i'll"} or first not in _LEAD_WORDS:
        return text
    return text[:1].lower() + text[1:]


def word_count(text: str) -> int:
    """Number of whitespace-separated words."""
    return len(text.split())
