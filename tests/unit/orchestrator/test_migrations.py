"""Orchestrator migrations: up from an empty database on both back-ends, matching the models."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect

from services.orchestrator.models import Base
from services.orchestrator.server import MIGRATIONS
from shared.db import create_engine, is_postgres
from shared.migrations import current_revision, upgrade


async def test_upgrade_from_empty_creates_the_schema_the_models_describe(db_url: str) -> None:
    await upgrade(db_url, schema="orchestrator", script_location=MIGRATIONS)
    assert await current_revision(db_url, schema="orchestrator") == "0003"
    engine = create_engine(db_url, schema="orchestrator")
    try:
        async with engine.connect() as conn:

            def _inspect(sync_conn: Connection) -> tuple[list[Any], set[str | None]]:
                schema = "orchestrator" if is_postgres(db_url) else None
                diff = compare_metadata(MigrationContext.configure(sync_conn), Base.metadata)
                indexes = {i["name"] for i in inspect(sync_conn).get_indexes("sessions", schema=schema)}
                return diff, indexes

            diff, indexes = await conn.run_sync(_inspect)
    finally:
        await engine.dispose()
    assert diff == []
    # ListSessions' keyset (created_at, id) reads an index, not a sort of every session.
    assert "ix_sessions_created_at_id" in indexes
