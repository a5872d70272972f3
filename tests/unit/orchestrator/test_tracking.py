"""The tracker a turn's stages hand on: copies that leave their source as it was, and the readers
the later stages use."""

from __future__ import annotations

import random

from services.orchestrator.tracking import (
    apply_graph_update,
    load_tracker,
    newest_labels,
    resolved_copy,
    surface_ids,
    tracked_focus,
)
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.node_tracker import GraphChangeSummary, NodeStateTracker


def _interview(seed: int, turns: int = 12) -> NodeStateTracker:
    """A tracker after a random interview: nodes registered per turn, foci, yields and droughts."""
    rng = random.Random(seed)
    tracker = NodeStateTracker()
    ids: list[str] = []
    for turn in range(1, turns + 1):
        tracker.advance_to(turn)
        for _ in range(rng.randint(0, 3)):
            node_id = f"n{len(ids)}"
            # Repeated labels make the label tie-break of the newest-first order matter.
            tracker.register_node(node_id, turn, label=rng.choice(["price", "comfort", "battery", "style"]))
            ids.append(node_id)
        if ids:
            focus = rng.choice(ids)
            tracker.update_focus(focus, turn, rng.choice(["deepen", "explore"]))
            produced = rng.random() < 0.5
            tracker.record_yield(focus, turn, GraphChangeSummary(nodes_added=int(produced)))
    return tracker


def test_a_copy_stores_the_same_and_changes_apart_from_its_source() -> None:
    for seed in range(20):
        source = _interview(seed)
        before = source.to_dict()
        copy = source.copy()
        assert copy.to_dict() == before
        # Every kind of change a later stage makes, on the copy: containers are not shared.
        turn = source.clock + 1
        key = next(iter(copy.states))
        copy.advance_to(turn)
        copy.register_node("new", turn, label="new node")
        copy.update_edge(key, "new")
        copy.update_focus(key, turn, "deepen")
        copy.append_response_signal(None, "deep", turn_number=turn)
        copy.record_yield(key, turn, GraphChangeSummary(nodes_added=1))
        assert copy.to_dict() != before
        assert source.to_dict() == before


def test_a_resolved_copy_is_the_tracker_loaded_with_the_same_slots() -> None:
    for seed in range(20):
        source = _interview(seed)
        before = source.to_dict()
        ids = sorted(source.states)
        # Half of the nodes share two slots (states merge), the rest stay surface-keyed.
        slots = {node_id: f"slot-{i % 2}" for i, node_id in enumerate(ids[: len(ids) // 2])}
        copy = resolved_copy(source, slots)
        assert copy.to_dict() == load_tracker(before, slots).to_dict()
        if len(slots) > 2:
            assert len(copy.states) < len(source.states)
        assert sorted(surface_ids(copy)) == sorted(surface_ids(source)) == ids
        # the resolver goes with the copy: a later focus on a surface id lands on its slot
        if slots:
            node_id = next(iter(slots))
            copy.update_focus(node_id, copy.clock, "deepen")
            assert copy.previous_focus == slots[node_id]
        assert source.to_dict() == before


def test_the_graph_update_changes_a_copy_of_the_loaded_tracker() -> None:
    loaded = _interview(3)
    before = loaded.to_dict()
    updated = loaded.copy()
    node = common_pb2.Node(id="fresh", label="fresh label", node_type="attribute")
    apply_graph_update(updated, graph_pb2.ApplyExtractionResponse(nodes_created=[node]), loaded.clock + 1)
    assert updated.get_state("fresh") is not None and loaded.get_state("fresh") is None
    assert loaded.to_dict() == before


def test_the_focus_counts_are_read_per_state() -> None:
    seen: set[tuple[int, int]] = set()
    for seed in range(20):
        stored = _interview(seed).to_dict()
        loaded = load_tracker(stored)
        expected = [(s["focus_count"], s["turns_since_last_yield"]) for s in stored["states"].values()]
        assert tracked_focus(loaded) == expected
        seen.update(expected)
    # The interviews exercise repeated foci and droughts, not only zeros.
    assert max(count for count, _ in seen) > 1 and max(since for _, since in seen) > 0


def test_the_newest_labels_follow_creation_then_label() -> None:
    for seed in range(20):
        stored = _interview(seed).to_dict()
        ordered = sorted(stored["states"].values(), key=lambda s: (-s["created_at_turn"], s["label"]))
        for limit in (0, 3, 12, 100):
            assert newest_labels(load_tracker(stored), limit) == [s["label"] for s in ordered[:limit]]
    empty = load_tracker(None)
    assert tracked_focus(empty) == [] and newest_labels(empty, 5) == []


def test_a_slot_names_every_surface_node_behind_it() -> None:
    # "netflix" and "youtube" share a canonical slot; the respondent named them apart
    tracker = load_tracker(
        {
            "schema_version": 1,
            "states": {
                "slot-1": {"label": "netflix", "created_at_turn": 1, "surface_node_ids": ["n1", "n2"]},
                "slot-2": {"label": "original shows", "created_at_turn": 3, "surface_node_ids": ["n3"]},
            },
        }
    )
    surface = {"n1": ("netflix", "element"), "n2": ("youtube", "element"), "n3": ("original shows", "pole")}
    assert newest_labels(tracker, 12, surface) == ["original shows", "netflix", "youtube"]
    assert newest_labels(tracker, 2, surface) == ["original shows", "netflix"]
    # without the surface labels (or ids the turn does not know) the slot's own label stands alone
    assert newest_labels(tracker, 12) == ["original shows", "netflix"]
    assert newest_labels(tracker, 12, {"n9": ("other", "element")}) == ["original shows", "netflix"]
