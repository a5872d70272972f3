"""Items said again: an existing node's label found in the answer becomes a candidate.

Respondents restate what they said before and then build on it ("I have money left over for
holidays, which matters because ultimately it's about being responsible with money"). Cues alone
often miss the restated part (it was typed by the question or the context in its own turn), so the
link to the new item would be lost. A re-mention keeps the existing node's label and type, so the
graph store resolves it to that node and the new edge joins the earlier turn's node.
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

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
