"""The simulation's reading of the orchestrator's answers."""

from __future__ import annotations

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.slots.v1 import slots_pb2
from simulation.convert import graph_snapshot


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
