"""Fixtures of the simulation unit tests: shipped registries, a small hand-checkable scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from shared.methodology import ConceptRegistry, MethodologyRegistry
from simulation.personas import Persona, PersonaRegistry
from simulation.scenarios import Scenario, ScenarioRegistry
from simulation.text import Lemmatizer
from tests.unit.simulation.support import mini_scenario_data, persona_data

CONFIG = Path(__file__).resolve().parents[3] / "config"


@pytest.fixture(scope="session")
def config_dir() -> Path:
    """The repository's config/ folder."""
    return CONFIG


@pytest.fixture(scope="session")
def methodologies() -> MethodologyRegistry:
    """Shipped methodologies."""
    return MethodologyRegistry(CONFIG)


@pytest.fixture(scope="session")
def concepts() -> ConceptRegistry:
    """Shipped concepts."""
    return ConceptRegistry(CONFIG)


@pytest.fixture(scope="session")
def personas() -> PersonaRegistry:
    """Shipped personas."""
    return PersonaRegistry(CONFIG)


@pytest.fixture(scope="session")
def scenarios(methodologies: MethodologyRegistry, concepts: ConceptRegistry) -> ScenarioRegistry:
    """Shipped scenarios."""
    return ScenarioRegistry(CONFIG, methodologies, concepts)


@pytest.fixture(scope="session")
def lemmatizer() -> Lemmatizer:
    """One lemmatizer per session (the lookup table is read once)."""
    return Lemmatizer()


@pytest.fixture
def mini_scenario() -> Scenario:
    """The mini scenario as a model (validated against the ontology in test_scenarios)."""
    return Scenario.model_validate(mini_scenario_data())


@pytest.fixture
def plain_persona() -> Persona:
    """A persona without any random behaviour."""
    return Persona.model_validate(persona_data())
