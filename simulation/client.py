"""An async client of the public InterviewService (the only API the simulation uses)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping
from types import TracebackType

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.channels import STARTUP_RECONNECT_OPTIONS
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc

SERVICE = "interview.orchestrator.v1.InterviewService"
_MAX_MESSAGE_BYTES = 64 * 1024 * 1024


class InterviewClient:
    """CreateSession / SubmitTurn / GetSession / GetSessionGraph / EndSession over one channel.

    Use as an async context manager. `submit_turn` sends an idempotency key and retries once on
    UNAVAILABLE with the same key (SubmitTurn is exactly-once per key, so a retry never doubles a
    turn).
    """

    def __init__(
        self, target: str, *, token: str | None = None, timeout_s: float = 30.0, turn_timeout_s: float = 300.0
    ) -> None:
        self.target = target
        self.timeout_s = timeout_s
        self.turn_timeout_s = turn_timeout_s
        self._metadata: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {token}"),) if token else ()
        self._channel: grpc.aio.Channel | None = None
        self._stub: orchestrator_pb2_grpc.InterviewServiceStub | None = None

    async def __aenter__(self) -> InterviewClient:
        self._channel = grpc.aio.insecure_channel(
            self.target,
            options=[
                ("grpc.max_receive_message_length", _MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", _MAX_MESSAGE_BYTES),
                *STARTUP_RECONNECT_OPTIONS,
            ],
        )
        self._stub = orchestrator_pb2_grpc.InterviewServiceStub(self._channel)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._channel is not None:
            await self._channel.close(None)
        self._channel = self._stub = None

    @property
    def stub(self) -> orchestrator_pb2_grpc.InterviewServiceStub:
        """The InterviewService stub (only inside `async with`)."""
        if self._stub is None:
            raise RuntimeError("InterviewClient is not open; use `async with InterviewClient(...)`")
        return self._stub

    async def wait_healthy(self, timeout_s: float) -> bool:
        """Poll grpc.health.v1 for the InterviewService until SERVING or `timeout_s` passes."""
        if self._channel is None:
            raise RuntimeError("InterviewClient is not open")
        health = health_pb2_grpc.HealthStub(self._channel)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while loop.time() < deadline:
            try:
                reply = await health.Check(health_pb2.HealthCheckRequest(service=SERVICE), timeout=2.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.5)
        return False

    async def create_session(
        self,
        concept_id: str,
        *,
        max_turns: int = 0,
        metadata: Mapping[str, str] | None = None,
        request_id: str | None = None,
    ) -> pb.CreateSessionResponse:
        """A new session with its opening question.

        `request_id` is CreateSession's idempotency key (a fresh one when None): the server derives
        the session id from it, and a key it has seen returns that earlier session.
        """
        request = pb.CreateSessionRequest(
            concept_id=concept_id,
            max_turns=max_turns,
            metadata=dict(metadata or {}),
            request_id=request_id or str(uuid.uuid4()),
        )
        response: pb.CreateSessionResponse = await self.stub.CreateSession(
            request, timeout=self.turn_timeout_s, metadata=self._metadata
        )
        return response

    async def submit_turn(self, session_id: str, turn_number: int, text: str) -> pb.TurnResult:
        """Answer turn `turn_number`; returns the TurnResult."""
        request = pb.SubmitTurnRequest(
            session_id=session_id, turn_number=turn_number, text=text, request_id=str(uuid.uuid4())
        )
        try:
            response: pb.SubmitTurnResponse = await self.stub.SubmitTurn(
                request, timeout=self.turn_timeout_s, metadata=self._metadata
            )
        except grpc.aio.AioRpcError as exc:
            if exc.code() is not grpc.StatusCode.UNAVAILABLE:
                raise
            await asyncio.sleep(1.0)
            response = await self.stub.SubmitTurn(
                request, timeout=self.turn_timeout_s, metadata=self._metadata
            )
        return response.result

    async def get_session(self, session_id: str) -> pb.GetSessionResponse:
        """The session with its transcript."""
        response: pb.GetSessionResponse = await self.stub.GetSession(
            pb.GetSessionRequest(session_id=session_id), timeout=self.timeout_s, metadata=self._metadata
        )
        return response

    async def get_graph(self, session_id: str) -> pb.GetSessionGraphResponse:
        """The session's surface (and canonical) graph."""
        response: pb.GetSessionGraphResponse = await self.stub.GetSessionGraph(
            pb.GetSessionGraphRequest(session_id=session_id), timeout=self.timeout_s, metadata=self._metadata
        )
        return response

    async def end_session(self, session_id: str) -> pb.EndSessionResponse:
        """End the session now (used when the runner's own turn cap is reached)."""
        response: pb.EndSessionResponse = await self.stub.EndSession(
            pb.EndSessionRequest(session_id=session_id), timeout=self.timeout_s, metadata=self._metadata
        )
        return response
