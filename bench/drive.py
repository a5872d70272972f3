"""Driving interviews through the public gRPC API and timing every turn."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio

from bench.answers import answer
from bench.fake_provider import CallRecord
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2, orchestrator_pb2_grpc

CONCEPT = "headphones_mec"
RPC_TIMEOUT_S = 60.0


@dataclass
class TurnSample:
    """One answered turn as the client saw it (times on `time.monotonic()`)."""

    session_id: str
    turn: int
    start: float
    end: float
    stages: dict[str, int]
    should_continue: bool
    termination_reason: int
    nodes_added: int
    edges_added: int
    first_token_s: float | None = None
    replayed: bool = False

    @property
    def latency_ms(self) -> float:
        """Client-side wall time of the turn."""
        return (self.end - self.start) * 1000


@dataclass
class SessionRun:
    """The turns of one session, and why it ended early if it did."""

    session_id: str
    samples: list[TurnSample] = field(default_factory=list)
    ended_early_at: int | None = None
    termination_reason: int = 0
    error: str | None = None  # "CODE: details" of an RPC that failed (the session stops there)


class Client:
    """A stub on the orchestrator with the benchmark's calls."""

    def __init__(self, target: str) -> None:
        self.channel = grpc.aio.insecure_channel(target)
        self.stub = orchestrator_pb2_grpc.InterviewServiceStub(self.channel)

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close(None)

    async def create(self, max_turns: int, concept: str = CONCEPT) -> tuple[str, float]:
        """A new session; returns its id and the call's seconds."""
        began = time.monotonic()
        reply = await self.stub.CreateSession(
            orchestrator_pb2.CreateSessionRequest(concept_id=concept, max_turns=max_turns),
            timeout=RPC_TIMEOUT_S,
        )
        return reply.session.session_id, time.monotonic() - began

    async def submit(self, session_id: str, turn: int, text: str) -> TurnSample:
        """SubmitTurn, timed."""
        began = time.monotonic()
        reply = await self.stub.SubmitTurn(
            orchestrator_pb2.SubmitTurnRequest(session_id=session_id, turn_number=turn, text=text),
            timeout=RPC_TIMEOUT_S,
        )
        return _sample(reply.result, began, time.monotonic(), None)

    async def stream(self, session_id: str, turn: int, text: str) -> TurnSample:
        """StreamTurn, timed, with the time to the first question delta."""
        began = time.monotonic()
        first: float | None = None
        result: orchestrator_pb2.TurnResult | None = None
        call = self.stub.StreamTurn(
            orchestrator_pb2.StreamTurnRequest(session_id=session_id, turn_number=turn, text=text),
            timeout=RPC_TIMEOUT_S,
        )
        async for event in call:
            kind = event.WhichOneof("event")
            if kind == "question_delta" and first is None:
                first = time.monotonic() - began
            elif kind == "result":
                result = event.result
        if result is None:
            raise RuntimeError("StreamTurn ended without a result")
        return _sample(result, began, time.monotonic(), first)


def _sample(
    result: orchestrator_pb2.TurnResult, began: float, ended: float, first: float | None
) -> TurnSample:
    return TurnSample(
        session_id=result.session_id,
        turn=result.turn_number,
        start=began,
        end=ended,
        stages={t.stage: int(t.duration_ms) for t in result.stage_timings},
        should_continue=result.should_continue,
        termination_reason=int(result.termination_reason),
        nodes_added=len(result.nodes_added),
        edges_added=len(result.edges_added),
        first_token_s=first,
        replayed=result.replayed,
    )


async def run_session(
    client: Client,
    session_id: str,
    turns: int,
    *,
    offset: int = 0,
    stream: bool = False,
    after_turn: Any = None,
) -> SessionRun:
    """Answer `turns` turns in order (stops when the interview ends); `after_turn(sample)` is awaited."""
    run = SessionRun(session_id)
    for turn in range(1, turns + 1):
        text = answer(turn, offset)
        try:
            sample = await (client.stream if stream else client.submit)(session_id, turn, text)
        except grpc.aio.AioRpcError as exc:
            run.error = f"turn {turn}: {exc.code().name}: {exc.details()}"
            run.ended_early_at = turn
            break
        run.samples.append(sample)
        if after_turn is not None:
            await after_turn(sample)
        if not sample.should_continue:
            if turn < turns:
                run.ended_early_at = turn
            run.termination_reason = sample.termination_reason
            break
    return run


async def throughput(
    client: Client, offsets: Sequence[int], turns_each: int, *, max_turns: int = 50
) -> dict[str, Any]:
    """One interview per answer offset, answered concurrently; turns per second over the answering
    phase."""
    sessions = len(offsets)
    ids = [sid for sid, _ in await asyncio.gather(*(client.create(max_turns) for _ in range(sessions)))]
    began = time.monotonic()
    answering = (
        run_session(client, sid, turns_each, offset=offset) for sid, offset in zip(ids, offsets, strict=True)
    )
    runs = await asyncio.gather(*answering)
    wall = time.monotonic() - began
    samples = [s for r in runs for s in r.samples]
    return {
        "sessions": sessions,
        "turns": len(samples),
        "wall_s": round(wall, 3),
        "turns_per_s": round(len(samples) / wall, 2) if wall else 0.0,
        "latencies_ms": [round(s.latency_ms, 1) for s in samples],
        "ended_early": sum(1 for r in runs if r.ended_early_at is not None),
        "errors": [r.error for r in runs if r.error],
    }


class FakeControl:
    """The fake provider's control routes (loopback HTTP)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(payload).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            data: dict[str, Any] = json.loads(response.read())
            return data

    def _get(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=30) as response:
            data: dict[str, Any] = json.loads(response.read())
            return data

    async def set_latency(self, latency_ms: float) -> None:
        """Latency of every following call."""
        await asyncio.to_thread(self._post, "/_bench/config", {"latency_ms": latency_ms})

    async def calls_since(self, index: int) -> list[CallRecord]:
        """The call log from `index` on."""
        data = await asyncio.to_thread(self._get, f"/_bench/calls?since={index}")
        return [CallRecord(**c) for c in data["calls"]]

    async def count(self) -> int:
        """How many calls were logged so far."""
        data = await asyncio.to_thread(self._get, "/_bench/calls?since=-1")
        return int(data["total"])
