"""SQLite helpers for tests."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.sqlite_inline import driver_connection


async def never_wait_for_the_write_lock(engine: AsyncEngine) -> None:
    """From now on a write of `engine` that finds SQLite's file lock taken fails at once ("database
    is locked") instead of waiting until it is free. The setting is made on new connections: the
    pooled ones are closed."""

    @event.listens_for(engine.sync_engine, "connect")
    def _no_waiting(dbapi_connection: Any, _record: Any) -> None:
        driver_connection(dbapi_connection).lock_wait_s = 0

    await engine.dispose()
