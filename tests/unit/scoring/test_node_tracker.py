"""NodeStateTracker: turn flow, counters, idempotency, persistence and canonical-slot resolution."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from shared.node_state import NodeState, NodeTrackerStateError, depth_label_for_score
from shared.node_tracker import (
    NODE_TRACKER_SCHEMA_VERSION,
    GraphChangeSummary,
    NodeStateTracker,
    UnknownNodeError,
)

YIELD = GraphChangeSummary(nodes_added=1)
NOTHING = GraphChangeSummary()


def _tracker() -> NodeStateTracker:
    t = NodeStateTracker()
    t.register_node("a", 1, label="creamy texture", node_type="attribute", level=1)
    t.register_node("b", 1, label="price", node_type="attribute", level=1)
    return t


def test_seed_fields_are_all_present() -> None:
    seed_fields = {
        "node_id",
        "label",
        "created_at_turn",
        "depth",
        "node_type",
        "is_terminal",
        "level",
        "focus_count",
        "last_focus_turn",
        "turns_since_last_focus",
        "current_focus_streak",
        "last_yield_turn",
        "turns_since_last_yield",
        "yield_count",
        "yield_rate",
        "all_response_depths",
        "connected_node_ids",
        "edge_count_outgoing",
        "edge_count_incoming",
        "strategy_usage_count",
        "last_strategy_used",
        "consecutive_same_strategy",
    }
    assert seed_fields <= {f.name for f in fields(NodeState)}


def test_focus_streak_strategy_usage_and_turn_counters_over_three_turns() -> None:
    t = _tracker()
    t.update_focus("a", 1, "deepen")
    t.record_yield("a", 2, NOTHING)
    t.update_focus("a", 2, "deepen")
    t.record_yield("a", 3, NOTHING)
    t.update_focus("a", 3, "clarify")
    a, b = t.states["a"], t.states["b"]
    assert (a.focus_count, a.current_focus_streak, a.last_focus_turn) == (3, 3, 3)
    assert a.strategy_usage_count == {"deepen": 2, "clarify": 1}
    assert (a.last_strategy_used, a.consecutive_same_strategy) == ("clarify", 1)
    # created at turn 1, never yielded: 3 − 1 = 2 turns without yield at clock 3
    assert a.turns_since_last_yield == 2
    assert b.turns_since_last_focus == 2  # never focused: counted from creation
    assert t.previous_focus == "a"
    t.update_focus("b", 4, "deepen")
    assert t.states["a"].current_focus_streak == 0  # no longer the focus
    assert t.states["a"].turns_since_last_focus == 1
    assert t.states["b"].current_focus_streak == 1


def test_yield_resets_streak_and_counter_and_updates_rate() -> None:
    t = _tracker()
    t.update_focus("a", 1, "deepen")
    t.update_focus("a", 2, "deepen")
    assert t.record_yield("a", 3, GraphChangeSummary(edges_added=2)) is True
    a = t.states["a"]
    assert (a.yield_count, a.last_yield_turn, a.turns_since_last_yield, a.current_focus_streak) == (
        1,
        3,
        0,
        0,
    )
    assert a.yield_rate == pytest.approx(1 / 2)
    assert t.record_yield("a", 4, NOTHING) is False  # no changes: not a yield, clock still advances
    assert (a.yield_count, a.turns_since_last_yield) == (1, 1)


def test_mutations_are_idempotent_per_turn() -> None:
    t = _tracker()
    t.update_focus("a", 1, "deepen")
    t.update_focus("a", 1, "deepen")  # retried turn
    t.record_yield("a", 2, YIELD)
    t.record_yield("a", 2, YIELD)
    t.append_response_signal(None, "deep", turn_number=2)
    t.append_response_signal(None, "deep", turn_number=2)
    t.register_node("a", 2, label="other label")
    a = t.states["a"]
    assert (a.focus_count, a.current_focus_streak, a.yield_count) == (1, 0, 1)
    assert a.all_response_depths == ["deep"]
    assert a.label == "creamy texture" and a.created_at_turn == 1


def test_response_signal_goes_to_the_previous_focus() -> None:
    t = _tracker()
    assert t.append_response_signal(None, "surface") is None  # opening turn: no focus yet
    t.update_focus("b", 1, "explore")
    assert t.append_response_signal(None, "shallow", turn_number=2) == "b"
    t.update_focus("a", 2, "deepen")  # the NEXT focus does not get turn 2's answer
    assert t.states["b"].all_response_depths == ["shallow"]
    assert t.states["a"].all_response_depths == []
    with pytest.raises(ValueError, match="response_depth"):
        t.append_response_signal(None, "very deep")


def test_unknown_nodes_raise_instead_of_losing_updates() -> None:
    t = _tracker()
    with pytest.raises(UnknownNodeError):
        t.update_focus("zzz", 1, "deepen")
    with pytest.raises(UnknownNodeError):
        t.record_yield("zzz", 1, YIELD)


def test_edges_count_both_ends_and_connect_them() -> None:
    t = _tracker()
    t.update_edge("a", "b")
    a, b = t.states["a"], t.states["b"]
    assert (a.edge_count_outgoing, a.edge_count_incoming, b.edge_count_outgoing, b.edge_count_incoming) == (
        1,
        0,
        0,
        1,
    )
    assert a.connected_node_ids == {"b"} and b.connected_node_ids == {"a"}
    assert not a.is_orphan and a.edge_count == 1
    t.update_edge_counts("a", -5, 0)
    assert a.edge_count_outgoing == 0  # never below zero


def test_focus_none_clears_the_previous_focus() -> None:
    t = _tracker()
    t.update_focus("a", 1, "deepen")
    assert t.update_focus(None, 2, "reflect") is None
    assert t.previous_focus is None
    assert t.states["a"].current_focus_streak == 0


def test_round_trip_through_json_is_lossless() -> None:
    t = _tracker()
    t.update_focus("a", 1, "deepen")
    t.record_yield("a", 2, YIELD)
    t.append_response_signal(None, "moderate", turn_number=2)
    t.update_edge("a", "b")
    t.update_focus("b", 2, "clarify")
    data = json.loads(json.dumps(t.to_dict()))
    back = NodeStateTracker.from_dict(data)
    assert back.to_dict() == t.to_dict()
    assert data["schema_version"] == NODE_TRACKER_SCHEMA_VERSION
    assert back.previous_focus == "b" and back.clock == 2


def test_null_state_is_a_fresh_tracker() -> None:
    t = NodeStateTracker.from_dict(None)
    assert len(t) == 0 and t.previous_focus is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"schema_version": NODE_TRACKER_SCHEMA_VERSION + 1, "states": {}}, "newer than the supported"),
        ({"states": {}}, "no integer schema_version"),
        ({"schema_version": "1", "states": {}}, "no integer schema_version"),
        ({"schema_version": 0, "states": {}}, "invalid"),
        ({"schema_version": 1, "states": []}, "must be a mapping"),
        ({"schema_version": 1, "states": {"a": {"label": "x"}}}, "malformed node state"),
        (
            {"schema_version": 1, "states": {"a": {"created_at_turn": 1, "all_response_depths": ["huge"]}}},
            "unknown response depths",
        ),
    ],
)
def test_bad_persisted_state_is_rejected_clearly(data: dict[str, object], message: str) -> None:
    with pytest.raises(NodeTrackerStateError, match=message):
        NodeStateTracker.from_dict(data)


@pytest.mark.parametrize(
    ("score", "label"), [(1, "surface"), (2, "shallow"), (3, "moderate"), (4, "deep"), (5, "deep")]
)
def test_depth_label_for_score(score: int, label: str) -> None:
    assert depth_label_for_score(score) == label


# -- canonical slot resolution ----------------------------------------------------------------------


def test_every_path_resolves_surface_ids_to_the_slot() -> None:
    slots = {"s1": "slot-A", "s2": "slot-A", "s3": "slot-B"}
    t = NodeStateTracker(resolve=lambda nid: slots.get(nid, nid))
    t.register_node("s1", 1, label="fast car")
    t.register_node("s2", 2, label="quick vehicle")  # paraphrase: same slot
    t.register_node("s3", 2, label="safety")
    assert set(t.states) == {"slot-A", "slot-B"}
    assert t.states["slot-A"].surface_node_ids == ["s1", "s2"]
    assert t.update_focus("s2", 2, "deepen") == "slot-A"  # focus via the other surface id
    t.record_yield("s1", 3, YIELD)
    t.append_response_signal("s2", "deep", turn_number=3)
    t.update_edge("s1", "s3")
    t.update_edge("s1", "s2")  # an edge inside one slot connects nothing
    a = t.states["slot-A"]
    assert (a.focus_count, a.yield_count, a.all_response_depths) == (1, 1, ["deep"])
    assert a.connected_node_ids == {"slot-B"}
    assert t.get_state("s2") is a
    assert t.previous_focus == "slot-A"


def test_states_registered_before_their_slot_mapping_move_onto_the_slot() -> None:
    slots: dict[str, str] = {}
    t = NodeStateTracker(resolve=lambda nid: slots.get(nid, nid))
    t.register_node("s1", 1, label="fast car")
    t.update_focus("s1", 1, "deepen")  # focus recorded under the surface key
    slots["s1"] = "slot-A"  # slot discovery (deferred mode) maps it later
    t.update_focus("s1", 2, "deepen")  # must continue the streak on the slot, not get lost
    assert set(t.states) == {"slot-A"}
    state = t.states["slot-A"]
    assert (state.focus_count, state.current_focus_streak) == (2, 2)
    assert t.previous_focus == "slot-A"


def test_reconcile_merges_surface_states_that_share_a_slot() -> None:
    slots: dict[str, str] = {}
    t = NodeStateTracker(resolve=lambda nid: slots.get(nid, nid))
    t.register_node("s1", 1, label="fast car")
    t.register_node("s2", 2, label="quick vehicle")
    t.register_node("s3", 2, label="safety")
    t.update_edge("s1", "s3")
    t.update_focus("s1", 2, "deepen")
    t.record_yield("s1", 3, YIELD)
    t.append_response_signal(None, "deep", turn_number=3)
    t.update_focus("s2", 3, "clarify")
    slots.update({"s1": "slot-A", "s2": "slot-A"})
    t.reconcile()
    assert set(t.states) == {"slot-A", "s3"}
    merged = t.states["slot-A"]
    assert merged.focus_count == 2 and merged.yield_count == 1
    assert merged.created_at_turn == 1 and merged.label == "fast car"
    assert merged.surface_node_ids == ["s1", "s2"]
    assert merged.last_strategy_used == "clarify"  # from the most recently focused part
    assert merged.strategy_usage_count == {"deepen": 1, "clarify": 1}
    assert t.states["s3"].connected_node_ids == {"slot-A"}  # the neighbour follows the re-key
    assert t.previous_focus == "slot-A"
    # and the round trip keeps the slot key and its surface ids
    back = NodeStateTracker.from_dict(t.to_dict())
    assert back.states["slot-A"].surface_node_ids == ["s1", "s2"]


def test_yield_counter_counts_unproductive_answers_not_elapsed_turns() -> None:
    t = _tracker()
    t.update_focus("a", 1, "deepen")
    t.record_yield("a", 2, NOTHING)
    t.record_yield("a", 2, NOTHING)  # retried turn: counted once
    t.update_focus("a", 2, "deepen")
    t.record_yield("a", 3, NOTHING)
    t.advance_to(9)
    assert t.states["a"].turns_since_last_yield == 2  # two answers about a, nothing new
    assert t.states["b"].turns_since_last_yield == 0  # never asked about: no stagnation from ageing
    assert t.states["b"].turns_since_last_focus == 8  # but recency does age with the clock
    t.record_yield("a", 10, YIELD)
    assert t.states["a"].turns_since_last_yield == 0
