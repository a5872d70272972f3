"""The channel, the InterviewService calls the client makes, and the wait for a healthy service."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.channels import STARTUP_RECONNECT_OPTIONS
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc

SERVICE_NAME = "interview.orchestrator.v1.InterviewService"
_MAX_MESSAGE_BYTES = 64 * 1024 * 1024  # exports of long interviews can be large
_PAGE_SIZE = 200


class UsageError(Exception):
    """Bad options (exit code 2)."""


class NotServingError(Exception):
    """The service did not report SERVING in time."""


@dataclass(frozen=True)
class ConnectionOptions:
    """Where to connect and with which credentials and deadlines."""

    target: str
    token: str | None = None
    tls: bool = False
    ca_file: Path | None = None
    timeout_s: float = 30.0
    turn_timeout_s: float = 600.0


def open_channel(options: ConnectionOptions) -> grpc.Channel:
    """A plaintext channel, or a TLS one when --tls or --ca is given."""
    channel_options = [
        ("grpc.max_receive_message_length", _MAX_MESSAGE_BYTES),
        ("grpc.max_send_message_length", _MAX_MESSAGE_BYTES),
        *STARTUP_RECONNECT_OPTIONS,
    ]
    if not (options.tls or options.ca_file):
        return grpc.insecure_channel(options.target, options=channel_options)
    roots: bytes | None = None
    if options.ca_file is not None:
        try:
            roots = options.ca_file.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read the CA file {options.ca_file}: {exc.strerror}") from exc
    credentials = grpc.ssl_channel_credentials(root_certificates=roots)
    return grpc.secure_channel(options.target, credentials, options=channel_options)


class Client:
    """The InterviewService calls, each with the deadline and the bearer token."""

    def __init__(self, channel: grpc.Channel, options: ConnectionOptions) -> None:
        self.options = options
        self._stub = orchestrator_pb2_grpc.InterviewServiceStub(channel)
        self._health = health_pb2_grpc.HealthStub(channel)
        self._metadata: tuple[tuple[str, str], ...] = (
            (("authorization", f"Bearer {options.token}"),) if options.token else ()
        )

    @property
    def target(self) -> str:
        """The host:port the client talks to."""
        return self.options.target

    def _call(self, method: Any, request: Any, timeout: float | None = None) -> Any:
        return method(request, timeout=timeout or self.options.timeout_s, metadata=self._metadata)

    def health(self, service: str, timeout: float) -> int:
        """The grpc.health.v1 status of `service` ("" = the server as a whole)."""
        reply = self._health.Check(
            health_pb2.HealthCheckRequest(service=service), timeout=timeout, metadata=self._metadata
        )
        return int(reply.status)

    def list_concepts(self) -> list[common_pb2.Concept]:
        """Every concept (all pages)."""
        concepts: list[common_pb2.Concept] = []
        token = ""
        while True:
            page = self._call(
                self._stub.ListConcepts, pb.ListConceptsRequest(page_size=_PAGE_SIZE, page_token=token)
            )
            concepts.extend(page.concepts)
            token = page.next_page_token
            if not token:
                return concepts

    def create_session(
        self, concept_id: str, *, max_turns: int = 0, methodology: str = "", request_id: str = ""
    ) -> pb.CreateSessionResponse:
        """A new session and its opening question."""
        request = pb.CreateSessionRequest(
            concept_id=concept_id,
            max_turns=max_turns,
            methodology=methodology,
            request_id=request_id,
            metadata={"client": "cli"},
        )
        return self._call(self._stub.CreateSession, request)

    def get_session(self, session_id: str) -> pb.GetSessionResponse:
        """A session with its state and transcript."""
        return self._call(self._stub.GetSession, pb.GetSessionRequest(session_id=session_id))

    def list_sessions(
        self, page_size: int, status: pb.SessionStatus, page_token: str = ""
    ) -> pb.ListSessionsResponse:
        """One page of sessions, newest first."""
        request = pb.ListSessionsRequest(page_size=page_size, status=status, page_token=page_token)
        return self._call(self._stub.ListSessions, request)

    def submit_turn(self, session_id: str, turn_number: int, text: str, request_id: str) -> pb.TurnResult:
        """Run one turn (unary) and return its result."""
        request = pb.SubmitTurnRequest(
            session_id=session_id, turn_number=turn_number, text=text, request_id=request_id
        )
        reply = self._call(self._stub.SubmitTurn, request, self.options.turn_timeout_s)
        return reply.result

    def stream_turn(
        self, session_id: str, turn_number: int, text: str, request_id: str
    ) -> Iterator[pb.StreamTurnResponse]:
        """Run one turn, streaming its events; the returned call also has `cancel()`."""
        request = pb.StreamTurnRequest(
            session_id=session_id, turn_number=turn_number, text=text, request_id=request_id
        )
        return self._call(self._stub.StreamTurn, request, self.options.turn_timeout_s)

    def session_graph(self, session_id: str) -> pb.GetSessionGraphResponse:
        """The session's surface (and canonical) graph."""
        return self._call(self._stub.GetSessionGraph, pb.GetSessionGraphRequest(session_id=session_id))

    def export(self, session_id: str, export_format: pb.ExportFormat) -> pb.ExportSessionResponse:
        """The session exported in `export_format` (an ExportFormat value)."""
        request = pb.ExportSessionRequest(session_id=session_id, format=export_format)
        return self._call(self._stub.ExportSession, request)

    def end_session(self, session_id: str) -> pb.EndSessionResponse:
        """End the session now; returns the closing message."""
        return self._call(self._stub.EndSession, pb.EndSessionRequest(session_id=session_id))


def _serving(client: Client, attempt_timeout: float) -> bool:
    """One health probe: True when SERVING, or when the server answers without a health service."""
    for service in (SERVICE_NAME, ""):
        try:
            status = client.health(service, attempt_timeout)
        except grpc.RpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.NOT_FOUND:
                continue  # the server does not register the service name: ask about the server
            # Any other answer (e.g. no health service, or it wants a token) means the server is up;
            # the next real call reports whatever is actually wrong.
            return code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED)
        return status == health_pb2.HealthCheckResponse.SERVING
    return False


def wait_until_serving(
    client: Client,
    wait_s: float,
    on_wait: Callable[[float], None],
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Poll grpc.health.v1 until SERVING; `on_wait(elapsed)` is called before each retry."""
    started = clock()
    while True:
        if _serving(client, attempt_timeout=min(2.0, max(wait_s, 0.5))):
            return
        elapsed = clock() - started
        if elapsed >= wait_s:
            raise NotServingError(
                f"the service at {client.target} did not report SERVING within {wait_s:.0f}s"
            )
        on_wait(elapsed)
        sleep(0.25)
