"""Assembly of the orchestrator: settings → engine, registries, stubs → servicer → server."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import grpc
import grpc.aio
from sqlalchemy.ext.asyncio import AsyncEngine

from services.orchestrator.background import BackgroundTasks
from services.orchestrator.catalog import Catalog
from services.orchestrator.clients import Dependencies
from services.orchestrator.exporter import Exporter
from services.orchestrator.locks import SessionLocks
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.rules import TerminationRules
from services.orchestrator.servicer import InterviewServicer
from services.orchestrator.sessions import SessionService
from services.orchestrator.settings import OrchestratorSettings
from services.orchestrator.stages.common import StageDeps
from services.orchestrator.turns import StageWrapper, TurnService
from shared.auth import BearerTokenInterceptor
from shared.db import create_engine
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from shared.methodology import ConceptRegistry, MethodologyRegistry
from shared.migrations import upgrade
from shared.server import GrpcServer, ServiceRegistration, bootstrap, serve

MIGRATIONS = Path(__file__).parent / "migrations"
SERVICE_NAME = "interview.orchestrator.v1.InterviewService"


@dataclass
class Orchestrator:
    """Everything the running service holds (closed on shutdown)."""

    settings: OrchestratorSettings
    engine: AsyncEngine
    deps: Dependencies
    servicer: InterviewServicer
    lock_engine: AsyncEngine
    background: BackgroundTasks

    def registrations(self) -> list[ServiceRegistration]:
        """The public service for the bootstrap."""
        servicer = self.servicer
        return [
            ServiceRegistration(
                SERVICE_NAME,
                lambda s: orchestrator_pb2_grpc.add_InterviewServiceServicer_to_server(servicer, s),
            )
        ]

    async def close(self) -> None:
        """Let background work finish (bounded), then close channels and the engines."""
        await self.background.join(self.settings.background_grace_s)
        await self.deps.close()
        await self.engine.dispose()
        if self.lock_engine is not self.engine:
            await self.lock_engine.dispose()


async def build(settings: OrchestratorSettings, *, stage_wrapper: StageWrapper | None = None) -> Orchestrator:
    """Migrate the database and wire every component (the YAML is validated here, at start-up)."""
    # First: everything below logs, and OpenTelemetry's gRPC client instrumentation only applies to
    # channels created after it is installed (the channels to the five internal services, below).
    bootstrap(settings)
    schema = settings.database_schema if settings.database_url.startswith("postgresql") else None
    await upgrade(settings.database_url, schema=schema, script_location=MIGRATIONS)
    engine = create_engine(settings.database_url, schema=schema)
    methodologies = MethodologyRegistry(settings.config_dir)
    concepts = ConceptRegistry(settings.config_dir, methodologies)
    methodologies.all()
    concepts.all()
    repo = OrchestratorRepository(engine)
    deps = Dependencies.connect(settings)
    # The turn lock holds a connection for the whole turn; on PostgreSQL it gets its own pool so
    # many concurrent turns cannot starve the stages of connections (a pool deadlock otherwise).
    lock_engine = (
        create_engine(
            settings.database_url,
            schema=schema,
            pool_size=settings.max_concurrent_turns,
            max_overflow=0,
            pool_timeout=5,
        )
        if schema is not None
        else engine
    )
    locks = SessionLocks(lock_engine)
    stage_deps = StageDeps(
        deps=deps,
        repo=repo,
        settings=settings,
        methodologies=methodologies,
        rules=termination_rules(settings),
    )
    background = BackgroundTasks()
    sessions = SessionService(settings, repo, deps, methodologies, concepts, locks)
    servicer = InterviewServicer(
        sessions,
        TurnService(stage_deps, locks, stage_wrapper, background),
        Exporter(sessions, repo),
        Catalog(methodologies, concepts),
    )
    return Orchestrator(settings, engine, deps, servicer, lock_engine, background)


def termination_rules(settings: OrchestratorSettings) -> TerminationRules:
    """The saturation thresholds from settings (SPEC defaults)."""
    return TerminationRules(
        min_turn_for_saturation=settings.min_turn_for_saturation,
        graph_saturated_turns=settings.graph_saturated_turns,
        quality_degraded_turns=settings.quality_degraded_turns,
        depth_plateau_turns=settings.depth_plateau_turns,
        node_exhausted_turns_without_yield=settings.node_exhausted_turns,
    )


def security(
    settings: OrchestratorSettings,
) -> tuple[list[grpc.aio.ServerInterceptor], grpc.ServerCredentials | None]:
    """The optional bearer-token interceptor and TLS credentials of the public port."""
    interceptors: list[grpc.aio.ServerInterceptor] = []
    if settings.auth_token is not None and settings.auth_token.get_secret_value():
        interceptors.append(BearerTokenInterceptor(settings.auth_token.get_secret_value()))
    credentials = None
    if settings.tls_cert_file and settings.tls_key_file:
        key = Path(settings.tls_key_file).read_bytes()
        cert = Path(settings.tls_cert_file).read_bytes()
        credentials = grpc.ssl_server_credentials([(key, cert)])
    return interceptors, credentials


def server_for(app: Orchestrator) -> GrpcServer:
    """A GrpcServer hosting the orchestrator (tests start it on port 0)."""
    interceptors, credentials = security(app.settings)
    return GrpcServer(
        app.settings,
        app.registrations(),
        on_shutdown=[app.close],
        extra_interceptors=interceptors,
        credentials=credentials,
    )


async def main(settings: OrchestratorSettings | None = None) -> None:
    """Run until SIGTERM."""
    settings = settings or OrchestratorSettings()
    app = await build(settings)
    interceptors, credentials = security(settings)
    await serve(
        settings,
        app.registrations(),
        on_shutdown=[app.close],
        extra_interceptors=interceptors,
        credentials=credentials,
    )
