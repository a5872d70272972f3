"""Items said again: an existing node's label found in the answer becomes a candidate.

Respondents restate what they said before and then build on it ("I have money left over for
holidays, which matters because ultimately it's about being responsible with money"). Cues alone
often miss the restated part (it was typed by the question or the context in its own turn), so the
link to the new item would be lost. A re-mention keeps the existing node's label and type, so the
graph store resolves it to that node and the new edge joins the earlier turn's node. A thing named
a second time within one answer ("waiting at the café took too long, which was down to the café at
the station") stands where it was named again too (`named_again`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from services.extraction.filler import only_filler_before
from services.extraction.local.candidates import Candidate, is_content
from services.extraction.local.segment import Clause
from services.extraction.local.stance import stance_of
from services.extraction.models import ExistingNode
from services.extraction.nlp import NlpPipeline

REMENTION_CONFIDENCE = 0.6
_MAX_LABELS = 60


def rementions(
    doc: Doc,
    parts: list[Clause],
    cands: list[Candidate],
    existing: Sequence[ExistingNode],
    node_types: set[str],
    pipeline: NlpPipeline,
) -> list[Candidate]:
    """Candidates for existing labels that occur in the answer where no candidate covers them."""
    nodes = [n for n in existing if n.node_type in node_types and n.label.strip()][:_MAX_LABELS]
    if not nodes:
        return []
    matcher = PhraseMatcher(pipeline.nlp.vocab, attr="LEMMA")
    for i, node in enumerate(nodes):
        matcher.add(str(i), [pipeline.parse(node.label.lower())])
    covered = {t for c in cands for t in c.label_tokens}
    spans = sorted(
        ((start, end, int(doc.vocab.strings[key])) for key, start, end in matcher(doc)),
        key=lambda m: (m[0], -(m[1] - m[0])),
    )
    out: list[Candidate] = []
    taken: set[int] = set()
    for start, end, index in spans:
        tokens = list(range(start, end))
        if any(t in taken for t in tokens):
            continue
        # a cue already found (part of) it: that candidate is renamed to the existing label later
        if sum(t in covered for t in tokens) * 2 >= len(tokens):
            continue
        if not any(is_content(doc[t]) for t in tokens):
            continue
        clause = next((c for c in parts if c.contains(start)), None)
        if clause is None or end > clause.end:
            continue
        node = nodes[index]
        out.append(
            Candidate(
                label=node.label,
                node_type=node.node_type,
                label_tokens=tokens,
                quote_start=start,
                quote_end=end,
                clause=clause.index,
                confidence=REMENTION_CONFIDENCE,
                source="existing",
                char_start=doc[start].idx,
                char_end=doc[end - 1].idx + len(doc[end - 1].text),
                stance=stance_of(doc, clause.start, clause.end),
                from_noun=all(doc[t].pos_ in {"NOUN", "PROPN", "ADJ", "DET", "NUM"} for t in tokens),
            )
        )
        taken.update(tokens)
    return out


# What a respondent says before repeating themselves ("Like I said, I can still hear the traffic").
_RESTATING = (
    ("like", "i", "said"),
    ("as", "i", "said"),
    ("like", "i", "say"),
    ("as", "i", "say"),
    ("like", "i", "mentioned"),
    ("as", "i", "mentioned"),
    ("like", "i", "told", "you"),
    ("as", "i", "told", "you"),
)


def restated_anchor(
    doc: Doc,
    cands: list[Candidate],
    anchor: ExistingNode | None,
    lemmatize: Callable[[str], list[str]],
    stop: frozenset[str],
    meta: list[tuple[int, int]],
) -> None:
    """The item right after "like I said" is the node the question asked about, said again in other
    words ("hear the traffic" for "hear cars and cyclists coming"): it takes the node's label, so
    the graph gains no near-copy and what follows links to the node itself. Only an item of the
    node's type that shares a content word with it, in the sentence the marker opens.

    After a remark that there is nothing more to say (`meta`: the answer's filler spans, and
    nothing but filler before the marker), the item said again is the node asked about even in
    other words: "I don't think there's anything deeper than that. Like I said, I can focus even
    when the carriage is noisy" about "concentrate during my commute". Without this the answer
    that ends a ladder adds a node ("focus"), the node reads as productive and is asked about
    again."""
    if anchor is None:
        return
    words = _content_lemmas(anchor.label, lemmatize, stop)
    lowers = [t.lower_ for t in doc]
    for marker in _RESTATING:
        size = len(marker)
        starts = [i for i in range(len(lowers) - size + 1) if tuple(lowers[i : i + size]) == marker]
        for start in starts:
            end = start + size
            declined = only_filler_before(doc.text, meta, doc[start].idx)
            sentence_end = doc[end - 1].sent.end if doc.has_annotation("SENT_START") else len(doc)
            first = min(
                (
                    c
                    for c in cands
                    if end <= c.label_tokens[0] < sentence_end and (declined or not c.from_noun)
                ),
                key=lambda c: c.label_tokens[0],
                default=None,
            )
            if first is None or first.node_type != anchor.node_type or first.label == anchor.label:
                continue
            if declined or words & _content_lemmas(first.label, lemmatize, stop):
                first.label = anchor.label
                first.source = "existing"


def shortened_anchor(
    cands: list[Candidate],
    anchor: ExistingNode | None,
    participants: Collection[str],
    lemmatize: Callable[[str], list[str]],
    stop: frozenset[str],
) -> None:
    """An item told in part of the words of the node the question asked about is that node.

    Asked "Who was involved while waiting six hours for the discharge letter?", the respondent
    answers "I sat in my coat until four waiting for the letter, so I chased the nurses": "waiting
    for the letter" restates the wait, and as an item of its own it took the link to the chasing
    away from the node the question was about. At least two content words, all of them the
    node's: fewer ("the letter") may name a part of it, and a word of its own ("waiting for the
    taxi") something else. Someone taking part, named by a noun phrase of a `participants` type,
    is not the node: "the discharge nurse" in an answer about "discharge nurse phoned me" is who
    phoned."""
    if anchor is None:
        return
    words = _content_lemmas(anchor.label, lemmatize, stop)
    for cand in cands:
        if cand.source == "existing" or cand.label == anchor.label:
            continue
        if cand.from_noun and cand.node_type in participants and cand.node_type != anchor.node_type:
            continue
        own = _content_lemmas(cand.label, lemmatize, stop)
        if len(own) >= 2 and own <= words:
            cand.label, cand.node_type, cand.source = anchor.label, anchor.node_type, "existing"


def kept_types(
    cands: list[Candidate],
    existing: Sequence[ExistingNode],
    node_types: set[str],
    lemmatize: Callable[[str], list[str]],
    stop: frozenset[str],
) -> None:
    """An item said again in the very words of an existing node keeps that node's type and label,
    and is marked as said before (rules that type a new item leave it alone).

    A cue may type the repeated words otherwise than their own turn did ("nobody checked on him in
    the discharge lounge", an action when it was told, reads as an incident when it opens the next
    answer's "…, and because of that he fell that night"). Two nodes of one label then split the
    item: the link below it on one, the link above on the other, and the chain through it is
    broken. Only an exact match of at least two content words counts (one word, "crashed", may
    well be a push in one answer and a firing criterion in another)."""
    if not existing:
        return
    by_words: dict[frozenset[str], ExistingNode] = {}
    for node in existing:
        if node.node_type not in node_types:
            continue
        words = _content_lemmas(node.label, lemmatize, stop)
        if len(words) >= 2:
            by_words.setdefault(words, node)  # the caller sends the most recent first
    for cand in cands:
        if cand.source == "existing":
            continue
        said = by_words.get(_content_lemmas(cand.label, lemmatize, stop))
        if said is None:
            continue
        cand.said_before = True
        if said.node_type != cand.node_type:
            cand.node_type = said.node_type
            cand.label = said.label
            cand.source = "existing"


def _content_lemmas(
    label: str, lemmatize: Callable[[str], list[str]], stop: frozenset[str]
) -> frozenset[str]:
    """The lemmas of `label` that are not stop words: what two labels are compared by."""
    return frozenset(lem for lem in lemmatize(label) if lem not in stop)


def only_names(doc: Doc, clause: Clause, cands: list[Candidate]) -> Candidate | None:
    """The thing `clause` is no more than, named by its noun and what qualifies it ("That was down
    to | the café at the station"), if it was found (the first time the answer named it: "waiting
    at the café"). No item of the clause's own is made of such a clause (a guess at its type, "café
    at the station" as an outcome, beside the café itself)."""
    words = [i for i in range(clause.start, clause.end) if not doc[i].is_punct]
    if not words or any(doc[i].pos_ in {"VERB", "AUX"} for i in words):
        return None
    # the head of the noun phrase the clause opens with: its last word before a preposition
    phrase = words[: next((k for k, i in enumerate(words) if doc[i].pos_ == "ADP"), len(words))]
    if not phrase or doc[phrase[-1]].pos_ not in {"NOUN", "PROPN"}:
        return None
    head = doc[phrase[-1]].lemma_.lower()
    # the same head ("the café" for "station café"), not any word of the thing ("the station")
    return next(
        (c for c in cands if c.from_noun and doc[c.label_tokens[-1]].lemma_.lower() == head),
        None,
    )


# The source prefix of a thing's candidate where it was named again.
AGAIN = "again:"


def named_again(doc: Doc, parts: list[Clause], cands: list[Candidate]) -> list[Candidate]:
    """A thing named a second time, as all of a clause, stands there too: "waiting at the café took
    too long, which was down to | the café at the station" gives the café as the reason, but its
    one candidate lies where it was named first, outside the connective's side, so nothing was
    linked to it. The copy keeps the label (one node) and takes the clause's place."""
    out: list[Candidate] = []
    for clause in parts:
        if any(c.clause == clause.index for c in cands):
            continue
        thing = only_names(doc, clause, cands)
        if thing is None:
            continue
        last = clause.end - 1
        while last > clause.start and doc[last].is_punct:
            last -= 1
        out.append(
            replace(
                thing,
                source=f"{AGAIN}{thing.source}",
                clause=clause.index,
                label_tokens=list(range(clause.start, last + 1)),
                quote_start=clause.start,
                quote_end=last + 1,
                char_start=doc[clause.start].idx,
                char_end=doc[last].idx + len(doc[last].text),
            )
        )
    return out
