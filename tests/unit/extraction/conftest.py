"""Fixtures of the extraction unit tests: one spaCy pipeline per session, the real config."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from services.extraction.engine import ExtractionEngine
from services.extraction.nlp import NlpPipeline, build_nlp
from services.extraction.preprocess import Preprocessor
from shared.llm import LLMClients, build_llm_clients
from shared.llm.base import LLMClientName
from shared.llm.local import LocalLLMClient
from shared.methodology import ConceptRegistry, MethodologyRegistry
from tests.fakes.llm_server import FakeLLMServer, fake_llm_settings

ROOT = Path(__file__).resolve().parents[3]
CONFIG_DIR = ROOT / "config"
DATA_DIR = ROOT / "tests" / "data" / "extraction"


@pytest.fixture(scope="session")
def pipeline() -> NlpPipeline:
    """The blank-English rule pipeline, built once (as each server process does)."""
    return build_nlp(None)


@pytest.fixture(scope="session")
def preprocessor(pipeline: NlpPipeline) -> Preprocessor:
    """Stage 2.5 on the session pipeline."""
    return Preprocessor(pipeline)


@pytest.fixture(scope="session")
def methodologies() -> MethodologyRegistry:
    """The real methodology YAML of config/."""
    return MethodologyRegistry(CONFIG_DIR)


@pytest.fixture(scope="session")
def concepts(methodologies: MethodologyRegistry) -> ConceptRegistry:
    """The real concept YAML of config/."""
    return ConceptRegistry(CONFIG_DIR, methodologies)


@pytest.fixture(scope="session")
def offline_engine(preprocessor: Preprocessor, methodologies: MethodologyRegistry) -> ExtractionEngine:
    """The engine with the offline client (no API key): the local extractor runs."""
    return ExtractionEngine(
        preprocessor=preprocessor,
        methodologies=methodologies.get,
        llm=LocalLLMClient(name=LLMClientName.EXTRACTION),
    )


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A fresh fake provider server per test."""
    with FakeLLMServer() as server:
        yield server


@pytest_asyncio.fixture
async def llm_clients(fake_llm: FakeLLMServer) -> AsyncIterator[LLMClients]:
    """Real SDK clients (Anthropic provider) pointed at the fake; short timeout for stall tests."""
    clients = build_llm_clients(fake_llm_settings(fake_llm, "anthropic", timeout_s=0.5))
    yield clients
    await clients.aclose()


@pytest.fixture
def llm_engine(
    preprocessor: Preprocessor, methodologies: MethodologyRegistry, llm_clients: LLMClients
) -> ExtractionEngine:
    """The engine with the networked extraction client (fake provider)."""
    return ExtractionEngine(
        preprocessor=preprocessor, methodologies=methodologies.get, llm=llm_clients.extraction
    )
