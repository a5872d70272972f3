"""The rich status (`google.rpc.Status`) of a failed `grpc.aio` call, typed for the tests.

`grpc_status.rpc_status.aio` is the module `grpc_status._async` (rpc_status binds it as `aio` on import);
grpc-stubs' `rpc_status.pyi` declares only the synchronous functions, so it is imported by its own name.
"""

from __future__ import annotations

import grpc.aio
from google.rpc import status_pb2
from grpc_status import _async as rpc_status_aio


async def from_aio_call(call: grpc.aio.Call) -> status_pb2.Status | None:
    """`rpc_status.aio.from_call(call)`: the status in the call's trailers, None when they carry none."""
    status: status_pb2.Status | None = await rpc_status_aio.from_call(call)
    return status
