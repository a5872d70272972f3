"""Why a turn cannot run: FAILED_PRECONDITION errors whose `ErrorInfo.reason` says which.

The status code is the same for all of them; a client tells them apart by the reason (derived from
the class name by `shared.grpc_errors`: `SessionEndedError` → `SESSION_ENDED`) and finds what it
needs to recover in the metadata (`expected_turn_number`, `status`).
"""

from __future__ import annotations

from shared.errors import FailedPreconditionError


class SessionEndedError(FailedPreconditionError):
    """The session is completed: no further turns."""

    @classmethod
    def of_session(cls, turn_count: int | None = None) -> SessionEndedError:
        """The error for a completed session (with its `turn_count` in the metadata when given)."""
        metadata = {"status": "completed"}
        if turn_count is not None:
            metadata["turn_count"] = str(turn_count)
        return cls("the session has ended", metadata=metadata)


class SessionPausedError(FailedPreconditionError):
    """The session is paused: ResumeSession first."""


class TurnOutOfOrderError(FailedPreconditionError):
    """The turn_number is not the next one (stale or ahead)."""


class TurnAlreadyAnsweredError(FailedPreconditionError):
    """The turn was completed with another answer text (a repeat with the same text is replayed)."""
