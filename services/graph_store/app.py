"""Wiring of the graph store: migrations, engine and `GraphStore`, opened and closed as one unit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from shared.db import create_engine, create_session_factory
from shared.migrations import upgrade

from .settings import GraphStoreSettings
from .store import GraphStore, MethodologySource, TextEncoder

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


async def migrate(settings: GraphStoreSettings) -> None:
    """Bring the database to the latest schema revision."""
    await upgrade(settings.database_url, schema=settings.database_schema, script_location=MIGRATIONS)


@asynccontextmanager
async def open_store(
    settings: GraphStoreSettings,
    *,
    embedder: TextEncoder,
    methodologies: MethodologySource,
    query_encoder: TextEncoder | None = None,
) -> AsyncIterator[GraphStore]:
    """A ready `GraphStore` (migrated when `settings.run_migrations`); the engine closes on exit.
    `query_encoder` embeds search queries (default: `embedder`)."""
    if settings.run_migrations:
        await migrate(settings)
    engine = create_engine(settings.database_url, schema=settings.database_schema)
    try:
        yield GraphStore(
            create_session_factory(engine),
            embedder,
            methodologies,
            similarity_threshold=settings.surface_similarity_threshold,
            max_text_chars=settings.max_text_chars,
            query_encoder=query_encoder,
        )
    finally:
        await engine.dispose()
