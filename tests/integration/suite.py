"""All six services in one process on real sockets (port 0), for integration tests.

    async with running_suite(db_url_base, tmp_path, embedder=embedder) as suite:
        stub = suite.stub           # InterviewServiceStub on the orchestrator
        await suite.restart("orchestrator")

Each service gets its own database (SQLite files under tmp_path, or schemas of one PostgreSQL
database) and the offline LLM engine (providers forced to `local`, whatever the environment says).
The embedding model and spaCy pipelines are loaded once and shared, as each process would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc.aio

from services.orchestrator.server import build as build_orchestrator
from services.orchestrator.server import server_for
from services.orchestrator.settings import OrchestratorSettings
from services.orchestrator.turns import StageWrapper
from shared.embeddings import Embedder
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from shared.llm import LLMSettings, build_llm_clients
from shared.methodology import MethodologyRegistry
from shared.server import GrpcServer

OFFLINE = {"provider": "local"}
INTERNAL = ("extraction", "graph_store", "canonical_slots", "scoring", "question")


def offline_llm_settings() -> LLMSettings:
    """Every logical client on the offline engine (tests never reach a provider)."""
    return LLMSettings(
        _env_file=None,
        extraction=OFFLINE,
        scoring=OFFLINE,
        generation=OFFLINE,
        anthropic_api_key=None,
        openai_api_key=None,
        kimi_api_key=None,
        deepseek_api_key=None,
    )


def database_url(base: str | None, tmp_path: Path, service: str) -> str:
    """A SQLite file per service, or the shared PostgreSQL database (each service has its schema)."""
    if base is None:
        return f"sqlite+aiosqlite:///{tmp_path / f'{service}.db'}"
    return base


@dataclass
class Suite:
    """The running services and a stub on the public API."""

    db_base: str | None
    tmp_path: Path
    embedder: Embedder
    orchestrator_overrides: dict[str, Any]
    stage_wrapper: StageWrapper | None
    # Extra server interceptors of internal services (fault injection and call recording).
    interceptors: dict[str, list[grpc.aio.ServerInterceptor]] = field(default_factory=dict)
    servers: dict[str, GrpcServer] = field(default_factory=dict)
    ports: dict[str, int] = field(default_factory=dict)
    _closers: dict[str, AsyncExitStack] = field(default_factory=dict)
    channel: grpc.aio.Channel | None = None

    @property
    def target(self) -> str:
        """host:port of the orchestrator."""
        return f"127.0.0.1:{self.ports['orchestrator']}"

    @property
    def stub(self) -> orchestrator_pb2_grpc.InterviewServiceStub:
        """A stub on the public InterviewService."""
        assert self.channel is not None
        return orchestrator_pb2_grpc.InterviewServiceStub(self.channel)

    def orchestrator_settings(self, **overrides: Any) -> OrchestratorSettings:
        """Settings of an orchestrator wired to this suite's services."""
        values: dict[str, Any] = {
            "port": self.ports.get("orchestrator", 0),
            "host": "127.0.0.1",
            "database_url": database_url(self.db_base, self.tmp_path, "orchestrator"),
            "extraction_target": f"127.0.0.1:{self.ports['extraction']}",
            "graph_store_target": f"127.0.0.1:{self.ports['graph_store']}",
            "canonical_slots_target": f"127.0.0.1:{self.ports['canonical_slots']}",
            "scoring_target": f"127.0.0.1:{self.ports['scoring']}",
            "question_target": f"127.0.0.1:{self.ports['question']}",
            "log_level": "WARNING",
            **self.orchestrator_overrides,
            **overrides,
        }
        return OrchestratorSettings(_env_file=None, **values)

    async def start(self, name: str) -> None:
        """Start one service (on its previous port when restarting)."""
        stack = AsyncExitStack()
        await stack.__aenter__()
        try:
            server = await _BUILDERS[name](self, stack)
            port = await server.start()
        except BaseException:
            await stack.aclose()
            raise
        stack.push_async_callback(server.stop, 0)
        self.servers[name], self.ports[name], self._closers[name] = server, port, stack

    async def stop(self, name: str) -> None:
        """Stop one service (its port stays reserved in `ports` for a restart)."""
        stack = self._closers.pop(name, None)
        self.servers.pop(name, None)
        if stack is not None:
            await stack.aclose()

    async def restart(self, name: str) -> None:
        """Stop and start a service on the same port (state comes back from storage)."""
        await self.stop(name)
        await self.start(name)

    async def close(self) -> None:
        """Stop everything (orchestrator first)."""
        if self.channel is not None:
            await self.channel.close(None)
        for name in ["orchestrator", *INTERNAL]:
            await self.stop(name)


async def _orchestrator(suite: Suite, stack: AsyncExitStack) -> GrpcServer:
    settings = suite.orchestrator_settings()
    app = await build_orchestrator(settings, stage_wrapper=suite.stage_wrapper)
    return server_for(app)


async def _graph_store(suite: Suite, stack: AsyncExitStack) -> GrpcServer:
    from services.graph_store.app import open_store
    from services.graph_store.server import build_registrations
    from services.graph_store.settings import GraphStoreSettings

    settings = GraphStoreSettings(
        _env_file=None,
        port=suite.ports.get("graph_store", 0),
        host="127.0.0.1",
        log_level="WARNING",
        database_url=database_url(suite.db_base, suite.tmp_path, "graph_store"),
    )
    methodologies = MethodologyRegistry(settings.config_dir)
    store = await stack.enter_async_context(
        open_store(settings, embedder=suite.embedder, methodologies=methodologies)
    )
    extra = suite.interceptors.get("graph_store", [])
    return GrpcServer(settings, build_registrations(settings, store), extra_interceptors=extra)


async def _canonical_slots(suite: Suite, stack: AsyncExitStack) -> GrpcServer:
    from services.canonical_slots.app import open_core
    from services.canonical_slots.lemmas import Lemmatizer
    from services.canonical_slots.server import build_registrations
    from services.canonical_slots.settings import CanonicalSlotsSettings

    settings = CanonicalSlotsSettings(
        _env_file=None,
        port=suite.ports.get("canonical_slots", 0),
        host="127.0.0.1",
        log_level="WARNING",
        database_url=database_url(suite.db_base, suite.tmp_path, "canonical_slots"),
    )
    methodologies = MethodologyRegistry(settings.config_dir)
    llm = build_llm_clients(offline_llm_settings())
    stack.push_async_callback(llm.aclose)
    core = await stack.enter_async_context(
        open_core(
            settings,
            encoder=suite.embedder,
            lemmatizer=Lemmatizer(),
            scoring_client=llm.scoring,
            methodologies=methodologies.get,
        )
    )
    return GrpcServer(
        settings, build_registrations(core), extra_interceptors=suite.interceptors.get("canonical_slots", [])
    )


async def _scoring(suite: Suite, stack: AsyncExitStack) -> GrpcServer:
    from services.scoring.server import build_engine, build_registrations
    from services.scoring.settings import ScoringSettings

    settings = ScoringSettings(
        _env_file=None,
        port=suite.ports.get("scoring", 0),
        host="127.0.0.1",
        log_level="WARNING",
    )
    llm = build_llm_clients(offline_llm_settings())
    stack.push_async_callback(llm.aclose)
    return GrpcServer(
        settings,
        build_registrations(settings, build_engine(settings, llm.scoring)),
        extra_interceptors=suite.interceptors.get("scoring", []),
    )


async def _question(suite: Suite, stack: AsyncExitStack) -> GrpcServer:
    from services.question.server import build_registrations
    from services.question.settings import QuestionSettings

    settings = QuestionSettings(
        _env_file=None,
        port=suite.ports.get("question", 0),
        host="127.0.0.1",
        log_level="WARNING",
    )
    llm = build_llm_clients(offline_llm_settings())
    stack.push_async_callback(llm.aclose)
    methodologies = MethodologyRegistry(settings.config_dir)
    return GrpcServer(
        settings,
        build_registrations(settings, client=llm.generation, methodologies=methodologies),
        extra_interceptors=suite.interceptors.get("question", []),
    )


async def _extraction(suite: Suite, stack: AsyncExitStack) -> GrpcServer:
    from services.extraction.nlp import build_nlp
    from services.extraction.server import build_registrations
    from services.extraction.settings import ExtractionSettings

    settings = ExtractionSettings(
        _env_file=None,
        port=suite.ports.get("extraction", 0),
        host="127.0.0.1",
        log_level="WARNING",
    )
    llm = build_llm_clients(offline_llm_settings())
    stack.push_async_callback(llm.aclose)
    methodologies = MethodologyRegistry(settings.config_dir)
    pipeline = build_nlp(settings.spacy_model)
    return GrpcServer(
        settings,
        build_registrations(settings, pipeline=pipeline, client=llm.extraction, methodologies=methodologies),
        extra_interceptors=suite.interceptors.get("extraction", []),
    )


_BUILDERS: dict[str, Callable[[Suite, AsyncExitStack], Awaitable[GrpcServer]]] = {
    "orchestrator": _orchestrator,
    "graph_store": _graph_store,
    "canonical_slots": _canonical_slots,
    "scoring": _scoring,
    "question": _question,
    "extraction": _extraction,
}


@asynccontextmanager
async def running_suite(
    db_base: str | None,
    tmp_path: Path,
    *,
    embedder: Embedder,
    stage_wrapper: StageWrapper | None = None,
    interceptors: dict[str, list[grpc.aio.ServerInterceptor]] | None = None,
    **orchestrator_overrides: Any,
) -> AsyncIterator[Suite]:
    """Start the five internal services, then the orchestrator; stop all at exit."""
    suite = Suite(db_base, tmp_path, embedder, orchestrator_overrides, stage_wrapper, interceptors or {})
    try:
        for name in INTERNAL:
            await suite.start(name)
        await suite.start("orchestrator")
        suite.channel = grpc.aio.insecure_channel(suite.target)
        yield suite
    finally:
        await suite.close()
