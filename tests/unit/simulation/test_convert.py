"""The simulation's reading of the orchestrator's answers."""

from __future__ import annotations

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.slots.v1 import slots_pb2
from simulation.convert import graph_snapshot, turn_record


def test_the_graph_keeps_which_slot_each_node_maps_to() -> None:
    response = pb.GetSessionGraphResponse(
        nodes=[
            common_pb2.Node(id="n1", label="nurse rang me to plan the discharge", node_type="incident"),
            common_pb2.Node(id="n2", label="discharge nurse phoned me", node_type="incident"),
            common_pb2.Node(id="n3", label="dad", node_type="actor"),
        ],
        slots=[slots_pb2.Slot(id="s1", slot_name="nurse_call")],
        mappings=[
            slots_pb2.SlotMapping(surface_node_id="n1", slot_id="s1"),
            slots_pb2.SlotMapping(surface_node_id="n2", slot_id="s1"),
        ],
    )
    graph = graph_snapshot(response)
    assert graph.slot_of == {"n1": "s1", "n2": "s1"}  # n3 not mapped yet
    assert graph.canonical_slot_count == 1
    assert graph_snapshot(pb.GetSessionGraphResponse(nodes=response.nodes)).slot_of == {}


def _candidate(
    rank: int, strategy: str, label: str, score: float, *, selected: bool = False
) -> common_pb2.ScoredCandidate:
    return common_pb2.ScoredCandidate(
        strategy=strategy,
        node_id=f"id-{label}" if label else "",
        node_label=label,
        contributions=[
            common_pb2.SignalContribution(
                weight_key="meta.node.opportunity.fresh", weight=0.4, contribution=0.4
            ),
            common_pb2.SignalContribution(
                weight_key="temporal.turns_since_strategy_change", weight=0.5, contribution=score - 0.4
            ),
        ],
        base_score=score,
        phase_multiplier=1.0,
        final_score=score,
        rank=rank,
        selected=selected,
    )


def test_a_turn_keeps_its_best_ranked_candidates_in_rank_order() -> None:
    # the decomposition arrives in whatever order the service built it; the record reads best first
    ranked = [_candidate(r, "explore_touchpoint", f"node {r}", 2.0 - r / 10) for r in range(2, 9)]
    best = _candidate(1, "walk_journey", "", 2.16, selected=True)
    result = pb.TurnResult(
        turn_number=8, strategy_selected="walk_journey", score_decomposition=[*ranked, best]
    )
    record = turn_record("What happened next?", "We booked a slot.", result)
    assert [c.rank for c in record.candidates] == [1, 2, 3, 4, 5]
    first = record.candidates[0]
    assert (first.strategy, first.focus_label, first.selected, first.score) == (
        "walk_journey",
        "",
        True,
        2.16,
    )
    assert record.candidates[1].focus_label == "node 2" and not record.candidates[1].selected
    assert [k.weight_key for k in first.contributions] == [
        "meta.node.opportunity.fresh",
        "temporal.turns_since_strategy_change",
    ]
    assert round(sum(k.contribution for k in first.contributions), 4) == first.base_score
    assert turn_record("q", "a", pb.TurnResult(turn_number=1)).candidates == []
