"""The benchmark's fake provider through the real SDKs (shared.llm), both APIs, without a script."""

from __future__ import annotations

import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.answers import answer
from bench.fake_provider import BenchConfig, BenchLLMServer, free_ports
from services.extraction.models import ExtractionRequest
from services.extraction.prompts import LLMExtraction, system_prompt, user_prompt
from shared.llm import build_llm_clients
from shared.methodology import MethodologyRegistry
from tests.fakes.llm_server import fake_llm_settings

METHODOLOGY = MethodologyRegistry(Path(__file__).resolve().parents[3] / "config").get("means_end_chain")


@pytest.fixture
def bench_llm() -> Iterator[BenchLLMServer]:
    """A fresh automatic fake (0 ms latency)."""
    with BenchLLMServer(BenchConfig(latency_ms=0)) as server:
        yield server


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_structured_and_streamed_calls_are_answered_and_logged(
    bench_llm: BenchLLMServer, provider: str
) -> None:
    clients = build_llm_clients(fake_llm_settings(bench_llm, provider))
    try:
        text = answer(3)
        request = ExtractionRequest(
            session_id="s", utterance_id="u", text=text, methodology="means_end_chain"
        )
        result = await clients.extraction.complete_json(
            system=system_prompt(METHODOLOGY),
            user=user_prompt(request, []),
            schema=LLMExtraction,
            tool_name="record_extraction",
        )
        assert [c.quote in text for c in result.value.concepts] == [True, True, True]
        assert result.usage.input_tokens > 0
        pieces = [
            d.text
            async for d in clients.generation.stream_text(
                system="Interviewer.", user="<focus_concept>battery life</focus_concept>"
            )
        ]
    finally:
        await clients.aclose()
    question = "".join(pieces)
    assert len([p for p in pieces if p]) > 1  # streamed in several deltas
    assert question.endswith("?") and "battery life" in question
    calls = bench_llm.calls
    assert [(c.kind, c.api, c.streamed) for c in calls] == [
        ("extraction", provider, False),
        ("text", provider, True),
    ]
    assert all(c.end >= c.start for c in calls)


def test_control_routes_set_latency_and_report_the_log(bench_llm: BenchLLMServer) -> None:
    request = urllib.request.Request(
        f"{bench_llm.url}/_bench/config",
        data=json.dumps({"latency_ms": 250, "first_token_share": 0.25}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=5) as response:
        assert json.loads(response.read()) == {"latency_ms": 250.0, "first_token_share": 0.25}
    assert bench_llm.bench.config.latency_ms == 250.0
    with urllib.request.urlopen(f"{bench_llm.url}/_bench/calls?since=-1", timeout=5) as response:
        assert json.loads(response.read()) == {"calls": [], "total": 0}


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_the_start_up_model_listing_is_answered(bench_llm: BenchLLMServer, provider: str) -> None:
    # Each service opens its provider connection at start-up with a model listing; the benchmark's
    # fake must answer it (a failed listing leaves the connection to the first measured turn).
    clients = build_llm_clients(fake_llm_settings(bench_llm, provider))
    try:
        assert await clients.preconnect(["extraction", "generation"]) == {
            "extraction": True,
            "generation": True,
        }
    finally:
        await clients.aclose()
    assert bench_llm.calls == []  # a listing is no LLM call


def test_ports_picked_together_are_distinct_and_free() -> None:
    ports = free_ports(40)
    assert len(set(ports)) == 40  # probed one at a time, the OS may repeat a port
    for port in ports:  # nothing listens there: each can be bound
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))
