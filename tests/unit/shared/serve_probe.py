"""A process running `shared.server.serve()` for test_serve_process.py (settings from SERVICE_* env).

It hosts `test.v1.Slow/Sleep` (sleeps, then answers b"done") and logs `probe.hook_ran` from an
on_shutdown hook, so the test can see the whole shutdown sequence from outside.
"""

from __future__ import annotations

import asyncio
import gc

import grpc
import grpc.aio
import structlog

from shared.server import ServiceRegistration, serve
from shared.settings import ServiceSettings


async def _sleep(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
    structlog.get_logger("probe").info("probe.sleep_started", frozen_objects=gc.get_freeze_count())
    await asyncio.sleep(float(request.decode()))
    return b"done"


def _add(server: grpc.aio.Server) -> None:
    handler = grpc.method_handlers_generic_handler(
        "test.v1.Slow", {"Sleep": grpc.unary_unary_rpc_method_handler(_sleep)}
    )
    server.add_generic_rpc_handlers((handler,))


async def _hook() -> None:
    structlog.get_logger("probe").info("probe.hook_ran")


if __name__ == "__main__":
    asyncio.run(serve(ServiceSettings(), [ServiceRegistration("test.v1.Slow", _add)], on_shutdown=[_hook]))
