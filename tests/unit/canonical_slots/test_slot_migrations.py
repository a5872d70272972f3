"""Migrations run up from an empty database on both back-ends and match the models."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from services.canonical_slots.app import MIGRATIONS
from services.canonical_slots.models import Base
from shared.db import create_engine, is_postgres
from shared.migrations import current_revision, upgrade

TABLES = {"canonical_slots", "slot_mappings", "canonical_edges", "surface_edges", "discovery_runs"}


async def test_upgrade_from_empty_creates_the_schema_the_models_describe(db_url: str) -> None:
    assert await current_revision(db_url, schema="slots") is None
    await upgrade(db_url, schema="slots", script_location=MIGRATIONS)
    await upgrade(db_url, schema="slots", script_location=MIGRATIONS)  # a second start-up is a no-op
    assert await current_revision(db_url, schema="slots") == "0001"

    engine = create_engine(db_url, schema="slots")
    try:
        async with engine.connect() as conn:

            def _inspect(sync_conn: Connection) -> tuple[set[str], list[Any]]:
                tables = set(inspect(sync_conn).get_table_names())
                diff = compare_metadata(MigrationContext.configure(sync_conn), Base.metadata)
                return tables, diff

            tables, diff = await conn.run_sync(_inspect)
            assert tables >= TABLES
            assert diff == []
            if is_postgres(db_url):
                rows = await conn.execute(
                    text("SELECT table_name FROM information_schema.tables WHERE table_schema = 'slots'")
                )
                assert TABLES | {"alembic_version"} <= {r[0] for r in rows}
    finally:
        await engine.dispose()
