"""The Markdown report names the longest chain's steps like its relationships."""

from __future__ import annotations

from services.orchestrator.exporter import to_markdown
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb


def _graph(edge_types: list[str]) -> pb.GetSessionGraphResponse:
    labels = {"n1": "rushed through my medication", "n2": "mixed up the tablets", "n3": "ward nurse checked"}
    return pb.GetSessionGraphResponse(
        nodes=[common_pb2.Node(id=i, label=label, node_type="incident") for i, label in labels.items()],
        graph_state=common_pb2.GraphState(
            node_count=3,
            depth=common_pb2.DepthMetrics(
                max_depth=3, longest_chain_path=list(labels), longest_chain_edge_types=edge_types
            ),
        ),
    )


def test_the_longest_chain_names_its_edges() -> None:
    report = to_markdown(pb.GetSessionResponse(), _graph(["leads_to", "contrasts_with"]), [])
    assert (
        "Longest chain: rushed through my medication —leads_to→ mixed up the tablets "
        "—contrasts_with→ ward nurse checked"
    ) in report


def test_a_chain_without_edge_types_keeps_plain_arrows() -> None:
    # a graph state from an older graph store, or types that do not pair with the nodes
    for kinds in ([], ["leads_to"]):
        report = to_markdown(pb.GetSessionResponse(), _graph(kinds), [])
        assert (
            "Longest chain: rushed through my medication → mixed up the tablets → ward nurse checked"
            in report
        )
