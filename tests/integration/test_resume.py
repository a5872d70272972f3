"""A turn that fails part-way resumes at the failed stage, duplicating nothing."""

from __future__ import annotations

import json
from typing import Any

import grpc
import grpc.aio
import pytest

from services.orchestrator.contracts import StageName
from services.orchestrator.pipeline import PipelineContext, Stage
from services.orchestrator.repository import OrchestratorRepository
from shared.db import create_engine
from shared.gen.interview.common.v1.common_pb2 import SPEAKER_RESPONDENT
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from tests.integration.answers import ANSWERS
from tests.integration.conftest import SuiteFactory
from tests.integration.helpers import CallRecorder, StageWrapper, answer, code_of, create, graph_signature

TURNS = 3


class FailOnceAfter(StageWrapper):
    """Runs the real stage (its side effects happen), then fails once before the checkpoint."""

    def __init__(self, inner: Stage, target: StageName, turn: int, state: dict[str, int]) -> None:
        super().__init__(inner)
        self._target, self._turn, self._state = target, turn, state

    async def run(self, ctx: PipelineContext) -> Any:
        output = await self._inner.run(ctx)
        if self.name == self._target and ctx.turn.turn_number == self._turn and not self._state["failed"]:
            self._state["failed"] = 1
            raise RuntimeError(f"injected failure after {self.name.value}")
        self._state.setdefault(f"runs:{self.name.value}", 0)
        self._state[f"runs:{self.name.value}"] += 1
        return output


async def _run(
    suite_factory: SuiteFactory,
    target: StageName | None,
    mode: str = "inline",
    fail_turn: int = 2,
    turns: int = TURNS,
) -> tuple[Any, list[pb.TurnResult], dict[str, Any]]:
    state: dict[str, Any] = {"failed": 0}
    wrap = None
    if target is not None:
        wrap = lambda stage: FailOnceAfter(stage, target, fail_turn, state)  # noqa: E731
    questions = CallRecorder()
    async with suite_factory(
        stage_wrapper=wrap, canonical_slots_mode=mode, interceptors={"question": [questions]}
    ) as suite:
        created = await create(suite.stub, "headphones_mec", max_turns=10, request_id="resume-check")
        session_id = created.session.session_id
        results = []
        for turn, text in enumerate(ANSWERS["headphones_mec"][:turns], start=1):
            try:
                results.append(await answer(suite.stub, session_id, turn, text))
            except grpc.aio.AioRpcError as exc:
                assert target is not None and turn == fail_turn
                assert code_of(exc) == grpc.StatusCode.INTERNAL
                assert "injected" not in (exc.details() or "")  # internals never leak
                results.append(await answer(suite.stub, session_id, turn, text))
        graph = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session_id))
        session = await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))
        assert session.session.turn_count == turns
        assert len(session.transcript) == 2 * turns + 1
        state["tracker"] = await _stored_tracker(suite, session_id)
    # The question of every attempt (a resumed one too) sees the answer it follows once, although
    # the transcript read may run after the answer is stored with the turn row (it always does
    # on a retry): the read is cut before the turn.
    for request in questions.requests("GenerateFollowUpQuestion"):
        said = [t.text for t in request.recent_turns if t.speaker == SPEAKER_RESPONDENT]
        assert said.count(ANSWERS["headphones_mec"][request.turn_number - 1]) == 1, (
            request.turn_number,
            said,
        )
    return graph, results, state


@pytest.fixture
async def baseline(suite_factory: SuiteFactory) -> tuple[Any, list[pb.TurnResult], Any]:
    graph, results, state = await _run(suite_factory, None)
    return graph, results, state["tracker"]


async def _stored_tracker(suite: Any, session_id: str) -> list[str]:
    """The node tracker the session row holds, keyed by labels (node ids differ between runs)."""
    settings = suite.orchestrator_settings()
    engine = create_engine(settings.database_url, schema=settings.database_schema)
    try:
        tracker = (await OrchestratorRepository(engine).get_session(session_id)).node_tracker_state or {}
    finally:
        await engine.dispose()
    states = tracker.get("states", {})
    label = {key: s["label"] for key, s in states.items()}
    named = [
        {
            **{k: v for k, v in s.items() if k not in ("node_id", "connected_node_ids", "surface_node_ids")},
            "connected": sorted(label.get(c, c) for c in s["connected_node_ids"]),
        }
        for s in states.values()
    ]
    focus = label.get(tracker.get("previous_focus") or "", "")
    return [f"focus={focus}", *sorted(json.dumps(n, sort_keys=True) for n in named)]


def _node_signals(result: pb.TurnResult) -> list[tuple[str, str]]:
    """Node signals keyed by the node's label (ids of created nodes differ between runs)."""
    labels = {n.id: n.label for n in [*result.nodes_added, *result.nodes_mentioned]}
    return sorted(
        (labels.get(n.node_id, ""), str(sorted((k, str(v)) for k, v in n.signals.items())))
        for n in result.node_signals
    )


@pytest.mark.parametrize("stage", [s for s in StageName if s != StageName.SCORING_PERSISTENCE])
async def test_resume_after_failure_at_each_stage(
    suite_factory: SuiteFactory, baseline: tuple[Any, list[pb.TurnResult], Any], stage: StageName
) -> None:
    graph, results, state = await _run(suite_factory, stage)
    assert state["failed"] == 1
    base_graph, base_results, base_tracker = baseline
    assert graph_signature(graph) == graph_signature(base_graph)
    # Slots: no duplicate mapping for any surface node.
    mapped = [m.surface_node_id for m in graph.mappings]
    assert len(mapped) == len(set(mapped))
    assert [r.strategy_selected for r in results] == [r.strategy_selected for r in base_results]
    # The node tracker a resumed stage rebuilds (checkpoints leave it out) is the one the first
    # attempt had: the focus, every node signal read off it and the stored tracker agree.
    assert [r.focus_label for r in results] == [r.focus_label for r in base_results]
    assert [_node_signals(r) for r in results] == [_node_signals(r) for r in base_results]
    assert state["tracker"] == base_tracker
    # Stages before the failed one were reused, not re-run, in the retried turn.
    for earlier in (StageName.CONTEXT_LOADING, StageName.UTTERANCE_SAVING):
        if earlier != stage and list(StageName).index(earlier) < list(StageName).index(stage):
            assert state[f"runs:{earlier.value}"] == TURNS
    timings = {t.stage: t.status for t in results[1].stage_timings}
    assert timings[stage.value] == pb.STAGE_STATUS_COMPLETED


async def test_failure_in_the_final_commit_is_resumed(suite_factory: SuiteFactory, baseline: Any) -> None:
    graph, _, state = await _run(suite_factory, StageName.SCORING_PERSISTENCE)
    # Persistence committed before the injected error: the retry replays the stored result.
    assert state["failed"] == 1
    assert graph_signature(graph) == graph_signature(baseline[0])


@pytest.mark.parametrize(
    "stage",
    [
        StageName.SLOT_DISCOVERY,
        StageName.STATE_COMPUTATION,
        StageName.STRATEGY_SELECTION,
        StageName.QUESTION_GENERATION,
    ],
)
async def test_resume_in_deferred_mode_keeps_the_canonical_reads_of_the_first_attempt(
    suite_factory: SuiteFactory, stage: StageName
) -> None:
    # Deferred: turn 2's slot stage completes turn 1's discovery and reads the canonical graph; its
    # own discovery starts once that read is stored. A failure in the slot stage itself, or after
    # the turn's own discovery started (it may well have finished): the resumed turn's canonical
    # counts and decisions are the clean run's, its own run counted in neither.
    base_graph, base_results, _ = await _run(suite_factory, None, mode="deferred")
    graph, results, state = await _run(suite_factory, stage, mode="deferred")
    assert state["failed"] == 1
    assert graph_signature(graph) == graph_signature(base_graph)
    mapped = [m.surface_node_id for m in graph.mappings]
    assert len(mapped) == len(set(mapped))
    assert [r.strategy_selected for r in results] == [r.strategy_selected for r in base_results]

    # The slot stage ran again or its stored read was restored: every canonical count matches.
    def sizes(turns: list[pb.TurnResult]) -> list[tuple[int, int]]:
        return [(r.canonical_graph.concept_count, r.canonical_graph.candidate_count) for r in turns]

    assert sizes(results) == sizes(base_results)
    assert sizes(results)[-1] != (0, 0)  # the later turns see earlier turns' slots


@pytest.mark.parametrize(
    "stage",
    [
        StageName.GRAPH_UPDATE,
        StageName.STATE_COMPUTATION,
        StageName.CONTINUATION,
        StageName.QUESTION_GENERATION,
    ],
)
async def test_a_tracker_rebuilt_on_resume_is_the_one_the_first_attempt_had(
    suite_factory: SuiteFactory, stage: StageName
) -> None:
    # Turn 4 answers a question about a node (turn 3's focus): the answer's depth and the new
    # focus are recorded in the tracker, which the resumed stages rebuild from the stored outputs.
    _, base_results, base = await _run(suite_factory, None, mode="deferred", turns=4)
    _, results, resumed = await _run(suite_factory, stage, mode="deferred", fail_turn=4, turns=4)
    assert resumed["failed"] == 1
    assert base_results[2].focus_node_id  # the question turn 4 answers is about a node
    assert resumed["tracker"] == base["tracker"]
    assert [_node_signals(r) for r in results] == [_node_signals(r) for r in base_results]


async def test_an_answer_whose_turn_never_completed_is_marked_unprocessed(
    suite_factory: SuiteFactory,
) -> None:
    # The respondent's answer is stored before the turn's work; ended before a retry, the session's
    # transcript keeps it, flagged, and counts no turn for it.
    state: dict[str, Any] = {"failed": 0}
    wrap = lambda stage: FailOnceAfter(stage, StageName.EXTRACTION, 2, state)  # noqa: E731
    async with suite_factory(stage_wrapper=wrap) as suite:
        session_id = (await create(suite.stub, "headphones_mec", max_turns=10)).session.session_id
        await answer(suite.stub, session_id, 1, ANSWERS["headphones_mec"][0])
        with pytest.raises(grpc.aio.AioRpcError):
            await answer(suite.stub, session_id, 2, ANSWERS["headphones_mec"][1])
        await suite.stub.EndSession(pb.EndSessionRequest(session_id=session_id))
        got = await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))
        answers = [u for u in got.transcript if u.speaker == SPEAKER_RESPONDENT]
        assert got.session.turn_count == 1
        assert [(u.turn_number, u.unprocessed) for u in answers] == [(1, False), (2, True)]
        assert answers[1].text == ANSWERS["headphones_mec"][1]
        report = await suite.stub.ExportSession(
            pb.ExportSessionRequest(session_id=session_id, format=pb.EXPORT_FORMAT_MARKDOWN)
        )
        assert "*(not processed: its turn did not complete)*" in report.content
