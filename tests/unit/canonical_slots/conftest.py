"""Fixtures of the canonical_slots unit tests: lemmatizer, methodology, a core factory."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from services.canonical_slots.app import SlotsCore, open_core
from services.canonical_slots.domain import SurfaceEdgeIn, SurfaceNodeIn
from services.canonical_slots.lemmas import Lemmatizer
from services.canonical_slots.settings import CanonicalSlotsSettings
from shared.llm.base import LLMClient, LLMClientName
from shared.llm.local import LocalLLMClient
from shared.methodology import MethodologyRegistry
from shared.methodology_models import MethodologyConfig
from tests.fakes.llm_server import FakeLLMServer

CONFIG_DIR = Path(__file__).resolve().parents[3] / "config"
METHODOLOGY = "means_end_chain"

OpenCore = Callable[..., AbstractAsyncContextManager[SlotsCore]]


@pytest.fixture(scope="session")
def lemmatizer() -> Lemmatizer:
    """The spaCy lookup lemmatizer, built once."""
    return Lemmatizer()


@pytest.fixture(scope="session")
def registry() -> MethodologyRegistry:
    """The shipped methodologies."""
    return MethodologyRegistry(CONFIG_DIR)


@pytest.fixture(scope="session")
def mec(registry: MethodologyRegistry) -> MethodologyConfig:
    """Means-End Chain (node types attribute, functional_consequence, ...; edge type leads_to)."""
    return registry.get(METHODOLOGY)


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A fresh fake provider server."""
    with FakeLLMServer() as server:
        yield server


@pytest.fixture
def open_slots(embedder: Any, lemmatizer: Lemmatizer, registry: MethodologyRegistry) -> OpenCore:
    """`async with open_slots(url, client=..., **settings) as core:` — a migrated core on `url`;
    the client defaults to the offline scoring client."""

    @asynccontextmanager
    async def _open(url: str, client: LLMClient | None = None, **overrides: Any) -> AsyncIterator[SlotsCore]:
        settings = CanonicalSlotsSettings(database_url=url, **overrides)
        async with open_core(
            settings,
            encoder=embedder,
            lemmatizer=lemmatizer,
            scoring_client=client or LocalLLMClient(name=LLMClientName.SCORING),
            methodologies=registry.get,
        ) as core:
            yield core

    return _open


def node(node_id: str, label: str, node_type: str = "attribute") -> SurfaceNodeIn:
    """A surface node without embedding (the service computes it when needed)."""
    return SurfaceNodeIn(id=node_id, label=label, node_type=node_type)


def edge(edge_id: str, source: str, target: str, edge_type: str = "leads_to") -> SurfaceEdgeIn:
    """A surface edge."""
    return SurfaceEdgeIn(id=edge_id, source_node_id=source, target_node_id=target, edge_type=edge_type)
