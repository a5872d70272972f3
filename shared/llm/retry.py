"""The seed's retry policy applied through the SDKs' own retry loops.

Seed: 1 retry, exponential backoff from 1 s, retry ONLY on timeouts and HTTP 429; other errors
(5xx, connection refused, auth) are raised at once. Both SDKs retry 408/409/429/5xx and every
connection error by default, with a hard-coded 0.5 s initial delay.

Why subclass hooks rather than a transport or middleware: both Stainless-generated SDKs route every
retry decision through the same overridable methods of their base client — `_should_retry`
(status responses), `_calculate_retry_timeout` (the delay) and `_sleep_for_retry` (runs once per
retry, our `llm_retry` log hook). Overriding them keeps the SDK's loop, idempotency keys and
`retry-after` handling, and is the only way to make the initial delay configurable (it is a module
constant). A transport that rewrites `x-should-retry` headers could filter statuses but cannot
change the delay nor see timeouts. What differs per SDK is connection errors:
 * anthropic decides them in `_should_retry_exception` -> we keep timeouts only;
 * openai retries `httpx2.RequestError` raised by `_send_request` but propagates any `OpenAIError`
   as-is ("without retrying") -> we re-raise non-timeout transport errors as `APIConnectionError`.
   The openai SDK's copy of the aiohttp transport reports every aiohttp connection error as a
   `ConnectTimeout` (connection refused included; the anthropic SDK's copy fixes that mapping), so
   a "timeout" caused by an aiohttp connection error that is not itself a timeout is one too.
`tests/unit/llm/test_retries.py` pins this behaviour so an SDK upgrade that moves a hook fails loudly.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import aiohttp
import anthropic
import httpx2
import openai
import structlog

log = structlog.get_logger(__name__)

RETRYABLE_STATUS = frozenset({408, 429})  # 408 is a server-side request timeout


@dataclass(frozen=True)
class RetryPolicy:
    """Which failures are retried, how long to wait, and the `llm_retry` log hook."""

    client: str = ""
    provider: str = ""
    model: str = ""
    initial_backoff_s: float = 1.0
    max_backoff_s: float = 8.0

    def should_retry_status(self, status_code: int) -> bool:
        """Retry 429 (rate limit) and 408 (request timeout) only."""
        return status_code in RETRYABLE_STATUS

    def delay_s(self, retry_index: int, headers: Mapping[str, str] | None) -> float:
        """`retry-after(-ms)` when the server gives a positive one (capped), else exponential backoff."""
        retry_after = _retry_after_s(headers)
        if retry_after is not None and retry_after > 0:
            return min(retry_after, self.max_backoff_s)
        return min(self.initial_backoff_s * (2.0 ** max(retry_index, 0)), self.max_backoff_s)

    def on_retry(self, retries_taken: int, max_retries: int, response: httpx2.Response | None) -> None:
        """Log the failure that is being retried and the retry itself."""
        if response is None:
            reason = "timeout"
        else:
            reason = "rate_limit" if response.status_code == 429 else f"http_{response.status_code}"
        fields: dict[str, Any] = {"client": self.client, "provider": self.provider, "model": self.model}
        if reason == "rate_limit":
            log.warning("llm_rate_limit", attempt=retries_taken + 1, **fields)
        elif reason == "timeout":
            log.warning("llm_timeout", attempt=retries_taken + 1, **fields)
        log.info(
            "llm_retry",
            reason=reason,
            retry=retries_taken + 1,
            max_retries=max_retries,
            delay_s=round(self.delay_s(retries_taken, response.headers if response is not None else None), 3),
            **fields,
        )


def _retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = headers.get(name)
        if raw is None:
            continue
        try:
            return float(raw) / scale
        except ValueError:
            continue  # an HTTP-date retry-after: fall back to our own backoff
    return None


def _is_timeout(err: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = err
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, anthropic.APITimeoutError | openai.APITimeoutError | httpx2.TimeoutException):
            return True
        current = current.__cause__
    return False


class SeedRetryAsyncAnthropic(anthropic.AsyncAnthropic):
    """`AsyncAnthropic` whose retry loop follows `RetryPolicy` (see module docstring)."""

    def __init__(self, *, retry_policy: RetryPolicy | None = None, **kwargs: Any) -> None:
        self._llm_retry_policy = retry_policy or RetryPolicy()
        super().__init__(**kwargs)

    @property
    def user_agent(self) -> str:
        return f"AsyncAnthropic/Python {self._version}"  # the SDK would send our subclass name

    def _should_retry(self, response: httpx2.Response) -> bool:
        return self._llm_retry_policy.should_retry_status(response.status_code)

    def _should_retry_exception(self, err: BaseException) -> tuple[bool, httpx2.Response | None]:
        should_retry, response = super()._should_retry_exception(err)
        if should_retry and response is None and not _is_timeout(err):
            return False, None  # connection refused / reset: raised at once per the seed
        return should_retry, response

    def _calculate_retry_timeout(
        self, remaining_retries: int, options: Any, response_headers: httpx2.Headers | None = None
    ) -> float:
        retry_index = options.get_max_retries(self.max_retries) - remaining_retries
        return self._llm_retry_policy.delay_s(retry_index, response_headers)

    async def _sleep_for_retry(
        self, *, retries_taken: int, max_retries: int, options: Any, response: httpx2.Response | None
    ) -> None:
        self._llm_retry_policy.on_retry(retries_taken, max_retries, response)
        await super()._sleep_for_retry(
            retries_taken=retries_taken, max_retries=max_retries, options=options, response=response
        )


class SeedRetryAsyncOpenAI(openai.AsyncOpenAI):
    """`AsyncOpenAI` whose retry loop follows `RetryPolicy` (see module docstring)."""

    def __init__(self, *, retry_policy: RetryPolicy | None = None, **kwargs: Any) -> None:
        self._llm_retry_policy = retry_policy or RetryPolicy()
        super().__init__(**kwargs)

    @property
    def user_agent(self) -> str:
        return f"AsyncOpenAI/Python {self._version}"  # the SDK would send our subclass name

    def _should_retry(self, response: httpx2.Response) -> bool:
        return self._llm_retry_policy.should_retry_status(response.status_code)

    async def _send_request(self, request: httpx2.Request, *, stream: bool, **kwargs: Any) -> httpx2.Response:
        try:
            return await super()._send_request(request, stream=stream, **kwargs)
        except httpx2.TimeoutException as err:
            if not _timed_out(err):
                raise openai.APIConnectionError(request=request) from err
            raise  # retried by the SDK
        except httpx2.RequestError as err:
            # The SDK propagates OpenAIError subclasses without retrying.
            raise openai.APIConnectionError(request=request) from err

    def _calculate_retry_timeout(
        self, remaining_retries: int, options: Any, response_headers: httpx2.Headers | None = None
    ) -> float:
        retry_index = options.get_max_retries(self.max_retries) - remaining_retries
        return self._llm_retry_policy.delay_s(retry_index, response_headers)

    async def _sleep_for_retry(
        self, *, retries_taken: int, max_retries: int, options: Any, response: httpx2.Response | None
    ) -> None:
        self._llm_retry_policy.on_retry(retries_taken, max_retries, response)
        await super()._sleep_for_retry(
            retries_taken=retries_taken, max_retries=max_retries, options=options, response=response
        )


def _timed_out(err: httpx2.TimeoutException) -> bool:
    """False for the openai SDK's aiohttp transport reporting a refused or reset connection as a
    timeout (the aiohttp error it wraps says what happened)."""
    cause = err.__cause__
    return not isinstance(cause, aiohttp.ClientConnectionError) or isinstance(cause, asyncio.TimeoutError)
