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


def _writes_to_process_output(handler: logging.Handler) -> bool:
    """Whether `handler` writes to the process's stdout or stderr (ours does, at emit time)."""
    if isinstance(handler, _StdoutHandler):
        return True
    if not isinstance(handler, logging.StreamHandler):
        return False
    standard = (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)
    return any(handler.stream is stream for stream in standard if stream is not None)


def _only_ours_writes_output() -> None:
    """Remove every handler but ours that writes to stdout or stderr, so each record is written
    once, by ours, in the configured format. Handlers writing elsewhere (a test runner's capture, a
    file) are someone's deliberate choice and stay.

    On the root logger, such a handler is what `logging.basicConfig()` installs, which the stdlib
    runs implicitly the first time anything calls a module-level function (`logging.warning(...)`)
    while the root logger has no handler: onnxruntime's quantiser does on a first start (the int8
    copy of the embedding model). Left in place, it wrote every later line of the service a second
    time, as `INFO:name:{dict}` on stderr.

    Some libraries give their own logger one at import: spaCy (its INFO lines while a pipeline is
    built, written twice: by it on stderr, and by ours through the root logger), weasel, torch,
    transformers. Their loggers then propagate to the root logger, or their records (torch's and
    transformers' do not propagate) would be lost. A library imported later keeps its handler
    until logging is configured again (`GrpcServer.start()` does)."""
    root = logging.getLogger()
    # A copy: another thread may create a logger meanwhile. Placeholders (names only ever used as
    # a parent of another logger's name) have no handlers.
    named = [lg for lg in list(logging.root.manager.loggerDict.values()) if isinstance(lg, logging.Logger)]
    for logger in [root, *named]:
        strays = [h for h in logger.handlers if _writes_to_process_output(h)]
        for handler in strays:
            logger.removeHandler(handler)
        if strays and logger is not root:
            logger.propagate = True


def configure_logging(settings: ServiceSettings) -> None:
    """Configure structlog and the stdlib root logger; calling it again simply re-applies the config.

    Afterwards every record, structlog's and the stdlib's (libraries'), is written once, by our
    handler. Call it before anything else a process does (`shared.server.bootstrap`): lines logged
    earlier come out in structlog's default console format, and a stdlib record logged earlier
    through the root logger's module-level functions reaches stderr in the stdlib's format."""
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
    _only_ours_writes_output()  # ours included: calling again leaves exactly one of ours
    root = logging.getLogger()
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
