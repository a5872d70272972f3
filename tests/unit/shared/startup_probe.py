"""A process shaped like a service's start-up, for test_logging_startup.py (settings from SERVICE_* env).

What a real service meets before it serves, without loading a model:
  - at import, a library logs through the stdlib root logger's module-level functions, which makes
    the stdlib install a plain stderr handler (`logging.basicConfig()`), and another gives its own
    logger a stderr handler (as spaCy does);
  - `main()` bootstraps, then "loads its models": onnxruntime's quantiser logs through
    `logging.warning(...)` on a first start, the spaCy-like library logs at INFO, and the service
    logs its start-up line through structlog, all before the server starts;
  - a line from each of them again while serving (`test.v1.Slow/Log`), then SIGTERM.
"""

from __future__ import annotations

import asyncio
import logging

import grpc
import grpc.aio
import structlog

from shared.server import ServiceRegistration, bootstrap, serve
from shared.settings import ServiceSettings

# Import time: before any settings exist, so before logging can be configured.
logging.warning("probe.import_time_root_line")
_LIBRARY = logging.getLogger("probe_library")
_LIBRARY.addHandler(logging.StreamHandler())  # spaCy's way: its own handler, on stderr
_LIBRARY.propagate = False  # torch's and transformers' way: their records stop at their handler


async def _log(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    logging.warning("probe.serving_root_line")
    _LIBRARY.info("probe.serving_library_line")
    structlog.get_logger("probe").info("probe.serving_line")
    return b"logged"


def _add(server: grpc.aio.Server) -> None:
    handler = grpc.method_handlers_generic_handler(
        "test.v1.Slow", {"Log": grpc.unary_unary_rpc_method_handler(_log)}
    )
    server.add_generic_rpc_handlers((handler,))


async def main() -> None:
    settings = ServiceSettings()
    bootstrap(settings)
    logging.warning("probe.model_export_root_line")  # what onnxruntime's quantiser does
    _LIBRARY.info("probe.model_load_library_line")
    structlog.get_logger("probe").info("probe.warm_up.done")
    await serve(settings, [ServiceRegistration("test.v1.Slow", _add)])


if __name__ == "__main__":
    asyncio.run(main())
