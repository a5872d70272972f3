"""Tests on spans of a parsed answer that decide whether a cue match names an item at all."""

from __future__ import annotations

from spacy.tokens import Doc, Span

from services.extraction.local.cues import CueMatch, CueMode
from services.extraction.local.labelwords import POSSESSIVES


def the_one(doc: Doc, start: int, end: int) -> bool:
    """Whether tokens [start, end) open with "the one(s)" ("was | the one who sorted it")."""
    return end - start >= 2 and doc[start].lower_ == "the" and doc[start + 1].lower_ in {"one", "ones"}


# What makes "my old bluetooth pair" the product had before rather than one of its properties.
EARLIER_WORDS = frozenset({"old", "previous", "former", "last"})


def earlier_product(doc: Doc, region: Span, kinds: frozenset[str]) -> bool:
    """ "my old bluetooth pair", "my previous earbuds": a product the respondent had before, named by
    its kind (`kinds`: the lexicon's ignored words, "pair", "headphone"), is what a story is about,
    not a product property to ask what it makes possible."""
    start = region.start + 1 if doc[region.start].lower_ in POSSESSIVES else region.start
    head = doc[region.end - 1].lemma_.lower()
    return (
        region.end - start >= 2
        and start > 0
        and doc[start - 1].lower_ in POSSESSIVES
        and doc[start].lower_ in EARLIER_WORDS
        and (head in kinds or head.removesuffix("s") in kinds)  # the lookup lemmas miss "earbuds"
    )


def inside_idiom(doc: Doc, m: CueMatch, matches: list[CueMatch]) -> bool:
    """Whether a noun cue's word lies inside a phrase cue of another type that opens with a
    preposition ("in control", "at ease"): such a phrase is an idiom whose noun names nothing,
    where an event phrase ("rang the helpline") names its participants."""
    return any(
        o.cue.mode is CueMode.PHRASE
        and o.cue.node_type != m.cue.node_type
        and o.start <= m.start
        and m.end <= o.end
        and doc[o.start].pos_ == "ADP"
        for o in matches
    )


def negated_alternative(doc: Doc, i: int) -> bool:
    """Whether the word at `i` is the alternative turned down ("calm instead of | stressed")."""
    before = " ".join(t.lower_ for t in doc[max(0, i - 2) : i])
    return before.endswith(("instead of", "rather than")) or before in {"not", "never"}


def enclosing(chunks: list[Span], span: Span) -> Span | None:
    """The noun-phrase chunk that holds `span`, if any."""
    for c in chunks:
        if c.start <= span.start and span.end <= c.end:
            return c
    return None
