"""Turning one extraction into a write plan against a snapshot of the session graph (pure, no I/O).

Concepts are deduplicated in three steps: exact (normalised label, node_type) → cosine similarity
≥ threshold against nodes of the same node_type → create. Similarities come from matrix products
over all stored embeddings at once (`cosine_matrix`), never from a Python loop over pairs; the
loop over the batch's concepts only takes a vectorised arg-max of one precomputed row, because a
concept may also match a node that an earlier concept of the same batch created.

Relationship endpoints are labels. Each is resolved against this batch's concepts, then against
every node by exact normalised label, then by embedding similarity (any node type); when several
nodes fit, the first pair the ontology permits wins. Unresolvable endpoints, self-loops and edges
the ontology forbids become warnings; quotes that do not occur in the utterance become warnings
and are not stored.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from shared.embeddings import FloatMatrix, cosine_matrix, to_bytes
from shared.methodology_models import MethodologyConfig

from .domain import ApplyWarning, ExtractionInput, MatchKind, QuoteHint, WarningCode
from .text import LocatedQuote, locate_quote, normalise_label
from .validation import edge_rejection

REVISES = "revises"
"""Edge type whose target is superseded by its source (the seed's REVISES)."""


@dataclass(frozen=True)
class SnapshotNode:
    """An existing node as the planner sees it."""

    id: str
    label_norm: str
    node_type: str
    label: str = ""


@dataclass
class GraphSnapshot:
    """A session's graph before the update: nodes in creation order with their embeddings."""

    nodes: list[SnapshotNode]
    embeddings: FloatMatrix  # row i belongs to nodes[i]
    edges: dict[tuple[str, str, str], str]  # (source id, target id, edge type) -> edge id


@dataclass(frozen=True)
class NewNode:
    """A node to insert."""

    id: str
    label: str
    label_norm: str
    node_type: str
    confidence: float
    stance: int
    properties: dict[str, str]
    level: int
    is_terminal: bool
    embedding: bytes


@dataclass(frozen=True)
class NewEdge:
    """An edge to insert."""

    id: str
    source_node_id: str
    target_node_id: str
    edge_type: str
    confidence: float
    properties: dict[str, str]


@dataclass(frozen=True)
class Mention:
    """One provenance record: `target_id` (a node or edge) was stated in this utterance."""

    target_id: str
    extracted_label: str
    confidence: float
    quote: LocatedQuote | None


@dataclass(frozen=True)
class NodeRemention:
    """An existing node that this utterance mentioned again (first such concept)."""

    node_id: str
    extracted_label: str
    kind: MatchKind
    similarity: float


@dataclass
class Plan:
    """Everything `apply_extraction` writes for one utterance."""

    new_nodes: list[NewNode] = field(default_factory=list)
    node_mentions: list[Mention] = field(default_factory=list)
    rementioned: list[NodeRemention] = field(default_factory=list)
    new_edges: list[NewEdge] = field(default_factory=list)
    edge_mentions: list[Mention] = field(default_factory=list)
    reinforced_edge_ids: list[str] = field(default_factory=list)
    supersede: dict[str, str] = field(default_factory=dict)  # old node id -> new node id
    warnings: list[ApplyWarning] = field(default_factory=list)


@dataclass(frozen=True)
class _Candidate:
    node_id: str
    kind: MatchKind
    similarity: float


def _locate(
    hint: QuoteHint | None, utterance: str, path: str, warnings: list[ApplyWarning]
) -> LocatedQuote | None:
    if hint is None or not hint.text.strip():
        return None
    found = locate_quote(hint.text, utterance, hint.start, hint.end)
    if found is None:
        warnings.append(
            ApplyWarning(
                code=WarningCode.QUOTE_NOT_FOUND,
                field=f"{path}.quote",
                message=f"quote {hint.text[:80]!r} does not occur in the utterance; not stored as evidence",
            )
        )
    return found


class _Planner:
    def __init__(
        self,
        inp: ExtractionInput,
        methodology: MethodologyConfig,
        snapshot: GraphSnapshot,
        vectors: Mapping[str, np.ndarray],
        threshold: float,
        new_id: Callable[[], str],
    ) -> None:
        self.inp = inp
        self.methodology = methodology
        self.snapshot = snapshot
        self.vectors = vectors
        self.threshold = threshold
        self.new_id = new_id
        self.plan = Plan()
        self.type_of: dict[str, str] = {n.id: n.node_type for n in snapshot.nodes}
        self.exact: dict[tuple[str, str], str] = {(n.label_norm, n.node_type): n.id for n in snapshot.nodes}
        self.existing_ids = {n.id for n in snapshot.nodes}
        self.new_vectors: list[np.ndarray] = []  # embeddings of plan.new_nodes, same order

    # -- concepts --------------------------------------------------------------------------------
    def concepts(self) -> dict[str, list[str]]:
        """Resolve every concept; returns normalised label -> node ids of this batch's concepts."""
        concepts = self.inp.concepts
        batch_labels: dict[str, list[str]] = {}
        if not concepts:
            return batch_labels
        query = np.stack([self.vectors[normalise_label(c.label)] for c in concepts]).astype(np.float32)
        existing = self.snapshot.embeddings
        # The two similarity matrices: batch × stored nodes, and batch × batch.
        sim_existing = cosine_matrix(query, existing)
        sim_batch = cosine_matrix(query, query)
        existing_types = np.array([n.node_type for n in self.snapshot.nodes], dtype=object)
        type_masks = {t: existing_types == t for t in {c.node_type for c in concepts}}
        created_by: dict[str, list[int]] = {}  # node type -> batch indices that created a node
        created_node: dict[int, str] = {}
        seen_mentions: set[tuple[str, int | None]] = set()
        for i, c in enumerate(concepts):
            norm = normalise_label(c.label)
            quote = _locate(c.quote, self.inp.utterance_text, f"concepts[{i}]", self.plan.warnings)
            match = self._match_concept(
                i, norm, c.node_type, sim_existing, sim_batch, type_masks, created_by, created_node
            )
            if match is None:
                node_id = self.new_id()
                spec = self.methodology.node_type(c.node_type)
                self.plan.new_nodes.append(
                    NewNode(
                        id=node_id,
                        label=c.label.strip(),
                        label_norm=norm,
                        node_type=c.node_type,
                        confidence=c.confidence,
                        stance=c.stance,
                        properties=dict(c.properties),
                        level=spec.level if spec else 0,
                        is_terminal=spec.terminal if spec else False,
                        embedding=to_bytes(query[i]),
                    )
                )
                self.new_vectors.append(query[i])
                self.type_of[node_id] = c.node_type
                self.exact[(norm, c.node_type)] = node_id
                created_by.setdefault(c.node_type, []).append(i)
                created_node[i] = node_id
            else:
                node_id = match.node_id
                already = any(r.node_id == node_id for r in self.plan.rementioned)
                if node_id in self.existing_ids and not already:
                    self.plan.rementioned.append(
                        NodeRemention(node_id, c.label.strip(), match.kind, match.similarity)
                    )
            key = (node_id, quote.start if quote else None)
            if key not in seen_mentions:  # the same node and quote twice in one answer: one record
                seen_mentions.add(key)
                self.plan.node_mentions.append(Mention(node_id, c.label.strip(), c.confidence, quote))
            batch_labels.setdefault(norm, []).append(node_id)
        return batch_labels

    def _match_concept(
        self,
        i: int,
        norm: str,
        node_type: str,
        sim_existing: FloatMatrix,
        sim_batch: FloatMatrix,
        type_masks: Mapping[str, np.ndarray],
        created_by: Mapping[str, list[int]],
        created_node: Mapping[int, str],
    ) -> _Candidate | None:
        exact = self.exact.get((norm, node_type))
        if exact is not None:
            return _Candidate(exact, MatchKind.EXACT, 1.0)
        best: _Candidate | None = None
        if sim_existing.shape[1]:
            row = np.where(type_masks[node_type], sim_existing[i], -np.inf)
            j = int(np.argmax(row))
            if row[j] >= self.threshold:
                best = _Candidate(self.snapshot.nodes[j].id, MatchKind.EMBEDDING, float(row[j]))
        earlier = created_by.get(node_type)
        if earlier:
            sims = sim_batch[i, earlier]
            k = int(np.argmax(sims))
            if sims[k] >= self.threshold and (best is None or sims[k] > best.similarity):
                best = _Candidate(created_node[earlier[k]], MatchKind.EMBEDDING, float(sims[k]))
        return best

    # -- relationships ---------------------------------------------------------------------------
    def relationships(self, batch_labels: Mapping[str, list[str]]) -> None:
        """Resolve endpoints, validate against the ontology, and plan new/reinforced edges."""
        rels = self.inp.relationships
        if not rels:
            return
        all_ids = [n.id for n in self.snapshot.nodes] + [n.id for n in self.plan.new_nodes]
        by_label: dict[str, list[str]] = {}
        # Most recent first: a label repeated across types most likely means the latest node.
        for n in reversed(self.plan.new_nodes):
            by_label.setdefault(n.label_norm, []).append(n.id)
        for sn in reversed(self.snapshot.nodes):
            by_label.setdefault(sn.label_norm, []).append(sn.id)
        endpoint_labels = {normalise_label(lbl) for r in rels for lbl in (r.source_label, r.target_label)}
        unresolved = sorted(lbl for lbl in endpoint_labels if lbl not in batch_labels and lbl not in by_label)
        semantic: dict[str, _Candidate] = {}
        if unresolved and all_ids:
            every = np.vstack([self.snapshot.embeddings, *[v[None, :] for v in self.new_vectors]])
            sims = cosine_matrix(np.stack([self.vectors[lbl] for lbl in unresolved]), every)
            best = np.argmax(sims, axis=1)
            for row, lbl in enumerate(unresolved):
                score = float(sims[row, best[row]])
                if score >= self.threshold:
                    semantic[lbl] = _Candidate(all_ids[int(best[row])], MatchKind.EMBEDDING, score)

        def candidates(label: str) -> list[str]:
            norm = normalise_label(label)
            if norm in batch_labels:
                return list(dict.fromkeys(batch_labels[norm]))
            if norm in by_label:
                return by_label[norm]
            return [semantic[norm].node_id] if norm in semantic else []

        created: dict[tuple[str, str, str], str] = {}
        for i, r in enumerate(rels):
            path = f"relationships[{i}]"
            quote = _locate(r.quote, self.inp.utterance_text, path, self.plan.warnings)
            sources, targets = candidates(r.source_label), candidates(r.target_label)
            missing = [lbl for lbl, c in ((r.source_label, sources), (r.target_label, targets)) if not c]
            if missing:
                self._warn(
                    WarningCode.UNRESOLVED_ENDPOINT,
                    path,
                    f"no node matches {', '.join(repr(m) for m in missing)}; relationship skipped",
                )
                continue
            pair, rejection = self._choose_pair(r.edge_type, sources, targets)
            if pair is None:
                code, why = rejection or (WarningCode.SELF_LOOP, "")
                self._warn(
                    code,
                    path,
                    why
                    or f"{r.source_label!r} and {r.target_label!r} are the same node;"
                    " self-loops are not stored",
                )
                continue
            key = (pair[0], pair[1], r.edge_type)
            edge_id = self.snapshot.edges.get(key) or created.get(key)
            if edge_id is None:
                edge_id = self.new_id()
                created[key] = edge_id
                self.plan.new_edges.append(
                    NewEdge(edge_id, pair[0], pair[1], r.edge_type, r.confidence, dict(r.properties))
                )
            elif key in self.snapshot.edges and edge_id not in self.plan.reinforced_edge_ids:
                self.plan.reinforced_edge_ids.append(edge_id)
            if not any(m.target_id == edge_id and m.quote == quote for m in self.plan.edge_mentions):
                label = f"{r.source_label.strip()} -> {r.target_label.strip()}"
                self.plan.edge_mentions.append(Mention(edge_id, label, r.confidence, quote))
            if r.edge_type == REVISES:
                self.plan.supersede[pair[1]] = pair[0]

    def _choose_pair(
        self, edge_type: str, sources: Sequence[str], targets: Sequence[str]
    ) -> tuple[tuple[str, str] | None, tuple[WarningCode, str] | None]:
        """The first (source, target) the ontology permits, else None and the first reason."""
        first_rejection: tuple[WarningCode, str] | None = None
        for s, t in itertools.product(sources, targets):
            if s == t:
                continue
            rejection = edge_rejection(self.methodology, edge_type, self.type_of[s], self.type_of[t])
            if rejection is None:
                return (s, t), None
            first_rejection = first_rejection or rejection
        return None, first_rejection

    def _warn(self, code: WarningCode, path: str, message: str) -> None:
        self.plan.warnings.append(ApplyWarning(code=code, field=path, message=message))


def plan_extraction(
    inp: ExtractionInput,
    methodology: MethodologyConfig,
    snapshot: GraphSnapshot,
    vectors: Mapping[str, np.ndarray],
    *,
    threshold: float,
    new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
) -> Plan:
    """The write plan for `inp` (already validated) against `snapshot`.

    `vectors` maps every normalised label of `labels_to_embed(inp)` to its unit embedding.
    """
    planner = _Planner(inp, methodology, snapshot, vectors, threshold, new_id)
    batch_labels = planner.concepts()
    planner.relationships(batch_labels)
    return planner.plan


def labels_to_embed(inp: ExtractionInput) -> list[str]:
    """Every distinct normalised label `plan_extraction` needs a vector for, in first-seen order.

    Labels are embedded in normalised form, so case and stray punctuation never affect similarity.
    """
    labels = [c.label for c in inp.concepts]
    labels += [lbl for r in inp.relationships for lbl in (r.source_label, r.target_label)]
    return list(dict.fromkeys(normalise_label(lbl) for lbl in labels))
