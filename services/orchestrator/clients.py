"""Stubs of the five internal services and the one way the orchestrator calls them."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc.aio

from services.orchestrator.settings import OrchestratorSettings
from shared.channels import call, create_channel
from shared.gen.interview.extraction.v1 import extraction_pb2_grpc
from shared.gen.interview.graph.v1 import graph_pb2_grpc
from shared.gen.interview.question.v1 import question_pb2_grpc
from shared.gen.interview.scoring.v1 import scoring_pb2_grpc
from shared.gen.interview.slots.v1 import slots_pb2_grpc

R = TypeVar("R")


@dataclass
class Dependencies:
    """Channels and stubs to every internal service (created once at start-up)."""

    extraction: extraction_pb2_grpc.ExtractionServiceStub
    graph: graph_pb2_grpc.GraphServiceStub
    slots: slots_pb2_grpc.CanonicalSlotServiceStub
    scoring: scoring_pb2_grpc.ScoringServiceStub
    question: question_pb2_grpc.QuestionServiceStub
    channels: tuple[grpc.aio.Channel, ...]
    timeout_s: float

    @classmethod
    def connect(cls, settings: OrchestratorSettings) -> Dependencies:
        """Open one channel per service (lazy connect; a down service fails the call, not start-up)."""
        size = settings.max_message_bytes
        # round_robin spreads calls over every address a `dns:///` target resolves to (headless
        # Services in Kubernetes); with a single address it behaves like pick_first.
        # Short reconnect backoff plus a transparent retry of UNAVAILABLE (every internal RPC is
        # idempotent on its key, so a retry is safe): a restarted dependency is used again at once,
        # while a dead one still fails within a second (UNAVAILABLE) instead of queueing calls.
        service_config = {
            "loadBalancingConfig": [{"round_robin": {}}],
            "methodConfig": [
                {
                    "name": [{}],
                    "retryPolicy": {
                        "maxAttempts": 4,
                        "initialBackoff": "0.1s",
                        "maxBackoff": "0.5s",
                        "backoffMultiplier": 2,
                        "retryableStatusCodes": ["UNAVAILABLE"],
                    },
                }
            ],
        }
        options: list[tuple[str, Any]] = [
            ("grpc.service_config", json.dumps(service_config)),
            ("grpc.enable_retries", 1),
            ("grpc.initial_reconnect_backoff_ms", 200),
            ("grpc.min_reconnect_backoff_ms", 100),
            ("grpc.max_reconnect_backoff_ms", 2000),
        ]

        def channel(target: str) -> grpc.aio.Channel:
            return create_channel(target, max_message_bytes=size, options=options)

        extraction = channel(settings.extraction_target)
        graph = channel(settings.graph_store_target)
        slots = channel(settings.canonical_slots_target)
        scoring = channel(settings.scoring_target)
        question = channel(settings.question_target)
        return cls(
            extraction=extraction_pb2_grpc.ExtractionServiceStub(extraction),
            graph=graph_pb2_grpc.GraphServiceStub(graph),
            slots=slots_pb2_grpc.CanonicalSlotServiceStub(slots),
            scoring=scoring_pb2_grpc.ScoringServiceStub(scoring),
            question=question_pb2_grpc.QuestionServiceStub(question),
            channels=(extraction, graph, slots, scoring, question),
            timeout_s=settings.internal_timeout_s,
        )

    async def close(self) -> None:
        """Close every channel."""
        for channel in self.channels:
            await channel.close(None)

    async def __call__(self, method: Callable[..., Awaitable[R]] | Any, request: Any, *, service: str) -> R:
        """Call `method` with the propagated deadline; failures become domain errors naming `service`."""
        result: R = await call(method, request, service=service, timeout=self.timeout_s)
        return result
