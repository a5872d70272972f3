"""Fixtures shared by every test area.

Databases
    pg_server_url   the PostgreSQL server from TEST_DATABASE_URL (session; skips, with the reason,
                    when the variable is unset)
    pg_url          a fresh database created for this test session, dropped at the end
    fresh_pg_url    a fresh database for one test, dropped after it (for "from empty" tests)
    sqlite_url      a SQLite file under the test's tmp_path
    db_url          parametrised over ["sqlite", "postgres"] (fresh, empty database each time)
Models
    embedder        one `shared.embeddings.Embedder` per test session
gRPC
    grpc_server_factory   `await start(settings, registrations) -> (server, channel)`; a real
                          GrpcServer on 127.0.0.1 port 0 and a channel to it, both closed at teardown
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
import pytest_asyncio

from shared.channels import create_channel
from shared.server import GrpcServer, ServiceRegistration
from shared.settings import ServiceSettings
from tests.pg import container_server, docker_unavailable_reason
from tests.pg import create_database as _create_database
from tests.pg import drop_database as _drop_database

TEST_DATABASE_URL_ENV = "TEST_DATABASE_URL"


# -- PostgreSQL -------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """The PostgreSQL server: TEST_DATABASE_URL when set, else one testcontainers starts for the
    session where a Docker engine runs; the PostgreSQL tests skip, saying why, when neither."""
    url = os.environ.get(TEST_DATABASE_URL_ENV)
    if url:
        yield url
        return
    reason = docker_unavailable_reason(os.environ)
    if reason is not None:
        pytest.skip(
            f"{TEST_DATABASE_URL_ENV} is not set and {reason}; set it to a PostgreSQL server URL such "
            "as postgresql+asyncpg://postgres@127.0.0.1:5432/postgres to run the PostgreSQL tests"
        )
    with container_server() as started:
        yield started


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def pg_url(pg_server_url: str) -> AsyncIterator[str]:
    """A database created for this test session (dropped at the end)."""
    url = await _create_database(pg_server_url)
    try:
        yield url
    finally:
        await _drop_database(pg_server_url, url)


@pytest_asyncio.fixture(loop_scope="session")
async def fresh_pg_url(pg_server_url: str) -> AsyncIterator[str]:
    """An empty database for one test (dropped after it)."""
    url = await _create_database(pg_server_url)
    try:
        yield url
    finally:
        await _drop_database(pg_server_url, url)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A SQLite database file in the test's temporary directory (created on first connect)."""
    return f"sqlite+aiosqlite:///{tmp_path / 'test.db'}"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest) -> str:
    """An empty database on each back-end in turn."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("sqlite_url"))
    return str(request.getfixturevalue("fresh_pg_url"))


# -- models -------------------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def embedder() -> Any:
    """The sentence embedder, loaded once per test session."""
    from shared.embeddings import Embedder

    return Embedder()


# -- gRPC -------------------------------------------------------------------------------------------
StartServer = Callable[
    [ServiceSettings, Sequence[ServiceRegistration]], Awaitable[tuple[GrpcServer, grpc.aio.Channel]]
]


@pytest_asyncio.fixture(loop_scope="session")
async def grpc_server_factory() -> AsyncIterator[StartServer]:
    """Start real servers on 127.0.0.1:0; each comes with a channel. Everything stops at teardown."""
    started: list[tuple[GrpcServer, grpc.aio.Channel]] = []

    async def start(
        settings: ServiceSettings, registrations: Sequence[ServiceRegistration]
    ) -> tuple[GrpcServer, grpc.aio.Channel]:
        settings = settings.model_copy(update={"host": "127.0.0.1", "port": 0})
        server = GrpcServer(settings, registrations)
        await server.start()
        channel = create_channel(f"127.0.0.1:{server.port}", max_message_bytes=settings.max_message_bytes)
        started.append((server, channel))
        return server, channel

    yield start
    for server, channel in reversed(started):
        await channel.close(None)
        await server.stop(grace=0)
