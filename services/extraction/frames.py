"""Predicate frames (who does what to what).

`dependency_frames` reads them off a trained pipeline's parse; `rule_frames` approximates them on
the blank pipeline with Matcher-found predicates and the nearest chunk or pronoun on each side.
"""

from __future__ import annotations

from spacy.matcher import Matcher
from spacy.tokens import Doc, Span, Token

from services.extraction.chunks import chunk_at
from services.extraction.models import PredicateFrame, TextSpan
from services.extraction.nlp import NlpPipeline

_NEGATORS = frozenset({"not", "n't", "never", "no"})
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
_OBJECT_DEPS = frozenset({"dobj", "obj", "attr", "acomp", "oprd", "xcomp", "ccomp", "dative"})
_CLAUSE_STOP_POS = frozenset({"SCONJ", "PUNCT", "CCONJ"})
_SKIP_BEFORE_OBJECT = frozenset({"ADV", "PART", "DET"})


def _span(doc: Doc, start: int, end: int) -> TextSpan:
    # Span.text is the document text between the span's characters (never rebuild doc.text: O(n))
    span = doc[start:end]
    return TextSpan(text=span.text, start=span.start_char, end=span.end_char)


def _of(span: Span | Token) -> TextSpan:
    if isinstance(span, Token):
        return _span(span.doc, span.i, span.i + 1)
    return _span(span.doc, span.start, span.end)


class RuleFrames:
    """Frames over the blank pipeline: predicates from a Matcher, arguments from nearby chunks."""

    def __init__(self, pipeline: NlpPipeline) -> None:
        self._matcher = Matcher(pipeline.nlp.vocab)
        self._matcher.add("PRED", [[{"POS": "VERB"}]])
        # copula + complement: "is important", "was a relief"
        self._matcher.add(
            "COP", [[{"LEMMA": "be"}, {"POS": "ADV", "OP": "*"}, {"POS": {"IN": ["ADJ", "DET", "NOUN"]}}]]
        )

    def __call__(self, doc: Doc, chunks: list[Span]) -> list[PredicateFrame]:
        """Frames in document order."""
        heads: list[int] = []
        for match_id, start, _end in self._matcher(doc):
            label = doc.vocab.strings[match_id]
            tok = doc[start]
            if (label == "PRED" and not self._is_nominal_gerund(tok, chunks)) or label == "COP":
                heads.append(start)
        frames: list[PredicateFrame] = []
        last_subject: dict[int, TextSpan | None] = {}
        for i in sorted(set(heads)):
            tok = doc[i]
            subject = self._subject(doc, i, chunks, last_subject)
            last_subject[tok.sent.start] = subject
            frames.append(
                PredicateFrame(
                    subject=subject,
                    predicate=_of(tok),
                    predicate_lemma=tok.lemma_,
                    object=self._object(doc, i, chunks),
                    negated=self._negated(doc, i),
                )
            )
        return frames

    @staticmethod
    def _is_nominal_gerund(tok: Token, chunks: list[Span]) -> bool:
        return chunk_at(chunks, tok.i) is not None

    @staticmethod
    def _subject(
        doc: Doc, i: int, chunks: list[Span], last_subject: dict[int, TextSpan | None]
    ) -> TextSpan | None:
        sent_start = doc[i].sent.start
        j = i - 1
        while j >= sent_start and (doc[j].pos_ in {"AUX", "ADV", "PART"} or doc[j].lower_ in _NEGATORS):
            j -= 1
        if j < sent_start or doc[j].pos_ in _CLAUSE_STOP_POS:
            return None
        if doc[j].pos_ == "PRON" and doc[j].lower_ not in {"my", "your", "our", "their", "his", "its"}:
            return _of(doc[j])
        chunk = chunk_at(chunks, j)
        if chunk is not None:
            return _of(chunk)
        if doc[j].pos_ == "VERB" or (j + 1 < i and doc[j + 1].lower_ == "to"):
            # verb chain ("want to worry"): the earlier verb's subject
            return last_subject.get(sent_start)
        return None

    @staticmethod
    def _object(doc: Doc, i: int, chunks: list[Span]) -> TextSpan | None:
        end = doc[i].sent.end
        j = i + 1
        while j < end and (doc[j].pos_ in _SKIP_BEFORE_OBJECT or doc[j].lower_ in _NEGATORS):
            j += 1
        if j >= end:
            return None
        tok = doc[j]
        if tok.pos_ == "PRON":
            nxt = chunk_at(chunks, j + 1) if j + 1 < end else None
            # ditransitive "saves me time": the thing saved is the object, "me" the recipient
            return _of(nxt) if nxt is not None else _of(tok)
        chunk = chunk_at(chunks, j)
        if chunk is not None:
            return _of(chunk)
        if tok.pos_ == "ADJ":
            k = j + 1
            while k < end and doc[k].pos_ == "ADJ":
                k += 1
            return _span(doc, j, k)
        if tok.pos_ == "ADP" and j + 1 < end:
            k = j + 1
            while k < end and doc[k].pos_ in {"DET"}:
                k += 1
            inner = chunk_at(chunks, k) if k < end else None
            if inner is not None:
                return _of(inner)
            if k < end and doc[k].pos_ == "PRON":
                return _of(doc[k])
        return None

    @staticmethod
    def _negated(doc: Doc, i: int) -> bool:
        sent_start = doc[i].sent.start
        j = i - 1
        while j >= sent_start and j >= i - 3:
            if doc[j].lower_ in _NEGATORS:
                return True
            if doc[j].pos_ not in {"AUX", "ADV", "PART"}:
                return False
            j -= 1
        return False


def dependency_frames(doc: Doc) -> list[PredicateFrame]:
    """Frames from a dependency parse: each verb with its subject and object subtrees."""
    frames: list[PredicateFrame] = []
    for tok in doc:
        if tok.pos_ != "VERB" and not (tok.pos_ == "AUX" and tok.dep_ == "ROOT"):
            continue
        subject = next((c for c in tok.children if c.dep_ in _SUBJECT_DEPS), None)
        obj = next((c for c in tok.children if c.dep_ in _OBJECT_DEPS), None)
        if obj is None:
            prep = next((c for c in tok.children if c.dep_ == "prep"), None)
            obj = next((c for c in prep.children if c.dep_ == "pobj"), None) if prep is not None else None
        if subject is None and tok.dep_ in {"xcomp", "conj"}:
            subject = next((c for c in tok.head.children if c.dep_ in _SUBJECT_DEPS), None)
        frames.append(
            PredicateFrame(
                subject=_subtree(subject) if subject is not None else None,
                predicate=_of(tok),
                predicate_lemma=tok.lemma_.lower(),
                object=_subtree(obj) if obj is not None else None,
                negated=any(c.dep_ == "neg" for c in tok.children),
            )
        )
    return frames


def _subtree(tok: Token) -> TextSpan:
    left = tok.left_edge.i
    right = tok.right_edge.i + 1
    return _span(tok.doc, left, right)
