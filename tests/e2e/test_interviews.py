"""A full interview per methodology through the public API of the deployed services.

Runs against the locally started processes, or against E2E_TARGET (e.g. a compose deployment).
"""

from __future__ import annotations

import json

import grpc
import grpc.aio
import pytest

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.e2e.helpers import concept_methodologies, get_session, run_interview, snapshot, submit

pytestmark = pytest.mark.e2e

MAX_TURNS = 5
CONCEPTS = concept_methodologies()


def test_every_methodology_has_a_concept() -> None:
    # The parametrisation below covers all five methodologies only if the concepts do.
    assert len(set(CONCEPTS.values())) == 5, CONCEPTS


@pytest.mark.parametrize("concept", sorted(CONCEPTS))
async def test_full_interview(stub: orchestrator_pb2_grpc.InterviewServiceStub, concept: str) -> None:
    created, results = await run_interview(stub, concept, MAX_TURNS)
    session_id = created.session.session_id
    assert created.session.methodology == CONCEPTS[concept]
    assert created.session.status == pb.SESSION_STATUS_ACTIVE and created.session.turn_count == 0
    assert created.opening_question.strip()

    # Completion: numbered turns, every turn but the last continues, a reason for the end.
    assert [r.turn_number for r in results] == list(range(1, len(results) + 1))
    assert all(r.should_continue for r in results[:-1])
    last = results[-1]
    assert last.termination_reason != common_pb2.TERMINATION_REASON_UNSPECIFIED
    assert all(r.next_question.strip() for r in results)
    assert all(r.strategy_selected for r in results)

    # The graph grew from the answers and never shrank.
    counts = [r.graph_state.node_count for r in results]
    assert counts[0] >= 1 and counts == sorted(counts) and counts[-1] >= 3, counts
    graph: pb.GetSessionGraphResponse = await stub.GetSessionGraph(
        pb.GetSessionGraphRequest(session_id=session_id)
    )
    assert len(graph.nodes) == graph.graph_state.node_count == counts[-1]
    assert sum(len(r.nodes_added) for r in results) == len(graph.nodes)
    assert len(graph.edges) >= 1
    assert all(n.source_utterance_ids and n.quotes for n in graph.nodes)

    got = await get_session(stub, session_id)
    assert got.session.status == pb.SESSION_STATUS_COMPLETED
    assert got.session.turn_count == len(results)
    assert got.session.termination_reason == last.termination_reason
    assert list(got.session.strategy_history) == [r.strategy_selected for r in results]
    await snapshot(stub, session_id)  # checks for duplicates

    # Export: the JSON document holds the same transcript, turns and graph.
    exported: pb.ExportSessionResponse = await stub.ExportSession(
        pb.ExportSessionRequest(session_id=session_id, format=pb.EXPORT_FORMAT_JSON)
    )
    assert exported.content_type == "application/json" and exported.filename
    document = json.loads(exported.content)
    assert len(document["turns"]) == len(results)
    assert [t["text"] for t in document["transcript"]] == [u.text for u in got.transcript]
    assert sorted(n["label"] for n in document["graph"]["nodes"]) == sorted(n.label for n in graph.nodes)
    markdown: pb.ExportSessionResponse = await stub.ExportSession(
        pb.ExportSessionRequest(session_id=session_id, format=pb.EXPORT_FORMAT_MARKDOWN)
    )
    assert "# Interview report" in markdown.content and got.transcript[1].text in markdown.content


async def test_completed_session_refuses_more_turns(stub: orchestrator_pb2_grpc.InterviewServiceStub) -> None:
    created, results = await run_interview(stub, "coffee_jtbd", 2)
    session_id = created.session.session_id
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await submit(stub, session_id, len(results) + 1, "One more answer after the end.")
    assert caught.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert (await get_session(stub, session_id)).session.turn_count == len(results)
