"""Fixtures of the integration tests: a running suite per database kind."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest

from shared.embeddings import Embedder
from tests.integration.suite import Suite, running_suite

SuiteFactory = Callable[..., AbstractAsyncContextManager[Suite]]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_kind(request: pytest.FixtureRequest) -> str:
    """Both storage back-ends."""
    return str(request.param)


@pytest.fixture
def suite_factory(
    request: pytest.FixtureRequest, db_kind: str, tmp_path: Path, embedder: Embedder
) -> SuiteFactory:
    """Starts a suite on the chosen database: `async with suite_factory(**settings) as suite`."""
    base: str | None = None
    if db_kind == "postgres":
        base = request.getfixturevalue("fresh_pg_url")

    def start(**overrides: Any) -> AbstractAsyncContextManager[Suite]:
        return running_suite(base, tmp_path, embedder=embedder, **overrides)

    return start


@pytest.fixture
async def suite(suite_factory: SuiteFactory) -> AsyncIterator[Suite]:
    """A suite with default settings."""
    async with suite_factory() as running:
        yield running
