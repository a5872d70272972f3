"""Wiring of the graph_store service: settings → store → servicer → gRPC server."""

from __future__ import annotations

from shared.embeddings import Embedder
from shared.gen.interview.graph.v1 import graph_pb2, graph_pb2_grpc
from shared.methodology import MethodologyRegistry
from shared.server import ServiceRegistration, bootstrap, serve

from .app import open_store
from .servicer import GraphServicer
from .settings import GraphStoreSettings
from .store import GraphStore

SERVICE_FULL_NAME: str = graph_pb2.DESCRIPTOR.services_by_name["GraphService"].full_name


def build_registrations(settings: GraphStoreSettings, store: GraphStore) -> list[ServiceRegistration]:
    """The GraphService registration for `shared.server.GrpcServer`."""
    servicer = GraphServicer(store, max_text_chars=settings.max_text_chars)
    return [
        ServiceRegistration(
            SERVICE_FULL_NAME,
            lambda server: graph_pb2_grpc.add_GraphServiceServicer_to_server(servicer, server),
        )
    ]


async def main() -> None:
    """Migrate, load the embedding model once, serve until SIGTERM/SIGINT (settings from the environment)."""
    settings = GraphStoreSettings()
    bootstrap(settings)  # first: everything below logs (a first start's model export too)
    methodologies = MethodologyRegistry(settings.config_dir)
    methodologies.all()  # load and validate every methodology now: a broken YAML fails start-up
    embedder = Embedder(
        backend=settings.embedding_backend,
        cache_dir=settings.embedding_cache_dir,
        threads=settings.stored_vector_threads,
    )
    queries = None
    if settings.search_query_precision == "int8" and settings.embedding_backend == "onnx":
        # A search query is ranked against stored vectors, never stored: the int8 copy is enough.
        # One thread: the int8 pass is short, and a second thread made it slower next to busy
        # processes (bench/bench_embeddings.py).
        queries = Embedder(cache_dir=settings.embedding_cache_dir, quantized=True, cache_size=256)
    async with open_store(
        settings, embedder=embedder, methodologies=methodologies, query_encoder=queries
    ) as store:
        await store.warm_up(methodologies.names()[0])  # before SERVING: the first turn is not slower
        await serve(settings, build_registrations(settings, store))
