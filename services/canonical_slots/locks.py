"""In-process per-session locks (the PostgreSQL advisory lock covers other replicas).

On SQLite this is the serialisation, and one lock serves every session (`shared.db.single_writer`
says why). On PostgreSQL the locks keep same-process callers from queueing on database connections while
they wait for the advisory lock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class SessionLocks:
    """One `asyncio.Lock` per session id, dropped when nobody holds or waits for it; with
    `one_writer` (SQLite) one lock for all sessions."""

    _ALL = ""  # the key of the one lock of a single-writer database

    def __init__(self, *, one_writer: bool = False) -> None:
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self._one_writer = one_writer

    @asynccontextmanager
    async def hold(self, session_id: str) -> AsyncIterator[None]:
        """Exclusive section for `session_id` (for every session with `one_writer`)."""
        if self._one_writer:
            session_id = self._ALL
        lock, users = self._locks.get(session_id, (asyncio.Lock(), 0))
        self._locks[session_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[session_id]
            if users <= 1:
                del self._locks[session_id]
            else:
                self._locks[session_id] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)
