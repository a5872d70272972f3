"""Node tracker glue: proto conversion, canonical key resolution, and the per-turn updates."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.node_state import NodeState
from shared.node_tracker import GraphChangeSummary, NodeStateTracker


def load_tracker(
    data: Mapping[str, Any] | None, slot_ids: Mapping[str, str] | None = None
) -> NodeStateTracker:
    """Rebuild the tracker; with `slot_ids` surface ids resolve to slots on every path."""
    tracker = NodeStateTracker.from_dict(data or None)
    _resolve(tracker, slot_ids)
    return tracker


def resolved_copy(tracker: NodeStateTracker, slot_ids: Mapping[str, str] | None = None) -> NodeStateTracker:
    """A copy of `tracker` for a stage to change; with `slot_ids`, keyed by canonical slot where a
    mapping exists. `tracker` is left as it was."""
    out = tracker.copy()
    _resolve(out, slot_ids)
    return out


def _resolve(tracker: NodeStateTracker, slot_ids: Mapping[str, str] | None) -> None:
    if not slot_ids:
        return
    mapping = dict(slot_ids)

    def resolve(node_id: str) -> str:
        return mapping.get(node_id, node_id)

    tracker.set_resolver(resolve)
    tracker.reconcile()


def surface_ids(tracker: NodeStateTracker) -> list[str]:
    """Every surface node id the tracker aggregates (for slot resolution)."""
    ids: list[str] = []
    for key, state in tracker.states.items():
        ids.extend(state.surface_node_ids or [key])
    return ids


def tracked_surface_ids(data: Mapping[str, Any] | None) -> list[str]:
    """`surface_ids` of a stored tracker (its `to_dict` form), without loading it."""
    states: Mapping[str, Mapping[str, Any]] = (data or {}).get("states") or {}
    ids: list[str] = []
    for key, state in states.items():
        ids.extend(state.get("surface_node_ids") or [key])
    return ids


def tracked_labels(tracker: NodeStateTracker) -> dict[str, tuple[str, str]]:
    """(label, node type) by surface node id: every node was registered with the label the graph
    store returned. A state that aggregates several surface nodes, or one tracked before its label
    was known (label = id), names no node's label and is left out."""
    labels: dict[str, tuple[str, str]] = {}
    for state in tracker.states.values():
        ids = state.surface_node_ids or [state.node_id]
        if len(ids) == 1 and state.label != ids[0]:
            labels[ids[0]] = (state.label, state.node_type)
    return labels


def apply_graph_update(
    tracker: NodeStateTracker, update: graph_pb2.ApplyExtractionResponse, turn_number: int
) -> None:
    """Register new nodes, count new edges, and attribute the yield to the previous focus."""
    tracker.advance_to(turn_number)
    for node in update.nodes_created:
        tracker.register_node(
            node.id,
            turn_number,
            label=node.label,
            node_type=node.node_type,
            depth=node.level,
            level=node.level,
            is_terminal=node.is_terminal,
        )
    for edge in update.edges_created:
        for end in (edge.source_node_id, edge.target_node_id):
            if tracker.get_state(end) is None:
                # An edge to a node created before tracking existed (or by another path): track it.
                tracker.register_node(end, turn_number, label=end)
        tracker.update_edge(edge.source_node_id, edge.target_node_id)
    focus = tracker.previous_focus
    if focus is not None and focus in tracker.states:
        changes = GraphChangeSummary(
            nodes_added=len(update.nodes_created),
            edges_added=len(update.edges_created),
        )
        tracker.record_yield(focus, turn_number, changes)


def to_proto(tracker: NodeStateTracker) -> common_pb2.NodeTrackerState:
    """The tracker as the scoring service reads it."""
    out = common_pb2.NodeTrackerState(schema_version=1, previous_focus=tracker.previous_focus or "")
    # Each state is built in place (`add`): a message made separately is copied on `append`, and
    # the request carries every node's state on every turn.
    add = out.states.add
    for state in tracker.states.values():
        add(
            node_id=state.node_id,
            label=state.label,
            created_at_turn=state.created_at_turn,
            depth=state.depth,
            node_type=state.node_type,
            is_terminal=state.is_terminal,
            level=state.level,
            focus_count=state.focus_count,
            last_focus_turn=state.last_focus_turn or 0,
            turns_since_last_focus=state.turns_since_last_focus,
            current_focus_streak=state.current_focus_streak,
            last_yield_turn=state.last_yield_turn or 0,
            turns_since_last_yield=state.turns_since_last_yield,
            yield_count=state.yield_count,
            yield_rate=state.yield_rate,
            all_response_depths=list(state.all_response_depths),
            connected_node_ids=sorted(state.connected_node_ids),
            edge_count_outgoing=state.edge_count_outgoing,
            edge_count_incoming=state.edge_count_incoming,
            strategy_usage_count=dict(state.strategy_usage_count),
            last_strategy_used=state.last_strategy_used or "",
            consecutive_same_strategy=state.consecutive_same_strategy,
        )
    return out


def first_surface_id(tracker: NodeStateTracker, key: str) -> str:
    """A surface node id behind a tracking key (the key itself when it is a surface id)."""
    state = tracker.states.get(key)
    if state is not None and state.surface_node_ids:
        return state.surface_node_ids[0]
    return key


def tracked_focus(tracker: NodeStateTracker) -> list[tuple[int, int]]:
    """(focus_count, turns_since_last_yield) per node (the exhaustion rule)."""
    return [(s.focus_count, s.turns_since_last_yield) for s in tracker.states.values()]


def newest_labels(
    tracker: NodeStateTracker, limit: int, surface: Mapping[str, tuple[str, str]] | None = None
) -> list[str]:
    """The labels of the tracker's nodes, newest first (then by label), at most `limit`.

    A node tracked by canonical slot may stand for several surface nodes ("netflix" and "youtube"
    in one slot of elements); with `surface` (label and type by surface node id) each of them is
    named, as the respondent said them, after the slot's own label."""
    states = sorted(tracker.states.values(), key=lambda s: (-s.created_at_turn, s.label))
    return _named(states, limit, surface or {})


def oldest_labels_of(
    tracker: NodeStateTracker,
    node_types: frozenset[str],
    limit: int,
    surface: Mapping[str, tuple[str, str]] | None = None,
) -> list[str]:
    """The labels of the tracker's nodes of `node_types`, oldest first (then by label), at most
    `limit`; each surface node behind a slot is named as in `newest_labels`."""
    states = sorted(
        (s for s in tracker.states.values() if s.node_type in node_types),
        key=lambda s: (s.created_at_turn, s.label),
    )
    return _named(states, limit, surface or {})


def _named(states: Iterable[NodeState], limit: int, known: Mapping[str, tuple[str, str]]) -> list[str]:
    out: list[str] = []
    for state in states:
        if len(out) >= limit:
            break
        out.append(state.label)
        for node_id in state.surface_node_ids:
            name = known[node_id][0] if node_id in known else state.label
            if name not in out:
                out.append(name)
    return out[:limit]
