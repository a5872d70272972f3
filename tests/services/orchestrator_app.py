"""A real orchestrator server (port 0) whose only working dependency is an in-process fake of the
question service, enough for CreateSession and every read; the other four services point nowhere."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import grpc.aio

from services.orchestrator.server import build, server_for
from services.orchestrator.settings import OrchestratorSettings
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from shared.gen.interview.question.v1 import question_pb2, question_pb2_grpc

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
# Nothing listens here: a call to any other dependency fails (UNAVAILABLE).
NOWHERE = "127.0.0.1:9"


class FakeQuestions(question_pb2_grpc.QuestionServiceServicer):
    """Answers GenerateOpeningQuestion with a fixed question per concept and records each call.

    With `gather` set to n, each call waits (up to 10 s) until n calls have arrived: concurrent
    CreateSessions then all pass their checks before any of them stores its session."""

    def __init__(self) -> None:
        self.calls: list[question_pb2.GenerateOpeningQuestionRequest] = []
        self.gather = 0
        self._all_arrived = asyncio.Event()

    async def GenerateOpeningQuestion(  # noqa: N802
        self, request: question_pb2.GenerateOpeningQuestionRequest, context: grpc.aio.ServicerContext
    ) -> question_pb2.GenerateOpeningQuestionResponse:
        self.calls.append(request)
        if self.gather:
            if len(self.calls) >= self.gather:
                self._all_arrived.set()
            await asyncio.wait_for(self._all_arrived.wait(), 10)
        return question_pb2.GenerateOpeningQuestionResponse(question=f"What about {request.concept.id}?")


def settings(database_url: str, question_target: str, **overrides: Any) -> OrchestratorSettings:
    """Orchestrator settings on port 0 with the given database and question service."""
    values: dict[str, Any] = {
        "port": 0,
        "host": "127.0.0.1",
        "config_dir": CONFIG_DIR,
        "database_url": database_url,
        "log_json": False,
        **{f"{name}_target": NOWHERE for name in ("extraction", "graph_store", "canonical_slots", "scoring")},
        "question_target": question_target,
        **overrides,
    }
    return OrchestratorSettings(_env_file=None, **values)


@asynccontextmanager
async def running_orchestrator(
    database_url: str, questions: FakeQuestions, **overrides: Any
) -> AsyncIterator[orchestrator_pb2_grpc.InterviewServiceStub]:
    """The orchestrator on port 0 with `questions` as its question service; a stub to it."""
    fake = grpc.aio.server()
    question_pb2_grpc.add_QuestionServiceServicer_to_server(questions, fake)
    fake_port = fake.add_insecure_port("127.0.0.1:0")
    await fake.start()
    try:
        app = await build(settings(database_url, f"127.0.0.1:{fake_port}", **overrides))
        async with (
            server_for(app) as running,
            grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel,
        ):
            yield orchestrator_pb2_grpc.InterviewServiceStub(channel)
    finally:
        await fake.stop(None)
