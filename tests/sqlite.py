"""SQLite helpers for tests."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine


async def never_wait_for_the_write_lock(engine: AsyncEngine) -> None:
    """From now on a write of `engine` that finds SQLite's file lock taken fails at once ("database
    is locked") instead of sleeping in the busy handler until it is free. The setting is made
    after the engine's own pragmas, on new connections: the pooled ones are closed."""

    @event.listens_for(engine.sync_engine, "connect")
    def _no_waiting(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout=0")
        cursor.close()

    await engine.dispose()
