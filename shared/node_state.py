"""One node's (or canonical slot's) tracked state, as `NodeStateTracker` keeps it per session.

`NodeState` carries every field of the seed's NodeState; the tracker (`shared.node_tracker`) owns
the turn flow and the counter semantics. The response-depth categories and the rubric score that
maps onto them live here because the scoring service reads them beside the states.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

RESPONSE_DEPTHS: tuple[str, ...] = ("surface", "shallow", "moderate", "deep")
"""Categories of `llm.response_depth` (rubric 1 → surface, 2 → shallow, 3 → moderate, 4–5 → deep)."""

SHALLOW_DEPTHS = frozenset({"surface", "shallow"})
RECENT_RESPONSES = 3
"""How many of a node's latest answers the shallow share looks at (SPEC: last 3)."""


def depth_label_for_score(score: int) -> str:
    """The `llm.response_depth` category of a rubric depth score 1–5 (SPEC mapping)."""
    if not 1 <= score <= 5:
        raise ValueError(f"rubric depth score must be 1-5, got {score}")
    return RESPONSE_DEPTHS[min(score, 4) - 1]


class NodeTrackerStateError(ValueError):
    """Persisted tracker data that cannot be loaded (unknown schema version, malformed fields)."""


@dataclass(slots=True)
class NodeState:
    """Everything tracked about one node (or canonical slot): every field of the seed's NodeState.

    Extra fields beyond the seed: `surface_node_ids` (the surface nodes aggregated under this key,
    registration order), `last_response_turn` and `last_outcome_turn` (the last turn whose answer
    depth / yield outcome was recorded: they make `append_response_signal` and `record_yield`
    idempotent per turn).
    """

    node_id: str
    label: str
    created_at_turn: int
    depth: int = 0
    node_type: str = ""
    is_terminal: bool = False
    level: int = 0
    # engagement
    focus_count: int = 0
    last_focus_turn: int | None = None
    turns_since_last_focus: int = 0
    current_focus_streak: int = 0
    # yield
    last_yield_turn: int | None = None
    turns_since_last_yield: int = 0
    yield_count: int = 0
    yield_rate: float = 0.0
    last_outcome_turn: int | None = None
    # response quality
    all_response_depths: list[str] = field(default_factory=list)
    last_response_turn: int | None = None
    # relationships
    connected_node_ids: set[str] = field(default_factory=set)
    edge_count_outgoing: int = 0
    edge_count_incoming: int = 0
    # strategy usage
    strategy_usage_count: dict[str, int] = field(default_factory=dict)
    last_strategy_used: str | None = None
    consecutive_same_strategy: int = 0
    # canonical aggregation
    surface_node_ids: list[str] = field(default_factory=list)

    @property
    def is_orphan(self) -> bool:
        """True when the node has no edges at all."""
        return self.edge_count_incoming + self.edge_count_outgoing == 0

    @property
    def edge_count(self) -> int:
        """Incoming plus outgoing edges."""
        return self.edge_count_incoming + self.edge_count_outgoing

    @property
    def shallow_share(self) -> float:
        """Share of the last 3 answers about this node that were surface or shallow (0 with none)."""
        recent = self.all_response_depths[-RECENT_RESPONSES:]
        if not recent:
            return 0.0
        return sum(1 for d in recent if d in SHALLOW_DEPTHS) / len(recent)

    def refresh(self, clock: int) -> None:
        """Recompute the clock-derived `turns_since_last_focus`."""
        focus_base = self.last_focus_turn if self.last_focus_turn is not None else self.created_at_turn
        self.turns_since_last_focus = max(0, clock - focus_base)

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form (sets become sorted lists)."""
        # Field by field, copying the containers: `dataclasses.asdict` deep-copies recursively and
        # was the orchestrator's largest single cost of serialising a 100-node tracker each stage.
        data = {name: getattr(self, name) for name in _NODE_STATE_FIELDS}
        data["all_response_depths"] = list(self.all_response_depths)
        data["connected_node_ids"] = sorted(self.connected_node_ids)
        data["strategy_usage_count"] = dict(self.strategy_usage_count)
        data["surface_node_ids"] = list(self.surface_node_ids)
        return data

    def copy(self) -> NodeState:
        """An independent copy (its containers copied too), without `from_dict`'s checks: the
        source is already valid, and a 150-node tracker copies in about half the time it loads."""
        state = NodeState(*_state_fields(self))
        state.all_response_depths = list(self.all_response_depths)
        state.connected_node_ids = set(self.connected_node_ids)
        state.strategy_usage_count = dict(self.strategy_usage_count)
        state.surface_node_ids = list(self.surface_node_ids)
        return state

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NodeState:
        """Inverse of `to_dict`; raises `NodeTrackerStateError` on missing or mistyped fields."""
        try:
            state = cls(
                node_id=str(data["node_id"]),
                label=str(data.get("label", "")),
                created_at_turn=int(data["created_at_turn"]),
                depth=int(data.get("depth", 0)),
                node_type=str(data.get("node_type", "")),
                is_terminal=bool(data.get("is_terminal", False)),
                level=int(data.get("level", 0)),
                focus_count=int(data.get("focus_count", 0)),
                last_focus_turn=_opt_int(data.get("last_focus_turn")),
                turns_since_last_focus=int(data.get("turns_since_last_focus", 0)),
                current_focus_streak=int(data.get("current_focus_streak", 0)),
                last_yield_turn=_opt_int(data.get("last_yield_turn")),
                turns_since_last_yield=int(data.get("turns_since_last_yield", 0)),
                yield_count=int(data.get("yield_count", 0)),
                yield_rate=float(data.get("yield_rate", 0.0)),
                last_outcome_turn=_opt_int(data.get("last_outcome_turn")),
                all_response_depths=[str(d) for d in data.get("all_response_depths", [])],
                last_response_turn=_opt_int(data.get("last_response_turn")),
                connected_node_ids={str(n) for n in data.get("connected_node_ids", [])},
                edge_count_outgoing=int(data.get("edge_count_outgoing", 0)),
                edge_count_incoming=int(data.get("edge_count_incoming", 0)),
                strategy_usage_count={
                    str(k): int(v) for k, v in data.get("strategy_usage_count", {}).items()
                },
                last_strategy_used=data.get("last_strategy_used") or None,
                consecutive_same_strategy=int(data.get("consecutive_same_strategy", 0)),
                surface_node_ids=[str(s) for s in data.get("surface_node_ids", [])],
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise NodeTrackerStateError(f"malformed node state {data.get('node_id')!r}: {exc!r}") from exc
        bad = [d for d in state.all_response_depths if d not in RESPONSE_DEPTHS]
        if bad:
            raise NodeTrackerStateError(f"node {state.node_id!r}: unknown response depths {bad}")
        return state


_NODE_STATE_FIELDS = tuple(f.name for f in fields(NodeState))
# Every field's value in declaration order (the positional arguments of the constructor).
_state_fields = attrgetter(*_NODE_STATE_FIELDS)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _max_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def merge_into(target: NodeState, other: NodeState) -> None:
    """Fold `other` (a surface-keyed state) into `target` (its slot's state)."""
    target_focus_later = (target.last_focus_turn or -1) >= (other.last_focus_turn or -1)
    target.created_at_turn = min(target.created_at_turn, other.created_at_turn)
    target.depth = max(target.depth, other.depth)
    target.is_terminal = target.is_terminal or other.is_terminal
    target.focus_count += other.focus_count
    target.last_focus_turn = _max_opt(target.last_focus_turn, other.last_focus_turn)
    target.current_focus_streak = max(target.current_focus_streak, other.current_focus_streak)
    target.last_yield_turn = _max_opt(target.last_yield_turn, other.last_yield_turn)
    target.turns_since_last_yield = min(target.turns_since_last_yield, other.turns_since_last_yield)
    target.last_outcome_turn = _max_opt(target.last_outcome_turn, other.last_outcome_turn)
    target.yield_count += other.yield_count
    target.yield_rate = target.yield_count / max(target.focus_count, 1)
    target.all_response_depths.extend(other.all_response_depths)
    target.last_response_turn = _max_opt(target.last_response_turn, other.last_response_turn)
    target.connected_node_ids |= other.connected_node_ids
    target.connected_node_ids.discard(target.node_id)
    target.connected_node_ids.discard(other.node_id)
    target.edge_count_outgoing += other.edge_count_outgoing
    target.edge_count_incoming += other.edge_count_incoming
    for name, count in other.strategy_usage_count.items():
        target.strategy_usage_count[name] = target.strategy_usage_count.get(name, 0) + count
    if not target_focus_later:
        target.last_strategy_used = other.last_strategy_used
        target.consecutive_same_strategy = other.consecutive_same_strategy
    for sid in other.surface_node_ids:
        if sid not in target.surface_node_ids:
            target.surface_node_ids.append(sid)
