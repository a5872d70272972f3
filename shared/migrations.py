"""Alembic migrations for every service, on SQLite and PostgreSQL, with async engines.

A service keeps an Alembic tree in `services/<svc>/migrations/` (`env.py`, `script.py.mako`,
`versions/`) whose `env.py` is just::

    from services.graph_store.models import Base
    from shared.migrations import run_env

    run_env(Base.metadata)

and upgrades at start-up with `await upgrade(settings.database_url, schema="graph",
script_location=Path(__file__).parent / "migrations")`. On PostgreSQL the upgrade holds a
transaction-scoped advisory lock, so replicas starting together migrate one after the other; the
version table lives in the service's schema.

New revisions: `await revision(url, schema="graph", script_location=..., message="add nodes")`
autogenerates one by comparing the models with a scratch database brought to head. The Alembic CLI
works too (`-x url=... -x schema=...`), as does offline SQL generation.
"""

from __future__ import annotations

import asyncio
import fcntl
import threading
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import IO, Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from sqlalchemy import MetaData, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import AsyncConnection

from shared.db import check_schema, create_engine, is_postgres, is_sqlite

_LOCK_NAMESPACE = "interview.migrations"
# Alembic keeps the running migration environment in the process-global `alembic.context`, so two
# upgrades in one process (even on different databases) must not interleave. A thread lock (taken
# off the event loop) works whatever event loop the caller runs.
_IN_PROCESS = threading.Lock()


def make_config(script_location: Path, *, url: str | None = None, schema: str | None = None) -> Config:
    """An Alembic `Config` for a service's migration tree (no alembic.ini needed)."""
    config = Config()
    config.set_main_option("script_location", str(script_location))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))  # configparser escaping
    config.attributes["schema"] = schema
    return config


def _lock_key(url: str, schema: str | None) -> int:
    # A stable key per (database, schema); crc32 is deterministic across processes (hash() is not).
    database = make_url(url).database or ""
    return zlib.crc32(f"{_LOCK_NAMESPACE}:{database}:{schema or ''}".encode())


async def _prepare(conn: AsyncConnection, url: str, schema: str | None) -> None:
    if not is_postgres(url):
        return
    # Held until the transaction ends: a second process blocks here, then finds the tree at head.
    await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _lock_key(url, schema)})
    if schema is not None:
        await conn.execute(text(f'CREATE SCHEMA IF NOT EXISTS "{check_schema(schema)}"'))


def _lock_sqlite_file(database: str) -> IO[str]:
    path = Path(database).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    lock_file = path.with_name(path.name + ".migrate.lock").open("a")
    fcntl.flock(lock_file.fileno(), fcntl.LOCK_EX)  # blocks until another process's upgrade ends
    return lock_file


@asynccontextmanager
async def _exclusive(url: str) -> AsyncIterator[None]:
    """Serialise migrations in this process and, for a SQLite file, across processes (flock)."""
    await asyncio.to_thread(_IN_PROCESS.acquire)
    lock_file: IO[str] | None = None
    try:
        database = make_url(url).database or ""
        if is_sqlite(url) and database and database != ":memory:":
            lock_file = await asyncio.to_thread(_lock_sqlite_file, database)
        yield
    finally:
        if lock_file is not None:
            lock_file.close()  # closing releases the flock
        _IN_PROCESS.release()


async def upgrade(url: str, *, schema: str | None, script_location: Path, revision: str = "head") -> None:
    """Run the service's migrations up to `revision` (default head); safe to call concurrently."""
    async with _exclusive(url):
        await _upgrade(url, schema=schema, script_location=script_location, revision=revision)


async def _upgrade(url: str, *, schema: str | None, script_location: Path, revision: str) -> None:
    engine = create_engine(url, schema=schema)
    try:
        async with engine.begin() as conn:
            await _prepare(conn, url, schema)

            def _run(sync_conn: Connection) -> None:
                config = make_config(script_location, url=url, schema=schema)
                config.attributes["connection"] = sync_conn
                command.upgrade(config, revision)

            await conn.run_sync(_run)
    finally:
        await engine.dispose()


async def current_revision(url: str, *, schema: str | None) -> str | None:
    """The revision the database is at (None before the first migration)."""
    engine = create_engine(url, schema=schema)
    try:
        async with engine.connect() as conn:

            def _read(sync_conn: Connection) -> str | None:
                options: dict[str, Any] = {}
                if is_postgres(url) and schema is not None:
                    options["version_table_schema"] = schema
                return MigrationContext.configure(sync_conn, opts=options).get_current_revision()

            return await conn.run_sync(_read)
    finally:
        await engine.dispose()


async def revision(url: str, *, schema: str | None, script_location: Path, message: str) -> None:
    """Autogenerate a new revision by comparing the models with the database at `url` (at head)."""
    await upgrade(url, schema=schema, script_location=script_location)
    async with _exclusive(url):
        engine = create_engine(url, schema=schema)
        try:
            async with engine.connect() as conn:

                def _run(sync_conn: Connection) -> None:
                    config = make_config(script_location, url=url, schema=schema)
                    config.attributes["connection"] = sync_conn
                    command.revision(config, message=message, autogenerate=True)

                await conn.run_sync(_run)
        finally:
            await engine.dispose()


# -- env.py side ----------------------------------------------------------------------------------
def _configure_and_run(connection: Connection, target_metadata: MetaData | None, schema: str | None) -> None:
    from alembic import context

    postgres = connection.dialect.name == "postgresql"
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        version_table_schema=schema if postgres else None,
        render_as_batch=not postgres,  # SQLite cannot ALTER most things: batch mode recreates tables
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_with_new_engine(url: str, schema: str | None, target_metadata: MetaData | None) -> None:
    engine = create_engine(url, schema=schema)
    try:
        async with engine.begin() as conn:
            await _prepare(conn, url, schema)
            await conn.run_sync(_configure_and_run, target_metadata, schema)
    finally:
        await engine.dispose()


def run_env(target_metadata: MetaData | None) -> None:
    """The body of every service's `migrations/env.py` (online via `upgrade()`, CLI, or offline)."""
    from alembic import context

    config = context.config
    x_args = context.get_x_argument(as_dictionary=True)
    schema: str | None = config.attributes.get("schema") or x_args.get("schema")
    connection: Connection | None = config.attributes.get("connection")
    if connection is not None:  # called by upgrade()/revision(): the connection is ours
        _configure_and_run(connection, target_metadata, schema)
        return
    url = x_args.get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database URL: pass -x url=... or set sqlalchemy.url")
    if context.is_offline_mode():
        context.configure(
            url=url,
            target_metadata=target_metadata,
            literal_binds=True,
            version_table_schema=schema if is_postgres(url) else None,
        )
        with context.begin_transaction():
            context.run_migrations()
        return
    asyncio.run(_run_with_new_engine(url, schema, target_metadata))
