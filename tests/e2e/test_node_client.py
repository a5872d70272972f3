"""A client from another platform: tests/e2e/node/client.js (@grpc/grpc-js + @grpc/proto-loader, loading
the .proto files at run time) completes an interview; its summary is checked against what the service
reports to the Python client."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.e2e.helpers import ROOT, answers_for, get_session

pytestmark = pytest.mark.e2e

CLIENT = Path(__file__).parent / "node" / "client.js"
CONCEPT = "hospital_discharge_cit"
MAX_TURNS = 4
PROCESS_LIMIT_S = 180.0


async def test_node_client_completes_an_interview(
    target: str, stub: orchestrator_pb2_grpc.InterviewServiceStub, tmp_path: Path
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("`node` is not installed: the Node.js client cannot run")
    assert (ROOT / "node_modules" / "@grpc" / "grpc-js").is_dir(), "run `make install` (npm ci) first"
    answers = answers_for(CONCEPT)
    answers_file = tmp_path / "answers.json"
    answers_file.write_text(json.dumps(answers))
    process = await asyncio.create_subprocess_exec(
        node,
        str(CLIENT),
        "--target",
        target,
        "--concept",
        CONCEPT,
        "--max-turns",
        str(MAX_TURNS),
        "--answers",
        str(answers_file),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), PROCESS_LIMIT_S)
    assert process.returncode == 0, err.decode()
    summary = json.loads(out.decode())

    # The bad request was refused with INVALID_ARGUMENT naming the field.
    assert summary["invalid_argument"]["code_name"] == "INVALID_ARGUMENT"
    assert "text" in summary["invalid_argument"]["details"]
    # The interview ran to its end, one turn at a time.
    turns = summary["turns"]
    assert [t["turn_number"] for t in turns] == list(range(1, len(turns) + 1))
    assert [t["should_continue"] for t in turns] == [True] * (len(turns) - 1) + [False]
    assert summary["status"] == "SESSION_STATUS_COMPLETED"
    assert summary["termination_reason"] != "TERMINATION_REASON_UNSPECIFIED"

    # The summary agrees with what the service tells the Python client.
    stored = await get_session(stub, summary["session_id"])
    session = stored.session
    assert session.concept_id == CONCEPT and session.metadata["client"] == "node"
    assert session.status == pb.SESSION_STATUS_COMPLETED
    assert summary["turn_count"] == session.turn_count == len(turns)
    assert summary["methodology"] == session.methodology
    assert pb.SessionStatus.Name(session.status) == summary["status"]
    assert [t["strategy_selected"] for t in turns] == list(session.strategy_history)
    assert summary["transcript_length"] == len(stored.transcript) == 2 * len(turns) + 1
    respondent = [u.text for u in stored.transcript if u.speaker == common_pb2.SPEAKER_RESPONDENT]
    assert respondent == answers[: len(turns)]
    graph = await stub.GetSessionGraph(pb.GetSessionGraphRequest(session_id=summary["session_id"]))
    assert summary["node_labels"] == sorted(n.label for n in graph.nodes) and summary["node_labels"]
    assert summary["edge_count"] == len(graph.edges)
    assert summary["export"] == {"content_type": "application/json", "turns": len(turns)}
