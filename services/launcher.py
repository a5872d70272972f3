"""Start all six services as child processes, wait until every one is healthy, stop them together.

`make serve` runs `python -m services.launcher`. Each service runs in its own OS process (exactly as
in a deployment); this supervisor prints one line when all report SERVING on grpc.health.v1, and on
Ctrl-C / SIGTERM forwards SIGTERM to every child (each drains gracefully) before exiting. If any
child dies, the others are stopped and the launcher exits non-zero.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from shared.channels import STARTUP_RECONNECT_OPTIONS

# Start order: dependencies of the orchestrator first.
SERVICES: tuple[tuple[str, str, int], ...] = (
    ("extraction", "EXTRACTION_PORT", 50052),
    ("graph_store", "GRAPH_STORE_PORT", 50053),
    ("canonical_slots", "CANONICAL_SLOTS_PORT", 50054),
    ("scoring", "SCORING_PORT", 50055),
    ("question", "QUESTION_PORT", 50056),
    ("orchestrator", "ORCHESTRATOR_PORT", 50051),
)


@dataclass
class Child:
    """A running service process and the port it listens on."""

    name: str
    port: int
    process: asyncio.subprocess.Process


def service_ports(env: Mapping[str, str]) -> dict[str, int]:
    """Each service's port: the `<SVC>_PORT` variable when set, else its default."""
    return {name: int(env.get(var, default)) for name, var, default in SERVICES}


def child_env(env: Mapping[str, str], ports: Mapping[str, int]) -> dict[str, str]:
    """The environment every child gets: its own port plus where the orchestrator finds the others.

    The five internal services listen on the loopback interface unless `<SVC>_HOST` says otherwise:
    only the orchestrator calls them, from this machine, and they take no credentials. The
    orchestrator keeps its own default (every interface), as a deployment's public port does."""
    out = dict(env)
    for name, var, _ in SERVICES:
        out[var] = str(ports[name])
        if name != "orchestrator":
            out.setdefault(f"ORCHESTRATOR_{name.upper()}_TARGET", f"127.0.0.1:{ports[name]}")
            out.setdefault(f"{name.upper()}_HOST", "127.0.0.1")
    return out


async def wait_healthy(port: int, timeout_s: float) -> bool:
    """Poll grpc.health.v1 Check("") on `port` until SERVING or the timeout passes."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=STARTUP_RECONNECT_OPTIONS) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while asyncio.get_running_loop().time() < deadline:
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return True
            except grpc.aio.AioRpcError:
                pass
            await asyncio.sleep(0.2)
    return False


async def stop_all(children: Sequence[Child], grace_s: float) -> None:
    """SIGTERM every live child (orchestrator first), then SIGKILL whatever outlives the grace."""
    for child in reversed(children):
        if child.process.returncode is None:
            child.process.send_signal(signal.SIGTERM)
    for child in children:
        try:
            await asyncio.wait_for(child.process.wait(), grace_s)
        except TimeoutError:
            child.process.kill()
            await child.process.wait()


async def run(names: Sequence[str], startup_timeout_s: float, grace_s: float) -> int:
    """Start the named services, report health, and supervise until a signal or a child exits."""
    ports = service_ports(os.environ)
    env = child_env(os.environ, ports)
    children: list[Child] = []
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    pending: list[asyncio.Future[Any]] = []
    try:
        for name, _, _ in SERVICES:
            if name not in names:
                continue
            process = await asyncio.create_subprocess_exec(sys.executable, "-m", f"services.{name}", env=env)
            children.append(Child(name, ports[name], process))
        exits = [asyncio.ensure_future(c.process.wait()) for c in children]
        stopper = asyncio.ensure_future(stop.wait())
        health = asyncio.ensure_future(
            asyncio.gather(*(wait_healthy(c.port, startup_timeout_s) for c in children))
        )
        pending = [health, stopper, *exits]
        # A signal or a child that dies while the others load its models ends the start-up at once,
        # not when the health checks time out (Ctrl-C during `make run`, a port already taken).
        done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        if health not in done:
            if stopper in done:
                print("stopped during start-up", flush=True)
                return 0
            print(f"service exited during start-up: {', '.join(_dead(children))}", flush=True)
            return 1
        failed = [c.name for c, ok in zip(children, health.result(), strict=True) if not ok]
        if failed:
            print(f"services not healthy after {startup_timeout_s:.0f}s: {', '.join(failed)}", flush=True)
            return 1
        listing = " ".join(f"{c.name}=127.0.0.1:{c.port}" for c in children)
        print(f"all {len(children)} services healthy: {listing}", flush=True)
        done, _ = await asyncio.wait([stopper, *exits], return_when=asyncio.FIRST_COMPLETED)
        if stopper in done:
            return 0
        print(f"service exited unexpectedly: {', '.join(_dead(children))}; stopping the others", flush=True)
        return 1
    finally:
        for future in pending:
            future.cancel()
        # collected, so that the cancelled health checks leave no "exception never retrieved"
        await asyncio.gather(*pending, return_exceptions=True)
        await stop_all(children, grace_s)


def _dead(children: Sequence[Child]) -> list[str]:
    """Names of the children that have exited."""
    return [c.name for c in children if c.process.returncode is not None]


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", nargs="*", default=[n for n, _, _ in SERVICES], help="services to start")
    parser.add_argument("--startup-timeout", type=float, default=120.0)
    parser.add_argument("--grace", type=float, default=10.0)
    args = parser.parse_args(argv)
    return asyncio.run(run(args.only, args.startup_timeout, args.grace))


if __name__ == "__main__":
    sys.exit(main())
