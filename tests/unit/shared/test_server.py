"""GrpcServer: port 0, request id, health, reflection, message limits, graceful stop."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.canonical_slots.settings import CanonicalSlotsSettings
from services.extraction.settings import ExtractionSettings
from services.graph_store.settings import GraphStoreSettings
from services.orchestrator.settings import OrchestratorSettings
from services.question.settings import QuestionSettings
from services.scoring.settings import ScoringSettings
from shared.server import GrpcServer
from shared.settings import ServiceSettings
from tests.rich_status import from_aio_call

SETTINGS = ServiceSettings(service_name="probe-svc", host="127.0.0.1", port=0)
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def _reflect(channel: grpc.aio.Channel, *requests: reflection_pb2.ServerReflectionRequest) -> list[Any]:
    async def stream() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        for request in requests:
            yield request

    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    return [response async for response in stub.ServerReflectionInfo(stream())]


async def test_request_id_is_echoed_and_visible_to_the_handler(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    echo = probe_client(channel).unary("Echo")

    call = echo({}, metadata=(("x-request-id", "req-123"),))
    reply = await call
    assert reply["request_id"] == "req-123"
    assert dict(await call.initial_metadata())["x-request-id"] == "req-123"

    generated_call = echo({})
    generated = (await generated_call)["request_id"]
    assert uuid.UUID(generated).version == 4
    assert dict(await generated_call.initial_metadata())["x-request-id"] == generated


async def test_an_internal_service_echoes_the_request_id_in_the_trailers(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    # No write of its own for the echo: the caller (the orchestrator) sent the id itself.
    settings = SETTINGS.model_copy(update={"request_id_echo": "trailers"})
    _, channel = await grpc_server_factory(settings, [probe])
    call = probe_client(channel).unary("Echo")({}, metadata=(("x-request-id", "req-456"),))
    assert (await call)["request_id"] == "req-456"
    assert "x-request-id" not in dict(await call.initial_metadata())
    assert dict(await call.trailing_metadata())["x-request-id"] == "req-456"
    # A failed call still names it: in the rich status's ErrorInfo.
    failed = probe_client(channel).unary("Raise")({"kind": "not_found"}, metadata=(("x-request-id", "r-9"),))
    with pytest.raises(grpc.aio.AioRpcError):
        await failed
    status = await from_aio_call(failed)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert any(d.Unpack(info) for d in status.details if d.Is(info.DESCRIPTOR))
    assert info.metadata["request_id"] == "r-9"


def test_only_the_public_service_echoes_in_the_headers() -> None:
    assert OrchestratorSettings().request_id_echo == "headers"
    internal = (
        ExtractionSettings,
        GraphStoreSettings,
        CanonicalSlotsSettings,
        ScoringSettings,
        QuestionSettings,
    )
    assert {cls().request_id_echo for cls in internal} == {"trailers"}


async def test_unsafe_request_id_is_replaced(grpc_server_factory: Any, probe: Any, probe_client: Any) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    reply = await probe_client(channel).unary("Echo")({}, metadata=(("x-request-id", "<bad id>" * 30),))
    assert uuid.UUID(reply["request_id"]).version == 4


async def test_handler_sees_no_deadline_when_client_sets_none(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    reply = await probe_client(channel).unary("Echo")({})
    assert reply["time_remaining"] is None


async def test_port_zero_binds_a_free_port_and_two_servers_coexist(
    grpc_server_factory: Any, probe: Any
) -> None:
    first, _ = await grpc_server_factory(SETTINGS, [probe])
    second, _ = await grpc_server_factory(SETTINGS, [probe])
    assert first.port > 0 and second.port > 0 and first.port != second.port


async def test_a_port_another_server_listens_on_fails_the_start(grpc_server_factory: Any, probe: Any) -> None:
    # Two services given the same port must not share it (gRPC's SO_REUSEPORT would let both bind
    # and split the connections: requests reaching a server without their service, UNIMPLEMENTED).
    first, channel = await grpc_server_factory(SETTINGS, [probe])
    second = GrpcServer(SETTINGS.model_copy(update={"port": first.port}), [probe])
    try:
        with pytest.raises(RuntimeError):
            await second.start()
    finally:
        await second.stop(grace=0)  # had it started, the test fails instead of hanging at teardown
    health = health_pb2_grpc.HealthStub(channel)
    reply = await health.Check(health_pb2.HealthCheckRequest(service=""))  # the first one still serves
    assert reply.status == SERVING


async def test_health_serving_for_server_and_each_service(grpc_server_factory: Any, probe: Any) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    health = health_pb2_grpc.HealthStub(channel)
    for name in ["", "test.v1.Probe"]:
        reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert reply.status == SERVING
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await health.Check(health_pb2.HealthCheckRequest(service="test.v1.Unknown"))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND


async def test_health_goes_not_serving_when_stop_begins(grpc_server_factory: Any, probe: Any) -> None:
    server, channel = await grpc_server_factory(SETTINGS, [probe])
    watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(service="test.v1.Probe"))
    statuses = [(await watch.read()).status]

    stopping = asyncio.create_task(server.stop(grace=5.0))
    statuses.append((await watch.read()).status)
    watch.cancel()  # lets the grace period end early: the watch is the only RPC in flight
    await stopping
    assert statuses == [SERVING, NOT_SERVING]


async def test_reflection_lists_services_and_describes_them(grpc_server_factory: Any, probe: Any) -> None:
    _, channel = await grpc_server_factory(SETTINGS, [probe])
    listed, described = await _reflect(
        channel,
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.health.v1.Health"),
    )
    names = {service.name for service in listed.list_services_response.service}
    assert names == {"test.v1.Probe", "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"}
    assert described.file_descriptor_response.file_descriptor_proto  # the health proto's descriptor


async def test_server_rejects_messages_over_the_limit(grpc_server_factory: Any, probe: Any) -> None:
    small = SETTINGS.model_copy(update={"max_message_bytes": 1024})
    server, _ = await grpc_server_factory(small, [probe])
    # A client without the limit, so the rejection comes from the server.
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        echo = channel.unary_unary("/test.v1.Probe/Echo", request_serializer=None, response_deserializer=None)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await echo(b'{"pad": "' + b"x" * 4096 + b'"}')
        assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert await echo(b"{}") != b""


async def test_stop_runs_shutdown_hooks_even_if_one_fails(probe: Any) -> None:
    ran: list[str] = []

    async def failing() -> None:
        ran.append("failing")
        raise RuntimeError("hook failed")

    async def closing() -> None:
        ran.append("closing")

    server = GrpcServer(SETTINGS, [probe], on_shutdown=[failing, closing])
    async with server:
        assert server.port > 0
    assert ran == ["failing", "closing"]
    await server.stop()  # a second stop is a no-op
    assert ran == ["failing", "closing"]
