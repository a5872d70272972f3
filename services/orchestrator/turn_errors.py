"""Why a turn cannot run: FAILED_PRECONDITION errors whose `ErrorInfo.reason` says which.

The status code is the same for all of them; a client tells them apart by the reason (derived from
the class name by `shared.grpc_errors`: `SessionEndedError` → `SESSION_ENDED`) and finds what it
needs to recover in the metadata (`expected_turn_number`, `status`).
"""

from __future__ import annotations

from shared.errors import FailedPreconditionError


class SessionEndedError(FailedPreconditionError):
    """The session is completed: no further turns."""


class SessionPausedError(FailedPreconditionError):
    """The session is paused: ResumeSession first."""


class TurnOutOfOrderError(FailedPreconditionError):
    """The turn_number is not the next one (stale or ahead)."""


class TurnAlreadyAnsweredError(FailedPreconditionError):
    """The turn was completed with another answer text (a repeat with the same text is replayed)."""
