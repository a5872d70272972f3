"""Node labels a turn already holds (no lookup by id for the focus and the longest chain)."""

from __future__ import annotations

from pathlib import Path

from services.orchestrator.contracts import (
    ContextLoadingOutput,
    GraphUpdateOutput,
    SaturationState,
    StageName,
    StateComputationOutput,
    StrategySelectionOutput,
)
from services.orchestrator.pipeline import PipelineContext, TurnInput
from services.orchestrator.stages.common import StageDeps, known_labels
from services.orchestrator.stages.output import QuestionGenerationStage
from services.orchestrator.tracking import apply_graph_update, load_tracker, surface_ids, tracked_surface_ids
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.extraction.v1 import extraction_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.gen.interview.scoring.v1 import scoring_pb2
from shared.methodology import MethodologyRegistry
from tests.unit.orchestrator.support import context_output

METHODOLOGIES = MethodologyRegistry(Path(__file__).resolve().parents[3] / "config" / "methodologies")


def _loaded(existing: list[extraction_pb2.ExistingNode] | None) -> ContextLoadingOutput:
    return context_output(turn_number=3, max_turns=10, existing_nodes=existing)


def _node(node_id: str, label: str, node_type: str = "attribute") -> common_pb2.Node:
    return common_pb2.Node(id=node_id, label=label, node_type=node_type)


def test_labels_come_from_the_tracker_the_listing_and_the_update() -> None:
    # Turns 1-2 registered n1 and n2 (n2 later merged with n3 into one slot); turn 3 creates n4
    # and re-mentions n3; an edge reaches n9, which the tracker never saw with a label.
    tracker = load_tracker(None)
    first = graph_pb2.ApplyExtractionResponse(nodes_created=[_node("n1", "light"), _node("n2", "comfort")])
    apply_graph_update(tracker, first, 1)
    second = graph_pb2.ApplyExtractionResponse(
        nodes_created=[_node("n3", "comfy", "functional_consequence")],
        edges_created=[common_pb2.Edge(id="e1", source_node_id="n1", target_node_id="n9")],
    )
    apply_graph_update(tracker, second, 2)
    merged = load_tracker(tracker.to_dict(), {"n2": "slot-a", "n3": "slot-a"})
    update = GraphUpdateOutput(
        response=graph_pb2.ApplyExtractionResponse(
            nodes_created=[_node("n4", "peace of mind", "terminal_value")],
            nodes_mentioned=[graph_pb2.NodeMention(node=_node("n3", "comfy", "functional_consequence"))],
        ),
        tracker=merged.to_dict(),
    )

    known = known_labels(_loaded(None), update)
    assert known["n1"] == ("light", "attribute")  # from the tracker alone
    assert known["n4"] == ("peace of mind", "terminal_value")  # created this turn
    assert known["n3"] == ("comfy", "functional_consequence")  # re-mentioned this turn
    # The merged slot's state aggregates n2 and n3: no label is guessed from it ...
    assert "n2" not in known
    # ... and n9 was tracked with its id as label: not a label at all.
    assert "n9" not in known

    listed = [extraction_pb2.ExistingNode(node_id="n2", label="comfort", node_type="attribute")]
    assert known_labels(_loaded(listed), update)["n2"] == ("comfort", "attribute")


def test_stored_tracker_readers_agree_with_the_loaded_tracker() -> None:
    tracker = load_tracker(None)
    created = [_node("n1", "light"), _node("n2", "comfort"), _node("n3", "comfy")]
    apply_graph_update(tracker, graph_pb2.ApplyExtractionResponse(nodes_created=created), 1)
    stored = load_tracker(tracker.to_dict(), {"n2": "slot-a", "n3": "slot-a"}).to_dict()
    assert (
        sorted(tracked_surface_ids(stored)) == sorted(surface_ids(load_tracker(stored))) == ["n1", "n2", "n3"]
    )
    assert tracked_surface_ids(None) == []


class _Graph:
    """Records the lookups a stage makes (the graph store's BatchGetNodes)."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    async def __call__(
        self, method: object, request: graph_pb2.BatchGetNodesRequest, *, service: str
    ) -> object:
        self.asked.append(list(request.node_ids))
        return graph_pb2.BatchGetNodesResponse(nodes=[_node(i, f"looked up {i}") for i in request.node_ids])

    @property
    def graph(self) -> object:
        return type("Stub", (), {"BatchGetNodes": None})()


def _summary_context(
    loaded: ContextLoadingOutput, labels: list[str], tracker: dict[str, object] | None = None
) -> PipelineContext:
    """A turn's context up to question generation: a chain n7 → n8 named `labels` (the turn holds
    neither node) and the strategy stage's `tracker`."""
    ctx = PipelineContext(turn=TurnInput("s", loaded.turn_number, "an answer", None))
    ctx.set(StageName.CONTEXT_LOADING, loaded)
    ctx.set(
        StageName.GRAPH_UPDATE, GraphUpdateOutput(response=graph_pb2.ApplyExtractionResponse(), tracker={})
    )
    depth = common_pb2.DepthMetrics(max_depth=2, longest_chain_path=["n7", "n8"], longest_chain_labels=labels)
    ctx.set(
        StageName.STATE_COMPUTATION,
        StateComputationOutput(
            graph_state=common_pb2.GraphState(depth=depth),
            saturation=SaturationState(),
            new_info=0,
            surface_delta=0,
            canonical_delta=0,
            is_shallow=False,
        ),
    )
    ctx.set(
        StageName.STRATEGY_SELECTION,
        StrategySelectionOutput(
            selection=scoring_pb2.SelectStrategyResponse(),
            focus_label="",
            focus_node_type="",
            tracker=tracker or {},
        ),
    )
    return ctx


def _stage(graph: _Graph) -> QuestionGenerationStage:
    return QuestionGenerationStage(StageDeps(graph, None, None, METHODOLOGIES, None))  # type: ignore[arg-type]


async def _chain(labels: list[str]) -> tuple[list[str], list[list[str]]]:
    """The summary's chain labels for a chain n7 → n8 whose nodes the turn does not hold."""
    graph = _Graph()
    summary = await _stage(graph)._summary(_summary_context(_loaded(None), labels))
    return list(summary.longest_chain_labels), graph.asked


async def test_the_chain_is_named_by_the_graph_state_without_a_lookup() -> None:
    assert await _chain(["light", "comfort"]) == (["light", "comfort"], [])
    # A graph state without the names (a checkpoint from an older graph store): looked up by id.
    assert await _chain([]) == (["looked up n7", "looked up n8"], [["n7", "n8"]])


async def test_the_summary_names_a_grids_elements_oldest_first_past_the_newest_twelve() -> None:
    # Turns 1-3 name three elements; turns 4-9 two poles each. The newest twelve labels leave out
    # the first elements named, which a triad still needs: the summary names every element.
    tracker = load_tracker(None)
    for turn, name in enumerate(["Netflix", "YouTube", "Disney+"], start=1):
        created = graph_pb2.ApplyExtractionResponse(nodes_created=[_node(f"e{turn}", name, "element")])
        apply_graph_update(tracker, created, turn)
    for turn in range(4, 10):
        poles = [
            _node(f"p{turn}", f"pole {turn}", "emergent_pole"),
            _node(f"q{turn}", f"other {turn}", "implicit_pole"),
        ]
        apply_graph_update(tracker, graph_pb2.ApplyExtractionResponse(nodes_created=poles), turn)
    apply_graph_update(
        tracker, graph_pb2.ApplyExtractionResponse(nodes_created=[_node("e10", "Prime Video", "element")]), 10
    )
    loaded = context_output(methodology="repertory_grid", turn_number=11, max_turns=20)
    ctx = _summary_context(loaded, ["pole 9", "other 9"], tracker.to_dict())
    summary = await _stage(_Graph())._summary(ctx)
    assert "Netflix" not in summary.node_labels  # the newest twelve
    assert list(summary.element_labels) == ["Netflix", "YouTube", "Disney+", "Prime Video"]

    # A means-end chain's lowest level is the attribute: the elements are not named for it.
    mec = context_output(methodology="means_end_chain", turn_number=11, max_turns=20)
    none = await _stage(_Graph())._summary(_summary_context(mec, [], tracker.to_dict()))
    assert list(none.element_labels) == []
