"""shared.channels: deadline and request-id propagation, and remote status → domain error mapping.

Server A's `Forward` handler calls server B through `shared.channels.call`; B answers or fails.
"""

from __future__ import annotations

from typing import Any

import grpc
import grpc.aio
import pytest
from google.rpc import error_details_pb2

from shared.channels import call, create_channel, effective_timeout, set_inbound_deadline
from shared.errors import DependencyDeadlineError, DependencyUnavailableError
from shared.settings import ServiceSettings
from tests.ports import closed_port
from tests.rich_status import from_aio_call

SETTINGS_A = ServiceSettings(service_name="svc-a")
# Server-side time_remaining() is computed against the wall clock and can read a few ms above the
# timeout the client set; the assertions compare deadlines that differ by far more than this.
CLOCK_SLACK_S = 0.5
SETTINGS_B = ServiceSettings(service_name="svc-b")


async def _pair(factory: Any, probe: Any) -> tuple[str, grpc.aio.Channel]:
    server_b, _ = await factory(SETTINGS_B, [probe])
    _, channel_a = await factory(SETTINGS_A, [probe])
    return f"127.0.0.1:{server_b.port}", channel_a


async def test_downstream_deadline_is_bounded_by_the_inbound_one(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    target, channel_a = await _pair(grpc_server_factory, probe)
    # A asks B for 60 s, but A itself only has ~5 s left: B must get at most what A has.
    reply = await probe_client(channel_a).unary("Forward")({"target": target, "timeout": 60.0}, timeout=5.0)

    seen_by_a = reply["time_remaining"]
    seen_by_b = reply["downstream"]["time_remaining"]
    assert seen_by_a is not None and seen_by_a <= 5.0 + CLOCK_SLACK_S
    assert seen_by_b is not None and seen_by_b <= seen_by_a + CLOCK_SLACK_S


async def test_explicit_timeout_wins_when_smaller(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    target, channel_a = await _pair(grpc_server_factory, probe)
    reply = await probe_client(channel_a).unary("Forward")({"target": target, "timeout": 3.0}, timeout=60.0)
    assert reply["downstream"]["time_remaining"] <= 3.0 + CLOCK_SLACK_S


async def test_no_inbound_deadline_and_no_timeout_means_no_deadline(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    target, channel_a = await _pair(grpc_server_factory, probe)
    reply = await probe_client(channel_a).unary("Forward")({"target": target})
    assert reply["downstream"]["time_remaining"] is None


async def test_request_id_propagates_downstream(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    target, channel_a = await _pair(grpc_server_factory, probe)
    reply = await probe_client(channel_a).unary("Forward")(
        {"target": target}, metadata=(("x-request-id", "r-77"),)
    )
    assert reply["request_id"] == "r-77"
    assert reply["downstream"]["request_id"] == "r-77"


@pytest.mark.parametrize(
    ("kind", "code", "details"),
    [
        ("not_found", grpc.StatusCode.NOT_FOUND, "session 's-1' not found"),
        ("precondition", grpc.StatusCode.FAILED_PRECONDITION, "session s-1 has ended"),
        ("aborted", grpc.StatusCode.ABORTED, "another turn is in progress"),
        ("already_exists", grpc.StatusCode.ALREADY_EXISTS, "session s-1 exists"),
        ("llm_rate_limit", grpc.StatusCode.RESOURCE_EXHAUSTED, "language model rate limit exceeded"),
        ("bug", grpc.StatusCode.INTERNAL, "internal error"),
        # B's own dependency failure: A reports its dependency ("downstream") as the one unavailable.
        ("unavailable", grpc.StatusCode.UNAVAILABLE, "dependency downstream is unavailable"),
        ("deadline", grpc.StatusCode.DEADLINE_EXCEEDED, "deadline exceeded calling downstream"),
    ],
)
async def test_remote_status_becomes_the_matching_status_again(
    grpc_server_factory: Any, probe: Any, probe_client: Any, kind: str, code: grpc.StatusCode, details: str
) -> None:
    target, channel_a = await _pair(grpc_server_factory, probe)
    request = {"target": target, "method": "Raise", "payload": {"kind": kind}}
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await probe_client(channel_a).unary("Forward")(request)
    assert info.value.code() == code
    assert info.value.details() == details


async def test_field_violations_survive_the_hop(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    target, channel_a = await _pair(grpc_server_factory, probe)
    forward = probe_client(channel_a).unary("Forward")(
        {"target": target, "method": "Raise", "payload": {"kind": "invalid"}}
    )
    with pytest.raises(grpc.aio.AioRpcError):
        await forward
    status = await from_aio_call(forward)
    bad = error_details_pb2.BadRequest()
    assert status is not None and status.details[0].Unpack(bad)
    assert [v.field for v in bad.field_violations] == ["session_id", "text"]


async def test_unreachable_dependency_is_unavailable_naming_it(
    grpc_server_factory: Any, probe: Any, probe_client: Any
) -> None:
    free_port = closed_port()
    _, channel_a = await grpc_server_factory(SETTINGS_A, [probe])
    forward = probe_client(channel_a).unary("Forward")({"target": f"127.0.0.1:{free_port}", "timeout": 5.0})
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await forward
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    status = await from_aio_call(forward)
    error_info = error_details_pb2.ErrorInfo()
    assert status is not None and status.details[0].Unpack(error_info)
    assert error_info.metadata["service"] == "downstream"


async def test_call_maps_errors_outside_a_server(grpc_server_factory: Any, probe: Any) -> None:
    server_b, _ = await grpc_server_factory(SETTINGS_B, [probe])
    async with create_channel(f"127.0.0.1:{server_b.port}") as channel:
        raise_ = channel.unary_unary(
            "/test.v1.Probe/Raise", request_serializer=None, response_deserializer=None
        )
        with pytest.raises(DependencyUnavailableError) as info:
            await call(raise_, b'{"kind": "unavailable"}', service="graph_store")
        assert info.value.service == "graph_store"


async def test_exhausted_inbound_deadline_fails_without_calling() -> None:
    set_inbound_deadline(0.0)
    try:
        assert effective_timeout(10.0) == 0.0

        async def must_not_run(request: Any, **kwargs: Any) -> Any:
            raise AssertionError("called despite an exhausted deadline")

        with pytest.raises(DependencyDeadlineError):
            await call(must_not_run, object(), service="scoring", timeout=10.0)
    finally:
        set_inbound_deadline(None)
    assert effective_timeout(10.0) == 10.0
    assert effective_timeout(None) is None
