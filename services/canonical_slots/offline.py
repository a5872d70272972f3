"""Offline slot proposal (provider `local`): lemmatised head-term grouping + embedding clustering.

Per node_type, two nodes join one group when
- their content lemmas are identical ("running shoes" / "running shoe"), or
- they share the head term (last content lemma) and their label embeddings are at least
  `head_threshold` similar ("long battery life" / "battery life", but not "social life"), or
- their label embeddings are at least `cluster_threshold` similar ("fast charging" / "quick charging").
Groups are the connected components (union-find) of that relation over one similarity matrix.
The slot is named after the group's medoid label; its description lists the group's labels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shared.llm.base import LLMUsage

from .lemmas import Lemmatizer, snake_case
from .proposal import PreparedNode, Proposal, ProposalContext, ProposalOutcome
from .vectors import FloatArray, TextEncoder

_MAX_DESCRIPTION_CHARS = 300


class _UnionFind:
    def __init__(self, size: int) -> None:
        self._parent = list(range(size))

    def find(self, i: int) -> int:
        while self._parent[i] != i:
            self._parent[i] = self._parent[self._parent[i]]
            i = self._parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)  # the smaller index stays root: deterministic


class OfflineSlotProposer:
    """Deterministic proposals without a language model."""

    def __init__(
        self,
        lemmatizer: Lemmatizer,
        encoder: TextEncoder,
        *,
        cluster_threshold: float,
        head_threshold: float,
    ) -> None:
        self._lemmatizer = lemmatizer
        self._encoder = encoder
        self._cluster_threshold = cluster_threshold
        self._head_threshold = head_threshold

    async def propose(self, nodes: Sequence[PreparedNode], context: ProposalContext) -> ProposalOutcome:
        """Groups per node_type; label embeddings the caller did not send are computed (one batch)."""
        vectors = await self._vectors(nodes)
        proposals: list[Proposal] = []
        for node_type in dict.fromkeys(n.node_type for n in nodes):
            idx = [i for i, n in enumerate(nodes) if n.node_type == node_type]
            proposals.extend(self._group([nodes[i] for i in idx], vectors[idx]))
        return ProposalOutcome(proposals=proposals, usage=LLMUsage(client="scoring", provider="local"))

    async def _vectors(self, nodes: Sequence[PreparedNode]) -> FloatArray:
        matrix = np.zeros((len(nodes), 0), np.float32)
        missing = [i for i, n in enumerate(nodes) if n.vector is None]
        computed = await self._encoder.aencode([nodes[i].label for i in missing]) if missing else None
        rows: list[FloatArray] = []
        position = {node_index: row for row, node_index in enumerate(missing)}
        for i, node in enumerate(nodes):
            rows.append(node.vector if node.vector is not None else computed[position[i]])  # type: ignore[index]
        return np.stack(rows).astype(np.float32) if rows else matrix

    def _group(self, nodes: Sequence[PreparedNode], matrix: FloatArray) -> list[Proposal]:
        keys = [self._lemmatizer.content_lemmas(n.label) for n in nodes]
        heads = [key[-1] if key else "" for key in keys]
        sims = matrix @ matrix.T
        groups = _UnionFind(len(nodes))
        for i in range(len(nodes)):
            for j in range(i + 1, len(nodes)):
                same_key = keys[i] == keys[j]
                same_head = bool(heads[i]) and heads[i] == heads[j] and sims[i, j] >= self._head_threshold
                if same_key or same_head or sims[i, j] >= self._cluster_threshold:
                    groups.union(i, j)
        members: dict[int, list[int]] = {}
        for i in range(len(nodes)):
            members.setdefault(groups.find(i), []).append(i)
        return [self._proposal(nodes, idx, sims) for idx in members.values()]

    def _proposal(self, nodes: Sequence[PreparedNode], idx: list[int], sims: np.ndarray) -> Proposal:
        # Medoid: the label closest on average to the others; ties → the shorter label.
        medoid = max(idx, key=lambda i: (float(sims[i, idx].mean()), -len(nodes[i].label), -i))
        labels = list(dict.fromkeys(nodes[i].label.strip() for i in idx))
        return Proposal(
            slot_name=snake_case(nodes[medoid].label) or "concept",
            description="; ".join(labels)[:_MAX_DESCRIPTION_CHARS],
            node_type=nodes[medoid].node_type,
            node_ids=tuple(nodes[i].id for i in idx),
            origin="offline",
        )
