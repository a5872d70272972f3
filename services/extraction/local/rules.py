"""Rules that add candidates the cues alone miss, each switched on by a lexicon key.

* the bare side of a causal connective takes the next type up (or down) from the other side;
* `question_types`: the interviewer's question types the answer's predicate-like items;
* `property_type`: the subject of "<noun phrase> is <adjective>";
* `pair_subject_type`: what two items named together share ("A and B are easy to browse");
* `contrast_types`: the other side of "A whereas B" is A's counterpart type.
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from services.extraction.local.candidates import Candidate
from services.extraction.local.cues import CueLexicon
from services.extraction.local.linking import EdgeChooser, Endpoint
from services.extraction.local.segment import MAX_LABEL_WORDS, Clause, shape_label
from services.extraction.local.stance import stance_of
from services.extraction.models import DiscourseRelation, RelationKind, TextSpan

INFERRED_CONFIDENCE = 0.45


def infer_bare_sides(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    relations: list[DiscourseRelation],
    lex: CueLexicon,
    chooser: EdgeChooser,
    anchor: Endpoint | None,
) -> list[Candidate]:
    """A candidate for the bare side of a causal connective whose other side is typed."""
    out: list[Candidate] = []
    for rel in relations:
        if not rel.relation.is_causal:
            continue
        left = in_span(cands + out, rel.left) if rel.left is not None else []
        right = in_span(cands + out, rel.right)
        right_is_higher = rel.relation is not RelationKind.CAUSE or lex.spec.reason_direction == "up"
        if right or not (left or (rel.left is None and anchor is not None)):
            continue
        # infer from the event-like item nearest the connective, not from a participant noun
        events = [c for c in left if not c.from_noun] or left
        known_type = events[-1].node_type if events else anchor.node_type if anchor is not None else ""
        node_type = infer_type(chooser, lex, known_type, higher=right_is_higher)
        clause = next((c for c in parts if overlaps(doc, c, rel.right.start, rel.right.end)), None)
        if node_type is None or clause is None:
            continue
        cand = clause_candidate(doc, clause, node_type, lex, INFERRED_CONFIDENCE, f"inferred:{rel.marker}")
        if cand is not None:
            out.append(cand)
    return out


def question_typed(
    doc: Doc, parts: list[Clause], cands: list[Candidate], lex: CueLexicon, question: str
) -> list[Candidate]:
    """Apply `question_types`: retype predicate-like items; a candidate for each bare clause."""
    q = " ".join(question.lower().replace("’", "'").split())
    node_type = next(
        (t for t, phrases in lex.spec.question_types.items() if any(p in q for p in phrases)), None
    )
    if node_type is None:
        return []
    for c in cands:
        if not c.from_noun and not c.source.startswith("phrase:"):
            c.node_type = node_type
    used = {c.clause for c in cands if not c.from_noun}
    out: list[Candidate] = []
    for clause in parts:
        if clause.index in used:
            continue
        cand = clause_candidate(doc, clause, node_type, lex, INFERRED_CONFIDENCE + 0.1, "question")
        if cand is not None:
            out.append(cand)
    return out


def properties(
    doc: Doc, parts: list[Clause], cands: list[Candidate], lex: CueLexicon, chunks: list[Span]
) -> list[Candidate]:
    """Apply `property_type`: the subject of "<noun phrase> is <adjective>" ("the clamp is gentle")."""
    node_type = lex.spec.property_type
    if node_type is None:
        return []
    taken = {i for c in cands for i in range(c.quote_start, c.quote_end)}
    out: list[Candidate] = []
    for chunk in chunks:
        j = chunk.end
        if j >= len(doc) or doc[j].lemma_ != "be":
            continue
        j += 1
        while j < len(doc) and doc[j].pos_ == "ADV":
            j += 1
        clause = next((c for c in parts if c.contains(chunk.start)), None)
        if j >= len(doc) or doc[j].pos_ != "ADJ" or clause is None or not clause.contains(j):
            continue
        if any(i in taken for i in range(chunk.start, chunk.end)):
            continue
        cand = clause_candidate(
            doc,
            Clause(clause.index, chunk.start, chunk.end),
            node_type,
            lex,
            INFERRED_CONFIDENCE + 0.1,
            "property",
        )
        if cand is not None:
            cand.from_noun = True
            cand.quote_end = j + 1
            cand.char_end = doc[j].idx + len(doc[j].text)
            out.append(cand)
    return out


def pair_subjects(doc: Doc, parts: list[Clause], cands: list[Candidate], lex: CueLexicon) -> list[Candidate]:
    """Apply `pair_subject_type`: "A and B are easy to browse" → "easy to browse"."""
    node_type = lex.spec.pair_subject_type
    if node_type is None:
        return []
    out: list[Candidate] = []
    for clause in parts:
        verb = next((i for i in range(clause.start, clause.end) if doc[i].pos_ in {"VERB", "AUX"}), None)
        if verb is None:
            continue
        inside = [c for c in cands if c.clause == clause.index]
        subjects = [c for c in inside if c.from_noun and c.quote_end <= verb]
        if len(subjects) < 2 or any(not c.from_noun and c.quote_start >= verb for c in inside):
            continue
        cand = clause_candidate(
            doc,
            Clause(clause.index, verb + 1, clause.end),
            node_type,
            lex,
            INFERRED_CONFIDENCE + 0.1,
            "pair_subject",
        )
        if cand is not None:
            out.append(cand)
    return out


def contrasts(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    relations: list[DiscourseRelation],
    lex: CueLexicon,
) -> list[Candidate]:
    """Apply `contrast_types`: the bare side of "A whereas B" becomes A's counterpart type."""
    out: list[Candidate] = []
    for rel in relations:
        if rel.relation not in (RelationKind.CONTRAST, RelationKind.CONCESSION) or rel.left is None:
            continue
        left_types = {c.node_type for c in in_span(cands, rel.left)}
        wanted = next((lex.spec.contrast_types[t] for t in left_types if t in lex.spec.contrast_types), None)
        right = in_span(cands + out, rel.right)
        if wanted is None or any(c.node_type == wanted for c in right):
            continue
        clause = next((c for c in parts if overlaps(doc, c, rel.right.start, rel.right.end)), None)
        if clause is None:
            continue
        # the predicate after the first verb: "YouTube is mostly random clips" -> "mostly random clips"
        verb = next((i for i in range(clause.start, clause.end) if doc[i].pos_ in {"VERB", "AUX"}), None)
        if verb is None:
            continue
        sub = Clause(clause.index, verb + 1, clause.end)
        cand = clause_candidate(doc, sub, wanted, lex, INFERRED_CONFIDENCE + 0.1, f"contrast:{rel.marker}")
        if cand is not None:
            out.append(cand)
    return out


def clause_candidate(
    doc: Doc, clause: Clause, node_type: str, lex: CueLexicon, confidence: float, source: str
) -> Candidate | None:
    """A candidate of `node_type` from a whole clause (its predicate when the clause is long)."""
    tokens = list(range(clause.start, clause.end))
    verb = next((i for i in tokens if doc[i].pos_ in {"VERB", "AUX"}), None)
    if len(tokens) > MAX_LABEL_WORDS and verb is not None and verb > clause.start:
        tokens = tokens[verb - clause.start :]  # too long for a label: keep the predicate
    shaped = shape_label(doc, tokens)
    if shaped is None:
        return None
    label, kept = shaped
    content = {doc[i].lemma_.lower() for i in kept if not doc[i].is_stop and doc[i].is_alpha}
    if not content or content <= lex.ignore:
        return None
    start = min(kept[0], tokens[0])
    return Candidate(
        label=label,
        node_type=node_type,
        label_tokens=kept,
        quote_start=start,
        quote_end=clause.end,
        clause=clause.index,
        confidence=confidence,
        source=source,
        char_start=doc[start].idx,
        char_end=doc[clause.end - 1].idx + len(doc[clause.end - 1].text),
        stance=stance_of(doc, clause.start, clause.end),
    )


def overlaps(doc: Doc, clause: Clause, start: int, end: int) -> bool:
    """Whether `clause` overlaps the character range [start, end)."""
    a = doc[clause.start].idx
    b = doc[clause.end - 1].idx + len(doc[clause.end - 1].text)
    return a < end and start < b


def in_span(cands: list[Candidate], span: TextSpan) -> list[Candidate]:
    """Candidates overlapping `span`, in text order."""
    return sorted(
        (c for c in cands if c.char_start < span.end and span.start < c.char_end), key=lambda c: c.char_start
    )


def infer_type(chooser: EdgeChooser, lex: CueLexicon, known: str, *, higher: bool) -> str | None:
    """The node type one step up (or down) from `known` that a causal edge may connect to."""
    base = chooser.level(known)
    options: list[tuple[int, int, str]] = []
    for order, node in enumerate(lex.methodology.ontology.nodes):
        step = node.level - base if higher else base - node.level
        if step <= 0:
            continue
        ok = any(
            chooser.permitted(e, known, node.name) if higher else chooser.permitted(e, node.name, known)
            for e in lex.spec.edges.causal
        )
        if ok:
            options.append((step, order, node.name))
    return min(options)[2] if options else None
