"""shared.sqlite_inline: SQLite statements on the loop's thread, and waiting for a taken write lock
without blocking the event loop."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from sqlalchemy import event, text
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from shared.db import create_engine
from shared.sqlite_inline import InlineConnection, driver_connection
from tests.sqlite import never_wait_for_the_write_lock


@pytest_asyncio.fixture(loop_scope="session")
async def engine(sqlite_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(sqlite_url, schema=None)
    async with engine.begin() as conn:
        await conn.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))
    try:
        yield engine
    finally:
        await engine.dispose()


async def _ticks_while(work: asyncio.Future[object] | asyncio.Task[object]) -> int:
    """How often another task ran while `work` was pending (0 when the loop was blocked)."""
    ticks = 0
    while not work.done():
        ticks += 1
        await asyncio.sleep(0.002)
    return ticks


async def test_statements_run_on_the_event_loop_thread(engine: AsyncEngine) -> None:
    threads: list[int] = []

    def thread_id() -> int:
        threads.append(threading.get_ident())
        return 1

    async with engine.connect() as conn:
        raw = await conn.get_raw_connection()
        driver_connection(raw.dbapi_connection).raw.create_function("thread_id", 0, thread_id)
        assert (await conn.execute(text("SELECT thread_id()"))).scalar_one() == 1
    assert threads == [threading.get_ident()]


async def test_a_write_waits_for_the_lock_while_the_loop_runs_on(engine: AsyncEngine) -> None:
    async with engine.connect() as holder:
        await holder.execute(text("INSERT INTO t (v) VALUES ('first')"))  # holds the write lock

        async def second() -> None:
            async with engine.begin() as conn:
                await conn.execute(text("INSERT INTO t (v) VALUES ('second')"))

        waiting = asyncio.ensure_future(second())
        # The holder's own coroutine goes on while the second write waits: SQLite's busy handler,
        # sleeping on the loop's thread, would keep it from committing until its timeout ran out.
        for _ in range(10):
            await asyncio.sleep(0.005)
        assert not waiting.done()
        await holder.commit()
    await asyncio.wait_for(waiting, 5)
    async with engine.connect() as conn:
        rows = (await conn.execute(text("SELECT v FROM t ORDER BY id"))).scalars().all()
    assert rows == ["first", "second"]


async def test_without_a_lock_wait_a_taken_lock_fails_at_once(engine: AsyncEngine) -> None:
    await never_wait_for_the_write_lock(engine)
    async with engine.connect() as holder:
        await holder.execute(text("INSERT INTO t (v) VALUES ('held')"))
        with pytest.raises(OperationalError, match="database is locked"):
            async with engine.begin() as conn:
                await conn.execute(text("INSERT INTO t (v) VALUES ('refused')"))
        await holder.rollback()
    async with engine.connect() as conn:
        assert (await conn.execute(text("SELECT count(*) FROM t"))).scalar_one() == 0


async def test_the_wait_ends_with_an_error_when_the_lock_stays_taken(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _short_wait(dbapi_connection: object, _record: object) -> None:
        driver_connection(dbapi_connection).lock_wait_s = 0.1

    await engine.dispose()
    async with engine.connect() as holder:
        await holder.execute(text("INSERT INTO t (v) VALUES ('held')"))

        async def blocked() -> None:
            async with engine.begin() as conn:
                await conn.execute(text("INSERT INTO t (v) VALUES ('too late')"))

        waiting = asyncio.ensure_future(blocked())
        ticks = await _ticks_while(waiting)
        with pytest.raises(OperationalError, match="database is locked"):
            await waiting
        await holder.rollback()
    assert ticks > 0


def _wal_file(path: Path) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")


async def test_a_stale_snapshot_is_not_retried(tmp_path: Path) -> None:
    """SQLITE_BUSY_SNAPSHOT: a transaction that read before another commit may not write; waiting
    cannot change that, so it fails on the first attempt."""
    path = tmp_path / "snap.db"
    _wal_file(path)
    reader = sqlite3.connect(path, isolation_level=None, timeout=0)
    writer = sqlite3.connect(path, isolation_level=None, timeout=0)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM t").fetchall()  # the read snapshot
        writer.execute("INSERT INTO t (v) VALUES ('other')")  # commits past it
        connection = InlineConnection(reader, lock_wait_s=5.0)
        attempts = 0

        def write() -> sqlite3.Cursor:
            nonlocal attempts
            attempts += 1
            return reader.execute("INSERT INTO t (v) VALUES ('stale')")

        with pytest.raises(sqlite3.OperationalError) as raised:
            await connection.run(write)
        assert getattr(raised.value, "sqlite_errorcode", None) == 517
        assert attempts == 1
    finally:
        reader.close()
        writer.close()


async def test_other_errors_are_raised_unchanged(engine: AsyncEngine) -> None:
    with pytest.raises(OperationalError, match="no such table"):
        async with engine.connect() as conn:
            await conn.execute(text("SELECT * FROM missing"))
