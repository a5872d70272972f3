"""One turn at a time per session, across processes.

PostgreSQL: a session-level advisory lock held on a dedicated connection for the whole turn (it is
released if the process dies, so a crashed turn never blocks its retry). SQLite (the embedded
single-process default): an in-process lock. Either way a second concurrent turn is refused at
once with ABORTED instead of queueing behind the first.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.errors import AbortedError

_BUSY = "another request is changing this session (a turn, a pause, a resume or its end); retry"


class SessionBusyError(AbortedError):
    """Another holder has the session's turn lock (ABORTED, like any AbortedError)."""


class SessionLocks:
    """Try-locks keyed by session id."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._postgres = engine.dialect.name == "postgresql"
        self._local: dict[str, asyncio.Lock] = {}

    @asynccontextmanager
    async def hold(self, session_id: str) -> AsyncIterator[None]:
        """Hold the session's turn lock, or raise SessionBusyError when another holder has it."""
        local = self._local.setdefault(session_id, asyncio.Lock())
        if local.locked():
            raise SessionBusyError(_BUSY, metadata={"session_id": session_id})
        try:
            async with local:
                if not self._postgres:
                    yield
                    return
                key = f"interview-turn:{session_id}"
                async with self._engine.connect() as conn:
                    got = await conn.scalar(text("SELECT pg_try_advisory_lock(hashtext(:k))"), {"k": key})
                    await conn.commit()
                    if not got:
                        raise SessionBusyError(_BUSY, metadata={"session_id": session_id})
                    try:
                        yield
                    finally:
                        await asyncio.shield(self._unlock(conn, key))
        finally:
            if not local.locked():
                self._local.pop(session_id, None)

    @staticmethod
    async def _unlock(conn: object, key: str) -> None:
        await conn.execute(text("SELECT pg_advisory_unlock(hashtext(:k))"), {"k": key})  # type: ignore[attr-defined]
        await conn.commit()  # type: ignore[attr-defined]
