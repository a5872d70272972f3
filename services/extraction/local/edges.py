"""Edges between candidates: from discourse relations, within a clause, in sequence, and to the
existing node the question is about (the anchor)."""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise, permutations

from spacy.tokens import Doc

from services.extraction.local.candidates import Candidate
from services.extraction.local.cues import CueLexicon
from services.extraction.local.linking import EdgeChooser, Endpoint, LinkedEdge
from services.extraction.local.pointers import antecedent
from services.extraction.local.rules import in_span, infer_type
from services.extraction.local.segment import Clause
from services.extraction.models import DiscourseRelation, RelationKind

# Questions that ask the respondent to choose between the node they name and its opposite ("which
# side of X …", "if you had to choose between X and the opposite …"), or to rank several ("if you
# ranked A, B and X by how much they matter …"): the node named last is not what the answer is about.
_CHOOSE_SIDE = re.compile(
    r"\bwhich side of\b|\bwhich (?:end|pole) (?:of|do you)\b|\bchoose between\b"
    r"|\bif you (?:ranked|had to rank)\b",
    re.IGNORECASE,
)
# Questions that ask about the node they name (its reasons, effects, parts or qualities).
_PROBE = re.compile(
    r"\bwhy\b|\bwhat (?:does|did|do) (?:that|it|this)\b|\bhow (?:does|did|do) (?:that|it|this)\b"
    r"|\bwhat happened\b|\bwhat (?:was|is) (?:the )?(?:result|outcome|effect|wrong|good|bad|great)\b"
    r"|\bwhere would you put\b|\bwhich do you prefer\b|\bwhat (?:do|did) you (?:like|dislike|love|hate)\b"
    r"|\bwhat made you\b|\bhow did (?:that|it|you) feel\b"
    # the interviewer's laddering questions: "how does X make a difference for you?", "what does X
    # give you?", "what does X do for you?", "… make possible for you", "… help you achieve"
    r"|\bmake a difference for you\b|\bgive you\b|\bdo for you\b|\bmake possible\b|\bhelp you achieve\b"
    # and its questions about an incident's result: "how did X turn out?", "how did X affect you?"
    r"|\bturn out\b|\baffect you\b",
    re.IGNORECASE,
)
# Answers that name an instance of what the question asked about ("Prime Video is a good example").
_EXAMPLE = re.compile(
    r"\ban? (?:good |great |perfect |typical |classic |prime )?example\b|\bfor (?:example|instance)\b",
    re.IGNORECASE,
)
_SEQUENCE_CUES = frozenset({"then", "afterwards", "after", "next", "later", "finally", "eventually"})
# what may come before the cue that opens an answer ("Right, so, and then …")
_LEAD_WORDS = frozenset({"and", "so", "right", "well", "okay", "ok", "um", "uh", "hmm", "yes", "yeah"})


def link_candidates(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    relations: list[DiscourseRelation],
    lex: CueLexicon,
    chooser: EdgeChooser,
    anchor: Endpoint | None,
    question: str,
    given: list[LinkedEdge] | None = None,
    follows: tuple[Endpoint, Candidate] | None = None,
) -> list[LinkedEdge]:
    """Every edge the ontology allows between the answer's candidates (and the question's anchor);
    `given` are edges found already (they count when asking whether the anchor is linked);
    `follows` is the event the last answer ended on and this answer's opening event, which goes on
    from it ("Then I check out in the app.", see `opening_event`)."""
    prefs = lex.spec.edges
    up = lex.spec.reason_direction == "up"
    edges: list[LinkedEdge] = []

    def link(
        first: Candidate | Endpoint,
        second: Candidate | Endpoint,
        preferences: list[str],
        confidence: float,
        *,
        orient_by_level: bool = True,
        coerce: bool = False,
        stated: bool = False,
    ) -> None:
        # `first` -> `second` is the preferred direction when the levels do not decide it.
        if (
            _same_item(first.label, second.label)
            and not (preferences is prefs.participant and _doer_and_doing(first, second))
            and not (stated and _thing_in_doing(first, second))
        ):
            return  # "battery life … long battery life": one item mentioned twice
        if up and isinstance(second, Candidate) and second.weak:
            if isinstance(first, Candidate) and first.node_type == second.node_type:
                # "saving money lets me spend on trips": a generic cue continuing a chain of its
                # own type is the next rung up
                higher = infer_type(chooser, lex, first.node_type, higher=True)
                if higher is not None:
                    second.node_type = higher
            elif isinstance(first, Endpoint) and chooser.level(second.node_type) < chooser.level(
                first.node_type
            ):
                # an answer to "why is X important?" does not fall below X's rung
                second.node_type = first.node_type
        edge = chooser.choose(
            endpoint(first), endpoint(second), preferences, confidence, orient_by_level=orient_by_level
        )
        if edge is None and coerce and lex.spec.retype_same_type_links:
            edge = _coerced(chooser, first, second, preferences, confidence)
        if edge is not None:
            edges.append(edge)

    for rel in relations:
        right = sorted(in_span(cands, rel.right), key=lambda c: abs(c.char_start - rel.marker_span.end))
        if rel.relation.is_causal:
            right = _told_of_first(right)
        left: list[Candidate | Endpoint] = []
        if rel.left is not None:
            left += _heads_first(doc, _nearest_first(in_span(cands, rel.left), rel.marker_span.start))
        if not left:
            # "That's important to me because Y", "…, and I think that was because Y": the left side
            # only points back — at the item said just before, or at what the question asked about
            referent = antecedent(doc, cands, rel, anchor)
            if referent is not None:
                left.append(referent)
        # the closest pair the ontology can connect
        # ("A both have X, whereas B is Y": X and Y, not X and B)
        for near_l, near_r in _pairs(left[:3], right[:3]):
            before = len(edges)
            if rel.relation.is_causal:
                # laddering methods read "X because Y" as "X matters because of Y" (X -> Y); event
                # methods as "Y brought about X" (Y -> X)
                if not up and rel.relation is RelationKind.CAUSE:
                    link(near_r, near_l, prefs.causal + prefs.sequence, 0.6, coerce=True, stated=True)
                else:
                    link(near_l, near_r, prefs.causal + prefs.sequence, 0.6, coerce=True, stated=True)
            elif rel.relation in (RelationKind.CONTRAST, RelationKind.CONCESSION):
                link(near_l, near_r, prefs.contrast, 0.55, orient_by_level=False)
            elif rel.relation is RelationKind.ELABORATION and near_l.node_type != near_r.node_type:
                link(near_l, near_r, prefs.intra, 0.5)
            if len(edges) > before:
                break
    for clause in parts:  # two items in one clause: "the long battery life saves me time"
        inside = [c for c in cands if c.clause == clause.index]
        for a, b in pairwise(inside):
            if a.node_type != b.node_type or b.weak:
                link(a, b, prefs.intra, 0.55)
        if prefs.participant:
            for noun in (c for c in inside if c.from_noun):
                for other in (c for c in inside if not c.from_noun):
                    link(other, noun, prefs.participant, 0.55)
            # "my daughter picked me up": the doing keeps its doer in its label, and involves it
            for doer, doing in permutations(inside, 2):
                if _doer_and_doing(doer, doing) and len(doer.label) < len(doing.label):
                    link(doing, doer, prefs.participant, 0.55)
    if prefs.participant:
        # "…, and the consultant was the one dealing with it": a participant said to be "the one"
        # took part in what the clause before told
        for told, clause in pairwise(parts):
            nouns = [c for c in cands if c.clause == clause.index and c.from_noun]
            if (
                not nouns
                or not _the_one(doc, clause)
                or any(c.clause == clause.index and not c.from_noun for c in cands)
            ):
                continue
            for event in (c for c in cands if c.clause == told.index and not c.from_noun):
                link(event, nouns[0], prefs.participant, 0.55)
    edges += _sequence(doc, cands, lex, chooser, follows)
    if anchor is not None and prefs.example and _EXAMPLE.search(doc.text):
        # "Prime Video is a good example of that": an instance of what the question asked about
        for cand in cands:
            link(anchor, cand, prefs.example, 0.6, orient_by_level=False)
    anchor_linked = anchor is not None and any(
        anchor.label in (e.source.label, e.target.label) for e in edges + (given or [])
    )
    # "Which side of constant adverts appeals to you more, and why?" asks the respondent to choose a
    # side: the answer names the one chosen ("I want no ads at all so that it feels like it's on my
    # side"), which need not be the node asked about
    choose_side = _CHOOSE_SIDE.search(question) is not None
    if anchor is not None and cands and not anchor_linked and not choose_side and _PROBE.search(question):
        # "why is X important?" may stay on X's level; "what do you like about X?" must go up
        min_step = 0 if re.search(r"\bwhy\b", question, re.IGNORECASE) else 1
        for cand in cands[:2]:
            if up and chooser.level(cand.node_type) - chooser.level(anchor.node_type) < min_step:
                continue
            before = len(edges)
            link(anchor, cand, prefs.causal + prefs.intra, 0.5)
            if len(edges) > before:
                break
    return edges


# Candidates typed by a weak guess rather than a cue of their own; their type yields first.
_SOFT_SOURCES = ("question", "inferred", "property", "pair_subject", "contrast")


def _coerced(
    chooser: EdgeChooser,
    first: Candidate | Endpoint,
    second: Candidate | Endpoint,
    preferences: list[str],
    confidence: float,
) -> LinkedEdge | None:
    """An edge after retyping one side, when a stated causal link joins two items of one type.

    "The transport never turned up, and because of that nobody checked on him": two incidents may
    not lead to each other, but the respondent says one caused the other, so the effect is the next
    kind of item (an action). The side whose type is a guess (question-typed, inferred) yields; with
    two cue-typed items of the same type, the effect does. The new type is the nearest in level.
    """
    if first.node_type != second.node_type:
        return None  # two different types that may not link: the text's link is likely not theirs
    soft = [
        c
        for c in (second, first)
        if isinstance(c, Candidate) and (c.weak or c.source.startswith(_SOFT_SOURCES))
    ]
    options = soft or ([second] if isinstance(second, Candidate) else [])
    options = [c for c in options if c.source != "existing"]  # a node from an earlier turn keeps its type
    # so does a thing or person named by a noun ("the driver carried the bags": the bags are no
    # emotion the driver evoked)
    options = [c for c in options if not (isinstance(c, Candidate) and c.from_noun)]
    for cand in options:
        other = first if cand is second else second
        current = chooser.level(cand.node_type)
        types = sorted(
            (n for n in chooser.node_types() if n != cand.node_type),
            key=lambda t: (abs(chooser.level(t) - current), -chooser.level(t)),
        )
        for t in types:
            trial = Endpoint(cand.label, t, cand.char_start, cand.char_end)
            pair = (endpoint(other), trial) if cand is second else (trial, endpoint(other))
            edge = chooser.choose(*pair, preferences, confidence)
            if edge is not None:
                cand.node_type = t
                return edge
    return None


def _the_one(doc: Doc, clause: Clause) -> bool:
    """Whether `clause` says someone "was the one" ("the nurse was the one who sorted it")."""
    words = [doc[i].lower_ for i in range(clause.start, clause.end)]
    return any(
        a in {"was", "is", "were", "are", "'s"} and b == "the" and c in {"one", "ones"}
        for a, b, c in zip(words, words[1:], words[2:], strict=False)
    )


def _sequence(
    doc: Doc,
    cands: list[Candidate],
    lex: CueLexicon,
    chooser: EdgeChooser,
    follows: tuple[Endpoint, Candidate] | None,
) -> list[LinkedEdge]:
    seq = [c for c in cands if c.node_type in lex.spec.sequence_types]
    out: list[LinkedEdge] = []
    pairs: list[tuple[Candidate | Endpoint, Candidate]] = list(pairwise(seq))
    if follows is not None and not _same_item(follows[0].label, follows[1].label):  # not told again
        pairs.insert(0, follows)
    for a, b in pairs:
        if isinstance(a, Candidate):
            window = range(a.quote_end, min(b.label_tokens[0] + 2, len(doc)))
            if not any(doc[i].lower_ in _SEQUENCE_CUES for i in window):
                continue
        edge = chooser.choose(endpoint(a), endpoint(b), lex.spec.edges.sequence, 0.55, orient_by_level=False)
        if edge is not None:
            out.append(edge)
    return out


def opening_event(doc: Doc, cands: list[Candidate], lex: CueLexicon) -> Candidate | None:
    """The answer's first event (of a sequence type, `cands` in text order) when the answer opens
    with a sequence cue right before it ("Then I check out in the app.", "And after that, I …"):
    the answer goes on from the last one; None otherwise."""
    first = next((c for c in cands if c.node_type in lex.spec.sequence_types), None)
    if first is None:
        return None
    lead = [t for t in doc[: first.label_tokens[0]] if not t.is_punct]
    cue = next((i for i, t in enumerate(lead) if t.lower_ in _SEQUENCE_CUES), None)
    opens = cue is not None and all(t.lower_ in _LEAD_WORDS for t in lead[:cue]) and len(lead) <= cue + 3
    return first if opens else None


def _nearest_first(cands: list[Candidate], position: int) -> list[Candidate]:
    """Candidates ending before `position`, closest first."""
    return sorted(cands, key=lambda c: abs(c.char_end - position))


def _put_ahead(ordered: list[Candidate], ahead: Callable[[Candidate, Candidate], bool]) -> list[Candidate]:
    """`ordered` with each item `a` moved just ahead of each other item `b` where `ahead(a, b)`."""
    out = list(ordered)
    for a in ordered:
        for b in ordered:
            if a is b or not ahead(a, b):
                continue
            i, j = out.index(a), out.index(b)
            if j < i:
                out.insert(j, out.pop(i))
    return out


def _heads_first(doc: Doc, ordered: list[Candidate]) -> list[Candidate]:
    """`ordered` with an item ahead of one that only says where it came from: in "I stopped using the
    energy drinks from the vending machine because …" the reason is the drinks', not the machine's."""
    return _put_ahead(
        ordered,
        lambda a, b: (
            a.node_type == b.node_type and [t.lower_ for t in doc[a.quote_end : b.quote_start]] in _FROM
        ),
    )


def _told_of_first(ordered: list[Candidate]) -> list[Candidate]:
    """`ordered` with what a clause tells of its subject ahead of the subject: in "… because the
    energy drinks made me jittery" the reason is being made jittery, not the drinks (the clause
    links the two itself)."""
    return _put_ahead(
        ordered,
        lambda told, subject: (
            subject.from_noun
            and not told.from_noun
            and told.clause == subject.clause
            and told.quote_start == subject.quote_end
            and told.node_type != subject.node_type
        ),
    )


# What stands between an item and the place it came from ("energy drinks | from the | vending machine").
_FROM = (["from"], ["from", "the"], ["from", "a"], ["from", "our"], ["from", "my"])


def _pairs(
    left: list[Candidate | Endpoint], right: list[Candidate]
) -> list[tuple[Candidate | Endpoint, Candidate]]:
    """Left × right in order of closeness to the connective (inputs are sorted by it)."""
    pairs = [
        (i + j, n, (lc, rc)) for i, lc in enumerate(left) for j, rc in enumerate(right) for n in [i * 10 + j]
    ]
    return [p for _, _, p in sorted(pairs, key=lambda t: (t[0], t[1]))]


def endpoint(c: Candidate | Endpoint) -> Endpoint:
    """`c` as an edge end."""
    if isinstance(c, Endpoint):
        return c
    return Endpoint(c.label, c.node_type, c.char_start, c.char_end)


def _same_item(a: str, b: str) -> bool:
    wa, wb = set(a.split()), set(b.split())
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def _thing_in_doing(a: Candidate | Endpoint, b: Candidate | Endpoint) -> bool:
    """Whether one side is a thing named by its noun, of another type than the item whose words hold
    it: "waiting at the café took too long, which was down to the café" gives the café as the
    reason for the wait, two items, though the wait's label names the café."""
    return a.node_type != b.node_type and any(isinstance(c, Candidate) and c.from_noun for c in (a, b))


def _doer_and_doing(a: Candidate | Endpoint, b: Candidate | Endpoint) -> bool:
    """Whether one label opens the other and names another kind of item: the doer and its doing
    ("daughter" and "daughter picked me up"), not one item said twice."""
    if a.node_type == b.node_type:
        return False
    short, long = sorted((a.label.split(), b.label.split()), key=len)
    return len(short) < len(long) and long[: len(short)] == short
