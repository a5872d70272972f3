"""Async SQLAlchemy engines for both back-ends: SQLite (embedded default) and PostgreSQL (asyncpg).

    engine = create_engine("sqlite+aiosqlite:///./data/graph_store.db", schema="graph")
    engine = create_engine("postgresql+asyncpg://postgres@127.0.0.1:5432/interview", schema="graph")
    sessions = create_session_factory(engine)

Models declare no schema. On PostgreSQL the service's `schema` is created if missing and is the
connection's `search_path`, so unqualified tables (and Alembic's version table) live there; on SQLite
the schema is ignored (one file per service). The same code runs on both.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry

from shared.sqlite_inline import InlineSQLiteDBAPI

SQLITE_BUSY_TIMEOUT_MS = 10_000
_SCHEMA_PATTERN = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def is_sqlite(url: str | URL) -> bool:
    """Whether `url` names a SQLite database."""
    return make_url(url).get_backend_name() == "sqlite"


def is_postgres(url: str | URL) -> bool:
    """Whether `url` names a PostgreSQL database."""
    return make_url(url).get_backend_name() == "postgresql"


def check_schema(schema: str) -> str:
    """Validate a schema name (it is interpolated into DDL, so only plain identifiers are allowed)."""
    if not _SCHEMA_PATTERN.match(schema):
        raise ValueError(f"invalid schema name {schema!r}: use lower-case letters, digits and _")
    return schema


def _sqlite_engine(url: URL, **kwargs: Any) -> AsyncEngine:
    database = url.database or ""
    if database and database != ":memory:" and not database.startswith("file:"):
        Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    if url.get_driver_name() == "aiosqlite":
        # Same dialect and SQL, but the statements run on the loop's thread instead of aiosqlite's
        # worker thread (a tenth of the cost per statement; shared/sqlite_inline.py says why it is
        # safe). A write that finds the file's lock taken waits up to the timeout, off the loop.
        kwargs.setdefault("module", InlineSQLiteDBAPI())
    engine = create_async_engine(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}, **kwargs)

    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        cursor = dbapi_connection.cursor()
        # WAL lets readers proceed during a write (and a statement on the loop's thread never waits
        # for one).
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        # In WAL mode NORMAL syncs at checkpoints, not at every commit: a committed transaction
        # survives a crash of the process (only a power loss can drop the last commits), and a
        # turn's many small commits stop paying an fsync each (bench/run_bench.py).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return engine


async def _create_schema(raw_connection: Any, schema: str) -> None:
    import asyncpg

    # Two processes may race between IF NOT EXISTS and the insert: the loser's error is harmless.
    with contextlib.suppress(
        asyncpg.exceptions.UniqueViolationError, asyncpg.exceptions.DuplicateSchemaError
    ):
        await raw_connection.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')


def _postgres_engine(url: URL, schema: str | None, **kwargs: Any) -> AsyncEngine:
    connect_args: dict[str, Any] = {}
    if schema is not None:
        connect_args["server_settings"] = {"search_path": check_schema(schema)}
    engine = create_async_engine(url, connect_args=connect_args, pool_pre_ping=True, **kwargs)

    if schema is not None:

        @event.listens_for(engine.sync_engine, "first_connect")
        def _ensure_schema(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
            # Runs outside any transaction on the raw asyncpg connection (autocommit DDL).
            dbapi_connection.run_async(lambda raw: _create_schema(raw, schema))

    return engine


def json_dumps(value: Any) -> str:
    """The text stored in a JSON column: compact, UTF-8 as is, non-string keys as strings (as
    `json.dumps` did). NaN and infinities are written as null (PostgreSQL refuses them in JSON)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def json_loads(text: str | bytes) -> Any:
    """A JSON column's value from its stored text."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # Rows written before orjson, by the standard library's json, may hold its NaN and
        # Infinity tokens, which are not JSON: read them the way they were written.
        return json.loads(text)


def create_engine(url: str, *, schema: str | None, **kwargs: Any) -> AsyncEngine:
    """An `AsyncEngine` for `url`; PostgreSQL tables live in `schema` (created if missing).

    JSON columns go through `json_dumps`/`json_loads` (orjson) instead of the standard library's
    json: the orchestrator writes and reads a session's node tracker (~90 KB at 150 nodes) every
    turn, which cost 1.3 ms with json and 0.3 ms with orjson on the benchmark machine.

    Extra keyword arguments go to `sqlalchemy.ext.asyncio.create_async_engine` (e.g. `echo=True`).
    """
    kwargs.setdefault("json_serializer", json_dumps)
    kwargs.setdefault("json_deserializer", json_loads)
    parsed = make_url(url)
    if is_sqlite(parsed):
        return _sqlite_engine(parsed, **kwargs)
    if is_postgres(parsed):
        return _postgres_engine(parsed, schema, **kwargs)
    raise ValueError(f"unsupported database URL {parsed.render_as_string(hide_password=True)!r}")


def single_writer(engine: AsyncEngine) -> bool:
    """Whether the database has one write lock for everything (SQLite: the whole file).

    The services queue their write transactions in-process on such a database. Two transactions
    that write at once would otherwise meet in SQLite's busy handler, which polls with sleeps of
    several ms, and one that read before it writes is refused at once ("database is locked", no
    wait) when another commit made its snapshot stale. PostgreSQL locks rows (and sessions)."""
    return engine.dialect.name == "sqlite"


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded attributes after commit (no implicit lazy reloads in async code)."""
    return async_sessionmaker(engine, expire_on_commit=False)
