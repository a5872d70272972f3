"""PostgreSQL for the tests: the server (TEST_DATABASE_URL, else a testcontainers one where Docker
runs), and scratch databases on it (one per test, suite or session)."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator, Mapping

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine


async def create_database(server_url: str, prefix: str = "test") -> str:
    """A scratch database on the server, named `<prefix>_<random>` (dropped by `drop_database`);
    returns its URL. The benchmark uses it too, with its own prefix."""
    name = f"{prefix}_{uuid.uuid4().hex[:16]}"
    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
    finally:
        await engine.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


async def drop_database(server_url: str, database_url: str) -> None:
    """Drop a scratch database made by `create_database`."""
    name = make_url(database_url).database
    engine = create_async_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            # FORCE: a leaked connection (e.g. a crashed test's pool) must not keep the database alive.
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await engine.dispose()


# The image a testcontainers server runs when TEST_DATABASE_URL is not set (the compose file's major).
POSTGRES_IMAGE = "postgres:16-alpine"


def docker_unavailable_reason(env: Mapping[str, str]) -> str | None:
    """Why no Docker engine answers here (None when one does), as the skip message's reason.

    testcontainers finds the engine as the Docker SDK does (DOCKER_HOST, else the local socket)."""
    import docker  # a dev dependency, only needed when no server URL is given

    try:
        client = docker.DockerClient.from_env(environment=dict(env), timeout=5)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:  # the SDK raises DockerException, requests' or the socket's errors
        return f"no Docker engine answers ({type(exc).__name__}), so testcontainers cannot start one"
    return None


@contextlib.contextmanager
def container_server() -> Iterator[str]:
    """A PostgreSQL server in a testcontainers container for the test session: its asyncpg URL."""
    from testcontainers.postgres import PostgresContainer

    with PostgresContainer(POSTGRES_IMAGE, driver="asyncpg") as server:
        yield server.get_connection_url()
