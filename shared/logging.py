"""structlog configuration: one JSON object per line (or console output), for our logs and stdlib's.

Every line carries `timestamp`, `level`, `service`, `event`, the current OpenTelemetry `trace_id` /
`span_id` when a span is active, and the structlog contextvars bound by the server bootstrap
(`request_id`, `rpc_method`, `rpc_service`). Respondent text stays out of INFO logs unless
`log_respondent_text` is set: log it through `respondent_text(settings, text)`.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog
from opentelemetry import trace
from structlog.tracebacks import ExceptionDictTransformer
from structlog.typing import EventDict, Processor, WrappedLogger

from shared.settings import ServiceSettings


class _StdoutHandler(logging.StreamHandler):  # type: ignore[type-arg,unused-ignore]
    """Writes to whatever `sys.stdout` is at emit time (test runners swap it per test)."""

    def __init__(self) -> None:
        super().__init__(sys.stdout)

    @property  # type: ignore[override,unused-ignore]
    def stream(self) -> TextIO:
        return sys.stdout

    @stream.setter
    def stream(self, _value: TextIO) -> None:  # StreamHandler.__init__ assigns it; ignore
        pass


def _add_trace_ids(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
    span_context = trace.get_current_span().get_span_context()
    if span_context.is_valid:
        event_dict.setdefault("trace_id", format(span_context.trace_id, "032x"))
        event_dict.setdefault("span_id", format(span_context.span_id, "016x"))
    return event_dict


def _service_adder(service: str) -> Processor:
    def add_service(_logger: WrappedLogger, _method: str, event_dict: EventDict) -> EventDict:
        event_dict.setdefault("service", service)
        return event_dict

    return add_service


# HTTP client libraries under the provider SDKs log every request at INFO ("HTTP Request: POST …
# 200 OK"): a second line per LLM call beside our `llm_call_complete`, which says the same and more
# (client, model, latency, tokens), and a stdlib log record built and written on the call's path.
# They keep their warnings; at DEBUG they log everything again.
_PER_REQUEST_LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2")


def configure_logging(settings: ServiceSettings) -> None:
    """Configure structlog and the stdlib root logger; calling it again simply re-applies the config."""
    level = logging.getLevelName(settings.log_level)
    shared_processors: list[Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.stdlib.add_log_level,
        structlog.stdlib.add_logger_name,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        _service_adder(settings.service_name),
        _add_trace_ids,
        structlog.processors.StackInfoRenderer(),
    ]
    renderer: Processor
    if settings.log_json:
        renderer = structlog.processors.JSONRenderer()
        # Tracebacks as structured data, without frame locals (they may hold respondent text).
        tracebacks = structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False))
        final: list[Processor] = [tracebacks, renderer]
    else:
        final = [structlog.dev.ConsoleRenderer(colors=False)]

    structlog.configure(
        processors=[*shared_processors, structlog.stdlib.ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(level),
        cache_logger_on_first_use=False,  # reconfiguration (tests, several servers) must take effect
    )
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=shared_processors,
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *final],
    )
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _StdoutHandler)]:
        root.removeHandler(handler)  # idempotent: exactly one of our handlers
    handler = _StdoutHandler()
    handler.setFormatter(formatter)
    root.addHandler(handler)
    root.setLevel(level)
    quiet = logging.NOTSET if level <= logging.DEBUG else max(level, logging.WARNING)
    for name in _PER_REQUEST_LOGGERS:
        logging.getLogger(name).setLevel(quiet)


def get_logger(name: str | None = None, **initial: Any) -> Any:
    """A structlog logger (bound with `initial` values)."""
    return structlog.get_logger(name, **initial)


def respondent_text(settings: ServiceSettings, text: str) -> str:
    """`text` itself when respondent text may be logged, else a length-only placeholder."""
    return text if settings.log_respondent_text else f"<redacted {len(text)} chars>"
