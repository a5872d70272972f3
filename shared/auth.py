"""Optional bearer-token authentication for a public gRPC service.

Clients send `authorization: Bearer <token>`; the token is compared in constant time
(`hmac.compare_digest`). Health checks and reflection stay open so probes and grpcurl's `list`
work without credentials. A missing or wrong token is UNAUTHENTICATED and the handler never runs.
"""

from __future__ import annotations

import hmac
from contextlib import AbstractAsyncContextManager
from types import TracebackType

import grpc
import grpc.aio

from shared.errors import UnauthenticatedError
from shared.server import ScopeInterceptor

OPEN_PREFIXES = ("/grpc.health.v1.Health/", "/grpc.reflection.")


class BearerTokenInterceptor(ScopeInterceptor):
    """Rejects calls without the configured bearer token (constant-time comparison)."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("an empty token would accept every caller")
        self._expected = token.encode()

    def scope(
        self, details: grpc.HandlerCallDetails, context: grpc.aio.ServicerContext
    ) -> AbstractAsyncContextManager[None]:
        method = details.method or ""
        return _Check(None if method.startswith(OPEN_PREFIXES) else self._expected, context)


class _Check(AbstractAsyncContextManager[None]):
    def __init__(self, expected: bytes | None, context: grpc.aio.ServicerContext) -> None:
        self._expected = expected
        self._context = context

    async def __aenter__(self) -> None:
        if self._expected is None:
            return
        header = ""
        for key, value in self._context.invocation_metadata() or ():
            if key == "authorization" and isinstance(value, str):
                header = value
        scheme, _, token = header.partition(" ")
        # compare_digest on equal-length inputs only leaks length; hash-compare keeps even that out.
        if scheme.lower() != "bearer" or not hmac.compare_digest(token.strip().encode(), self._expected):
            raise UnauthenticatedError("missing or invalid bearer token")

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None
