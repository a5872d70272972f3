"""Fixtures of the graph_store unit tests: the shipped methodologies and a migrated store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from services.graph_store.app import open_store
from services.graph_store.settings import GraphStoreSettings
from services.graph_store.store import GraphStore
from shared.embeddings import Embedder
from shared.methodology import MethodologyRegistry
from shared.methodology_models import MethodologyConfig

CONFIG_DIR = Path(__file__).resolve().parents[3] / "config"

OpenStore = Callable[..., AbstractAsyncContextManager[GraphStore]]


@pytest.fixture(scope="session")
def registry() -> MethodologyRegistry:
    """The shipped methodologies."""
    return MethodologyRegistry(CONFIG_DIR)


@pytest.fixture(scope="session")
def mec(registry: MethodologyRegistry) -> MethodologyConfig:
    """Means-End Chain: attribute (1) → … → terminal_value (5, terminal)."""
    return registry.get("means_end_chain")


@pytest.fixture
def open_graph(embedder: Any, registry: MethodologyRegistry) -> OpenStore:
    """`async with open_graph(url, **settings) as store:` — a migrated `GraphStore` on `url`."""

    @asynccontextmanager
    async def _open(url: str, *, query_encoder: Any = None, **overrides: Any) -> AsyncIterator[GraphStore]:
        settings = GraphStoreSettings(database_url=url, **overrides)
        async with open_store(
            settings, embedder=embedder, methodologies=registry, query_encoder=query_encoder
        ) as store:
            yield store

    return _open


@pytest.fixture(scope="session")
def query_embedder() -> Embedder:
    """The int8 model the service embeds search queries with (loaded once per test session)."""
    return Embedder(quantized=True, cache_size=0)


@pytest_asyncio.fixture(loop_scope="session")
async def sqlite_store(open_graph: OpenStore, sqlite_url: str) -> AsyncIterator[GraphStore]:
    """A store on a fresh SQLite file."""
    async with open_graph(sqlite_url) as store:
        yield store


@pytest_asyncio.fixture(loop_scope="session")
async def any_store(open_graph: OpenStore, db_url: str) -> AsyncIterator[tuple[GraphStore, str]]:
    """A store on each back-end in turn (fresh database), with its URL."""
    async with open_graph(db_url) as store:
        yield store, db_url
