"""Assembly of the scoring service: settings → methodology + detector registries, rubric scorer →
engine → servicer → server."""

from __future__ import annotations

from services.scoring.detectors import build_default_registry
from services.scoring.engine import ScoringEngine
from services.scoring.rubric.llm_scorer import LLMRubricScorer
from services.scoring.rubric.local_scorer import LocalRubricScorer
from services.scoring.rubric.models import RubricScorer
from services.scoring.servicer import ScoringServicer
from services.scoring.settings import ScoringSettings
from shared.gen.interview.scoring.v1 import scoring_pb2_grpc
from shared.llm import LLMClient, LLMClientName, LLMSettings, build_llm_clients
from shared.methodology import MethodologyRegistry
from shared.server import ServiceRegistration, bootstrap, serve

SERVICE_NAME = "interview.scoring.v1.ScoringService"


def build_scorer(client: LLMClient | None) -> RubricScorer:
    """The LLM rubric for a networked `scoring` client, the offline lexical rubric otherwise."""
    if client is None or client.is_offline:
        return LocalRubricScorer()
    return LLMRubricScorer(client)


def build_engine(settings: ScoringSettings, scoring_client: LLMClient | None) -> ScoringEngine:
    """Load and check every methodology against the detector registry (fails fast at start-up)."""
    engine = ScoringEngine(
        MethodologyRegistry(settings.config_dir),
        build_default_registry(),
        build_scorer(scoring_client),
        default_mode=settings.default_mode,
    )
    engine.check_methodologies()
    return engine


def build_registrations(settings: ScoringSettings, engine: ScoringEngine) -> list[ServiceRegistration]:
    """The ScoringService registration for `shared.server`."""
    servicer = ScoringServicer(engine, settings)
    return [
        ServiceRegistration(
            SERVICE_NAME,
            lambda server: scoring_pb2_grpc.add_ScoringServiceServicer_to_server(servicer, server),
        )
    ]


async def main() -> None:
    """Run the scoring service until SIGTERM/SIGINT."""
    settings = ScoringSettings()
    bootstrap(settings)  # first: everything below logs
    clients = build_llm_clients(LLMSettings())
    # The SDKs' first-call set-up and the connection to the provider, paid before SERVING.
    await clients.warm_up(connect=[LLMClientName.SCORING])
    engine = build_engine(settings, clients.scoring)
    await serve(settings, build_registrations(settings, engine), on_shutdown=[clients.aclose])
