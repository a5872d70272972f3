"""Fixtures of the end-to-end suite: the six services as OS processes, or a deployment at E2E_TARGET.

    deployment        the six processes on free ports against a fresh PostgreSQL database, exporting
                      traces to `otlp_receiver`. Package scope: started once for tests/e2e and
                      stopped after its last test (not at the end of a whole `make test` run).
                      Skipped, with the reason, when E2E_TARGET is set (nothing to manage then).
    live_deployment   the same, with every process alive before and after the test
    otlp_receiver     an in-memory OTLP/gRPC trace receiver (package)
    service_targets   {service: "host:port"}: all six locally, only the orchestrator with E2E_TARGET
    target            the orchestrator's address
    stub              an InterviewServiceStub on it (package)

Tests that kill or freeze processes use `live_deployment`, which thaws and restarts whatever a
failed test left stopped or dead, so one test's failure does not cascade.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc.aio
import pytest
import pytest_asyncio

from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.e2e.otlp import OtlpReceiver
from tests.e2e.processes import SERVICES, Deployment
from tests.pg import create_database, drop_database

E2E_TARGET_ENV = "E2E_TARGET"


def external_target() -> str | None:
    """The deployment under test when E2E_TARGET is set (e.g. compose: `localhost:50051`)."""
    return os.environ.get(E2E_TARGET_ENV) or None


def skip_if_external() -> None:
    """Skip a test that needs to start, kill or configure the service processes itself."""
    target = external_target()
    if target is not None:
        pytest.skip(
            f"{E2E_TARGET_ENV}={target}: running against an existing deployment; this test starts, "
            "kills or configures (trace export) the six service processes itself"
        )


@pytest.fixture(scope="package")
def otlp_receiver() -> Iterator[OtlpReceiver]:
    """An OTLP/gRPC receiver every locally started service exports its spans to."""
    receiver = OtlpReceiver()
    receiver.start()
    try:
        yield receiver
    finally:
        receiver.stop()


@pytest_asyncio.fixture(scope="package", loop_scope="session")
async def e2e_database_url(pg_server_url: str) -> AsyncIterator[str]:
    """A fresh PostgreSQL database for the deployment (each service keeps its own schema in it)."""
    url = await create_database(pg_server_url)
    try:
        yield url
    finally:
        await drop_database(pg_server_url, url)


@pytest.fixture(scope="package")
def deployment(
    request: pytest.FixtureRequest, otlp_receiver: OtlpReceiver, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    """All six services as separate OS processes, healthy; terminated (SIGTERM, then SIGKILL) at the end."""
    skip_if_external()
    database_url: str = request.getfixturevalue("e2e_database_url")
    log_dir: Path = tmp_path_factory.mktemp("e2e-logs")
    running = Deployment.configure(database_url, otlp_receiver.endpoint, log_dir)
    try:
        running.start_all()
        yield running
    finally:
        running.stop_all()


@pytest.fixture
def live_deployment(deployment: Deployment) -> Iterator[Deployment]:
    """The deployment, with every process alive before and after the test (a failed fault test may
    leave one dead or stopped; the next test must not inherit that)."""
    deployment.heal()
    yield deployment
    deployment.heal()


@pytest.fixture(scope="package")
def service_targets(request: pytest.FixtureRequest) -> dict[str, str]:
    """host:port per reachable service."""
    target = external_target()
    if target is not None:
        return {"orchestrator": target}
    running: Deployment = request.getfixturevalue("deployment")
    return {name: running.target(name) for name in SERVICES}


@pytest.fixture(scope="package")
def target(service_targets: dict[str, str]) -> str:
    """The orchestrator's (public) address."""
    return service_targets["orchestrator"]


@pytest_asyncio.fixture(scope="package", loop_scope="session")
async def stub(target: str) -> AsyncIterator[orchestrator_pb2_grpc.InterviewServiceStub]:
    """A client of the public InterviewService (reconnecting quickly after an orchestrator restart)."""
    options = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.max_reconnect_backoff_ms", 500)]
    async with grpc.aio.insecure_channel(target, options=options) as channel:
        yield orchestrator_pb2_grpc.InterviewServiceStub(channel)
