"""Migrations: up from an empty database on both back-ends, idempotent, and matching the models."""

from __future__ import annotations

from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Connection, inspect

from services.graph_store.app import MIGRATIONS
from services.graph_store.models import Base
from shared.db import create_engine, is_postgres
from shared.migrations import current_revision, upgrade

EXPECTED = {"nodes", "edges", "node_mentions", "edge_mentions", "applied_utterances"}


async def test_upgrade_from_empty_creates_the_schema_the_models_describe(db_url: str) -> None:
    assert await current_revision(db_url, schema="graph") is None
    await upgrade(db_url, schema="graph", script_location=MIGRATIONS)
    await upgrade(db_url, schema="graph", script_location=MIGRATIONS)  # second run: no-op
    assert await current_revision(db_url, schema="graph") == "0001"
    engine = create_engine(db_url, schema="graph")
    try:
        async with engine.connect() as conn:

            def _inspect(sync_conn: Connection) -> tuple[set[str], list[Any], set[str | None]]:
                schema = "graph" if is_postgres(db_url) else None
                tables = set(inspect(sync_conn).get_table_names(schema=schema))
                diff = compare_metadata(MigrationContext.configure(sync_conn), Base.metadata)
                uniques = {
                    u["name"] for u in inspect(sync_conn).get_unique_constraints("nodes", schema=schema)
                }
                return tables, diff, uniques

            tables, diff, uniques = await conn.run_sync(_inspect)
    finally:
        await engine.dispose()
    assert tables >= EXPECTED
    assert diff == []
    assert "uq_nodes_session_label_type" in uniques
