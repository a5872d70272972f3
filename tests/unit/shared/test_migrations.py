"""shared.db + shared.migrations on SQLite and PostgreSQL, from an empty database."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import text

from shared.db import create_engine, create_session_factory, is_postgres
from shared.migrations import current_revision, upgrade
from shared.sqlite_inline import driver_connection

EXAMPLE = Path(__file__).parent / "example_migrations"


async def test_upgrade_from_empty_to_head(db_url: str) -> None:
    assert await current_revision(db_url, schema="notes_svc") is None

    await upgrade(db_url, schema="notes_svc", script_location=EXAMPLE)

    assert await current_revision(db_url, schema="notes_svc") == "0002"
    engine = create_engine(db_url, schema="notes_svc")
    try:
        sessions = create_session_factory(engine)
        async with sessions() as session, session.begin():
            await session.execute(text("INSERT INTO notes (body) VALUES ('first')"))
        async with sessions() as session:
            rows = (await session.execute(text("SELECT body, tag FROM notes"))).all()
        assert [tuple(r) for r in rows] == [("first", "none")]  # 0002's column and default exist
    finally:
        await engine.dispose()


async def test_upgrade_is_idempotent_and_safe_concurrently(db_url: str) -> None:
    await asyncio.gather(*(upgrade(db_url, schema="notes_svc", script_location=EXAMPLE) for _ in range(3)))
    await upgrade(db_url, schema="notes_svc", script_location=EXAMPLE)
    assert await current_revision(db_url, schema="notes_svc") == "0002"


async def test_upgrade_to_an_intermediate_revision(db_url: str) -> None:
    await upgrade(db_url, schema="notes_svc", script_location=EXAMPLE, revision="0001")
    assert await current_revision(db_url, schema="notes_svc") == "0001"
    await upgrade(db_url, schema="notes_svc", script_location=EXAMPLE)
    assert await current_revision(db_url, schema="notes_svc") == "0002"


@pytest.mark.postgres
async def test_postgres_tables_and_version_table_live_in_the_schema(fresh_pg_url: str) -> None:
    assert is_postgres(fresh_pg_url)
    await upgrade(fresh_pg_url, schema="notes_svc", script_location=EXAMPLE)
    await upgrade(fresh_pg_url, schema="other_svc", script_location=EXAMPLE)  # same tree, separate schema

    engine = create_engine(fresh_pg_url, schema=None)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT table_schema, table_name FROM information_schema.tables "
                    "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2"
                )
            )
            tables = [tuple(r) for r in rows]
    finally:
        await engine.dispose()
    assert tables == [
        ("notes_svc", "alembic_version"),
        ("notes_svc", "notes"),
        ("other_svc", "alembic_version"),
        ("other_svc", "notes"),
    ]


@pytest.mark.postgres
async def test_postgres_engine_creates_its_schema_and_searches_it(fresh_pg_url: str) -> None:
    engine = create_engine(fresh_pg_url, schema="fresh_schema")
    try:
        async with engine.begin() as conn:
            await conn.execute(text("CREATE TABLE t (x int)"))
            schema = (await conn.execute(text("SELECT current_schema()"))).scalar_one()
            located = (
                await conn.execute(
                    text("SELECT table_schema FROM information_schema.tables WHERE table_name='t'")
                )
            ).scalar_one()
    finally:
        await engine.dispose()
    assert schema == "fresh_schema"
    assert located == "fresh_schema"


async def test_sqlite_engine_creates_the_directory_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "dir" / "svc.db"
    engine = create_engine(f"sqlite+aiosqlite:///{path}", schema="graph")
    try:
        async with engine.connect() as conn:
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar_one()
            busy = (await conn.execute(text("PRAGMA busy_timeout"))).scalar_one()
            fks = (await conn.execute(text("PRAGMA foreign_keys"))).scalar_one()
            raw = await conn.get_raw_connection()
            lock_wait = driver_connection(raw.dbapi_connection).lock_wait_s
    finally:
        await engine.dispose()
    assert path.exists()
    # SQLite's busy handler is off (it would sleep on the loop's thread); the driver waits instead.
    assert (mode, busy, fks, lock_wait) == ("wal", 0, 1, 10.0)


def test_invalid_schema_and_unknown_backend_are_rejected() -> None:
    with pytest.raises(ValueError, match="invalid schema"):
        create_engine("postgresql+asyncpg://postgres@127.0.0.1/x", schema="graph; DROP TABLE x")
    with pytest.raises(ValueError, match="unsupported database URL"):
        create_engine("mysql+aiomysql://u@h/db", schema=None)
