"""Per-call observability and error mapping shared by the providers.

One OpenTelemetry span per model request (GenAI semantic-convention attributes), the structlog
events `llm_call_start` / `llm_call_complete` / `llm_timeout` / `llm_rate_limit` / `llm_http_error`,
and the `LLMUsage` (tokens, cost, latency) of the request. Prompts are never logged, only lengths.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import anthropic
import httpx2
import openai
import structlog
from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer, TracerProvider

from shared.errors import (
    LLMError,
    LLMInvalidOutputError,
    LLMRateLimitError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from shared.llm.base import LLMUsage
from shared.llm.settings import LLMSettings

log = structlog.get_logger("shared.llm")
TRACER_NAME = "shared.llm"


def get_llm_tracer(tracer_provider: TracerProvider | None = None) -> Tracer:
    """The tracer of LLM spans: from `tracer_provider`, else the global one (late-bound proxy)."""
    return trace.get_tracer(TRACER_NAME, tracer_provider=tracer_provider)


def map_provider_error(exc: BaseException, *, client: str, provider: str) -> LLMError:
    """Translate an SDK / transport exception (after the SDK's retries) into a domain error."""
    if isinstance(exc, LLMError):
        return exc
    where = f"{provider} ({client} client)"
    if isinstance(exc, anthropic.APITimeoutError | openai.APITimeoutError | httpx2.TimeoutException):
        return LLMTimeoutError(f"{where} timed out")
    if isinstance(exc, anthropic.APIStatusError | openai.APIStatusError):
        status = exc.status_code
        if status == 429:
            return LLMRateLimitError(f"{where} rate limited the request (HTTP 429)")
        if status == 408:
            return LLMTimeoutError(f"{where} timed out (HTTP 408)")
        if status in (400, 413, 422):
            return LLMError(f"{where} rejected the request (HTTP {status})")
        return LLMUnavailableError(f"{where} failed (HTTP {status})")
    if isinstance(
        exc, anthropic.APIConnectionError | openai.APIConnectionError | httpx2.TransportError | OSError
    ):
        return LLMUnavailableError(f"{where} is unreachable ({type(exc).__name__})")
    if isinstance(exc, anthropic.APIResponseValidationError | openai.APIResponseValidationError | ValueError):
        return LLMInvalidOutputError(f"{where} returned an unreadable response body")
    return LLMUnavailableError(f"{where} failed ({type(exc).__name__})")


def add_usage(a: LLMUsage, b: LLMUsage) -> LLMUsage:
    """The sum of two usages of the same client (e.g. a call and its repair attempt)."""
    return LLMUsage(
        client=a.client or b.client,
        provider=a.provider or b.provider,
        model=a.model or b.model,
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cost_usd=a.cost_usd + b.cost_usd,
        latency_ms=a.latency_ms + b.latency_ms,
        calls=a.calls + b.calls,
    )


@dataclass(frozen=True)
class CallMeta:
    """What identifies a request in spans and logs."""

    client: str
    provider: str
    model: str
    temperature: float | None
    max_tokens: int
    operation: str = "chat"
    purpose: str = "text"  # json | json_repair | text | stream
    session_id: str | None = None
    prompt_chars: int = 0


@dataclass
class CallRecord:
    """Filled in by the provider while the request runs; turned into `LLMUsage` at the end."""

    meta: CallMeta
    settings: LLMSettings
    span: Span
    started: float = field(default_factory=time.perf_counter)
    input_tokens: int = 0
    output_tokens: int = 0
    response_model: str | None = None
    usage: LLMUsage | None = None

    def set_tokens(self, input_tokens: int | None, output_tokens: int | None) -> None:
        """Record token counts as reported by the provider (None keeps the previous value)."""
        if input_tokens is not None:
            self.input_tokens = input_tokens
        if output_tokens is not None:
            self.output_tokens = output_tokens

    def finish(self) -> LLMUsage:
        """Compute latency and cost; idempotent."""
        if self.usage is None:
            self.usage = LLMUsage(
                client=self.meta.client,
                provider=self.meta.provider,
                model=self.meta.model,
                input_tokens=self.input_tokens,
                output_tokens=self.output_tokens,
                cost_usd=self.settings.cost_usd(self.meta.model, self.input_tokens, self.output_tokens),
                latency_ms=int((time.perf_counter() - self.started) * 1000),
                calls=1,
            )
        return self.usage


@contextmanager
def observed_call(
    meta: CallMeta, settings: LLMSettings, tracer: Tracer, *, current: bool = True
) -> Iterator[CallRecord]:
    """Span + logs around one model request; maps any exception to an `LLMError`.

    `current=False` (streaming) does not attach the span to the context: an async generator may be
    resumed or closed from another context, where detaching would fail.
    """
    attributes: dict[str, str | int | float] = {
        "gen_ai.system": meta.provider,
        "gen_ai.provider.name": meta.provider,
        "gen_ai.operation.name": meta.operation,
        "gen_ai.request.model": meta.model,
        "gen_ai.request.max_tokens": meta.max_tokens,
        "llm.client": meta.client,
        "llm.purpose": meta.purpose,
    }
    if meta.temperature is not None:
        attributes["gen_ai.request.temperature"] = meta.temperature
    if meta.session_id:
        attributes["session.id"] = meta.session_id
    span_name = f"{meta.operation} {meta.model}"
    fields = {"client": meta.client, "provider": meta.provider, "model": meta.model, "purpose": meta.purpose}
    if current:
        with tracer.start_as_current_span(
            span_name,
            kind=SpanKind.CLIENT,
            attributes=attributes,
            end_on_exit=True,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            yield from _run(meta, settings, span, fields)
    else:
        span = tracer.start_span(span_name, kind=SpanKind.CLIENT, attributes=attributes)
        try:
            yield from _run(meta, settings, span, fields)
        finally:
            span.end()


def _run(meta: CallMeta, settings: LLMSettings, span: Span, fields: dict[str, str]) -> Iterator[CallRecord]:
    log.debug(
        "llm_call_start",
        temperature=meta.temperature,
        max_tokens=meta.max_tokens,
        prompt_chars=meta.prompt_chars,
        session_id=meta.session_id,
        **fields,
    )
    record = CallRecord(meta=meta, settings=settings, span=span)
    try:
        yield record
    except BaseException as exc:
        usage = record.finish()
        if not isinstance(exc, Exception):  # cancellation / generator close: not a provider failure
            span.set_attribute("error.type", type(exc).__name__)
            raise
        error = map_provider_error(exc, client=meta.client, provider=meta.provider)
        span.set_attribute("error.type", type(error).__name__)
        span.set_status(Status(StatusCode.ERROR, error.public_message))
        event_fields = {
            **fields,
            "latency_ms": usage.latency_ms,
            "error": str(error),
            "session_id": meta.session_id,
        }
        if isinstance(error, LLMTimeoutError):
            log.warning("llm_timeout", final=True, **event_fields)
        elif isinstance(error, LLMRateLimitError):
            log.warning("llm_rate_limit", final=True, **event_fields)
        elif isinstance(error, LLMInvalidOutputError):
            log.error("llm_invalid_output", **event_fields)
        else:
            log.error("llm_http_error", **event_fields)
        if error is exc:
            raise
        raise error from exc
    usage = record.finish()
    span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
    span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
    span.set_attribute("llm.cost_usd", usage.cost_usd)
    if record.response_model:
        span.set_attribute("gen_ai.response.model", record.response_model)
    log.info(
        "llm_call_complete",
        latency_ms=usage.latency_ms,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=round(usage.cost_usd, 6),
        session_id=meta.session_id,
        **fields,
    )
