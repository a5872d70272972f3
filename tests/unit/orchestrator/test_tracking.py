"""Reading a stored tracker without loading it gives what the loaded tracker says."""

from __future__ import annotations

import random

from services.orchestrator.tracking import load_tracker, newest_labels, tracked_focus
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


def test_the_stored_focus_counts_are_the_loaded_trackers() -> None:
    seen: set[tuple[int, int]] = set()
    for seed in range(20):
        stored = _interview(seed).to_dict()
        loaded = load_tracker(stored)
        expected = [(s.focus_count, s.turns_since_last_yield) for s in loaded.states.values()]
        assert tracked_focus(stored) == expected
        seen.update(expected)
    # The interviews exercise repeated foci and droughts, not only zeros.
    assert max(count for count, _ in seen) > 1 and max(since for _, since in seen) > 0


def test_the_newest_labels_follow_creation_then_label() -> None:
    for seed in range(20):
        stored = _interview(seed).to_dict()
        states = load_tracker(stored).states.values()
        ordered = sorted(states, key=lambda s: (-s.created_at_turn, s.label))
        for limit in (0, 3, 12, 100):
            assert newest_labels(stored, limit) == [s.label for s in ordered[:limit]]
    assert tracked_focus(None) == [] and newest_labels(None, 5) == []


def test_a_slot_names_every_surface_node_behind_it() -> None:
    # "netflix" and "youtube" share a canonical slot; the respondent named them apart
    stored = {
        "states": {
            "slot-1": {"label": "netflix", "created_at_turn": 1, "surface_node_ids": ["n1", "n2"]},
            "slot-2": {"label": "original shows", "created_at_turn": 3, "surface_node_ids": ["n3"]},
        }
    }
    surface = {"n1": ("netflix", "element"), "n2": ("youtube", "element"), "n3": ("original shows", "pole")}
    assert newest_labels(stored, 12, surface) == ["original shows", "netflix", "youtube"]
    assert newest_labels(stored, 2, surface) == ["original shows", "netflix"]
    # without the surface labels (or ids the turn does not know) the slot's own label stands alone
    assert newest_labels(stored, 12) == ["original shows", "netflix"]
    assert newest_labels(stored, 12, {"n9": ("other", "element")}) == ["original shows", "netflix"]
