"""The orchestrator's public server on its own (port 0): health, reflection, input validation,
bearer-token auth and TLS. Full interviews with every dependency are in tests/integration/."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from grpc_status import rpc_status

from services.orchestrator.server import SERVICE_NAME, build, server_for
from services.orchestrator.settings import OrchestratorSettings
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.tls import self_signed

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
# Nothing listens here: the RPCs under test must fail before any dependency is called.
NOWHERE = "127.0.0.1:9"


def _settings(tmp_path: Path, **overrides: Any) -> OrchestratorSettings:
    values: dict[str, Any] = {
        "port": 0,
        "host": "127.0.0.1",
        "config_dir": CONFIG_DIR,
        "database_url": f"sqlite+aiosqlite:///{tmp_path / 'orchestrator.db'}",
        "log_json": False,
        **{
            f"{name}_target": NOWHERE
            for name in ("extraction", "graph_store", "canonical_slots", "scoring", "question")
        },
        **overrides,
    }
    return OrchestratorSettings(_env_file=None, **values)


@pytest_asyncio.fixture
async def server(tmp_path: Path) -> AsyncIterator[int]:
    app = await build(_settings(tmp_path))
    async with server_for(app) as running:
        yield running.port


async def test_health_and_reflection(server: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server}") as channel:
        health = health_pb2_grpc.HealthStub(channel)
        for name in ("", SERVICE_NAME):
            reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = stub.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")])
        )
        names = [s.name async for r in responses for s in r.list_services_response.service]
        assert SERVICE_NAME in names and "grpc.health.v1.Health" in names


def _violations(exc: grpc.aio.AioRpcError) -> list[str]:
    status = rpc_status.from_call(exc)  # type: ignore[arg-type]
    assert status is not None
    out: list[str] = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out += [v.field for v in bad.field_violations]
    return out


async def test_invalid_input_is_rejected_before_any_dependency(server: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server}") as channel:
        stub = orchestrator_pb2_grpc.InterviewServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.SubmitTurn(pb.SubmitTurnRequest(session_id="", turn_number=0, text=" "))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert set(_violations(caught.value)) == {"session_id", "turn_number", "text"}
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.CreateSession(pb.CreateSessionRequest(concept_id="headphones_mec", max_turns=-1))
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert _violations(caught.value) == ["max_turns"]
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.GetMethodology(pb.GetMethodologyRequest(name="nope"))
        assert caught.value.code() == grpc.StatusCode.NOT_FOUND
        # Reads that need no dependency work.
        concepts = await stub.ListConcepts(pb.ListConceptsRequest())
        assert concepts.total_size >= 5


async def test_dependency_down_is_unavailable_naming_it(server: int) -> None:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{server}") as channel:
        stub = orchestrator_pb2_grpc.InterviewServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await stub.CreateSession(pb.CreateSessionRequest(concept_id="headphones_mec"), timeout=20)
        assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
        assert "question" in (caught.value.details() or "")
        listed = await stub.ListSessions(pb.ListSessionsRequest())
        assert listed.total_size == 0  # nothing was created


async def test_bearer_token_is_required_when_configured(tmp_path: Path) -> None:
    app = await build(_settings(tmp_path, auth_token="s3cret-token"))
    async with server_for(app) as running, grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
        stub = orchestrator_pb2_grpc.InterviewServiceStub(channel)
        for metadata in (None, (("authorization", "Bearer wrong"),), (("authorization", "s3cret-token"),)):
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await stub.ListConcepts(pb.ListConceptsRequest(), metadata=metadata)
            assert caught.value.code() == grpc.StatusCode.UNAUTHENTICATED
        ok = await stub.ListConcepts(
            pb.ListConceptsRequest(), metadata=(("authorization", "Bearer s3cret-token"),)
        )
        assert ok.total_size >= 5
        # Probes stay open.
        health = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
        assert health.status == health_pb2.HealthCheckResponse.SERVING


async def test_tls_on_the_public_port(tmp_path: Path) -> None:
    cert_file, key_file = self_signed(tmp_path)
    app = await build(_settings(tmp_path, tls_cert_file=str(cert_file), tls_key_file=str(key_file)))
    async with server_for(app) as running:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert_file.read_bytes())
        async with grpc.aio.secure_channel(f"localhost:{running.port}", credentials) as channel:
            ok = await orchestrator_pb2_grpc.InterviewServiceStub(channel).ListConcepts(
                pb.ListConceptsRequest()
            )
            assert ok.total_size >= 5
        async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as plain:
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await orchestrator_pb2_grpc.InterviewServiceStub(plain).ListConcepts(
                    pb.ListConceptsRequest(), timeout=5
                )
            assert caught.value.code() in {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}
