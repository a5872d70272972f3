"""serve() in its own process: SIGTERM → health NOT_SERVING, in-flight RPC finishes, hooks run, exit 0."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc

SCRIPT = Path(__file__).parent / "serve_probe.py"
ROOT = Path(__file__).resolve().parents[3]


class _Log:
    """Collects the JSON log lines of the child process; lets the test wait for an event."""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.events: list[dict[str, Any]] = []
        self._changed = asyncio.Condition()
        self.task = asyncio.create_task(self._read(stream))

    async def _read(self, stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            line = raw.decode().strip()
            if line.startswith("{"):
                async with self._changed:
                    self.events.append(json.loads(line))
                    self._changed.notify_all()

    async def wait_for(self, event: str) -> dict[str, Any]:
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: any(e["event"] == event for e in self.events)), timeout=60
            )
            return next(e for e in self.events if e["event"] == event)


async def test_sigterm_shuts_down_gracefully() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SERVICE_SERVICE_NAME": "probe-proc",
        "SERVICE_HOST": "127.0.0.1",
        "SERVICE_PORT": "0",
        "SERVICE_SHUTDOWN_GRACE_S": "30",
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(SCRIPT), cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    log = _Log(process.stdout)
    try:
        port = (await log.wait_for("grpc.server.started"))["port"]
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            watch = health_pb2_grpc.HealthStub(channel).Watch(
                health_pb2.HealthCheckRequest(service="test.v1.Slow")
            )
            assert (await watch.read()).status == health_pb2.HealthCheckResponse.SERVING
            in_flight = channel.unary_unary(
                "/test.v1.Slow/Sleep", request_serializer=None, response_deserializer=None
            )(b"1.0")
            started = await log.wait_for("probe.sleep_started")
            # What start-up built is out of the collector's reach by the time requests are served.
            assert started["frozen_objects"] > 10_000

            process.send_signal(signal.SIGTERM)

            assert (await watch.read()).status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()
            assert await in_flight == b"done"  # the grace period let it finish
        assert await asyncio.wait_for(process.wait(), timeout=60) == 0
        await log.task
        order = [e["event"] for e in log.events if e["event"].startswith(("grpc.server.", "probe.hook"))]
        assert order[-4:] == [
            "grpc.server.signal_received",
            "grpc.server.stopping",
            "probe.hook_ran",
            "grpc.server.stopped",
        ]
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
