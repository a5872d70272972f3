"""Waiting for a server that comes up late: the launcher, the simulation client and the CLI.

Under load a service can take a minute to load its models. A poller that knocked before the port
opened must still see it soon after: gRPC's default reconnect backoff grows towards 120 s, so by
`LATE_S` it waits over six seconds between attempts and the launcher once gave up on a graph_store
that was already answering the orchestrator. The pollers cap the backoff at a second.
"""

from __future__ import annotations

import asyncio

import grpc
import grpc.aio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from cli.connection import SERVICE_NAME, Client, ConnectionOptions, open_channel, wait_until_serving
from services.launcher import child_env, service_ports, wait_healthy
from simulation.client import SERVICE, InterviewClient
from tests.ports import closed_port

LATE_S = 12.0  # the server opens its port this long after the pollers start
MARGIN_S = 3.0  # a capped backoff sees it within about a second; the default one not before ~15 s


async def _serve_late(port: int, names: tuple[str, ...]) -> grpc.aio.Server:
    await asyncio.sleep(LATE_S)
    server = grpc.aio.server()
    servicer = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    for name in ("", *names):
        await servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server


async def _simulation_wait(port: int) -> bool:
    async with InterviewClient(f"127.0.0.1:{port}") as client:
        return await client.wait_healthy(LATE_S + MARGIN_S)


def _cli_wait(port: int) -> str:
    options = ConnectionOptions(target=f"127.0.0.1:{port}")
    channel = open_channel(options)
    try:
        wait_until_serving(Client(channel, options), LATE_S + MARGIN_S, lambda _elapsed: None)
        return "serving"
    finally:
        channel.close()


async def test_pollers_see_a_server_that_opens_its_port_late() -> None:
    launcher_port, simulation_port, cli_port = (closed_port() for _ in range(3))
    servers = asyncio.gather(
        _serve_late(launcher_port, ()),
        _serve_late(simulation_port, (SERVICE,)),
        _serve_late(cli_port, (SERVICE_NAME,)),
    )
    try:
        launcher, simulation, cli = await asyncio.gather(
            wait_healthy(launcher_port, LATE_S + MARGIN_S),
            _simulation_wait(simulation_port),
            asyncio.to_thread(_cli_wait, cli_port),
            return_exceptions=True,
        )
    finally:
        for server in await servers:
            await server.stop(None)
    # each poller on its own: one that misses the server must not hide behind another's failure
    assert (launcher, simulation, cli) == (True, True, "serving")


async def test_launcher_gives_up_on_a_port_that_never_opens() -> None:
    assert await wait_healthy(closed_port(), 1.5) is False


def test_internal_services_listen_on_loopback_unless_told_otherwise() -> None:
    ports = service_ports({})
    env = child_env({"SCORING_HOST": "0.0.0.0"}, ports)
    internal = ("EXTRACTION", "GRAPH_STORE", "CANONICAL_SLOTS", "QUESTION")
    assert {env[f"{name}_HOST"] for name in internal} == {"127.0.0.1"}
    assert env["SCORING_HOST"] == "0.0.0.0"  # an explicit setting wins
    assert "ORCHESTRATOR_HOST" not in env  # the public port keeps its own default
    assert env["ORCHESTRATOR_GRAPH_STORE_TARGET"] == f"127.0.0.1:{ports['graph_store']}"
