"""Create and drop scratch PostgreSQL databases for tests (one per test, suite or session)."""

from __future__ import annotations

import uuid

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine


async def create_database(server_url: str) -> str:
    name = f"test_{uuid.uuid4().hex[:16]}"
    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await engine.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


async def drop_database(server_url: str, database_url: str) -> None:
    name = make_url(database_url).database
    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            # FORCE: a leaked connection (e.g. a crashed test's pool) must not keep the database alive.
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await engine.dispose()
