"""SQLite for the async engines, run on the event loop's thread instead of a worker thread.

aiosqlite hands every call (cursor, execute, fetch, close, commit) to a thread of its own and back:
about 0.35-0.6 ms of CPU and wall time per statement, ten times what SQLite itself spends on a
service's small statements on a local file (bench: `python bench/bench_sqlite.py`). A turn makes
dozens of them. This module is a DB-API module for SQLAlchemy's `sqlite+aiosqlite` dialect (passed
as `module=` by `shared.db.create_engine`; the URLs, the dialect and all SQL stay the same) whose
calls run directly on the loop's thread.

What makes that safe:
- A statement on a local file does not block for long: WAL mode (readers never wait for the
  writer) and `synchronous=NORMAL` (no fsync at commit) are set on every connection.
- The one real wait, for another connection's write lock, is never slept in SQLite's busy
  handler: the connection runs with `busy_timeout=0`, and a statement refused with SQLITE_BUSY is
  retried after `asyncio.sleep` while the event loop goes on, until `lock_wait_s` has passed.
  A busy handler sleeping on the loop's thread would stall the very coroutine holding the lock.
  SQLITE_BUSY_SNAPSHOT (a read transaction that may no longer write) is not retried: waiting
  cannot help it, and aiosqlite refuses it at once too.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy.dialects.sqlite.aiosqlite import AsyncAdapt_aiosqlite_connection, AsyncAdapt_aiosqlite_dbapi

T = TypeVar("T")

DEFAULT_LOCK_WAIT_S = 5.0  # sqlite3.connect's own default timeout
_SQLITE_BUSY = 5
_SQLITE_BUSY_SNAPSHOT = 517
_FIRST_RETRY_S = 0.001
_MAX_RETRY_S = 0.025


def _retryable(exc: sqlite3.OperationalError) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:  # no extended code: judge by the message, as sqlite3 words SQLITE_BUSY
        return "database is locked" in str(exc)
    return code & 0xFF == _SQLITE_BUSY and code != _SQLITE_BUSY_SNAPSHOT


# The methods below are coroutines only because SQLAlchemy's adapter awaits every driver call (and
# its async engine checks that a statement awaited something); they return without suspending
# unless SQLite reports the write lock taken.
class InlineConnection:
    """A `sqlite3.Connection` with aiosqlite's coroutine interface, run on the calling thread.

    A statement that finds the write lock taken waits for it with `asyncio.sleep` (the event loop
    goes on), up to `lock_wait_s` seconds (0: it fails at once)."""

    def __init__(self, raw: sqlite3.Connection, lock_wait_s: float) -> None:
        self.raw = raw
        self.lock_wait_s = lock_wait_s

    async def run(self, operation: Callable[[], T]) -> T:
        """`operation()`, retried while SQLite reports the write lock taken, up to `lock_wait_s`."""
        try:
            return operation()
        except sqlite3.OperationalError as exc:
            if not _retryable(exc) or self.lock_wait_s <= 0:
                raise
        deadline = time.monotonic() + self.lock_wait_s
        delay = _FIRST_RETRY_S
        while True:
            await asyncio.sleep(delay)
            try:
                return operation()
            except sqlite3.OperationalError as exc:
                if not _retryable(exc) or time.monotonic() >= deadline:
                    raise
            delay = min(delay * 2, _MAX_RETRY_S, max(deadline - time.monotonic(), 0.0))

    @property
    def isolation_level(self) -> str | None:
        """The sqlite3 module's transaction control ("" = implicit BEGIN before writes)."""
        return self.raw.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        # sqlite3 takes "" (implicit BEGIN) too, which typeshed's Literal leaves out.
        self.raw.isolation_level = value  # type: ignore[assignment]

    async def cursor(self) -> InlineCursor:
        """A new cursor."""
        return InlineCursor(self, self.raw.cursor())

    async def execute(self, operation: str, parameters: Sequence[Any] = ()) -> InlineCursor:
        """One statement on a new cursor."""
        cursor = await self.cursor()
        return await cursor.execute(operation, parameters)

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        """sqlite3's `create_function` (the dialect registers regexp and floor)."""
        self.raw.create_function(*args, **kwargs)

    async def commit(self) -> None:
        """Commit (retried while the lock is taken, as a statement is)."""
        await self.run(self.raw.commit)

    async def rollback(self) -> None:
        """Roll back."""
        self.raw.rollback()

    async def close(self) -> None:
        """Close the file."""
        self.raw.close()


class InlineCursor:
    """A `sqlite3.Cursor` with aiosqlite's coroutine interface (`InlineConnection`)."""

    def __init__(self, connection: InlineConnection, raw: sqlite3.Cursor) -> None:
        self._connection = connection
        self.raw = raw

    @property
    def description(self) -> Any:
        """Column descriptions of the last query (None after a statement without rows)."""
        return self.raw.description

    @property
    def rowcount(self) -> int:
        """Rows changed by the last statement."""
        return self.raw.rowcount

    @property
    def lastrowid(self) -> int | None:
        """Row id of the last inserted row."""
        return self.raw.lastrowid

    async def execute(self, operation: str, parameters: Sequence[Any] = ()) -> InlineCursor:
        """Execute one statement."""
        await self._connection.run(lambda: self.raw.execute(operation, parameters))
        return self

    async def executemany(self, operation: str, seq_of_parameters: Sequence[Sequence[Any]]) -> InlineCursor:
        """Execute one statement for each parameter set."""
        await self._connection.run(lambda: self.raw.executemany(operation, seq_of_parameters))
        return self

    async def fetchone(self) -> Any:
        """The next row, or None."""
        return self.raw.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        """Up to `size` rows."""
        return self.raw.fetchmany(size if size is not None else self.raw.arraysize)

    async def fetchall(self) -> list[Any]:
        """Every remaining row."""
        return self.raw.fetchall()

    async def close(self) -> None:
        """Close the cursor."""
        self.raw.close()


class _AdaptedConnection(AsyncAdapt_aiosqlite_connection):
    """SQLAlchemy's aiosqlite adapter over an `InlineConnection`."""

    __slots__ = ()

    @property
    def isolation_level(self) -> str | None:
        return self._connection.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        # aiosqlite's adapter queues this on the driver's thread; here it is a plain assignment.
        self._connection.isolation_level = value

    def terminate(self) -> None:
        # Also called outside any greenlet (a connection collected by the garbage collector).
        self._connection.raw.close()


class InlineSQLiteDBAPI(AsyncAdapt_aiosqlite_dbapi):
    """The DB-API module handed to the `sqlite+aiosqlite` dialect (`create_async_engine(module=)`).

    `connect` takes sqlite3's arguments; its `timeout` becomes the connection's `lock_wait_s`."""

    def __init__(self) -> None:
        super().__init__(sqlite3, sqlite3)
        self.has_stop = True  # connections can be terminated (closed) without awaiting

    def connect(self, *args: Any, **kwargs: Any) -> _AdaptedConnection:
        kwargs.pop("async_fallback", None)
        if kwargs.pop("async_creator_fn", None) is not None:
            raise ValueError("async_creator_fn is not supported by the inline SQLite driver")
        lock_wait_s = float(kwargs.pop("timeout", DEFAULT_LOCK_WAIT_S))
        # A connection collected by the garbage collector may be closed from another thread, which
        # sqlite3 refuses unless told otherwise; statements only ever run on the loop's thread.
        kwargs["check_same_thread"] = False
        # SQLite's own busy handler would sleep on the loop's thread: off (InlineConnection.run waits).
        kwargs["timeout"] = 0
        raw = sqlite3.connect(*args, **kwargs)
        # SQLAlchemy types the driver connection as aiosqlite's; this one has the same interface.
        connection: Any = InlineConnection(raw, lock_wait_s)
        return _AdaptedConnection(self, connection)


def driver_connection(dbapi_connection: Any) -> InlineConnection:
    """The `InlineConnection` under a pooled DB-API connection (e.g. in a "connect" event)."""
    connection = getattr(dbapi_connection, "driver_connection", None)
    if not isinstance(connection, InlineConnection):
        raise TypeError(f"not a connection of the inline SQLite driver: {type(dbapi_connection).__name__}")
    return connection
