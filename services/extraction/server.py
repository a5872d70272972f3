"""Wiring of the extraction service: settings -> NLP pipeline + engine -> servicer -> gRPC server."""

from __future__ import annotations

from services.extraction.engine import EngineLimits, ExtractionEngine
from services.extraction.nlp import NlpPipeline, build_nlp
from services.extraction.preprocess import Preprocessor
from services.extraction.servicer import ExtractionServicer
from services.extraction.settings import ExtractionSettings
from shared.gen.interview.extraction.v1 import extraction_pb2, extraction_pb2_grpc
from shared.llm import LLMClientName, LLMSettings, build_llm_clients
from shared.llm.base import LLMClient
from shared.methodology import MethodologyRegistry
from shared.server import ServiceRegistration, bootstrap, serve

SERVICE_FULL_NAME: str = extraction_pb2.DESCRIPTOR.services_by_name["ExtractionService"].full_name


def build_engine(
    settings: ExtractionSettings,
    *,
    pipeline: NlpPipeline,
    client: LLMClient,
    methodologies: MethodologyRegistry,
) -> ExtractionEngine:
    """The engine; every methodology and its cue lexicon are loaded and checked now (fail at start-up)."""
    pre = Preprocessor(pipeline)
    engine = ExtractionEngine(
        preprocessor=pre,
        methodologies=methodologies.get,
        llm=client,
        limits=EngineLimits(
            max_existing_nodes=settings.max_existing_nodes,
            min_words=settings.min_words,
            enable_srl=settings.enable_srl,
        ),
    )
    for methodology in methodologies.all():
        engine.local.lexicon(methodology)
    return engine


def build_registrations(
    settings: ExtractionSettings,
    *,
    methodologies: MethodologyRegistry,
    engine: ExtractionEngine | None = None,
    pipeline: NlpPipeline | None = None,
    client: LLMClient | None = None,
) -> list[ServiceRegistration]:
    """The ExtractionService registration for `shared.server.GrpcServer`.

    Pass a built `engine` (then close it with `engine.aclose()` at shutdown), or `pipeline` and
    `client` to have one built here.
    """
    if engine is None:
        if pipeline is None or client is None:
            raise ValueError("build_registrations needs an engine, or a pipeline and an LLM client")
        engine = build_engine(settings, pipeline=pipeline, client=client, methodologies=methodologies)
    servicer = ExtractionServicer(
        engine, max_text_chars=settings.max_text_chars, methodology_known=set(methodologies.names())
    )
    return [
        ServiceRegistration(
            SERVICE_FULL_NAME,
            lambda server: extraction_pb2_grpc.add_ExtractionServiceServicer_to_server(servicer, server),
        )
    ]


async def main() -> None:
    """Run the service until SIGTERM/SIGINT (settings from the environment)."""
    settings = ExtractionSettings()
    bootstrap(settings)  # first: everything below logs
    llm = build_llm_clients(LLMSettings())
    # The SDKs' first-call set-up and the connection to the provider, paid before SERVING.
    await llm.warm_up(connect=[LLMClientName.EXTRACTION])
    pipeline = build_nlp(settings.spacy_model)  # once per process
    methodologies = MethodologyRegistry(settings.config_dir)
    engine = build_engine(settings, pipeline=pipeline, client=llm.extraction, methodologies=methodologies)
    registrations = build_registrations(settings, engine=engine, methodologies=methodologies)
    await serve(settings, registrations, on_shutdown=[llm.aclose, engine.aclose])
