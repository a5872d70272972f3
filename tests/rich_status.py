"""The rich status (`google.rpc.Status`) of a failed `grpc.aio` call, typed for the tests.

`grpc_status.rpc_status.aio` is the module `grpc_status._async` (rpc_status binds it as `aio` on import);
grpc-stubs' `rpc_status.pyi` declares only the synchronous functions, so it is imported by its own name.
"""

from __future__ import annotations

import grpc.aio
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import _async as rpc_status_aio
from grpc_status import rpc_status


async def from_aio_call(call: grpc.aio.Call) -> status_pb2.Status | None:
    """`rpc_status.aio.from_call(call)`: the status in the call's trailers, None when they carry none."""
    status: status_pb2.Status | None = await rpc_status_aio.from_call(call)
    return status


def field_violations(exc: grpc.aio.AioRpcError) -> dict[str, str]:
    """field → description of the `google.rpc.BadRequest` in a failed call's rich status."""
    out: dict[str, str] = {}
    for detail in _details(exc):
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out.update({v.field: v.description for v in bad.field_violations})
    return out


def error_info(exc: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The `google.rpc.ErrorInfo` of a failed call's rich status (empty when it carries none)."""
    info = error_details_pb2.ErrorInfo()
    for detail in _details(exc):
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            detail.Unpack(info)
    return info


def _details(exc: grpc.aio.AioRpcError) -> list[any_pb2.Any]:
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    return list(status.details) if status is not None else []
