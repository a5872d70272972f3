"""Wiring of the question service: settings -> generator -> servicer -> gRPC server."""

from __future__ import annotations

from services.question.engine import QuestionGenerator
from services.question.prompts import PromptBuilder
from services.question.rationale import RationaleBuilder
from services.question.servicer import QuestionServicer
from services.question.settings import QuestionSettings
from services.question.spoken import SpokenLabels
from services.question.validation import MethodologySource
from services.question.wordforms import WordForms
from shared.gen.interview.question.v1 import question_pb2, question_pb2_grpc
from shared.llm import LLMClientName, LLMSettings, build_llm_clients
from shared.llm.base import LLMClient
from shared.methodology import MethodologyRegistry
from shared.server import ServiceRegistration, bootstrap, serve

SERVICE_FULL_NAME: str = question_pb2.DESCRIPTOR.services_by_name["QuestionService"].full_name


def build_generator(
    settings: QuestionSettings,
    *,
    client: LLMClient,
    methodologies: MethodologySource,
    spoken: SpokenLabels | None = None,
) -> QuestionGenerator:
    """The generator with its prompt builder and rationale builder, configured from settings.

    `spoken` says node labels back in the offline questions; without it only pronouns change.
    """
    prompts = PromptBuilder(
        RationaleBuilder(top_n=settings.rationale_top_signals),
        recent_utterance_limit=settings.recent_utterance_limit,
        previous_question_limit=settings.previous_question_limit,
    )
    return QuestionGenerator(
        client=client,
        methodologies=methodologies,
        prompts=prompts,
        options=settings.generation_options(),
        spoken=spoken,
    )


def build_registrations(
    settings: QuestionSettings,
    *,
    client: LLMClient,
    methodologies: MethodologySource,
    spoken: SpokenLabels | None = None,
) -> list[ServiceRegistration]:
    """The QuestionService registration for `shared.server.GrpcServer`."""
    generator = build_generator(settings, client=client, methodologies=methodologies, spoken=spoken)
    servicer = QuestionServicer(generator)
    return [
        ServiceRegistration(
            SERVICE_FULL_NAME,
            lambda server: question_pb2_grpc.add_QuestionServiceServicer_to_server(servicer, server),
        )
    ]


async def main() -> None:
    """Run the service until SIGTERM/SIGINT (settings from the environment)."""
    settings = QuestionSettings()
    bootstrap(settings)  # first: everything below logs
    llm = build_llm_clients(LLMSettings())
    # The SDKs' first-call set-up and the connection to the provider, paid before SERVING.
    await llm.warm_up(connect=[LLMClientName.GENERATION])
    methodologies = MethodologyRegistry(settings.config_dir)
    methodologies.all()  # load and validate every methodology now: a broken YAML fails start-up
    spoken = SpokenLabels(WordForms.load())  # word lists for saying labels back, loaded once
    registrations = build_registrations(
        settings, client=llm.generation, methodologies=methodologies, spoken=spoken
    )
    await serve(settings, registrations, on_shutdown=[llm.aclose])
