"""The interactive loop's turn protocol against a small scripted InterviewService over real gRPC.

The real suite (tests/integration/test_cli.py) cannot fail a turn with UNAVAILABLE or report a stale
turn number on cue, so these cases use a server whose StreamTurn replies are scripted per call and
which records every request the client sent: turn numbers, texts and request ids.
"""

from __future__ import annotations

import io
import uuid
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass, field

import grpc
import pytest
from google.protobuf import any_pb2
from google.rpc import code_pb2, error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from cli.connection import Client, ConnectionOptions
from cli.interactive import InteractiveOptions, Interview
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc

Reply = Callable[[pb.StreamTurnRequest, grpc.ServicerContext], Iterator[pb.StreamTurnResponse]]


def result(turn: int, question: str, *, more: bool = True) -> pb.TurnResult:
    return pb.TurnResult(
        turn_number=turn,
        next_question=question,
        strategy_selected="deepen",
        focus_label="battery life",
        phase=common_pb2.INTERVIEW_PHASE_EARLY,
        should_continue=more,
        termination_reason=(
            common_pb2.TERMINATION_REASON_UNSPECIFIED if more else common_pb2.TERMINATION_REASON_MAX_TURNS
        ),
    )


def ok(turn: int, question: str, *, deltas: tuple[str, ...] = (), more: bool = True) -> Reply:
    def reply(
        request: pb.StreamTurnRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.StreamTurnResponse]:
        yield pb.StreamTurnResponse(stage=pb.StageEvent(stage="extraction", status=pb.STAGE_STATUS_STARTED))
        yield pb.StreamTurnResponse(stage=pb.StageEvent(stage="extraction", status=pb.STAGE_STATUS_COMPLETED))
        for delta in deltas:
            yield pb.StreamTurnResponse(question_delta=delta)
        yield pb.StreamTurnResponse(result=result(turn, question, more=more))

    return reply


def fail(code: int, message: str, metadata: dict[str, str] | None = None) -> Reply:
    def reply(
        request: pb.StreamTurnRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.StreamTurnResponse]:
        details = []
        if metadata is not None:
            packed = any_pb2.Any()
            packed.Pack(error_details_pb2.ErrorInfo(reason="X", metadata=metadata))
            details.append(packed)
        context.abort_with_status(
            rpc_status.to_status(status_pb2.Status(code=code, message=message, details=details))
        )
        yield from ()

    return reply


@dataclass
class ScriptedService(orchestrator_pb2_grpc.InterviewServiceServicer):
    replies: list[Reply] = field(default_factory=list)
    requests: list[pb.StreamTurnRequest] = field(default_factory=list)
    # What GetSession reports (CreateSession always reports a new session at turn 0).
    current: pb.Session = field(default_factory=lambda: pb.Session(session_id="s1", max_turns=5))

    def CreateSession(  # noqa: N802
        self, request: pb.CreateSessionRequest, context: grpc.ServicerContext
    ) -> pb.CreateSessionResponse:
        created = pb.Session(session_id="s1", concept_name="Headphones", methodology="mec", max_turns=5)
        return pb.CreateSessionResponse(session=created, opening_question="What did you buy?")

    def GetSession(  # noqa: N802
        self, request: pb.GetSessionRequest, context: grpc.ServicerContext
    ) -> pb.GetSessionResponse:
        return pb.GetSessionResponse(session=self.current)

    def StreamTurn(  # noqa: N802
        self, request: pb.StreamTurnRequest, context: grpc.ServicerContext
    ) -> Iterator[pb.StreamTurnResponse]:
        self.requests.append(request)
        yield from self.replies.pop(0)(request, context)


@pytest.fixture
def service() -> Iterator[tuple[str, ScriptedService]]:
    scripted = ScriptedService()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    orchestrator_pb2_grpc.add_InterviewServiceServicer_to_server(scripted, server)
    checker = health.HealthServicer()
    checker.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(checker, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}", scripted
    server.stop(grace=None)


def interview(target: str, lines: list[str]) -> tuple[int, str, str, list[str]]:
    """Run the loop with scripted input; returns (exit code, stdout, stderr, unread lines)."""
    pending = list(lines)

    def read(prompt: str) -> str:
        if not pending:
            raise EOFError
        return pending.pop(0)

    out, err = io.StringIO(), io.StringIO()
    with grpc.insecure_channel(target) as channel:
        client = Client(channel, ConnectionOptions(target=target, timeout_s=5, turn_timeout_s=5))
        options = InteractiveOptions(concept_id="headphones_mec", any_local_llm_key=True)
        code = Interview(client, options, read_line=read, out=out, err=err).run()
    return code, out.getvalue(), err.getvalue(), pending


def test_a_retry_after_unavailable_resends_the_same_request_id(service: tuple[str, ScriptedService]) -> None:
    target, scripted = service
    scripted.replies = [
        fail(code_pb2.UNAVAILABLE, "connection reset"),
        ok(1, "Why does battery life matter?"),
        ok(2, "What does that give you?"),
    ]
    code, out, err, _ = interview(target, ["It lasts long", "", "", "I never charge", ""])
    assert code == 0  # EOF leaves the session open
    first, retry, second = scripted.requests
    assert (first.turn_number, first.text) == (retry.turn_number, retry.text) == (1, "It lasts long")
    assert retry.request_id == first.request_id
    assert (second.turn_number, second.text) == (2, "I never charge")
    assert second.request_id != first.request_id
    assert all(uuid.UUID(r.request_id) for r in scripted.requests)
    assert err == "error: UNAVAILABLE: connection reset\n"
    assert "Press Enter to retry the same answer" in out
    assert out.count("  deepen · battery life · early\n") == 2
    assert "Session s1 is still open" in out


def test_empty_lines_only_reprompt(service: tuple[str, ScriptedService]) -> None:
    target, scripted = service
    _, _, _, _ = interview(target, ["", "   ", ""])
    assert scripted.requests == []


def test_streamed_question_is_shown_once(service: tuple[str, ScriptedService]) -> None:
    target, scripted = service
    scripted.replies = [ok(1, "Why does it matter to you?", deltas=("Why does ", "it matter ", "to you?"))]
    _, out, _, _ = interview(target, ["It lasts long"])
    assert out.count("Why does it matter to you?") == 1


def test_a_stale_turn_resynchronises_from_the_session(service: tuple[str, ScriptedService]) -> None:
    target, scripted = service
    scripted.replies = [
        fail(code_pb2.FAILED_PRECONDITION, "stale turn_number 1; expected 3", {"expected_turn_number": "3"}),
        ok(3, "And then?"),
    ]
    scripted.current.turn_count = 2  # another client answered turns 1 and 2 meanwhile
    scripted.current.current_question = "What happened next?"
    _, out, err, _ = interview(target, ["first", "again"])
    assert [r.turn_number for r in scripted.requests] == [1, 3]
    assert "(the service expects turn 3)" in err
    assert "Resynchronised at turn 3; the current question is:\nWhat happened next?" in out


def test_the_end_of_the_interview_exits_0_with_the_reason(service: tuple[str, ScriptedService]) -> None:
    target, scripted = service
    scripted.replies = [ok(1, "Thank you, that is all.", more=False)]
    code, out, _, unread = interview(target, ["It lasts long", "never read"])
    assert code == 0
    assert unread == ["never read"]
    assert out.rstrip().endswith(
        "Thank you, that is all.\n  deepen · battery life · early\n"
        "Interview ended: the maximum number of turns was reached (max_turns)."
    )
