"""The nodes a turn carries over to the next in the session state (`SessionState.graph_nodes`)."""

from __future__ import annotations

from services.orchestrator.contracts import ContextLoadingOutput, SessionState
from services.orchestrator.stages.intake import EXISTING_NODE_LIMIT, graph_nodes_after, stored_graph_nodes
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.extraction.v1 import extraction_pb2
from shared.gen.interview.graph.v1 import graph_pb2


def _loaded(nodes: list[tuple[str, str, str]] | None, *, complete: bool) -> ContextLoadingOutput:
    return ContextLoadingOutput(
        session_id="s1",
        methodology="means_end_chain",
        concept=common_pb2.Concept(id="c", name="C"),
        turn_number=3,
        max_turns=10,
        previous_question="Why?",
        recent_turns=[],
        previous_questions=[],
        state=SessionState(),
        tracker={},
        canonical_enabled=False,
        slot_mode="deferred",
        existing_nodes=None
        if nodes is None
        else [extraction_pb2.ExistingNode(node_id=i, label=label, node_type=t) for i, label, t in nodes],
        existing_complete=complete,
    )


def _created(*nodes: tuple[str, str, str]) -> graph_pb2.ApplyExtractionResponse:
    return graph_pb2.ApplyExtractionResponse(
        nodes_created=[
            common_pb2.Node(id=i, label=label, node_type=t, embedding=[0.5]) for i, label, t in nodes
        ]
    )


def _triples(nodes: list[extraction_pb2.ExistingNode] | None) -> list[tuple[str, str, str]] | None:
    return None if nodes is None else [(n.node_id, n.label, n.node_type) for n in nodes]


def test_the_whole_graph_plus_the_turns_new_nodes_goes_to_the_next_turn() -> None:
    before = [("n1", "battery life", "attribute")]
    after = graph_nodes_after(
        _loaded(before, complete=True),
        _created(("n2", "fewer worries", "functional_consequence"), ("n1", "battery life", "attribute")),
    )
    state = SessionState(graph_nodes=after).model_dump(mode="json")
    # Creation order, no node twice, and it reads back from the stored state as extraction sees it.
    assert _triples(stored_graph_nodes(state)) == [
        ("n1", "battery life", "attribute"),
        ("n2", "fewer worries", "functional_consequence"),
    ]


def test_an_empty_graph_is_known_and_a_turn_without_new_nodes_keeps_it() -> None:
    assert graph_nodes_after(_loaded([], complete=True), _created()) == []
    assert _triples(stored_graph_nodes(SessionState(graph_nodes=[]).model_dump(mode="json"))) == []


def test_nothing_is_carried_over_unless_the_turn_knew_the_whole_graph() -> None:
    # A search's pick, or a context checkpoint from before the lookup moved there.
    assert graph_nodes_after(_loaded([("n1", "a", "attribute")], complete=False), _created()) is None
    assert graph_nodes_after(_loaded(None, complete=True), _created(("n2", "b", "attribute"))) is None
    # A session stored before the field (or with it unset) asks graph_store again.
    assert stored_graph_nodes(None) is None
    assert stored_graph_nodes({"strategy_history": []}) is None
    assert stored_graph_nodes(SessionState().model_dump(mode="json")) is None


def test_a_graph_past_the_lookup_limit_is_no_longer_carried_over() -> None:
    full = [(f"n{i}", f"label {i}", "attribute") for i in range(EXISTING_NODE_LIMIT)]
    assert graph_nodes_after(_loaded(full[:-1], complete=True), _created(full[-1])) is not None
    assert (
        graph_nodes_after(_loaded(full, complete=True), _created(("extra", "one more", "attribute"))) is None
    )
