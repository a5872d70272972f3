"""Which internal calls a turn makes: no round trip for what the turn already knows.

A recording interceptor on graph_store, extraction and canonical_slots sees every request, so the
tests check the calls themselves (their number and content), and the public results they feed.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

import grpc
import grpc.aio
import pytest

from services.orchestrator.clients import Dependencies
from services.orchestrator.contracts import StageName
from services.orchestrator.pipeline import PipelineContext
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.stages.common import StageDeps
from services.orchestrator.stages.intake import EXISTING_NODE_LIMIT, existing_nodes
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2, graph_pb2_grpc
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from tests.integration.answers import ANSWERS
from tests.integration.conftest import SuiteFactory
from tests.integration.helpers import (
    CallRecorder,
    Hold,
    Signal,
    StageWrapper,
    UnaryInterceptor,
    answer,
    create,
    set_within,
)

CONCEPT = "headphones_mec"
# Unrelated nouns: far apart in embedding space, so none is merged into another as a duplicate.
NOUNS = (  # noqa: SIM905 - a word list reads better as one text
    "anchor banana cactus dolphin engine falcon guitar harbor igloo jacket kettle lantern meadow "
    "needle orchard pepper quartz rocket saddle tunnel umbrella violin walnut yacht zipper almanac "
    "blizzard candle desert elbow fountain glacier hammer island jungle ladder magnet napkin oyster "
    "pillow quiver ribbon spider tractor uniform volcano wallet xylophone yogurt acorn basket cobweb "
    "drum eagle feather garlic helmet insect jewel kitten lemon mirror nest onion parrot rabbit "
    "sandal tomato vase whistle bucket compass dragon envelope forest goblet hive iceberg kayak "
    "lobster marble notebook ostrich pumpkin raccoon scarf trumpet"
).split()


async def test_a_turn_reuses_what_it_already_holds(suite_factory: SuiteFactory) -> None:
    recorders = {name: CallRecorder() for name in ("graph_store", "extraction", "canonical_slots")}
    async with suite_factory(interceptors={name: [r] for name, r in recorders.items()}) as suite:
        created = await create(suite.stub, CONCEPT, max_turns=10)
        session_id = created.session.session_id
        shown = [created.opening_question]
        results: list[pb.TurnResult] = []
        for turn, text in enumerate(ANSWERS[CONCEPT][:5], start=1):
            result = await answer(suite.stub, session_id, turn, text)
            results.append(result)
            shown.append(result.next_question)
        slot_calls = [name for name, _ in recorders["canonical_slots"].calls]
        reads = recorders["canonical_slots"].requests("GetCanonicalState")
        graph = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session_id))

    graph_calls, extraction_calls = recorders["graph_store"], recorders["extraction"]
    # Preprocessing runs beside context loading, with the question the respondent answered.
    assert [r.question for r in extraction_calls.requests("Preprocess")] == shown[:5]
    # Extraction is shown labels and types only: the listing asks for nodes without provenance.
    listings = graph_calls.requests("ListNodes")
    assert len(listings) == 5 and {r.view for r in listings} == {graph_pb2.NODE_VIEW_BASIC}
    assert graph_calls.requests("SearchNodes") == []  # a small graph is listed whole
    # Focus and chain labels come from the nodes the turn already holds: no lookup by id.
    assert graph_calls.requests("BatchGetNodes") == []
    # Deferred mode: the canonical state is read (beside extraction, so without the surface counts,
    # which exist only after the graph update) only by a turn with no earlier discovery to catch
    # up with: the others take it from the caught-up run. Here only the first turn reads it.
    assert all(r.nodes_added or r.edges_added for r in results)
    assert len(reads) == 1
    assert {(r.surface_node_count, r.surface_edge_count) for r in reads} == {(0, 0)}
    # Each turn's run, once: the next turn's catch-up takes the response of the run this
    # orchestrator started instead of sending the request again.
    assert slot_calls.count("DiscoverSlots") == 5
    # The slots of the tracked nodes come from the mappings the caught-up runs created: every node
    # an earlier turn created was mapped by its run, so no turn asks canonical_slots to resolve.
    assert sum(1 for r in results[:-1] if r.graph_state.node_count) > 0
    assert slot_calls.count("ResolveNodes") == 0
    # The comparison the turn reports is the one documented on GraphComparison, for the graph after
    # the update: surface nodes per active canonical concept.
    last = results[-1]
    concepts = last.canonical_graph.concept_count
    assert concepts > 0
    assert (last.graph_comparison.surface_node_count, last.graph_comparison.surface_edge_count) == (
        last.graph_state.node_count,
        last.graph_state.edge_count,
    )
    assert last.graph_comparison.canonical_concept_count == concepts
    assert last.graph_comparison.canonical_edge_count == last.canonical_graph.edge_count
    assert last.graph_comparison.compression_ratio == last.graph_state.node_count / concepts

    labels = {n.id: n.label for n in graph.nodes}
    slot_labels = {m.slot_id: labels[m.surface_node_id] for m in graph.mappings}
    focused = [r for r in results if r.focus_node_id]
    assert focused, "the interview never focused a node"
    for r in focused:
        assert r.focus_label, r.turn_number
        # The focus is a surface node or a canonical slot; either way the label is a node's label.
        if r.focus_node_id in labels:
            assert r.focus_label == labels[r.focus_node_id]
        else:
            assert r.focus_label in {
                labels[m.surface_node_id] for m in graph.mappings if m.slot_id == r.focus_node_id
            }, (r.focus_node_id, slot_labels)


async def test_existing_node_lookup_goes_straight_to_search_for_a_known_large_graph(
    suite_factory: SuiteFactory,
) -> None:
    recorder = CallRecorder()
    async with suite_factory(interceptors={"graph_store": [recorder]}) as suite:
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{suite.ports['graph_store']}")
        try:
            graph = graph_pb2_grpc.GraphServiceStub(channel)
            text = "I think about " + ", ".join(NOUNS) + "."
            await graph.ApplyExtraction(
                graph_pb2.ApplyExtractionRequest(
                    session_id="big",
                    utterance_id="big-u1",
                    turn_number=1,
                    methodology="means_end_chain",
                    utterance_text=text,
                    concepts=[
                        common_pb2.ExtractedConcept(label=noun, node_type="attribute", confidence=0.9)
                        for noun in NOUNS
                    ],
                )
            )
            total = (await graph.ListNodes(graph_pb2.ListNodesRequest(session_id="big"))).total_size
            assert total > EXISTING_NODE_LIMIT  # the precondition: more nodes than extraction sees
            deps = Dependencies.connect(suite.orchestrator_settings())
            stage_deps = StageDeps(deps=deps, repo=None, settings=None, methodologies=None, rules=None)  # type: ignore[arg-type]
            try:
                recorder.calls.clear()
                unknown = await existing_nodes(stage_deps, "big", "a sweet yellow fruit", known_count=0)
                assert [name for name, _ in recorder.calls] == ["ListNodes", "SearchNodes"]
                recorder.calls.clear()
                known = await existing_nodes(stage_deps, "big", "a sweet yellow fruit", known_count=total)
                assert [name for name, _ in recorder.calls] == ["SearchNodes"]
            finally:
                await deps.close()
        finally:
            await channel.close(None)
    assert known == unknown and len(known) == EXISTING_NODE_LIMIT
    assert known[0].label == "banana"  # the most relevant node first
    search = recorder.requests("SearchNodes")[0]
    assert search.view == graph_pb2.NODE_VIEW_BASIC and search.limit == EXISTING_NODE_LIMIT


async def _interview(
    suite_factory: SuiteFactory,
    request_id: str,
    turns: int,
    slots: list[UnaryInterceptor],
    *,
    read_slots: bool = False,
    **settings: Any,
) -> tuple[list[pb.TurnResult], set[str]]:
    """The first `turns` answers of one interview on a fresh suite, with `slots` installed on
    canonical_slots (the same request id gives the same session id in every run), and with
    `read_slots` the ids of the session's canonical slots at the end (a graph read: more calls)."""
    async with suite_factory(interceptors={"canonical_slots": slots}, **settings) as suite:
        created = await create(suite.stub, CONCEPT, max_turns=10, request_id=request_id)
        session_id = created.session.session_id
        results = [
            await answer(suite.stub, session_id, turn, text)
            for turn, text in enumerate(ANSWERS[CONCEPT][:turns], start=1)
        ]
        if not read_slots:
            return results, set()
        graph = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session_id))
        return results, {m.slot_id for m in graph.mappings}


class OlderCheckpoint(StageWrapper):
    """A stage whose output reads back as a checkpoint written before `fields` existed."""

    stage: ClassVar[StageName]
    fields: ClassVar[frozenset[str]]

    async def run(self, ctx: PipelineContext) -> Any:
        output = await self._inner.run(ctx)
        if self.name == self.stage:
            return type(output).model_validate_json(output.model_dump_json(exclude=set(self.fields)))
        return output


class WithoutSlotIds(OlderCheckpoint):
    """State computation from before it resolved the tracker's slots."""

    stage = StageName.STATE_COMPUTATION
    fields = frozenset({"slot_ids"})


async def test_strategy_resolves_slots_itself_after_an_older_state_checkpoint(
    suite_factory: SuiteFactory,
) -> None:
    runs: dict[str, tuple[list[tuple[str, str]], list[str]]] = {}
    for name, wrap in (("current", None), ("older", WithoutSlotIds)):
        results, slot_ids = await _interview(
            suite_factory,
            "slot-ids",
            4,
            [],
            read_slots=True,
            stage_wrapper=wrap,
            canonical_slots_mode="inline",
        )
        picked = [(r.strategy_selected, r.focus_label) for r in results]  # node ids differ per run
        runs[name] = (picked, [r.focus_node_id for r in results if r.focus_node_id])
        # Every focus is a canonical slot: the tracker was keyed by slot, in the older run by
        # strategy selection itself (without the slots, a focus would be a surface node id).
        assert runs[name][1] and set(runs[name][1]) <= slot_ids, (name, runs[name][1], slot_ids)
    assert runs["older"][0] == runs["current"][0]  # the same decisions


async def test_deferred_canonical_reads_overlap_the_graph_update(suite_factory: SuiteFactory) -> None:
    # The graph update waits until the turn's canonical read has arrived: when state computation
    # made it after the update, the wait runs out instead. (Later turns of this orchestrator make
    # no canonical read at all: the catch-up's response carries the state and the mappings, see
    # test_a_turn_reuses_what_it_already_holds; a turn after a restart reads on the same path.)
    arrived = asyncio.Event()
    hold = Hold("/ApplyExtraction", arrived)
    interceptors = {
        "graph_store": [hold],
        "canonical_slots": [Signal("/GetCanonicalState", arrived), Signal("/ResolveNodes", arrived)],
    }
    async with suite_factory(interceptors=interceptors) as suite:
        session_id = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        result = await answer(suite.stub, session_id, 1, ANSWERS[CONCEPT][0])
    assert hold.saw_ready == [True]
    assert result.graph_state.node_count


async def test_the_intake_calls_run_while_the_turn_is_recorded(
    suite_factory: SuiteFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Recording each turn waits until extraction's node lookup has reached the graph store, the
    # preprocessing call the extraction service and the transcript read the database: when they
    # were only made by the stages, after the turn was recorded, the waits run out.
    lookup, preprocessing, transcript = asyncio.Event(), asyncio.Event(), asyncio.Event()
    overlapped: list[tuple[bool, bool, bool]] = []
    begin_turn = OrchestratorRepository.begin_turn
    list_utterances = OrchestratorRepository.list_utterances

    async def begin_once_they_arrived(self: OrchestratorRepository, *args: Any, **kwargs: Any) -> Any:
        overlapped.append(
            (await set_within(lookup, 5), await set_within(preprocessing, 5), await set_within(transcript, 5))
        )
        return await begin_turn(self, *args, **kwargs)

    async def noted_read(self: OrchestratorRepository, session_id: str) -> Any:
        transcript.set()
        return await list_utterances(self, session_id)

    monkeypatch.setattr(OrchestratorRepository, "begin_turn", begin_once_they_arrived)
    monkeypatch.setattr(OrchestratorRepository, "list_utterances", noted_read)
    graph_calls, extraction_calls = CallRecorder(), CallRecorder()
    async with suite_factory(
        interceptors={
            "graph_store": [graph_calls, Signal("/ListNodes", lookup)],
            "extraction": [extraction_calls, Signal("/Preprocess", preprocessing)],
        }
    ) as suite:
        session_id = (await create(suite.stub, CONCEPT, max_turns=6)).session.session_id
        results = []
        for turn, text in enumerate(ANSWERS[CONCEPT][:3], start=1):
            for event in (lookup, preprocessing, transcript):
                event.clear()  # only this turn's calls count
            results.append(await answer(suite.stub, session_id, turn, text))
        stored = await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))
    assert overlapped == [(True, True, True)] * 3
    # One of each per turn: the stages used the ones the turn started instead of their own.
    assert len(graph_calls.requests("ListNodes")) == 3
    assert len(extraction_calls.requests("Preprocess")) == 3
    assert all(r.nodes_added for r in results)
    # The answers are in the transcript (stored with the turn row, not by a stage of their own).
    respondent = [u.text for u in stored.transcript if u.speaker == common_pb2.SPEAKER_RESPONDENT]
    assert respondent == ANSWERS[CONCEPT][:3]


class OlderSlotCheckpoint(OlderCheckpoint):
    """Slot discovery from before it read the canonical state."""

    stage = StageName.SLOT_DISCOVERY
    fields = frozenset({"canonical_state", "slot_ids"})


async def test_state_computation_reads_the_canonical_state_itself_after_an_older_slot_checkpoint(
    suite_factory: SuiteFactory,
) -> None:
    runs: dict[str, tuple[list[tuple[Any, ...]], list[Any]]] = {}
    for name, wrap in (("current", None), ("older", OlderSlotCheckpoint)):
        recorder = CallRecorder()
        results, _ = await _interview(suite_factory, "older-slots", 4, [recorder], stage_wrapper=wrap)
        # Node ids differ per run: compare what follows from them.
        seen = [
            (
                r.strategy_selected,
                r.focus_label,
                r.canonical_graph.SerializeToString(deterministic=True),
                r.graph_comparison.SerializeToString(deterministic=True),
            )
            for r in results
        ]
        runs[name] = (seen, recorder.requests("GetCanonicalState"))
    (current, current_reads), (older, older_reads) = runs["current"], runs["older"]
    assert older == current
    # The older checkpoint made state computation ask again, with the updated graph's counts (the
    # slot stage itself reads the state only in the first turn: the later ones catch up).
    assert len(current_reads) == 1
    with_counts = [r for r in older_reads if r.surface_node_count]
    assert len(with_counts) == 4 and len(older_reads) - len(with_counts) == 1


class WithoutStoredState(UnaryInterceptor):
    """DiscoverSlots responses without their canonical state (as from a run stored before it kept
    one), so each turn asks GetCanonicalState instead."""

    async def around(self, method: str, inner: Any, request: Any, context: Any) -> Any:
        response = await inner(request, context)
        if method == "DiscoverSlots":
            response.ClearField("canonical_state")
        return response


async def test_a_turn_takes_the_canonical_state_from_the_discovery_it_caught_up_with(
    suite_factory: SuiteFactory,
) -> None:
    # The state stored with the previous turn's run is the one GetCanonicalState reads: the
    # canonical figures and every decision are the same either way.
    runs: dict[str, tuple[list[tuple[Any, ...]], int]] = {}
    stripped: list[UnaryInterceptor] = [WithoutStoredState()]
    for name, extra in (("stored", []), ("read", stripped)):
        recorder = CallRecorder()
        results, _ = await _interview(suite_factory, "stored-state", 5, [recorder, *extra])
        seen = [
            (
                r.strategy_selected,
                r.focus_label,
                r.next_question,
                r.canonical_graph.SerializeToString(deterministic=True),
                r.graph_comparison.SerializeToString(deterministic=True),
                dict(r.signals),
            )
            for r in results
        ]
        runs[name] = (seen, len(recorder.requests("GetCanonicalState")))
    (stored, stored_reads), (read, read_reads) = runs["stored"], runs["read"]
    assert stored == read
    assert any(turn[3] for turn in stored[1:])  # the later turns do have canonical figures
    assert (stored_reads, read_reads) == (1, 5)
