"""Start-up warm-up of the provider SDKs: one call each through an in-memory transport.

The first request through the anthropic or openai SDK in a process pays one-off set-up (request
transforms and response models built and cached at module level): 20-40 ms on the benchmark
machine, which the first respondent's turn paid once per SDK and service (bench/run_bench.py,
"first turn after start"). Start-up pays it instead. The calls go to an `httpx2.MockTransport`
inside the process: nothing reaches the network, no key is used, nothing is billed, and the
process's real clients are untouched (the caches warmed are the SDK's, shared by every instance).
"""

from __future__ import annotations

import time
from typing import Any

import anthropic
import httpx2
import openai
import structlog

_log = structlog.get_logger("llm.warmup")

_WARM_UP_URL = "http://warm-up.invalid"

_ANTHROPIC_MESSAGE: dict[str, Any] = {
    "id": "msg_warm_up",
    "type": "message",
    "role": "assistant",
    "model": "warm-up",
    "content": [{"type": "tool_use", "id": "toolu_warm_up", "name": "respond", "input": {}}],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}

_OPENAI_COMPLETION: dict[str, Any] = {
    "id": "chatcmpl-warm-up",
    "object": "chat.completion",
    "created": 0,
    "model": "warm-up",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def _answer(request: httpx2.Request) -> httpx2.Response:
    body = _OPENAI_COMPLETION if request.url.path.endswith("/chat/completions") else _ANTHROPIC_MESSAGE
    return httpx2.Response(200, json=body)


async def warm_up_anthropic() -> None:
    """One tool-use `messages.create` through the anthropic SDK, answered in memory."""
    transport = httpx2.MockTransport(_answer)
    async with anthropic.AsyncAnthropic(
        api_key="warm-up",
        base_url=_WARM_UP_URL,
        max_retries=0,
        http_client=anthropic.DefaultAsyncHttpxClient(transport=transport),
    ) as sdk:
        await sdk.messages.create(
            model="warm-up",
            max_tokens=16,
            system="warm-up",
            messages=[{"role": "user", "content": "warm-up"}],
            tools=[{"name": "respond", "description": "warm-up", "input_schema": {"type": "object"}}],
            tool_choice={"type": "tool", "name": "respond"},
        )


async def warm_up_openai() -> None:
    """One JSON-mode `chat.completions.create` through the openai SDK, answered in memory."""
    transport = httpx2.MockTransport(_answer)
    async with openai.AsyncOpenAI(
        api_key="warm-up",
        base_url=f"{_WARM_UP_URL}/v1",
        max_retries=0,
        http_client=openai.DefaultAsyncHttpxClient(transport=transport),
    ) as sdk:
        await sdk.chat.completions.create(
            model="warm-up",
            max_tokens=16,
            messages=[{"role": "system", "content": "warm-up"}, {"role": "user", "content": "warm-up"}],
            response_format={"type": "json_object"},
        )


async def warm_up_sdks(*, anthropic_sdk: bool, openai_sdk: bool) -> dict[str, float]:
    """Warm the SDKs in use; returns the milliseconds each took. A failure is logged, never raised
    (a warm-up problem must not keep a service from starting)."""
    timings: dict[str, float] = {}
    jobs = [("anthropic", warm_up_anthropic, anthropic_sdk), ("openai", warm_up_openai, openai_sdk)]
    for name, warm, wanted in jobs:
        if not wanted:
            continue
        started = time.perf_counter()
        try:
            await warm()
        except Exception as exc:
            _log.warning("llm.warm_up_failed", sdk=name, error=type(exc).__name__)
            continue
        timings[name] = round((time.perf_counter() - started) * 1000, 1)
    if timings:
        _log.info("llm.warm_up.done", ms=timings)
    return timings
