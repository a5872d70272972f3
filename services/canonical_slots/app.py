"""Wiring of the service core (no gRPC): database, proposer, discovery and queries.

`open_core` is what `server.main()` and the tests use; everything it needs is passed in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from shared.db import create_engine, create_session_factory, single_writer
from shared.llm.base import LLMClient
from shared.migrations import upgrade

from .discovery import DiscoveryConfig, MethodologyLookup, SlotDiscovery
from .lemmas import Lemmatizer
from .locks import SessionLocks
from .offline import OfflineSlotProposer
from .proposal import LLMSlotProposer, SlotProposer
from .queries import SlotQueries
from .settings import CanonicalSlotsSettings
from .vectors import TextEncoder

MIGRATIONS = Path(__file__).parent / "migrations"


def build_proposer(
    client: LLMClient, *, lemmatizer: Lemmatizer, encoder: TextEncoder, settings: CanonicalSlotsSettings
) -> SlotProposer:
    """The LLM proposer, or the offline one when the scoring client is offline (provider local)."""
    offline = OfflineSlotProposer(
        lemmatizer,
        encoder,
        cluster_threshold=settings.offline_cluster_threshold,
        head_threshold=settings.offline_head_threshold,
    )
    if client.is_offline:
        return offline
    return LLMSlotProposer(
        client, batch_size=settings.batch_size, fallback=offline if settings.llm_fallback_offline else None
    )


@dataclass(frozen=True)
class SlotsCore:
    """The service's domain objects, ready to serve."""

    engine: AsyncEngine
    discovery: SlotDiscovery
    queries: SlotQueries


async def migrate(settings: CanonicalSlotsSettings) -> None:
    """Bring the database to the newest schema revision."""
    await upgrade(settings.database_url, schema=settings.database_schema, script_location=MIGRATIONS)


@asynccontextmanager
async def open_core(
    settings: CanonicalSlotsSettings,
    *,
    encoder: TextEncoder,
    lemmatizer: Lemmatizer,
    scoring_client: LLMClient,
    methodologies: MethodologyLookup,
    run_migrations: bool = True,
) -> AsyncIterator[SlotsCore]:
    """Migrate, open the engine, build the core; the engine is disposed on exit."""
    if run_migrations:
        await migrate(settings)
    engine = create_engine(settings.database_url, schema=settings.database_schema)
    try:
        sessions = create_session_factory(engine)
        locks = SessionLocks(one_writer=single_writer(engine))
        proposer = build_proposer(scoring_client, lemmatizer=lemmatizer, encoder=encoder, settings=settings)
        discovery = SlotDiscovery(
            sessions=sessions,
            encoder=encoder,
            lemmatizer=lemmatizer,
            proposer=proposer,
            methodologies=methodologies,
            locks=locks,
            config=DiscoveryConfig(
                similarity_threshold=settings.canonical_similarity_threshold,
                min_support=settings.min_support,
                max_nodes=settings.max_nodes_per_request,
                max_label_chars=settings.max_text_chars,
            ),
        )
        queries = SlotQueries(sessions=sessions, locks=locks)
        yield SlotsCore(engine=engine, discovery=discovery, queries=queries)
    finally:
        await engine.dispose()
