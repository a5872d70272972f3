"""How the respondent frames an item, which types it more surely than the interviewer's question.

* A pseudo-cleft (`cleft_types`): in "What put me off energy drinks was that I crashed after two
  hours" the head ("what put me off") types what follows the copula (a firing criterion). The
  words between the head and the copula only say what the item is about: a thing named there
  ("energy drinks") stays an item, linked to the focus by the edge the head implies
  (`cleft_edges`: what held someone back from a solution holds it back); the head is no item.
* A stated reason (`reason_types`): in "I gave up on it because the buzz wore off too fast" the
  lead-in types the reason. The lead-in's own words ("gave up on it") are the frame, not an item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from services.extraction.local.candidates import Candidate
from services.extraction.local.cues import SPOKEN_ADVERBS, CleftHead, CueLexicon
from services.extraction.local.edges import endpoint
from services.extraction.local.labelwords import CLAUSE_OPENERS
from services.extraction.local.linking import EdgeChooser, Endpoint, LinkedEdge
from services.extraction.local.pointers import said_before
from services.extraction.local.rules import (
    clause_candidate,
    in_span,
    infer_type,
    marker_type,
    overlaps,
    told_before,
)
from services.extraction.local.segment import Clause
from services.extraction.models import DiscourseRelation, RelationKind
from services.extraction.wordclasses import CONJUNCTIONS, INTERJECTIONS

# the respondent's own frame is surer than the interviewer's question (whose guess has 0.55)
FRAME_CONFIDENCE = 0.65
# Words that may open a clause before a cleft's head ("Honestly, what put me off …", "Well, I think
# my biggest worry was …").
_OPENERS = INTERJECTIONS | SPOKEN_ADVERBS | CONJUNCTIONS | {"so", "i", "think", "guess", "mean", "mainly"}
_COPULAS = frozenset({"is", "was", "'s", "’s", "were", "are"})
# Words between the copula and the focus that belong to neither ("was just that …").
_FOCUS_LEADS = SPOKEN_ADVERBS | {"that", "mainly", "basically", "probably"}


@dataclass(frozen=True)
class Cleft:
    """One pseudo-cleft: the head's type, the clause between head and copula, and the focus."""

    node_type: str
    head: str
    gap: Clause | None
    focus: Clause
    copula_start: int  # token range of the copula and the words leading into the focus
    copula_end: int


def split_clefts(doc: Doc, parts: list[Clause], lex: CueLexicon) -> tuple[list[Clause], list[Cleft]]:
    """`parts` with each pseudo-cleft clause cut into its gap and focus (head and copula left out)."""
    heads = lex.cleft_heads(doc)
    if not heads:
        return parts, []
    spans: list[tuple[int, int]] = []
    # head, index of the gap (None: nothing between head and copula) and of the focus, copula range
    found: list[tuple[CleftHead, int | None, int, int, int]] = []
    for clause in parts:
        cut = _cleft_cut(doc, clause, heads)
        if cut is None:
            spans.append((clause.start, clause.end))
            continue
        head, copula, focus = cut
        gap = None
        if head.end < copula:
            gap = len(spans)
            spans.append((head.end, copula))
        found.append((head, gap, len(spans), copula, focus))
        spans.append((focus, clause.end))
    out = [Clause(i, start, end) for i, (start, end) in enumerate(spans)]
    clefts = [
        Cleft(head.node_type, head.text, None if gap is None else out[gap], out[focus], copula, start)
        for head, gap, focus, copula, start in found
    ]
    return out, clefts


def _cleft_cut(doc: Doc, clause: Clause, heads: list[CleftHead]) -> tuple[CleftHead, int, int] | None:
    """The head opening `clause`, its copula and where the focus starts; None for no cleft."""
    head = next(
        (h for h in heads if clause.start <= h.start and h.end < clause.end and _opens(doc, clause, h.start)),
        None,
    )
    if head is None:
        return None
    copula = next((i for i in range(head.end, clause.end) if doc[i].lower_ in _COPULAS), None)
    if copula is None:
        return None
    focus = copula + 1
    while focus < clause.end and (doc[focus].lower_ in _FOCUS_LEADS or doc[focus].is_punct):
        focus += 1
    return (head, copula, focus) if focus < clause.end else None


def _opens(doc: Doc, clause: Clause, start: int) -> bool:
    """Whether only openers ("honestly,", "I think") come before token `start` in `clause`."""
    return all(doc[i].is_punct or doc[i].lower_ in _OPENERS for i in range(clause.start, start))


def _names_thing(cand: Candidate) -> bool:
    """A noun item or a phrase cue: it names something whatever frame it stands in."""
    return cand.from_noun or cand.source.startswith("phrase:")


def apply_clefts(doc: Doc, clefts: list[Cleft], cands: list[Candidate], lex: CueLexicon) -> list[Candidate]:
    """Type each cleft's focus by its head; drop the gap's words unless they name a thing."""
    if not clefts:
        return cands
    gaps = {c.gap.index for c in clefts if c.gap is not None}
    foci = {c.focus.index for c in clefts}
    # the question's reading of a gap or a whole focus is rebuilt from the cleft below
    out = [
        c
        for c in cands
        if (c.clause not in gaps or _names_thing(c)) and not (c.clause in foci and c.source == "question")
    ]
    for cleft in clefts:
        inside = [c for c in out if c.clause == cleft.focus.index]
        items = [c for c in inside if not _names_thing(c)]
        for c in items:
            c.node_type, c.asked = cleft.node_type, False
        if items:
            continue
        # "(what put me off was that) the price went up twice": the focus is said of its subject
        cand = clause_candidate(
            doc,
            cleft.focus,
            cleft.node_type,
            lex,
            FRAME_CONFIDENCE,
            f"cleft:{cleft.head}",
            things=CLAUSE_OPENERS,
        )
        named = {i for c in inside for i in c.label_tokens}
        # "what sold me was the capsule machine": the focus is a thing already found, no criterion
        if cand is None or set(cand.label_tokens) <= named:
            continue
        # "the smell of fresh coffee" says more than the phrase "fresh coffee" inside it
        tokens = set(cand.label_tokens)
        out = [
            c
            for c in out
            if not (c in inside and c.node_type == cand.node_type and set(c.label_tokens) < tokens)
        ]
        out.append(cand)
    return sorted(out, key=lambda c: c.quote_start)


def cleft_links(
    doc: Doc,
    clefts: list[Cleft],
    cands: list[Candidate],
    lex: CueLexicon,
    chooser: EdgeChooser,
    anchor: Endpoint | None,
) -> list[LinkedEdge]:
    """Each cleft's focus linked to the first thing its gap names (the head: "energy drinks" in "the
    energy drinks from the vending machine"), else to what was said before or asked about ("What put
    me off was that …"), by `cleft_edges` first, then as a cause."""
    out: list[LinkedEdge] = []
    for cleft in clefts:
        focus = [c for c in cands if c.clause == cleft.focus.index and c.node_type == cleft.node_type]
        if not focus:
            continue
        gap = [c for c in cands if cleft.gap is not None and c.clause == cleft.gap.index]
        left = gap[0] if gap else said_before(cands, doc[cleft.copula_start].idx, anchor)
        if left is None:
            continue
        prefs = (
            lex.spec.cleft_edges.get(cleft.node_type, []) + lex.spec.edges.causal + lex.spec.edges.sequence
        )
        edge = chooser.choose(endpoint(left), endpoint(focus[0]), prefs, 0.6)
        if edge is not None:
            out.append(edge)
    return out


def stated_reasons(
    doc: Doc, parts: list[Clause], cands: list[Candidate], relations: list[DiscourseRelation], lex: CueLexicon
) -> tuple[list[Candidate], list[DiscourseRelation]]:
    """Apply `reason_types` to a reason already typed: the lead-in's type replaces the question's
    guess and a cue's type (an item said before keeps its own where the lexicon does not let
    question types override cues); the lead-in's
    own words are the frame and name no item (a thing named in it stays). A lead-in left with no item
    ("I gave up on it because …") refers back, as a connective opening the answer does."""
    out = list(cands)
    rels: list[DiscourseRelation] = []
    for rel in relations:
        rels.append(rel)
        if rel.relation is not RelationKind.CAUSE:
            continue
        found = lex.reason_type((rel.left.text if rel.left is not None else "") + " " + rel.marker)
        if found is None:
            continue
        reasons = [c for c in in_span(out, rel.right) if not _names_thing(c)]
        for c in reasons:
            guess = c.asked or c.weak or c.source == "question"
            # the answer's own framing outweighs a cue ("I think that was because | nobody chased the
            # booking": an explanation, whatever "nobody" cues); only an item said before in its own
            # words keeps its type where the question's type does not override cues either
            if guess or lex.spec.question_types_override_cues or c.source != "existing":
                c.node_type, c.asked = found.node_type, False
        frame_words = found.words - len(rel.marker.split())
        if rel.left is None or frame_words <= 0:
            continue
        words = list(re.finditer(r"\S+", rel.left.text))
        frame_start = rel.left.start + words[max(0, len(words) - frame_words)].start()
        out = [c for c in out if not _frame_word(doc, c, frame_start, rel.left.end)]
        before = doc.text[rel.left.start : frame_start].lower().split()
        if in_span(out, rel.left) or not all(w in STOP_WORDS for w in before):
            continue  # a bare reason is typed later from the lead-in (`rules.marker_type`)
        # "and I | gave up on them because": nothing of its own, the lead-in points back; the reason
        # is typed here, as the lead-in is gone from the relation
        rels[-1] = rel.model_copy(update={"left": None})
        clause = next((p for p in parts if overlaps(doc, p, rel.right.start, rel.right.end)), None)
        if not reasons and clause is not None:
            cand = clause_candidate(
                doc, clause, found.node_type, lex, FRAME_CONFIDENCE, f"stated:{rel.marker}"
            )
            out += [cand] if cand is not None else []
    return out, rels


def explained_by_reasons(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    relations: list[DiscourseRelation],
    lex: CueLexicon,
    chooser: EdgeChooser,
) -> None:
    """Retype the question's guess at what a stated reason explains.

    Asked "Why do you think the discharge nurse phoned you?", a respondent who answers "Everything
    was ready when he got home, and I think that was because they involved the family early" gives
    the reason the question asked for in the second clause; "that" points back to the first, which
    is what the reason explains. The question typed both clauses as attributions, and two items of
    one type have no causal edge between them, so the edge chooser made the explained clause a
    lesson. It is one step below the reason (an outcome here), as it is typed when the question asks
    nothing in particular (`rules.infer_bare_sides`)."""
    for rel in relations:
        if rel.relation is not RelationKind.CAUSE or rel.left is None or in_span(cands, rel.left):
            continue
        stated = marker_type(lex, rel)
        if stated is None:
            continue
        told, lower = told_before(doc, parts, rel), infer_type(chooser, lex, stated, higher=False)
        if told is None or lower is None:
            continue
        for c in cands:
            if c.clause == told.index and c.source == "question" and c.node_type == stated:
                c.node_type, c.asked, c.source = lower, False, f"explained:{rel.marker}"


def _frame_word(doc: Doc, cand: Candidate, start: int, end: int) -> bool:
    """Whether `cand` only says the frame: "chose it" in "I chose it because …" is no criterion,
    and "gave up on the instant" no event of its own (the reason's edge to the thing says it)."""
    first, last = doc[cand.label_tokens[0]], doc[cand.label_tokens[-1]]
    return not _names_thing(cand) and start <= first.idx and last.idx + len(last.text) <= end
