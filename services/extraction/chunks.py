"""Noun-phrase-like chunks from POS-tagged tokens (Matcher rules; work in both NLP modes)."""

from __future__ import annotations

from typing import Any

from spacy.matcher import Matcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from services.extraction.nlp import NlpPipeline

_MOD: dict[str, Any] = {"POS": {"IN": ["ADJ", "NOUN", "PROPN", "NUM"]}, "OP": "*"}
_HEAD_POS = ("NOUN", "PROPN")
_HEAD: dict[str, Any] = {"POS": {"IN": list(_HEAD_POS)}}
# A gerund used as a noun modifier or head: "noise cancelling", "the cancelling".
_ING: dict[str, Any] = {"POS": "VERB", "LOWER": {"REGEX": "ing$"}}

NP_PATTERNS: list[list[dict[str, Any]]] = [
    [_MOD, _HEAD],
    [_MOD, _HEAD, {"LOWER": "of"}, {"POS": {"IN": ["DET", "PRON"]}, "OP": "?"}, _MOD, _HEAD],
    [_MOD, {"POS": {"IN": ["NOUN", "PROPN"]}}, _ING],
]


class Chunker:
    """Finds the longest non-overlapping noun-phrase-like spans of a parsed doc."""

    def __init__(self, pipeline: NlpPipeline) -> None:
        self._matcher = Matcher(pipeline.nlp.vocab)
        self._matcher.add("NP", NP_PATTERNS)

    def __call__(self, doc: Doc) -> list[Span]:
        """Noun-phrase chunks in document order (determiners and possessives excluded)."""
        spans = [doc[start:end] for _, start, end in self._matcher(doc)]
        return sorted(filter_spans(spans), key=lambda s: s.start)


def chunk_at(chunks: list[Span], index: int) -> Span | None:
    """The chunk containing token `index`, if any."""
    for span in chunks:
        if span.start <= index < span.end:
            return span
    return None


def split_at(chunks: list[Span], cuts: list[Span]) -> list[Span]:
    """`chunks` with the tokens of `cuts` (connectives) taken out: a chunk read across a connective
    ("the expense of battery life" in "good sound at the expense of battery life") keeps the pieces
    on either side that still end in a noun."""
    cut = {i for span in cuts for i in range(span.start, span.end)}
    if not cut:
        return chunks
    out: list[Span] = []
    for chunk in chunks:
        if not any(chunk.start <= i < chunk.end for i in cut):
            out.append(chunk)
            continue
        start = chunk.start
        for i in range(chunk.start, chunk.end + 1):
            if i == chunk.end or i in cut:
                piece = chunk.doc[start:i]
                if len(piece) and piece[-1].pos_ in _HEAD_POS:
                    out.append(piece)
                start = i + 1
    return out
