"""The canonical_slots service over real gRPC (port 0): health, reflection, INVALID_ARGUMENT with
field violations (nothing written), and a DiscoverSlots → GetCanonicalState round trip on SQLite
and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
import pytest_asyncio
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.canonical_slots.app import open_core
from services.canonical_slots.lemmas import Lemmatizer
from services.canonical_slots.server import SERVICE_FULL_NAME, build_registrations
from services.canonical_slots.settings import CanonicalSlotsSettings
from shared.gen.interview.slots.v1 import slots_pb2, slots_pb2_grpc
from shared.llm.base import LLMClientName
from shared.llm.local import LocalLLMClient
from shared.methodology import MethodologyRegistry
from tests.rich_status import from_aio_call

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
MEC = "means_end_chain"


@pytest.fixture(scope="module")
def lemmatizer() -> Lemmatizer:
    return Lemmatizer()


async def _stub(
    url: str, grpc_server_factory: Any, embedder: Any, lemmatizer: Lemmatizer
) -> AsyncIterator[tuple[slots_pb2_grpc.CanonicalSlotServiceStub, grpc.aio.Channel]]:
    settings = CanonicalSlotsSettings(database_url=url, config_dir=CONFIG_DIR, log_json=False)
    async with open_core(
        settings,
        encoder=embedder,
        lemmatizer=lemmatizer,
        scoring_client=LocalLLMClient(name=LLMClientName.SCORING),
        methodologies=MethodologyRegistry(CONFIG_DIR).get,
    ) as core:
        _, channel = await grpc_server_factory(settings, build_registrations(core))
        yield slots_pb2_grpc.CanonicalSlotServiceStub(channel), channel


@pytest_asyncio.fixture
async def served(
    sqlite_url: str, grpc_server_factory: Any, embedder: Any, lemmatizer: Lemmatizer
) -> AsyncIterator[tuple[slots_pb2_grpc.CanonicalSlotServiceStub, grpc.aio.Channel]]:
    async for s in _stub(sqlite_url, grpc_server_factory, embedder, lemmatizer):
        yield s


@pytest.fixture
def stub(
    served: tuple[slots_pb2_grpc.CanonicalSlotServiceStub, grpc.aio.Channel],
) -> slots_pb2_grpc.CanonicalSlotServiceStub:
    return served[0]


@pytest_asyncio.fixture
async def any_db_stub(
    db_url: str, grpc_server_factory: Any, embedder: Any, lemmatizer: Lemmatizer
) -> AsyncIterator[slots_pb2_grpc.CanonicalSlotServiceStub]:
    async for s, _ in _stub(db_url, grpc_server_factory, embedder, lemmatizer):
        yield s


def _bad_request(status: status_pb2.Status | None) -> dict[str, str]:
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            return {v.field: v.description for v in bad.field_violations}
    raise AssertionError("no BadRequest detail")


def _node(node_id: str, label: str, node_type: str = "attribute", embedding: Any = ()) -> Any:
    return slots_pb2.SurfaceNodeInput(
        node_id=node_id, label=label, node_type=node_type, embedding=list(embedding)
    )


async def test_health_and_reflection(
    served: tuple[slots_pb2_grpc.CanonicalSlotServiceStub, grpc.aio.Channel],
) -> None:
    channel = served[1]
    health = health_pb2_grpc.HealthStub(channel)
    for name in ("", SERVICE_FULL_NAME):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=name))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING

    async def requests() -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        yield reflection_pb2.ServerReflectionRequest(list_services="")
        yield reflection_pb2.ServerReflectionRequest(file_containing_symbol=SERVICE_FULL_NAME)

    listed, described = [
        r async for r in reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(requests())
    ]
    assert SERVICE_FULL_NAME == "interview.slots.v1.CanonicalSlotService"
    assert SERVICE_FULL_NAME in {s.name for s in listed.list_services_response.service}
    assert described.file_descriptor_response.file_descriptor_proto


async def test_bad_discovery_is_invalid_argument_and_writes_nothing(
    stub: slots_pb2_grpc.CanonicalSlotServiceStub,
) -> None:
    request = slots_pb2.DiscoverSlotsRequest(
        session_id="",
        turn_number=-1,
        methodology=MEC,
        nodes=[
            _node("a", " "),
            _node("b", "price", "feeling"),
            _node("c", "fast charging", embedding=[0.5, 0.5]),
        ],
        edges=[
            slots_pb2.SurfaceEdgeInput(
                edge_id="e1", source_node_id="a", target_node_id="b", edge_type="causes"
            )
        ],
    )
    call = stub.DiscoverSlots(request)
    with pytest.raises(grpc.aio.AioRpcError) as exc:
        await call
    assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    violations = _bad_request(await from_aio_call(call))
    assert set(violations) == {
        "session_id",
        "turn_number",
        "nodes[0].label",
        "nodes[1].node_type",
        "nodes[2].embedding",
        "edges[0].edge_type",
    }
    assert "feeling" in violations["nodes[1].node_type"]

    request.session_id, request.turn_number = "s1", 1
    with pytest.raises(grpc.aio.AioRpcError):
        await stub.DiscoverSlots(request)
    listed = await stub.ListSlots(slots_pb2.ListSlotsRequest(session_id="s1"))
    assert listed.total_size == 0 and not listed.slots


async def test_bad_list_and_state_requests(stub: slots_pb2_grpc.CanonicalSlotServiceStub) -> None:
    cases: list[tuple[Any, Any, str]] = [
        (stub.ListSlots, slots_pb2.ListSlotsRequest(session_id="s1", status=9), "status"),  # type: ignore[arg-type]
        (stub.ListSlots, slots_pb2.ListSlotsRequest(session_id="s1", page_token="garbage!"), "page_token"),
        (stub.ListMappings, slots_pb2.ListMappingsRequest(session_id="s1", page_size=-1), "page_size"),
        (stub.ListCanonicalEdges, slots_pb2.ListCanonicalEdgesRequest(session_id=""), "session_id"),
        (
            stub.GetCanonicalState,
            slots_pb2.GetCanonicalStateRequest(session_id="s1", surface_node_count=-2),
            "surface_node_count",
        ),
        (stub.ResolveNodes, slots_pb2.ResolveNodesRequest(session_id="s1", node_ids=[""]), "node_ids[0]"),
        (stub.DeleteSessionSlots, slots_pb2.DeleteSessionSlotsRequest(session_id="bad id"), "session_id"),
    ]
    for method, request, field in cases:
        call = method(request)
        with pytest.raises(grpc.aio.AioRpcError) as exc:
            await call
        assert exc.value.code() == grpc.StatusCode.INVALID_ARGUMENT, field
        assert field in _bad_request(await from_aio_call(call))


async def test_discover_and_state_round_trip(
    any_db_stub: slots_pb2_grpc.CanonicalSlotServiceStub, embedder: Any
) -> None:
    stub = any_db_stub
    first = slots_pb2.DiscoverSlotsRequest(
        session_id="s1",
        turn_number=1,
        methodology=MEC,
        nodes=[
            _node("a1", "running shoes", embedding=embedder.encode(["running shoes"])[0]),
            _node("f1", "comfortable feet", "functional_consequence"),
        ],
        edges=[
            slots_pb2.SurfaceEdgeInput(
                edge_id="e1", source_node_id="a1", target_node_id="f1", edge_type="leads_to"
            )
        ],
    )
    one = await stub.DiscoverSlots(first)
    assert len(one.slots_created) == 2 and len(one.mappings_created) == 2
    assert all(
        s.status == slots_pb2.SLOT_STATUS_CANDIDATE and s.promoted_turn == 0 for s in one.slots_created
    )
    assert len(one.canonical_edges_changed) == 1 and one.canonical_edges_changed[0].surface_edge_ids == ["e1"]
    assert one.usage.provider == "local" and one.usage.calls == 0
    assert (one.canonical_state.concept_count, one.canonical_state.candidate_count) == (0, 2)

    replay = await stub.DiscoverSlots(first)
    assert replay.replayed and [s.id for s in replay.slots_created] == [s.id for s in one.slots_created]

    two = await stub.DiscoverSlots(
        slots_pb2.DiscoverSlotsRequest(
            session_id="s1",
            turn_number=2,
            methodology=MEC,
            nodes=[_node("a2", "running shoe"), _node("f2", "comfortable foot", "functional_consequence")],
            edges=[
                slots_pb2.SurfaceEdgeInput(
                    edge_id="e2", source_node_id="a2", target_node_id="f2", edge_type="leads_to"
                )
            ],
        )
    )
    assert not two.replayed and not two.slots_created
    assert {s.id for s in two.slots_promoted} == {s.id for s in one.slots_created}
    assert all(s.promoted_turn == 2 and s.support_count == 2 for s in two.slots_promoted)
    (changed,) = two.canonical_edges_changed
    assert changed.support_count == 2 and sorted(changed.surface_edge_ids) == ["e1", "e2"]

    state = await stub.GetCanonicalState(
        slots_pb2.GetCanonicalStateRequest(session_id="s1", surface_node_count=4, surface_edge_count=2)
    )
    assert state.canonical_state.concept_count == 2
    assert state.canonical_state.edge_count == 1
    assert state.canonical_state.orphan_count == 0
    assert state.canonical_state.max_depth == 2
    assert state.canonical_state.avg_support == 2.0
    assert state.comparison.compression_ratio == 2.0
    assert (state.comparison.surface_node_count, state.comparison.canonical_edge_count) == (4, 1)

    resolved = await stub.ResolveNodes(
        slots_pb2.ResolveNodesRequest(session_id="s1", node_ids=["a1", "a2", "zz"])
    )
    assert set(resolved.slot_ids) == {"a1", "a2"} and resolved.slot_ids["a1"] == resolved.slot_ids["a2"]

    active = await stub.ListSlots(
        slots_pb2.ListSlotsRequest(session_id="s1", status=slots_pb2.SLOT_STATUS_ACTIVE)
    )
    assert active.total_size == 2
    mappings = await stub.ListMappings(slots_pb2.ListMappingsRequest(session_id="s1", page_size=3))
    assert mappings.total_size == 4 and len(mappings.mappings) == 3 and mappings.next_page_token
    edges = await stub.ListCanonicalEdges(slots_pb2.ListCanonicalEdgesRequest(session_id="s1"))
    assert [e.id for e in edges.edges] == [changed.id]

    deleted = await stub.DeleteSessionSlots(slots_pb2.DeleteSessionSlotsRequest(session_id="s1"))
    assert deleted.slots_deleted == 2
    after = await stub.GetCanonicalState(slots_pb2.GetCanonicalStateRequest(session_id="s1"))
    assert after.canonical_state.candidate_count == 0 and after.canonical_state.concept_count == 0
