"""Merging a proposal into the session's slots: lemmatised name match, then embedding similarity.

Both steps only consider slots of the proposal's node_type. The embedding step compares the
proposal's name+description embedding with every candidate slot's in one matrix-vector product.
Slots created earlier in the same run are added to the index, so two batches proposing the same
concept end up in one slot.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .domain import MatchKind
from .vectors import FloatArray


@dataclass(frozen=True)
class SlotMatch:
    """The slot a proposal merges into."""

    slot_id: str
    kind: MatchKind
    similarity: float


@dataclass
class _TypeIndex:
    ids: list[str] = field(default_factory=list)
    by_key: dict[str, str] = field(default_factory=dict)
    vectors: list[FloatArray] = field(default_factory=list)
    matrix: FloatArray | None = None  # stacked lazily, invalidated on add


class SlotIndex:
    """Existing slots of one session, per node_type, for matching proposals."""

    def __init__(self, threshold: float) -> None:
        self._threshold = threshold
        self._types: dict[str, _TypeIndex] = {}

    def add(self, slot_id: str, node_type: str, name_key: str, vector: FloatArray) -> None:
        """Register a slot (existing or just created)."""
        index = self._types.setdefault(node_type, _TypeIndex())
        index.ids.append(slot_id)
        index.by_key.setdefault(name_key, slot_id)
        index.vectors.append(vector)
        index.matrix = None

    def match_name(self, node_type: str, name_key: str) -> SlotMatch | None:
        """The slot of this node_type with this merge key, if any (the first step of `match`)."""
        index = self._types.get(node_type)
        if index is None or not name_key or (slot_id := index.by_key.get(name_key)) is None:
            return None
        return SlotMatch(slot_id, MatchKind.NAME_MATCH, 1.0)

    def match(self, node_type: str, name_key: str, vector: FloatArray) -> SlotMatch | None:
        """The slot to merge into, or None when the proposal is a new concept."""
        index = self._types.get(node_type)
        if index is None or not index.ids:
            return None
        if (named := self.match_name(node_type, name_key)) is not None:
            return named
        if index.matrix is None:
            index.matrix = np.stack(index.vectors).astype(np.float32)
        sims = index.matrix @ vector
        best = int(np.argmax(sims))
        if float(sims[best]) >= self._threshold:
            return SlotMatch(index.ids[best], MatchKind.EMBEDDING_MATCH, float(sims[best]))
        return None
