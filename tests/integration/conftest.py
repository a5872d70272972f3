"""Fixtures of the integration tests: a running suite per database kind."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from shared.embeddings import Embedder
from tests.integration.suite import Suite, running_suite
from tests.pg import create_database, drop_database

SuiteFactory = Callable[..., AbstractAsyncContextManager[Suite]]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_kind(request: pytest.FixtureRequest) -> str:
    """Both storage back-ends."""
    return str(request.param)


@pytest.fixture
def suite_factory(
    request: pytest.FixtureRequest, db_kind: str, tmp_path: Path, embedder: Embedder
) -> SuiteFactory:
    """Starts a suite on the chosen database: `async with suite_factory(**settings) as suite`.

    Every suite gets empty databases of its own (a fresh PostgreSQL database, or a fresh folder of
    SQLite files), so two suites in one test never see each other's sessions.
    """
    server = request.getfixturevalue("pg_server_url") if db_kind == "postgres" else None
    count = itertools.count()

    @asynccontextmanager
    async def start(**overrides: Any) -> AsyncIterator[Suite]:
        folder = tmp_path / f"suite{next(count)}"
        folder.mkdir()
        base = await create_database(server) if server else None
        try:
            async with running_suite(base, folder, embedder=embedder, **overrides) as suite:
                yield suite
        finally:
            if server and base:
                await drop_database(server, base)

    return start


@pytest.fixture
async def suite(suite_factory: SuiteFactory) -> AsyncIterator[Suite]:
    """A suite with default settings."""
    async with suite_factory() as running:
        yield running
