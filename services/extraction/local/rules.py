"""Rules that add candidates the cues alone miss, each switched on by a lexicon key.

* the bare side of a causal connective takes the next type up (or down) from the other side;
* `question_types`: the interviewer's question types the answer's predicate-like items (with
  `question_types_override_cues: false`, only those no cue of their own typed);
* `property_type`: the subject of "<noun phrase> is <adjective>";
* `pair_subject_type`: what two items named together share ("A and B are easy to browse");
* `contrast_types`: the other side of "A whereas B" is A's counterpart type;
* `placement_type`: the pole named in "on the <pole> side" ("I'd put Netflix on the adverts side").
"""

from __future__ import annotations

from spacy.tokens import Doc, Span

from services.extraction.local.candidates import Candidate, is_content
from services.extraction.local.cues import CueLexicon, CueMode
from services.extraction.local.labels import shape_label
from services.extraction.local.labelwords import MAX_LABEL_WORDS, POSSESSIVES
from services.extraction.local.linking import EdgeChooser, Endpoint
from services.extraction.local.pointers import antecedent, points_back
from services.extraction.local.remention import only_names
from services.extraction.local.segment import Clause, strip_frames
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
        # a participant ("the discharge nurse") does not make a side typed: the event is still bare
        left = _events(in_span(cands + out, rel.left) if rel.left is not None else [], chooser, lex)
        right = _events(in_span(cands + out, rel.right), chooser, lex)
        right_is_higher = rel.relation is not RelationKind.CAUSE or lex.spec.reason_direction == "up"
        if right:
            out += _bare_left(doc, parts, cands + out, rel, left, right, lex, chooser, right_is_higher)
        else:
            out += _bare_right(doc, parts, cands + out, rel, left, lex, chooser, anchor, right_is_higher)
    return out


def _bare_left(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    rel: DiscourseRelation,
    left: list[Candidate],
    right: list[Candidate],
    lex: CueLexicon,
    chooser: EdgeChooser,
    right_is_higher: bool,
) -> list[Candidate]:
    """ "For me [being sensible with money] matters because ultimately it's about security": the bare
    left side is the rung below (or, for an effect, above) the typed right side."""
    if left or rel.left is None or points_back(rel.left.text):
        return []
    known = ([c for c in right if not c.from_noun] or right)[0].node_type
    node_type = infer_type(chooser, lex, known, higher=not right_is_higher)
    span = rel.left
    clause = next((c for c in reversed(parts) if overlaps(doc, c, span.start, span.end)), None)
    if node_type is None or clause is None or only_names(doc, clause, cands) is not None:
        return []
    cand = clause_candidate(doc, clause, node_type, lex, INFERRED_CONFIDENCE, f"inferred:{rel.marker}")
    return [cand] if cand is not None else []


def _bare_right(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    rel: DiscourseRelation,
    left: list[Candidate],
    lex: CueLexicon,
    chooser: EdgeChooser,
    anchor: Endpoint | None,
    right_is_higher: bool,
) -> list[Candidate]:
    """The bare right side, typed by the connective's lead-in (`reason_types`) or one step from the
    left side's type (or from what a back-pointing left side refers to)."""
    # infer from the event-like item nearest the connective, not from a participant noun
    events = [c for c in left if not c.from_noun] or left
    referent = None if left else antecedent(doc, cands, rel, anchor)
    stated = marker_type(lex, rel)
    told = told_before(doc, parts, rel) if stated and not events else None
    if told is not None and not isinstance(referent, Candidate):
        # "Everything was ready when he got home, and I think that was because Y": "that" is the
        # answer's own bare clause before it, even when the question named a node (the nurse)
        referent = None
    if events:
        known_type = events[-1].node_type
    elif referent is not None:
        known_type = referent.node_type
    elif stated is None:
        return []
    else:
        known_type = ""
    node_type = stated or infer_type(chooser, lex, known_type, higher=right_is_higher)
    clause = next((c for c in parts if overlaps(doc, c, rel.right.start, rel.right.end)), None)
    if node_type is None or clause is None or only_names(doc, clause, cands) is not None:
        return []
    cand = clause_candidate(doc, clause, node_type, lex, INFERRED_CONFIDENCE, f"inferred:{rel.marker}")
    out = [cand] if cand is not None else []
    if told is not None and referent is None:
        # the clause the explanation points back to is bare too: it is what was explained (one
        # step below)
        lower = infer_type(chooser, lex, node_type, higher=False)
        prev = None
        if lower is not None:
            prev = clause_candidate(doc, told, lower, lex, INFERRED_CONFIDENCE, f"explained:{rel.marker}")
        if prev is not None:
            out.append(prev)
    return out


def told_before(doc: Doc, parts: list[Clause], rel: DiscourseRelation) -> Clause | None:
    """The answer's clause right before a connective's left side ("and I think that was")."""
    if rel.left is None:
        return None
    before = [c for c in parts if doc[c.end - 1].idx < rel.left.start]
    return before[-1] if before else None


def participant_types(chooser: EdgeChooser, lex: CueLexicon) -> frozenset[str]:
    """The types of someone or something taking part: a type only ever pointed at, or one a
    participant edge points at that is found by its nouns."""
    return chooser.participants | lex.noun_participants


def _events(cands: list[Candidate], chooser: EdgeChooser, lex: CueLexicon) -> list[Candidate]:
    """The items of a side that make it typed: not a participant named by a noun ("the driver" in
    "the driver helped me carry everything upstairs" leaves the doing itself bare)."""
    taking_part = participant_types(chooser, lex)
    return [c for c in cands if not (c.from_noun and c.node_type in taking_part)]


def marker_type(lex: CueLexicon, rel: DiscourseRelation) -> str | None:
    """Apply `reason_types`: the type of what a connective introduces, by the words leading into it.

    "…, and I think that was because Y" explains what happened (an attribution); "what I took from
    it is that Y" draws a lesson.
    """
    found = lex.reason_type((rel.left.text if rel.left is not None else "") + " " + rel.marker)
    return found.node_type if found is not None else None


# Connectives that move a story on in time; a clause they join is an event of the story.
SEQUENCE_MARKERS = frozenset({"and then", "then", "after that", "next", "afterwards", "at that point"})


def sequence_events(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    relations: list[DiscourseRelation],
    lex: CueLexicon,
) -> list[Candidate]:
    """Apply `sequence_types`: "I missed my train twice, and then I saw a colleague's machine" tells two
    events in order even when no cue types them; each side without an event gets one."""
    types = lex.spec.sequence_types
    if not types:
        return []
    out: list[Candidate] = []
    for rel in relations:
        if rel.marker not in SEQUENCE_MARKERS or rel.left is None or points_back(rel.left.text):
            continue
        sides = (rel.left, rel.right)
        events = [[c for c in in_span(cands + out, span) if not c.from_noun] for span in sides]
        typed = [c.node_type for side in events for c in side if c.node_type in types]
        node_type = typed[0] if typed else types[0]
        for span, found in zip(sides, events, strict=True):
            if found:
                continue
            near_marker = reversed(parts) if span is rel.left else iter(parts)
            clause = next((c for c in near_marker if overlaps(doc, c, span.start, span.end)), None)
            if clause is None:
                continue
            cand = clause_candidate(
                doc, clause, node_type, lex, INFERRED_CONFIDENCE, f"sequence:{rel.marker}"
            )
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
    siblings = set(lex.spec.question_type_siblings.get(node_type, ()))
    for c in cands:
        if c.from_noun or c.source.startswith("phrase:"):
            continue
        if c.node_type in siblings and _typed_by_cue(c):
            continue
        if c.node_type != node_type and (lex.spec.question_types_override_cues or not _typed_by_cue(c)):
            c.node_type, c.asked = node_type, True
    used = {c.clause for c in cands if not c.from_noun}
    out: list[Candidate] = []
    for clause in parts:
        if clause.index in used or only_names(doc, clause, cands) is not None:
            continue
        cand = clause_candidate(doc, clause, node_type, lex, INFERRED_CONFIDENCE + 0.1, "question")
        if cand is not None:
            out.append(cand)
    return out


def _typed_by_cue(cand: Candidate) -> bool:
    """Whether a cue of its own type found `cand` ("{i was readmitted}": an outcome, whatever the
    question asked); a weak cue's type yields to the question's."""
    mode = cand.source.split(":", 1)[0]
    return mode in _CUE_MODES and not cand.weak


# Cue modes that type the span they find (a phrase or noun cue names a thing and is left alone above);
# a candidate's source starts with its cue's mode ("after:{i was readmitted}")
_CUE_MODES = frozenset({CueMode.AFTER, CueMode.BEFORE, CueMode.CLAUSE, CueMode.CHUNK_AFTER})


# Subordinators of time that make "<noun phrase> is <adjective>" a circumstance ("when the carriage is
# noisy"); a condition stays a property ("if the clamp is gentle I can keep them on")
_CIRCUMSTANCE = frozenset({"when", "whenever", "while", "until"})


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
        k = chunk.start - 1
        while k >= 0 and doc[k].pos_ in {"DET", "PRON"} and doc[k].lower_ not in _CIRCUMSTANCE:
            k -= 1
        if k >= 0 and doc[k].lower_ in _CIRCUMSTANCE:
            continue  # "even when the carriage is noisy": a circumstance, not a property of the product
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


_PLACE_LEADS = frozenset({"on", "at", "towards", "toward", "nearer", "closer"})
_PLACE_ENDS = frozenset({"side", "end"})


def placements(doc: Doc, parts: list[Clause], cands: list[Candidate], lex: CueLexicon) -> list[Candidate]:
    """Apply `placement_type`: the pole named in "on the <pole> side" / "at the <pole> end"
    ("I'd put Disney+ firmly on the 'scrolling for half an hour' side"). The element placed there
    is linked to it like any participant of the clause."""
    node_type = lex.spec.placement_type
    if node_type is None:
        return []
    taken = {i for c in cands for i in c.label_tokens}
    out: list[Candidate] = []
    for clause in parts:
        for i in range(clause.start, clause.end - 2):
            if doc[i].lower_ not in _PLACE_LEADS or doc[i + 1].lower_ not in {"the", "to"}:
                continue
            start = i + 2 if doc[i + 1].lower_ == "the" else i + 3  # "closer to the … end"
            if start < clause.end and doc[start - 1].lower_ != "the":
                continue
            end = next(
                (
                    j
                    for j in range(start + 1, min(clause.end, start + MAX_LABEL_WORDS + 3))
                    if doc[j].lower_ in _PLACE_ENDS
                ),
                None,
            )
            if end is None or any(k in taken for k in range(start, end)):
                continue
            cand = clause_candidate(
                doc, Clause(clause.index, start, end), node_type, lex, INFERRED_CONFIDENCE + 0.1, "placement"
            )
            if cand is not None:
                out.append(cand)
                taken.update(cand.label_tokens)
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
        # the predicate after the first verb: "YouTube is mostly random clips" -> "mostly random clips";
        # a verbless side is the item itself ("on one side it's X, on the other constant adverts")
        verb = next((i for i in range(clause.start, clause.end) if doc[i].pos_ in {"VERB", "AUX"}), None)
        sub = Clause(clause.index, verb + 1, clause.end) if verb is not None else clause
        cand = clause_candidate(doc, sub, wanted, lex, INFERRED_CONFIDENCE + 0.1, f"contrast:{rel.marker}")
        if cand is not None:
            out.append(cand)
    return out


def clause_candidate(
    doc: Doc,
    clause: Clause,
    node_type: str,
    lex: CueLexicon,
    confidence: float,
    source: str,
    *,
    things: frozenset[str] = POSSESSIVES,
) -> Candidate | None:
    """A candidate of `node_type` from a whole clause (its predicate when the clause is long, unless
    the subject is a short noun phrase opened by one of `things`)."""
    tokens = strip_frames(doc, list(range(clause.start, clause.end)))
    if not tokens:
        return None
    verb = next((i for i in tokens if doc[i].pos_ in {"VERB", "AUX"}), None)
    if len(tokens) > MAX_LABEL_WORDS and verb is not None:
        # "the consultant said at nine that I was fit to leave": too long for a label, and what was
        # said is the item, not the saying ("at nine that I" was all a cut left of it)
        tokens = _reported(doc, tokens, verb) or tokens
        verb = next((i for i in tokens if doc[i].pos_ in {"VERB", "AUX"}), None)
    if len(tokens) > MAX_LABEL_WORDS and verb is not None and verb > clause.start:
        subject = [i for i in tokens if i < verb]
        if not _named_subject(doc, subject, things):
            # too long for a label: keep the predicate. A subject of the respondent's own ("my
            # heart", "my wife") stays: "started racing" is said back as what the respondent did
            tokens = [i for i in tokens if i >= verb]
    shaped = shape_label(doc, tokens)
    if shaped is None:
        return None
    label, kept = shaped
    content = {doc[i].lemma_.lower() for i in kept if is_content(doc[i]) and doc[i].is_alpha}
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


# Verbs that report what someone said ("the nurse told me that …").
_REPORTING = frozenset({"said", "told", "explained", "announced", "confirmed", "mentioned", "says", "tells"})


def _reported(doc: Doc, tokens: list[int], verb: int) -> list[int] | None:
    """What a clause reports, when its main verb reports speech and "that" opens the rest within a
    few words ("said (at nine) that …"); None otherwise."""
    if doc[verb].lower_ not in _REPORTING:
        return None
    that = next((i for i in tokens if verb < i <= verb + 4 and doc[i].lower_ == "that"), None)
    rest = [i for i in tokens if that is not None and i > that]
    return rest if len(rest) >= 2 else None


def _named_subject(doc: Doc, subject: list[int], openers: frozenset[str]) -> bool:
    """Whether `subject` is a short noun phrase opened by one of `openers` ("my heart")."""
    return (
        2 <= len(subject) <= 3
        and doc[subject[0]].lower_ in openers
        and doc[subject[-1]].pos_ in {"NOUN", "PROPN"}
        and all(doc[i].pos_ in {"ADJ", "NOUN", "PROPN"} for i in subject[1:])
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
