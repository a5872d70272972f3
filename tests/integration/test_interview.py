"""Complete interviews through the public API with all six services in-process (offline engine)."""

from __future__ import annotations

import json

import pytest

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from tests.integration.answers import ANSWERS
from tests.integration.conftest import SuiteFactory
from tests.integration.helpers import interview
from tests.integration.suite import Suite

R = common_pb2.TerminationReason


@pytest.mark.parametrize("concept", sorted(ANSWERS))
async def test_complete_interview_per_methodology(suite_factory: SuiteFactory, concept: str) -> None:
    async with suite_factory() as suite:
        session_id, results = await interview(suite.stub, concept, max_turns=6)
        assert [r.turn_number for r in results] == list(range(1, len(results) + 1))
        last = results[-1]
        assert not last.should_continue and last.termination_reason != R.TERMINATION_REASON_UNSPECIFIED
        assert all(r.should_continue for r in results[:-1])
        # The graph grew from the answers, with provenance on every node.
        graph = await suite.stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=session_id))
        assert graph.graph_state.node_count >= 3
        assert all(n.source_utterance_ids and n.quotes for n in graph.nodes)
        assert sum(len(r.nodes_added) for r in results) == graph.graph_state.node_count
        # Every follow-up is one question; decisions are observable.
        for r in results[:-1]:
            assert r.next_question.strip().endswith("?")
            assert r.strategy_selected
            assert r.score_decomposition and sum(c.selected for c in r.score_decomposition) == 1
            assert r.rubric.scores and r.signals
        session = (await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))).session
        assert session.status == pb.SESSION_STATUS_COMPLETED
        assert session.turn_count == len(results)
        assert session.termination_reason == last.termination_reason
        assert [f.turn for f in session.focus_history] == list(range(1, len(results) + 1))
        assert session.strategy_history == [r.strategy_selected for r in results]
        assert session.current_question == last.next_question
        # Questions were not repeated verbatim.
        questions = [r.next_question for r in results]
        assert len(set(questions)) == len(questions)


async def test_json_export_holds_everything(suite: Suite) -> None:
    session_id, results = await interview(suite.stub, "headphones_mec", max_turns=4)
    exported = await suite.stub.ExportSession(
        pb.ExportSessionRequest(session_id=session_id, format=pb.EXPORT_FORMAT_JSON)
    )
    document = json.loads(exported.content)
    assert exported.content_type == "application/json"
    assert len(document["turns"]) == len(results)
    assert len(document["transcript"]) == 2 * len(results) + 1  # opening + answer/question per turn
    quote = document["graph"]["nodes"][0]["quotes"][0]
    assert quote["text"] and int(quote["end"]) > int(quote.get("start", 0))
    # A turn keeps the selected candidate's decomposition, not the whole ranking (message size).
    first = document["turns"][0]
    assert first["selected_candidate"]["contributions"] and "score_decomposition" not in first
    assert first["strategy_selected"] == results[0].strategy_selected
    assert first["answer"] == document["transcript"][1]["text"]
    for fmt, marker in [
        (pb.EXPORT_FORMAT_MARKDOWN, "# Interview report"),
        (pb.EXPORT_FORMAT_CSV, "turn,answer,next_question"),
        (pb.EXPORT_FORMAT_GRAPHML, "<graphml"),
        (pb.EXPORT_FORMAT_MERMAID, "flowchart LR"),
    ]:
        out = await suite.stub.ExportSession(pb.ExportSessionRequest(session_id=session_id, format=fmt))
        assert marker in out.content


async def test_catalogue(suite: Suite) -> None:
    concepts = await suite.stub.ListConcepts(pb.ListConceptsRequest(page_size=2))
    assert len(concepts.concepts) == 2 and concepts.next_page_token and concepts.total_size >= 5
    rest = await suite.stub.ListConcepts(
        pb.ListConceptsRequest(page_size=50, page_token=concepts.next_page_token)
    )
    assert len(rest.concepts) == concepts.total_size - 2 and not rest.next_page_token
    methodologies = await suite.stub.ListMethodologies(pb.ListMethodologiesRequest())
    names = {m.name for m in methodologies.methodologies}
    assert {"means_end_chain", "jobs_to_be_done", "critical_incident"} <= names
    mec = await suite.stub.GetMethodology(pb.GetMethodologyRequest(name="means_end_chain"))
    assert mec.methodology.strategies and mec.methodology.node_types
    assert sum(s.generates_closing_question for s in mec.methodology.strategies) == 1
    grid = await suite.stub.GetMethodology(pb.GetMethodologyRequest(name="repertory_grid"))
    ladder = next(s for s in grid.methodology.strategies if s.name == "ladder_up")
    assert "emergent_pole" in ladder.focus_node_types and "element" not in ladder.focus_node_types


async def test_list_sessions_by_status_and_pages(suite: Suite) -> None:
    first, _ = await interview(suite.stub, "coffee_jtbd", max_turns=2)
    open_session = await suite.stub.CreateSession(pb.CreateSessionRequest(concept_id="coffee_jtbd"))
    completed = await suite.stub.ListSessions(pb.ListSessionsRequest(status=pb.SESSION_STATUS_COMPLETED))
    active = await suite.stub.ListSessions(pb.ListSessionsRequest(status=pb.SESSION_STATUS_ACTIVE))
    assert first in {s.session_id for s in completed.sessions}
    assert open_session.session.session_id in {s.session_id for s in active.sessions}
    page = await suite.stub.ListSessions(pb.ListSessionsRequest(page_size=1))
    assert len(page.sessions) == 1 and page.next_page_token and page.total_size >= 2


async def test_stream_turn_relays_stages_deltas_then_the_result(suite: Suite) -> None:
    created = await suite.stub.CreateSession(
        pb.CreateSessionRequest(concept_id="headphones_mec", max_turns=6)
    )
    session_id = created.session.session_id
    events = [
        event
        async for event in suite.stub.StreamTurn(
            pb.StreamTurnRequest(session_id=session_id, turn_number=1, text=ANSWERS["headphones_mec"][0])
        )
    ]
    kinds = [e.WhichOneof("event") for e in events]
    assert kinds[-1] == "result" and kinds.count("result") == 1
    stages = [e.stage for e in events if e.HasField("stage")]
    started = [s.stage for s in stages if s.status == pb.STAGE_STATUS_STARTED]
    assert started[0] == "context_loading" and "question_generation" in started
    assert started.index("extraction") < started.index("graph_update") < started.index("strategy_selection")
    deltas = "".join(e.question_delta for e in events if e.HasField("question_delta"))
    result = events[-1].result
    assert deltas and deltas.strip() == result.next_question.strip()
    # Deltas arrive before the result and after strategy selection finished.
    first_delta = kinds.index("question_delta")
    done_selection = next(
        i
        for i, e in enumerate(events)
        if e.HasField("stage")
        and e.stage.stage == "strategy_selection"
        and e.stage.status == pb.STAGE_STATUS_COMPLETED
    )
    assert done_selection < first_delta < len(events) - 1
    # The streamed turn is the stored turn.
    again = await suite.stub.SubmitTurn(
        pb.SubmitTurnRequest(session_id=session_id, turn_number=1, text=ANSWERS["headphones_mec"][0])
    )
    assert again.result.replayed and again.result.next_question == result.next_question


async def test_session_reports_usage_per_client(suite: Suite) -> None:
    session_id, results = await interview(suite.stub, "headphones_mec", max_turns=2)
    session = (await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))).session
    clients = {u.client: u for u in session.usage.by_client}
    assert {"extraction", "scoring", "generation"} <= set(clients)
    assert all(u.provider == "local" and u.calls == 0 for u in clients.values())
    assert all(r.usage.by_client for r in results)
