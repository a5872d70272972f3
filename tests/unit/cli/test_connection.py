"""The client's channel helpers against tiny real servers: health waiting, bearer token, paging."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from cli.connection import SERVICE_NAME, Client, ConnectionOptions, NotServingError, wait_until_serving
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc


class CatalogServicer(orchestrator_pb2_grpc.InterviewServiceServicer):
    """ListConcepts in pages of one; remembers the metadata of each call."""

    def __init__(self) -> None:
        self.concepts = [common_pb2.Concept(id=f"c{i}", name=f"Concept {i}") for i in range(3)]
        self.metadata: list[dict[str, str]] = []

    def ListConcepts(  # noqa: N802
        self, request: pb.ListConceptsRequest, context: grpc.ServicerContext
    ) -> pb.ListConceptsResponse:
        self.metadata.append({k: str(v) for k, v in context.invocation_metadata()})
        index = int(request.page_token or 0)
        following = str(index + 1) if index + 1 < len(self.concepts) else ""
        return pb.ListConceptsResponse(concepts=[self.concepts[index]], next_page_token=following)


class Served:
    def __init__(self, *, with_health: bool, with_service_name: bool = True) -> None:
        self.catalog = CatalogServicer()
        self.health = health.HealthServicer()
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        orchestrator_pb2_grpc.add_InterviewServiceServicer_to_server(self.catalog, self.server)
        if with_health:
            health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
            self.set(health_pb2.HealthCheckResponse.NOT_SERVING, with_service_name)
        self.target = f"127.0.0.1:{self.server.add_insecure_port('127.0.0.1:0')}"
        self.server.start()

    def set(self, status: int, with_service_name: bool = True) -> None:
        self.health.set("", status)
        if with_service_name:
            self.health.set(SERVICE_NAME, status)


@pytest.fixture
def served() -> Iterator[Served]:
    s = Served(with_health=True)
    yield s
    s.server.stop(grace=None)


def _client(target: str, token: str | None = None) -> Iterator[Client]:
    options = ConnectionOptions(target=target, token=token, timeout_s=5)
    with grpc.insecure_channel(target) as channel:
        yield Client(channel, options)


def test_wait_returns_once_the_service_reports_serving(served: Served) -> None:
    waits: list[float] = []

    def on_wait(elapsed: float) -> None:
        waits.append(elapsed)
        served.set(health_pb2.HealthCheckResponse.SERVING)

    for client in _client(served.target):
        wait_until_serving(client, 30, on_wait, sleep=lambda _: None)
    assert len(waits) == 1


def test_wait_gives_up_with_a_clear_error(served: Served) -> None:
    ticks = iter(range(100))
    for client in _client(served.target):
        with pytest.raises(NotServingError, match=r"did not report SERVING within 3s"):
            wait_until_serving(
                client, 3, lambda _: None, clock=lambda: float(next(ticks)), sleep=lambda _: None
            )


def test_wait_accepts_a_server_health_entry_without_the_service_name() -> None:
    s = Served(with_health=True, with_service_name=False)
    try:
        s.set(health_pb2.HealthCheckResponse.SERVING, with_service_name=False)
        for client in _client(s.target):
            wait_until_serving(client, 0, lambda _: pytest.fail("should not wait"))
    finally:
        s.server.stop(grace=None)


def test_wait_accepts_a_server_without_a_health_service() -> None:
    s = Served(with_health=False)
    try:
        for client in _client(s.target):
            wait_until_serving(client, 0, lambda _: pytest.fail("should not wait"))
    finally:
        s.server.stop(grace=None)


def test_concepts_are_read_across_pages_with_the_bearer_token(served: Served) -> None:
    for client in _client(served.target, token="s3cret"):
        concepts = client.list_concepts()
    assert [c.id for c in concepts] == ["c0", "c1", "c2"]
    assert len(served.catalog.metadata) == 3
    assert all(md.get("authorization") == "Bearer s3cret" for md in served.catalog.metadata)


def test_no_token_sends_no_authorization(served: Served) -> None:
    for client in _client(served.target):
        client.list_concepts()
    assert all("authorization" not in md for md in served.catalog.metadata)
