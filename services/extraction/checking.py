"""Validation of extracted items against the ontology and the utterance (both extractors).

Every item that cannot be kept is dropped with a warning naming it and the reason; adjusted items
(label normalised, confidence clamped, offsets recomputed, duplicate merged) are kept silently
except where the change alters meaning. Quotes must occur in the utterance: exactly, or — for a
model that changed case or spacing — after case/whitespace folding, in which case the verbatim
utterance text is stored instead.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pydantic import BaseModel, Field

from services.extraction.casing import cased_label
from services.extraction.filler import is_filler_label
from services.extraction.models import ExistingNode, ExtractedConcept, ExtractedRelationship, Quote
from shared.methodology_models import MethodologyConfig

MAX_LABEL_WORDS = 8
MAX_LABEL_CHARS = 80
_WS = re.compile(r"\s+")


class RawConcept(BaseModel):
    """An extracted concept before validation (from the LLM schema or the local extractor)."""

    label: str
    node_type: str
    confidence: float = 0.7
    stance: int = 0
    quote: str = ""
    start: int | None = None  # offset hint; the quote is searched for when missing or wrong
    properties: dict[str, str] = Field(default_factory=dict)


class RawRelationship(BaseModel):
    """An extracted relationship before validation."""

    source_label: str
    target_label: str
    edge_type: str
    confidence: float = 0.7
    quote: str = ""
    start: int | None = None


def normalise_label(label: str) -> str:
    """Lower-case, single spaces, no surrounding quotes or punctuation."""
    return _WS.sub(" ", label.strip().strip("\"'“”‘’.,;:!?").strip()).lower()


def locate_quote(text: str, quote: str, hint: int | None = None) -> tuple[int, int] | None:
    """Offsets of `quote` in `text`: exact (nearest to `hint`), else case/space-insensitive."""
    quote = quote.strip()
    if not quote:
        return None
    if hint is not None and text[hint : hint + len(quote)] == quote:
        return hint, hint + len(quote)
    # Every occurrence, not overlapping (as a regular expression's finditer would find them; a
    # pattern compiled per quote was most of this function's time).
    found: list[int] = []
    at = text.find(quote)
    while at >= 0:
        found.append(at)
        at = text.find(quote, at + len(quote))
    if found:
        start = min(found, key=lambda s: abs(s - hint)) if hint is not None else found[0]
        return start, start + len(quote)
    words = [re.escape(w) for w in quote.split()]
    pattern = re.compile(r"\s+".join(words), re.IGNORECASE)
    m = pattern.search(text)
    return (m.start(), m.end()) if m else None


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, float(value)))


def validate_items(
    concepts: list[RawConcept],
    relationships: list[RawRelationship],
    *,
    text: str,
    utterance_id: str,
    methodology: MethodologyConfig,
    existing: tuple[ExistingNode, ...] = (),
    names: Sequence[str] = (),
) -> tuple[list[ExtractedConcept], list[ExtractedRelationship], list[str]]:
    """Keep the valid items; return them with one warning per dropped or merged item.

    Items are compared by their normalised (lower-case) label; a kept concept's label keeps the
    capitals of the names in it (`casing.cased_label`), from the answer or else from `names` (the
    concept's vocabulary) and the existing nodes' labels.
    """
    warnings: list[str] = []
    node_types = {n.name for n in methodology.ontology.nodes}
    known = [*names, *(n.label for n in existing)]
    kept: dict[str, ExtractedConcept] = {}
    for i, raw in enumerate(concepts):
        label = normalise_label(raw.label)
        where = f"concept[{i}] {raw.label!r}"
        if not label:
            warnings.append(f"{where}: dropped, empty label")
            continue
        if len(label) > MAX_LABEL_CHARS or len(label.split()) > MAX_LABEL_WORDS:
            warnings.append(
                f"{where}: dropped, label is not a short noun phrase (max {MAX_LABEL_WORDS} words)"
            )
            continue
        if is_filler_label(label):
            warnings.append(f"{where}: dropped, filler about the answer itself, not an item")
            continue
        if raw.node_type not in node_types:
            warnings.append(
                f"{where}: dropped, node_type {raw.node_type!r} is not in the {methodology.name} ontology"
            )
            continue
        span = locate_quote(text, raw.quote, raw.start)
        if span is None:
            warnings.append(f"{where}: dropped, quote not found in the utterance")
            continue
        concept = ExtractedConcept(
            label=cased_label(label, text, span, known),
            node_type=raw.node_type,
            confidence=_clamp(raw.confidence),
            stance=(raw.stance > 0) - (raw.stance < 0),
            quote=Quote(text=text[span[0] : span[1]], start=span[0], end=span[1], utterance_id=utterance_id),
            source_utterance_id=utterance_id,
            properties=dict(raw.properties),
        )
        key = f"{label}\x00{raw.node_type}"
        previous = kept.get(key)
        if previous is not None:
            warnings.append(f"{where}: merged with an earlier duplicate ({label!r}, {raw.node_type})")
            if previous.confidence >= concept.confidence:
                continue
        kept[key] = concept
    final_concepts = list(kept.values())
    types_by_label: dict[str, set[str]] = {}
    extracted_labels: dict[str, str] = {}
    for c in final_concepts:
        types_by_label.setdefault(normalise_label(c.label), set()).add(c.node_type)
        extracted_labels.setdefault(normalise_label(c.label), c.label)
    for node in existing:
        types_by_label.setdefault(normalise_label(node.label), set()).add(node.node_type)
    existing_labels = {normalise_label(n.label): n.label for n in existing}
    rels: dict[tuple[str, str, str], ExtractedRelationship] = {}
    for i, rel_in in enumerate(relationships):
        src, dst = normalise_label(rel_in.source_label), normalise_label(rel_in.target_label)
        where = f"relationship[{i}] {rel_in.source_label!r} -> {rel_in.target_label!r}"
        edge = methodology.edge_type(rel_in.edge_type)
        if edge is None:
            warnings.append(
                f"{where}: dropped, edge_type {rel_in.edge_type!r} is not in the {methodology.name} ontology"
            )
            continue
        missing = [lab for lab in (src, dst) if lab not in types_by_label]
        if missing:
            warnings.append(
                f"{where}: dropped, endpoint {missing[0]!r} is neither extracted nor an existing node"
            )
            continue
        if src == dst:
            warnings.append(f"{where}: dropped, source and target are the same node")
            continue
        allowed = set(edge.permitted_connections)
        # An endpoint of unknown type (existing node sent without one) cannot be checked: accept it.
        src_types = types_by_label[src] - {""} or None
        dst_types = types_by_label[dst] - {""} or None
        if (
            src_types is not None
            and dst_types is not None
            and not any((s, d) in allowed for s in src_types for d in dst_types)
        ):
            warnings.append(
                f"{where}: dropped, {rel_in.edge_type} may not connect "
                f"{sorted(src_types)} to {sorted(dst_types)}"
            )
            continue
        span = locate_quote(text, rel_in.quote, rel_in.start)
        if span is None:
            warnings.append(f"{where}: dropped, quote not found in the utterance")
            continue
        rel = ExtractedRelationship(
            source_label=extracted_labels.get(src) or existing_labels.get(src, src),
            target_label=extracted_labels.get(dst) or existing_labels.get(dst, dst),
            edge_type=rel_in.edge_type,
            confidence=_clamp(rel_in.confidence),
            quote=Quote(text=text[span[0] : span[1]], start=span[0], end=span[1], utterance_id=utterance_id),
            source_utterance_id=utterance_id,
        )
        rel_key = (src, dst, rel_in.edge_type)
        if rel_key in rels:
            warnings.append(f"{where}: merged with an earlier duplicate")
            if rels[rel_key].confidence >= rel.confidence:
                continue
        rels[rel_key] = rel
    return final_concepts, list(rels.values()), warnings
