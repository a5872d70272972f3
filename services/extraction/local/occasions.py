"""Occasions told as stories (critical incidents): where the story opens, and another occasion.

Both rules apply only where the cue lexicon declares an `opening` (an occasion's setting and event
types); both leave an item said before as it was: its type is the node's, told in an earlier turn.
"""

from __future__ import annotations

from spacy.tokens import Doc

from services.extraction.local.candidates import Candidate
from services.extraction.local.cues import CueLexicon
from services.extraction.local.rules import in_span
from services.extraction.local.segment import Clause
from services.extraction.models import DiscourseRelation, RelationKind


def opening_setting(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    relations: list[DiscourseRelation],
    lex: CueLexicon,
    question: str,
) -> None:
    """Apply `opening`: an occasion's story opens with its setting.

    Asked for an occasion, people say where things stood, then what it brought about: "Dad was being
    discharged after his heart failure got worse, which meant a nurse rang me to plan the
    discharge". The connective made the first item an incident (the rung below the doing after
    it), or a cue an outcome ("I was back on the ward"), and the doing an action: the setting and
    the incident each one step off. Only the answer's first result, from an item told as a state
    (a form of "be" in its clause: "the junior doctor rushed through my medication, and because of
    that …" is the incident itself). An item said before keeps its type: a setting said before
    stops the rule, an event said before is left as it is."""
    spec = lex.spec.opening
    if spec is None or not any(p in question.lower() for p in spec.questions):
        return
    rel = next((r for r in relations if r.relation is RelationKind.RESULT and r.left is not None), None)
    if rel is None or rel.left is None:
        return
    first = next(iter(doc.sents), None)
    if first is None or rel.left.start >= first.end_char:
        return
    left = [c for c in in_span(cands, rel.left) if not c.from_noun]
    right = sorted((c for c in in_span(cands, rel.right) if not c.from_noun), key=lambda c: c.char_start)
    if len(left) != 1 or not right or _said_before(left[0]):
        return
    setting, event = left[0], right[0]
    if setting.node_type != spec.setting:
        clause = next((c for c in parts if c.index == setting.clause), None)
        stated = clause is not None and any(doc[i].lemma_ == "be" for i in range(clause.start, clause.end))
        if setting.node_type not in spec.from_types or not stated:
            return
        setting.node_type = spec.setting
    if event.node_type in spec.retyped and not _said_before(event):
        event.node_type = spec.event


# Last words of a contrast's frame that name another occasion: "it was very different from the
# time (when) X", "the opposite was when X" (not "the opposite would be X", a wish or a pole).
_OCCASION_ENDS = ("time", "when")


def other_occasion(cands: list[Candidate], relations: list[DiscourseRelation], lex: CueLexicon) -> None:
    """What "the time when X" sets against the story told is another occasion: X is an event.

    "It was very different from the time when the ward nurse went through all my tablets with me"
    names a second incident; its words read like a doing (a nurse's action), and told again later
    as an incident ("…, which meant the ward nurse went through all my tablets") the one occasion
    became two nodes, an action holding the contrast and an incident holding what followed. The
    first doing the frame introduces takes the opening's event type, unless it was said before."""
    spec = lex.spec.opening
    if spec is None:
        return
    for rel in relations:
        if rel.relation is not RelationKind.CONTRAST or not rel.marker.lower().endswith(_OCCASION_ENDS):
            continue
        told = sorted((c for c in in_span(cands, rel.right) if not c.from_noun), key=lambda c: c.char_start)
        if told and told[0].node_type in spec.retyped and not _said_before(told[0]):
            told[0].node_type = spec.event


def _said_before(cand: Candidate) -> bool:
    """Whether `cand` is an existing node's item: named by its label or said in its very words."""
    return cand.source == "existing" or cand.said_before
