"""Domain exceptions shared by every service.

One hierarchy, one mapping to gRPC status codes (see `shared.grpc_errors`):

    DomainError                        -> INTERNAL (message never sent to the client)
    ├── InvalidArgumentError           -> INVALID_ARGUMENT (+ google.rpc.BadRequest field violations)
    ├── NotFoundError                  -> NOT_FOUND
    ├── AlreadyExistsError             -> ALREADY_EXISTS
    ├── FailedPreconditionError        -> FAILED_PRECONDITION (ended session, stale turn, ...)
    ├── AbortedError                   -> ABORTED (concurrent turn on one session)
    ├── UnauthenticatedError           -> UNAUTHENTICATED
    ├── DependencyUnavailableError     -> UNAVAILABLE (names the service that is down)
    ├── DependencyDeadlineError        -> DEADLINE_EXCEEDED
    └── LLMError
        ├── LLMTimeoutError            -> DEADLINE_EXCEEDED (retries exhausted on timeout)
        ├── LLMRateLimitError          -> RESOURCE_EXHAUSTED (retries exhausted on 429)
        ├── LLMUnavailableError        -> UNAVAILABLE (5xx, connection errors)
        └── LLMInvalidOutputError      -> INTERNAL-safe message: structured output invalid after repair

`public_message` is what the client may see; `str(exc)` may carry internals and is only logged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class FieldViolation:
    """One invalid request field: `field` is a dotted path (e.g. `concepts[2].label`)."""

    field: str
    description: str


class DomainError(Exception):
    """Base of every expected failure; anything else is a bug and maps to INTERNAL."""

    public_message: str = "internal error"

    def __init__(self, message: str | None = None, *, metadata: Mapping[str, str] | None = None) -> None:
        super().__init__(message or self.public_message)
        if message is not None:
            self.public_message = message
        self.metadata: dict[str, str] = dict(metadata or {})


class InvalidArgumentError(DomainError):
    """The request is malformed; carries the offending fields."""

    def __init__(self, message: str, violations: Sequence[FieldViolation] = ()) -> None:
        super().__init__(message)
        self.violations: list[FieldViolation] = list(violations)

    @classmethod
    def for_field(cls, field: str, description: str) -> InvalidArgumentError:
        """A one-field violation whose message names the field."""
        return cls(f"invalid {field}: {description}", [FieldViolation(field, description)])


class NotFoundError(DomainError):
    """A named resource does not exist."""

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(f"{kind} {ident!r} not found", metadata={"resource": kind, "id": ident})
        self.kind = kind
        self.ident = ident


class AlreadyExistsError(DomainError):
    """A resource with that identity exists already."""


class FailedPreconditionError(DomainError):
    """The system is not in a state that allows the call (ended session, stale turn number)."""


class AbortedError(DomainError):
    """A concurrent operation won (e.g. another SubmitTurn on the same session)."""


class UnauthenticatedError(DomainError):
    """Missing or wrong credentials."""


class DependencyUnavailableError(DomainError):
    """An internal service could not be reached; `service` names it."""

    def __init__(self, service: str, message: str | None = None) -> None:
        super().__init__(message or f"dependency {service} is unavailable", metadata={"service": service})
        self.service = service


class DependencyDeadlineError(DomainError):
    """An internal call ran out of deadline."""

    def __init__(self, service: str, message: str | None = None) -> None:
        super().__init__(message or f"deadline exceeded calling {service}", metadata={"service": service})
        self.service = service


class LLMError(DomainError):
    """Base of LLM provider failures."""

    public_message = "language model call failed"


class LLMTimeoutError(LLMError):
    """The provider timed out on every attempt."""

    public_message = "language model timed out"


class LLMRateLimitError(LLMError):
    """The provider answered 429 on every attempt."""

    public_message = "language model rate limit exceeded"


class LLMUnavailableError(LLMError):
    """The provider failed (5xx, connection refused, auth) and will not be retried."""

    public_message = "language model provider unavailable"


class LLMInvalidOutputError(LLMError):
    """Structured output failed validation after the one repair attempt."""

    public_message = "language model returned invalid structured output"
