"""Assembly of the orchestrator: settings → engine, registries, stubs → servicer → server."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

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
from shared.db import create_engine
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from shared.methodology import ConceptRegistry, MethodologyRegistry
from shared.migrations import upgrade
from shared.server import GrpcServer, ServiceRegistration, serve

MIGRATIONS = Path(__file__).parent / "migrations"
SERVICE_NAME = "interview.orchestrator.v1.InterviewService"


@dataclass
class Orchestrator:
    """Everything the running service holds (closed on shutdown)."""

    settings: OrchestratorSettings
    engine: AsyncEngine
    deps: Dependencies
    servicer: InterviewServicer

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
        """Close channels and the engine."""
        await self.deps.close()
        await self.engine.dispose()


async def build(settings: OrchestratorSettings, *, stage_wrapper: StageWrapper | None = None) -> Orchestrator:
    """Migrate the database and wire every component (the YAML is validated here, at start-up)."""
    schema = settings.database_schema if settings.database_url.startswith("postgresql") else None
    await upgrade(settings.database_url, schema=schema, script_location=MIGRATIONS)
    engine = create_engine(settings.database_url, schema=schema)
    methodologies = MethodologyRegistry(settings.config_dir)
    concepts = ConceptRegistry(settings.config_dir, methodologies)
    methodologies.all()
    concepts.all()
    repo = OrchestratorRepository(engine)
    deps = Dependencies.connect(settings)
    locks = SessionLocks(engine)
    stage_deps = StageDeps(
        deps=deps, repo=repo, settings=settings, methodologies=methodologies, rules=TerminationRules()
    )
    sessions = SessionService(settings, repo, deps, methodologies, concepts, locks)
    servicer = InterviewServicer(
        sessions,
        TurnService(stage_deps, locks, stage_wrapper),
        Exporter(sessions, repo),
        Catalog(methodologies, concepts),
    )
    return Orchestrator(settings, engine, deps, servicer)


def server_for(app: Orchestrator) -> GrpcServer:
    """A GrpcServer hosting the orchestrator (tests start it on port 0)."""
    return GrpcServer(app.settings, app.registrations(), on_shutdown=[app.close])


async def main(settings: OrchestratorSettings | None = None) -> None:
    """Run until SIGTERM."""
    settings = settings or OrchestratorSettings()
    app = await build(settings)
    await serve(settings, app.registrations(), on_shutdown=[app.close])
