"""Lemmatisation for slot-name matching and the offline proposer.

spaCy is used without a trained pipeline (none can be downloaded here): `spacy.blank("en")` plus
the lookup lemmatizer from `spacy-lookups-data`. Building the pipeline loads lookup tables, so a
`Lemmatizer` is built once per process (by `server.main()` or a session-scoped test fixture) and
passed in.
"""

from __future__ import annotations

import re
from functools import lru_cache

import spacy
from spacy.language import Language

_NON_WORD = re.compile(r"[\W_]+")
_MAX_NAME_CHARS = 64
_MAX_KEY_CHARS = 128  # the name_key column width


def snake_case(text: str) -> str:
    """`"Running Shoes!"` → `"running_shoes"` (lower-case words joined by `_`, ≤ 64 chars)."""
    name = _NON_WORD.sub("_", text.lower()).strip("_")
    return name[:_MAX_NAME_CHARS].rstrip("_")


def build_nlp() -> Language:
    """A blank English pipeline with the lookup lemmatizer, initialised (loads the lookup tables)."""
    nlp = spacy.blank("en")
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
    nlp.initialize()
    return nlp


class Lemmatizer:
    """Lemma keys for slot names and labels (deterministic, no model download)."""

    def __init__(self, nlp: Language | None = None) -> None:
        self._nlp = nlp if nlp is not None else build_nlp()
        self._stop_words: frozenset[str] = frozenset(self._nlp.Defaults.stop_words)
        # Labels repeat a lot within a session; lemmatising is the hot part of the offline path.
        self._lemmas = lru_cache(maxsize=4096)(self._compute_lemmas)

    def _compute_lemmas(self, text: str) -> tuple[str, ...]:
        doc = self._nlp(text.lower())
        return tuple((tok.lemma_ or tok.text).lower() for tok in doc if not (tok.is_punct or tok.is_space))

    def lemmas(self, text: str) -> tuple[str, ...]:
        """Lower-cased lemmas of every word token of `text` (punctuation dropped)."""
        return self._lemmas(text)

    def content_lemmas(self, text: str) -> tuple[str, ...]:
        """Lemmas without stop words; falls back to all lemmas when only stop words remain."""
        lemmas = self.lemmas(text)
        content = tuple(lem for lem in lemmas if lem not in self._stop_words and lem.isalnum())
        return content or lemmas

    def name_key(self, slot_name: str) -> str:
        """The merge key of a slot name: `"running_shoes"` and `"Running shoe"` → `"run_shoe"`."""
        words = snake_case(slot_name).replace("_", " ")
        return "_".join(self.lemmas(words))[:_MAX_KEY_CHARS] if words else ""

    def head(self, label: str) -> str:
        """The head term of a label: its last content lemma (English noun phrases are head-final)."""
        content = self.content_lemmas(label)
        return content[-1] if content else ""
