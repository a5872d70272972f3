"""The seed's retry policy through the SDKs' own loops: only timeouts and 429 are retried, once.

These tests also pin the SDK hooks `shared.llm.retry` overrides: if an SDK upgrade stops calling
them, 500s or refused connections would be retried again and the attempt counts here would change.
"""

from __future__ import annotations

import pytest
from structlog.testing import capture_logs

from shared.errors import LLMError, LLMRateLimitError, LLMTimeoutError, LLMUnavailableError
from shared.llm.retry import RetryPolicy
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings
from tests.unit.llm.conftest import BuildClients
from tests.unit.llm.models import VALID, Extraction

PROVIDERS = ["anthropic", "openai"]
# Each SDK on each of its HTTP transports (LLM_HTTP_BACKEND): they map transport errors apart.
BACKENDS = ["aiohttp", "httpx"]


@pytest.mark.parametrize("http_backend", BACKENDS)
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_429_once_then_success_takes_two_attempts(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str, http_backend: str
) -> None:
    fake_llm.enqueue(Reply.rate_limited(), Reply.structured(VALID))
    clients = await build_clients(fake_llm_settings(fake_llm, provider, http_backend=http_backend))
    with capture_logs() as logs:
        result = await clients.extraction.complete_json(system="sys", user="u", schema=Extraction)
    assert result.value == Extraction.model_validate(VALID)
    assert result.usage.calls == 1  # one logical call; the SDK retried the HTTP request
    assert [r.retry_count for r in fake_llm.requests] == [0, 1]
    assert fake_llm.requests[0].body == fake_llm.requests[1].body
    events = [e["event"] for e in logs]
    assert events.count("llm_rate_limit") == 1 and events.count("llm_retry") == 1
    retry = next(e for e in logs if e["event"] == "llm_retry")
    assert (retry["reason"], retry["retry"], retry["client"]) == ("rate_limit", 1, "extraction")


@pytest.mark.parametrize("http_backend", BACKENDS)
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_429_twice_raises_rate_limit_error(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str, http_backend: str
) -> None:
    fake_llm.enqueue(Reply.rate_limited(), Reply.rate_limited(), Reply.text("never asked"))
    clients = await build_clients(fake_llm_settings(fake_llm, provider, http_backend=http_backend))
    with pytest.raises(LLMRateLimitError, match="HTTP 429"):
        await clients.generation.complete_text(system="sys", user="u")
    assert len(fake_llm.requests) == 2
    assert fake_llm.pending == 1


@pytest.mark.parametrize("http_backend", BACKENDS)
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_stall_raises_timeout_error_after_one_retry(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str, http_backend: str
) -> None:
    fake_llm.enqueue(Reply.stall(5), Reply.stall(5))
    clients = await build_clients(
        fake_llm_settings(fake_llm, provider, http_backend=http_backend, timeout_s=0.3)
    )
    with capture_logs() as logs, pytest.raises(LLMTimeoutError, match="timed out"):
        await clients.scoring.complete_text(system="sys", user="u")
    assert [r.retry_count for r in fake_llm.requests] == [0, 1]
    retry = next(e for e in logs if e["event"] == "llm_retry")
    assert retry["reason"] == "timeout"
    final = [e for e in logs if e["event"] == "llm_timeout" and e.get("final")]
    assert len(final) == 1 and final[0]["client"] == "scoring"


@pytest.mark.parametrize("http_backend", BACKENDS)
@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [500, 503])
async def test_5xx_is_not_retried(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str, status: int, http_backend: str
) -> None:
    fake_llm.enqueue(Reply.server_error(status), Reply.text("would have worked"))
    clients = await build_clients(fake_llm_settings(fake_llm, provider, http_backend=http_backend))
    with capture_logs() as logs, pytest.raises(LLMUnavailableError, match=f"HTTP {status}"):
        await clients.generation.complete_text(system="sys", user="u")
    assert len(fake_llm.requests) == 1
    assert not [e for e in logs if e["event"] == "llm_retry"]
    assert [e for e in logs if e["event"] == "llm_http_error"]


@pytest.mark.parametrize("http_backend", BACKENDS)
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_auth_failure_maps_to_unavailable_and_bad_request_to_llm_error(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str, http_backend: str
) -> None:
    fake_llm.enqueue(Reply.error(401, "invalid x-api-key"), Reply.error(400, "bad request"))
    clients = await build_clients(fake_llm_settings(fake_llm, provider, http_backend=http_backend))
    with pytest.raises(LLMUnavailableError, match="HTTP 401"):
        await clients.generation.complete_text(system="sys", user="u")
    with pytest.raises(LLMError, match="rejected the request") as excinfo:
        await clients.generation.complete_text(system="sys", user="u")
    assert not isinstance(excinfo.value, LLMUnavailableError | LLMRateLimitError | LLMTimeoutError)
    assert len(fake_llm.requests) == 2


@pytest.mark.parametrize("http_backend", BACKENDS)
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_connection_refused_is_not_retried(
    build_clients: BuildClients, provider: str, http_backend: str
) -> None:
    with FakeLLMServer() as closed:
        settings = fake_llm_settings(closed, provider, http_backend=http_backend)
    # The server is gone: its port now refuses connections.
    clients = await build_clients(settings)
    with capture_logs() as logs, pytest.raises(LLMUnavailableError, match="unreachable"):
        await clients.extraction.complete_text(system="sys", user="u")
    assert not [e for e in logs if e["event"] == "llm_retry"]


@pytest.mark.parametrize("http_backend", BACKENDS)
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_max_retries_zero_means_a_single_attempt(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str, http_backend: str
) -> None:
    fake_llm.enqueue(Reply.rate_limited(), Reply.text("never asked"))
    clients = await build_clients(
        fake_llm_settings(fake_llm, provider, http_backend=http_backend, max_retries=0)
    )
    with pytest.raises(LLMRateLimitError):
        await clients.extraction.complete_text(system="sys", user="u")
    assert len(fake_llm.requests) == 1


def test_backoff_is_exponential_from_the_configured_initial_delay_and_capped() -> None:
    policy = RetryPolicy(initial_backoff_s=1.0, max_backoff_s=3.0)
    assert [policy.delay_s(i, None) for i in range(4)] == [1.0, 2.0, 3.0, 3.0]
    assert policy.delay_s(0, {"retry-after": "0"}) == 1.0  # zero: use our own backoff
    assert policy.delay_s(0, {"retry-after": "2"}) == 2.0  # the server's positive hint wins
    assert policy.delay_s(0, {"retry-after-ms": "250"}) == 0.25
    assert policy.delay_s(0, {"retry-after": "60"}) == 3.0  # capped
    assert policy.delay_s(1, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 2.0


def test_only_429_and_408_are_retryable_statuses() -> None:
    policy = RetryPolicy()
    assert [
        s for s in (400, 401, 403, 404, 408, 409, 429, 500, 502, 503, 529) if policy.should_retry_status(s)
    ] == [408, 429]
