"""Submitting answers: turn numbering, request ids, and consuming a StreamTurn stream."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from cli.connection import Client
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb


class StreamEndedError(Exception):
    """The turn stream ended without its final result."""


def new_request_id() -> str:
    """A fresh idempotency key for one answer."""
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Answer:
    """One answer to one turn. A retry of the same answer reuses this object (same request id)."""

    text: str
    turn_number: int
    request_id: str = field(default_factory=new_request_id)


def next_answer(text: str, turn_count: int) -> Answer:
    """The answer to the next turn (turn_count + 1), with a fresh request id."""
    return Answer(text=text, turn_number=turn_count + 1)


def run_streamed_turn(
    client: Client,
    session_id: str,
    answer: Answer,
    on_stage: Callable[[str, int], None],
    on_delta: Callable[[str], None],
) -> pb.TurnResult:
    """Run the turn with StreamTurn, reporting stage events and question deltas as they arrive.

    Raises `grpc.RpcError` on failure; Ctrl-C cancels the call (the server keeps the stored answer,
    so resubmitting the same answer resumes the turn).
    """
    call = client.stream_turn(session_id, answer.turn_number, answer.text, answer.request_id)
    try:
        for event in call:
            kind = event.WhichOneof("event")
            if kind == "stage":
                on_stage(event.stage.stage, int(event.stage.status))
            elif kind == "question_delta":
                on_delta(event.question_delta)
            elif kind == "result":
                return event.result
    except KeyboardInterrupt:
        call.cancel()  # type: ignore[attr-defined]
        raise
    raise StreamEndedError("the turn stream ended without a result")


def same_text(streamed: str, final: str) -> bool:
    """Whether streamed deltas already showed the final question (whitespace aside)."""
    return " ".join(streamed.split()) == " ".join(final.split())
