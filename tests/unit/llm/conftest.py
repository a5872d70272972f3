"""Fixtures of the LLM-layer tests: the fake provider server, client builder, in-memory spans."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator

import pytest
import pytest_asyncio
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from shared.llm import LLMClients, LLMSettings, build_llm_clients
from tests.fakes.llm_server import FakeLLMServer

BuildClients = Callable[[LLMSettings], Awaitable[LLMClients]]


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A fresh fake provider server per test (starting one takes milliseconds)."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def span_exporter() -> InMemorySpanExporter:
    """Collects the spans of the clients built by `build_clients` in this test."""
    return InMemorySpanExporter()


@pytest.fixture
def tracer_provider(span_exporter: InMemorySpanExporter) -> TracerProvider:
    """A private provider (no global state): injected into `build_llm_clients`."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(span_exporter))
    return provider


@pytest_asyncio.fixture
async def build_clients(tracer_provider: TracerProvider) -> AsyncIterator[BuildClients]:
    """`await build_clients(settings)`; every client built is closed at teardown."""
    built: list[LLMClients] = []

    async def build(settings: LLMSettings) -> LLMClients:
        clients = build_llm_clients(settings, tracer_provider=tracer_provider)
        built.append(clients)
        return clients

    yield build
    for clients in built:
        await clients.aclose()
