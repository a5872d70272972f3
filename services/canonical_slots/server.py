"""Wiring of the canonical_slots service: settings → core → servicer → gRPC server."""

from __future__ import annotations

from shared.embeddings import Embedder
from shared.gen.interview.slots.v1 import slots_pb2, slots_pb2_grpc
from shared.llm import LLMClientName, LLMSettings, build_llm_clients
from shared.methodology import MethodologyRegistry
from shared.server import ServiceRegistration, bootstrap, serve

from .app import SlotsCore, open_core
from .lemmas import Lemmatizer
from .servicer import CanonicalSlotServicer
from .settings import CanonicalSlotsSettings

SERVICE_FULL_NAME: str = slots_pb2.DESCRIPTOR.services_by_name["CanonicalSlotService"].full_name


def build_registrations(core: SlotsCore) -> list[ServiceRegistration]:
    """The CanonicalSlotService registration for `shared.server.GrpcServer`."""
    servicer = CanonicalSlotServicer(core.discovery, core.queries)
    return [
        ServiceRegistration(
            SERVICE_FULL_NAME,
            lambda server: slots_pb2_grpc.add_CanonicalSlotServiceServicer_to_server(servicer, server),
        )
    ]


async def main() -> None:
    """Migrate, load the models once, serve until SIGTERM/SIGINT (settings from the environment)."""
    settings = CanonicalSlotsSettings()
    bootstrap(settings)  # first: everything below logs
    methodologies = MethodologyRegistry(settings.config_dir)
    methodologies.all()  # load and validate every methodology now: a broken YAML fails start-up
    embedder = Embedder(
        backend=settings.embedding_backend,
        cache_dir=settings.embedding_cache_dir,
        threads=settings.stored_vector_threads,
    )
    lemmatizer = Lemmatizer()
    llm = build_llm_clients(LLMSettings())
    # The SDKs' first-call set-up and the connection to the provider, paid before SERVING.
    await llm.warm_up(connect=[LLMClientName.SCORING])
    try:
        async with open_core(
            settings,
            encoder=embedder,
            lemmatizer=lemmatizer,
            scoring_client=llm.scoring,
            methodologies=methodologies.get,
        ) as core:
            await core.discovery.warm_up(methodologies.names()[0])  # before SERVING (first turn)
            await serve(settings, build_registrations(core))
    finally:
        await llm.aclose()
