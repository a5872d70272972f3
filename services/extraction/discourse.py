"""Discourse relations: connectives ("because", "so that", "which means", "but" …) and the spans
they join, with character offsets into the answer.

Connectives are found with a token Matcher on lower-cased forms. Each one is either a
*subordinator* (it may front its clause: "Because Y, X") or a *linker* (sentence-initial, it refers
back to the previous sentence: "… . That's why X"). See `DiscourseRelation` for the meaning of
`left`/`right`.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.matcher import Matcher
from spacy.tokens import Doc, Span
from spacy.util import filter_spans

from services.extraction.models import DiscourseRelation, RelationKind, TextSpan
from services.extraction.nlp import NlpPipeline
from services.extraction.wordclasses import INTERJECTIONS, RELATION_VERBS

_APOS_S = ["'s", "’s", "is", "was"]


@dataclass(frozen=True)
class Connective:
    """One connective pattern (lower-case token sequence) and how it attaches."""

    tokens: tuple[tuple[str, ...], ...]
    relation: RelationKind
    subordinator: bool


def _c(words: str, relation: RelationKind, *, sub: bool) -> Connective:
    return Connective(tuple((w,) for w in words.split()), relation, sub)


def _why(first: str) -> Connective:
    return Connective(((first,), tuple(_APOS_S), ("why",)), RelationKind.RESULT, False)


def _other_occasion() -> tuple[Connective, ...]:
    """Another occasion set against the one told: "It was very different from the time when X",
    "The opposite was when X", "The opposite would be X". The whole frame is the connective, so
    that no item is made of it ("different from the time") and X keeps its own words; "it" points
    at what was told before."""
    pointer = (("it", "that", "this"), tuple(_APOS_S))
    degree = ("very", "quite", "so", "completely", "totally", "really")
    occasion = (("different",), ("from", "to"))
    tails = ((("the",), ("time",), ("when",)), (("the",), ("time",)), (("when",),))
    frames = [pointer + lead + occasion + tail for lead in ((), (degree,)) for tail in tails]
    frames += [
        (("the",), ("opposite",), ("would",), ("be",)),
        (("the",), ("opposite",), tuple(_APOS_S), ("when",)),
        (("the",), ("opposite",), tuple(_APOS_S)),
    ]
    return tuple(Connective(tokens, RelationKind.CONTRAST, False) for tokens in frames)


CONNECTIVES: tuple[Connective, ...] = (
    # anaphoric: "X, and because of that Y" / "Because of that, Y" — the previous clause is the cause
    Connective((("because",), ("of",), ("that", "this", "it")), RelationKind.RESULT, False),
    _c("because", RelationKind.CAUSE, sub=True),
    _c("'cause", RelationKind.CAUSE, sub=True),
    _c("since", RelationKind.CAUSE, sub=True),
    _c("so that", RelationKind.PURPOSE, sub=True),
    _c("in order to", RelationKind.PURPOSE, sub=True),
    _c("in order for", RelationKind.PURPOSE, sub=True),
    _c("so as to", RelationKind.PURPOSE, sub=True),
    _c("so", RelationKind.RESULT, sub=False),
    _c("therefore", RelationKind.RESULT, sub=False),
    _c("thus", RelationKind.RESULT, sub=False),
    _c("hence", RelationKind.RESULT, sub=False),
    _c("consequently", RelationKind.RESULT, sub=False),
    _c("as a result", RelationKind.RESULT, sub=False),
    _c("which means", RelationKind.RESULT, sub=False),
    _c("which meant", RelationKind.RESULT, sub=False),
    _c("that means", RelationKind.RESULT, sub=False),
    _c("this means", RelationKind.RESULT, sub=False),
    _c("meaning", RelationKind.RESULT, sub=False),
    _c("which made", RelationKind.RESULT, sub=False),
    _c("which makes", RelationKind.RESULT, sub=False),
    _c("that made", RelationKind.RESULT, sub=False),
    _c("which was", RelationKind.ELABORATION, sub=False),
    _c("which is", RelationKind.ELABORATION, sub=False),
    Connective((("leads", "lead", "led", "leading"), ("to",)), RelationKind.RESULT, False),
    Connective((("results", "result", "resulted", "resulting"), ("in",)), RelationKind.RESULT, False),
    _c("meant that", RelationKind.RESULT, sub=False),
    _c("that meant", RelationKind.RESULT, sub=False),
    Connective((("comes", "came", "come"), ("down",), ("to",)), RelationKind.RESULT, False),
    # "that was down to X", "which I put down to X": X is the reason
    _c("down to", RelationKind.CAUSE, sub=False),
    # what the respondent drew from it: "…, and what I took from it is that Y"
    Connective(
        (("what",), ("i",), ("took", "take", "learned", "learnt"), ("from", "away"), ("it", "that")),
        RelationKind.RESULT,
        False,
    ),
    Connective((("the",), ("lesson",), ("for",), ("me",)), RelationKind.RESULT, False),
    Connective((("the",), ("lesson",), ("is", "was")), RelationKind.RESULT, False),
    Connective((("that", "this"), tuple(_APOS_S), ("when",)), RelationKind.RESULT, False),
    _c("at that point", RelationKind.RESULT, sub=False),
    # "X, and in the end that's about Y", "X matters because in the end it's about Y"
    _c("in the end", RelationKind.RESULT, sub=False),
    _c("after that", RelationKind.RESULT, sub=False),
    # sentence-initial only (see `_plausible`): "Then I bought it.", "Next, I compared three."
    _c("then", RelationKind.RESULT, sub=False),
    _c("next", RelationKind.RESULT, sub=False),
    _c("afterwards", RelationKind.RESULT, sub=False),
    _why("that"),
    _why("which"),
    _why("this"),
    _c("but", RelationKind.CONTRAST, sub=False),
    # "On one side it's X, on the other Y"
    Connective((("on",), ("the",), ("other",), ("hand",)), RelationKind.CONTRAST, False),
    _c("on the other", RelationKind.CONTRAST, sub=False),
    _c("however", RelationKind.CONTRAST, sub=False),
    _c("whereas", RelationKind.CONTRAST, sub=True),
    _c("while", RelationKind.CONTRAST, sub=True),
    # one item against another in one clause: "good sound quality usually conflicts with a low price"
    Connective(
        (
            ("conflicts", "conflict", "conflicted", "clashes", "clash", "clashed", "competes", "compete"),
            ("with",),
        ),
        RelationKind.CONTRAST,
        False,
    ),
    _c("at odds with", RelationKind.CONTRAST, sub=False),
    *_other_occasion(),
    # "I get good sound at the expense of battery life": one item bought with the other
    _c("at the expense of", RelationKind.CONTRAST, sub=False),
    _c("and then", RelationKind.RESULT, sub=False),
    _c("although", RelationKind.CONCESSION, sub=True),
    _c("though", RelationKind.CONCESSION, sub=True),
    _c("even though", RelationKind.CONCESSION, sub=True),
    _c("even if", RelationKind.CONCESSION, sub=True),
    _c("despite", RelationKind.CONCESSION, sub=True),
    _c("in other words", RelationKind.ELABORATION, sub=False),
    _c("for example", RelationKind.ELABORATION, sub=False),
    _c("for instance", RelationKind.ELABORATION, sub=False),
)

# "since" is temporal before these words ("since 2019", "since then", "since I was a kid").
_TEMPORAL_SINCE_NEXT = frozenset(
    {"then", "last", "ever", "forever", "childhood", "birth", "yesterday", "years"}
)
# Words that may precede a sentence-initial connective without making it mid-sentence ("Maybe,
# because of the instant coffee, I realised …" fronts its clause as "Because of …" does; "Mainly
# because it has no capsules to buy." is a bare reason as "Because …" is).
_OPENERS = (
    INTERJECTIONS
    | frozenset(
        {"and", "so", "but", "i", "mean", "guess", "maybe", "perhaps", "probably", "honestly", "actually"}
    )
    | frozenset({"mainly", "mostly", "partly", "largely", "chiefly", "simply", "just", "only", "basically"})
)
_SOFT_BREAK_AFTER_COMMA = frozenset({"and", "or", "then", "plus"})
_TRIM_EDGE = frozenset({"and", "or", "also", "then", "plus"})


class DiscourseAnalyzer:
    """Finds connectives and the spans they join. Build once per pipeline and reuse."""

    def __init__(self, pipeline: NlpPipeline) -> None:
        self._matcher = Matcher(pipeline.nlp.vocab)
        self._by_key: dict[str, Connective] = {}
        for i, conn in enumerate(CONNECTIVES):
            key = f"C{i}"
            self._by_key[key] = conn
            pattern = [{"LOWER": {"IN": list(alts)}} for alts in conn.tokens]
            self._matcher.add(key, [pattern])

    def markers(self, doc: Doc) -> list[tuple[Span, Connective]]:
        """Connective spans in document order (longest match wins, false friends filtered)."""
        found: dict[tuple[int, int], Connective] = {}
        spans: list[Span] = []
        for match_id, start, end in self._matcher(doc):
            conn = self._by_key[doc.vocab.strings[match_id]]
            span = doc[start:end]
            if not _plausible(doc, span, conn):
                continue
            found[(start, end)] = conn
            spans.append(span)
        return [(s, found[(s.start, s.end)]) for s in sorted(filter_spans(spans), key=lambda s: s.start)]

    def relations(self, doc: Doc, text: str) -> list[DiscourseRelation]:
        """Every discourse relation with non-empty spans, in document order."""
        markers = self.markers(doc)
        # token index where a segment ends -> index where the next one starts
        breaks = _soft_breaks(doc) | {s.start: s.end for s, _ in markers}
        sents = list(doc.sents)
        out: list[DiscourseRelation] = []
        for span, conn in markers:
            sent = span.sent
            sent_idx = next(i for i, s in enumerate(sents) if s.start == sent.start)
            right_end = _next_break(breaks, span.end, sent.end)
            left: tuple[int, int] | None
            if _is_sentence_initial(doc, span):
                if conn.subordinator:
                    comma = next((i for i in range(span.end, right_end) if doc[i].text == ","), None)
                    if comma is not None:
                        right = (span.end, comma)
                        left = (comma + 1, _next_break(breaks, comma + 1, sent.end))
                    else:
                        right = (span.end, right_end)
                        left = _last_segment(breaks, sents[sent_idx - 1]) if sent_idx > 0 else None
                else:
                    right = (span.end, right_end)
                    left = _last_segment(breaks, sents[sent_idx - 1]) if sent_idx > 0 else None
            else:
                right = (span.end, right_end)
                left = (_prev_break(breaks, span.start, sent.start), span.start)
                if _text_span(doc, text, *left) is None:
                    # "X, and because of that Y": only "and" lies between the break and the
                    # connective, so the clause before the ", and" is the left side
                    cut = max(
                        (b for b, nxt in breaks.items() if nxt == left[0] and b >= sent.start), default=None
                    )
                    if cut is not None:
                        left = (_prev_break(breaks, cut, sent.start), cut)
            right_span = _text_span(doc, text, *right)
            if right_span is None:
                continue
            left_span = _text_span(doc, text, *left) if left is not None else None
            marker_span = TextSpan(
                text=text[span.start_char : span.end_char], start=span.start_char, end=span.end_char
            )
            out.append(
                DiscourseRelation(
                    marker=span.text.lower(),
                    marker_span=marker_span,
                    relation=conn.relation,
                    left=left_span,
                    right=right_span,
                )
            )
        return out


def _plausible(doc: Doc, span: Span, conn: Connective) -> bool:
    first = span[0].lower_
    nxt = doc[span.end] if span.end < len(doc) else None
    # "so good" (intensifier), "I think so." (pro-form): not a connective.
    if first == "so" and len(span) == 1 and (span[0].pos_ in {"ADV", "ADJ"} or nxt is None or nxt.is_punct):
        return False
    if first == "since" and nxt is not None and (nxt.like_num or nxt.lower_ in _TEMPORAL_SINCE_NEXT):
        return False
    if (
        first == "since"
        and nxt is not None
        and span.end + 2 < len(doc)
        and nxt.lower_ == "i"
        and doc[span.end + 1].lower_ in {"was", "were"}
    ):
        return False  # "since I was a kid"
    if first == "meaning" and (span.start == 0 or not doc[span.start - 1].is_punct):
        return False  # "the meaning of it" vs ", meaning I can …"
    if first == "though" and (nxt is None or nxt.is_punct):
        return False  # sentence-final "though" is an adverb
    if first == "but" and nxt is not None and nxt.lower_ in {"also", "then"}:
        return False
    if span[0].lemma_ in RELATION_VERBS and span[0].pos_ != "VERB":
        return False  # "a conflict with my boss", "the results in the report": a noun, no relation
    if first == "while" and (span.start == 0 or doc[span.start - 1].text != ","):
        return False  # only ", while" contrasts; "while I cycle" is temporal
    if first in {"then", "next", "afterwards"} and len(span) == 1 and not _is_sentence_initial(doc, span):
        return False  # "the next day", "back then": only a sentence-opening "Then, …" moves the story on
    return not (conn.relation is RelationKind.RESULT and nxt is None)


def _soft_breaks(doc: Doc) -> dict[int, int]:
    out: dict[int, int] = {}
    for tok in doc:
        if tok.text in {";", ":", "—", "–"}:
            out[tok.i] = tok.i + 1
        if tok.text == "," and tok.i + 1 < len(doc) and doc[tok.i + 1].lower_ in _SOFT_BREAK_AFTER_COMMA:
            out[tok.i] = tok.i + 1
    return out


def _next_break(breaks: dict[int, int], start: int, limit: int) -> int:
    return min((b for b in breaks if start <= b < limit), default=limit)


def _prev_break(breaks: dict[int, int], end: int, floor: int) -> int:
    """Start of the segment that ends at `end` (exclusive): where the nearest break before it resumes."""
    before = [b for b in breaks if floor <= b < end]
    if not before:
        return floor
    return min(breaks[max(before)], end)


def _last_segment(breaks: dict[int, int], sent: Span) -> tuple[int, int]:
    return (_prev_break(breaks, sent.end, sent.start), sent.end)


def _is_sentence_initial(doc: Doc, span: Span) -> bool:
    return all(doc[i].is_punct or doc[i].lower_ in _OPENERS for i in range(span.sent.start, span.start))


def _text_span(doc: Doc, text: str, start: int, end: int) -> TextSpan | None:
    """Character span of tokens [start, end) trimmed of punctuation and edge conjunctions."""
    while start < end and (doc[start].is_punct or doc[start].is_space or doc[start].lower_ in _TRIM_EDGE):
        start += 1
    while end > start and (
        doc[end - 1].is_punct or doc[end - 1].is_space or doc[end - 1].lower_ in _TRIM_EDGE
    ):
        end -= 1
    if start >= end:
        return None
    char_start = doc[start].idx
    char_end = doc[end - 1].idx + len(doc[end - 1].text)
    return TextSpan(text=text[char_start:char_end], start=char_start, end=char_end)
