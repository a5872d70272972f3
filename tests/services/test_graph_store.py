"""The graph_store service over real gRPC (port 0): health, reflection, INVALID_ARGUMENT with field
violations (nothing written), and ApplyExtraction → GetGraphState round trips on both databases."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
import pytest_asyncio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from services.graph_store.app import open_store
from services.graph_store.server import SERVICE_FULL_NAME, build_registrations
from services.graph_store.settings import GraphStoreSettings
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2, graph_pb2_grpc
from shared.methodology import MethodologyRegistry
from tests.rich_status import field_violations

CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"
MEC = "means_end_chain"
TEXT = "They're lightweight, so I can wear them all day, and that gives me peace of mind."

Served = tuple[graph_pb2_grpc.GraphServiceStub, grpc.aio.Channel]


@pytest_asyncio.fixture
async def served(db_url: str, grpc_server_factory: Any, embedder: Any) -> AsyncIterator[Served]:
    """The real server on 127.0.0.1:0 over a fresh database (SQLite and PostgreSQL)."""
    settings = GraphStoreSettings(database_url=db_url, config_dir=CONFIG_DIR, log_json=False)
    registry = MethodologyRegistry(CONFIG_DIR)
    async with open_store(settings, embedder=embedder, methodologies=registry) as store:
        _, channel = await grpc_server_factory(settings, build_registrations(settings, store))
        yield graph_pb2_grpc.GraphServiceStub(channel), channel


def _concept(label: str, node_type: str, quote: str = "") -> common_pb2.ExtractedConcept:
    q = common_pb2.Quote(text=quote) if quote else None
    return common_pb2.ExtractedConcept(label=label, node_type=node_type, confidence=0.9, stance=1, quote=q)


def _apply(
    session_id: str = "s-1", utterance_id: str = "u-1", **overrides: Any
) -> graph_pb2.ApplyExtractionRequest:
    req = graph_pb2.ApplyExtractionRequest(
        session_id=session_id,
        utterance_id=utterance_id,
        turn_number=1,
        methodology=MEC,
        utterance_text=TEXT,
        concepts=[
            _concept("lightweight", "attribute", "lightweight"),
            _concept("wear them all day", "functional_consequence", "I can wear them all day"),
            _concept("peace of mind", "terminal_value", "PEACE of mind"),
        ],
        relationships=[
            common_pb2.ExtractedRelationship(
                source_label="lightweight",
                target_label="wear them all day",
                edge_type="leads_to",
                confidence=0.8,
            ),
            common_pb2.ExtractedRelationship(
                source_label="wear them all day",
                target_label="peace of mind",
                edge_type="leads_to",
                confidence=0.8,
            ),
            common_pb2.ExtractedRelationship(
                source_label="peace of mind", target_label="lightweight", edge_type="leads_to", confidence=0.8
            ),
        ],
    )
    for key, value in overrides.items():
        if key in ("concepts", "relationships"):
            del getattr(req, key)[:]
            getattr(req, key).extend(value)
        else:
            setattr(req, key, value)
    return req


async def test_health_and_reflection(served: Served) -> None:
    _, channel = served
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE_FULL_NAME):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
    call = reflection.ServerReflectionInfo()
    await call.write(reflection_pb2.ServerReflectionRequest(list_services=""))
    reply = await call.read()
    await call.done_writing()
    names = {s.name for s in reply.list_services_response.service}
    assert {"interview.graph.v1.GraphService", "grpc.health.v1.Health"} <= names


async def test_apply_then_graph_state_round_trip(served: Served) -> None:
    stub, _ = served
    reply = await stub.ApplyExtraction(_apply())
    assert [n.label for n in reply.nodes_created] == ["lightweight", "wear them all day", "peace of mind"]
    node = reply.nodes_created[2]
    assert (node.level, node.is_terminal, node.stance, node.created_turn) == (5, True, 1, 1)
    assert len(node.embedding) == 384
    assert node.quotes[0].text == "peace of mind"
    assert TEXT[node.quotes[0].start : node.quotes[0].end] == "peace of mind"
    assert list(node.source_utterance_ids) == ["u-1"]
    assert len(reply.edges_created) == 2
    assert len(reply.warnings) == 1 and reply.warnings[0].startswith(
        "relationships[2]: connection_not_permitted"
    )
    assert reply.replayed is False
    assert reply.graph_state.depth.max_depth == 3

    state = (
        await stub.GetGraphState(graph_pb2.GetGraphStateRequest(session_id="s-1", methodology=MEC))
    ).graph_state
    assert state == reply.graph_state
    assert (state.node_count, state.edge_count, state.orphan_count) == (3, 2, 0)
    assert dict(state.nodes_by_type) == {"attribute": 1, "functional_consequence": 1, "terminal_value": 1}
    assert state.depth.max_depth_normalized == pytest.approx(3 / 5)
    assert list(state.depth.longest_chain_path) == [n.id for n in reply.nodes_created]
    assert list(state.depth.longest_chain_edge_types) == [e.edge_type for e in reply.edges_created]
    assert state.chain_completion.has_complete and state.chain_completion.ratio == 1.0
    degrees = {d.node_id: (d.in_degree, d.out_degree) for d in state.node_degrees}
    assert degrees[reply.nodes_created[1].id] == (1, 1)

    again = await stub.ApplyExtraction(_apply())
    assert again.replayed is True
    assert [n.id for n in again.nodes_created] == [n.id for n in reply.nodes_created]
    second = await stub.ApplyExtraction(
        _apply(
            utterance_id="u-2",
            turn_number=2,
            utterance_text="Light ones, yes.",
            concepts=[_concept("Lightweight", "attribute", "light")],
            relationships=[],
        )
    )
    assert list(second.nodes_created) == []
    assert second.nodes_mentioned[0].match_kind == graph_pb2.MATCH_KIND_EXACT
    assert list(second.nodes_mentioned[0].node.source_utterance_ids) == ["u-1", "u-2"]

    page = await stub.ListNodes(graph_pb2.ListNodesRequest(session_id="s-1", page_size=2))
    rest = await stub.ListNodes(
        graph_pb2.ListNodesRequest(session_id="s-1", page_size=2, page_token=page.next_page_token)
    )
    assert page.total_size == 3 and [n.label for n in list(page.nodes) + list(rest.nodes)] == [
        "lightweight",
        "wear them all day",
        "peace of mind",
    ]
    hits = await stub.SearchNodes(
        graph_pb2.SearchNodesRequest(session_id="s-1", query="feeling calm and secure", limit=1)
    )
    assert hits.results[0].node.label == "peace of mind"
    assert list(hits.results[0].node.source_utterance_ids) == ["u-1"]
    await _views_differ_only_in_provenance(stub, [n.id for n in reply.nodes_created])
    graph = await stub.GetGraph(graph_pb2.GetGraphRequest(session_id="s-1"))
    assert len(graph.nodes) == 3 and len(graph.edges) == 2 and all(not n.embedding for n in graph.nodes)
    deleted = await stub.DeleteSessionGraph(graph_pb2.DeleteSessionGraphRequest(session_id="s-1"))
    assert (deleted.nodes_deleted, deleted.edges_deleted) == (3, 2)


async def _views_differ_only_in_provenance(stub: graph_pb2_grpc.GraphServiceStub, ids: list[str]) -> None:
    """The basic view is the full node minus its provenance, on every read that takes a view."""
    basic, full = graph_pb2.NODE_VIEW_BASIC, graph_pb2.NODE_VIEW_FULL
    reads = {
        "list": lambda view: stub.ListNodes(graph_pb2.ListNodesRequest(session_id="s-1", view=view)),
        "batch": lambda view: stub.BatchGetNodes(
            graph_pb2.BatchGetNodesRequest(session_id="s-1", node_ids=ids, view=view)
        ),
        "search": lambda view: stub.SearchNodes(
            graph_pb2.SearchNodesRequest(session_id="s-1", query="light", limit=3, view=view)
        ),
    }
    for name, read in reads.items():
        plain, rich = await read(basic), await read(full)
        if name == "search":
            plain_nodes = [r.node for r in plain.results]
            rich_nodes = [r.node for r in rich.results]
        else:
            plain_nodes, rich_nodes = list(plain.nodes), list(rich.nodes)
        assert len(plain_nodes) == 3, name
        assert all(n.source_utterance_ids and n.quotes for n in rich_nodes), name
        for p, r in zip(plain_nodes, rich_nodes, strict=True):
            assert not p.source_utterance_ids and not p.quotes, name
            stripped = common_pb2.Node()
            stripped.CopyFrom(r)
            del stripped.source_utterance_ids[:]
            del stripped.quotes[:]
            assert p == stripped, name


@pytest.mark.parametrize(
    ("overrides", "fields"),
    [
        ({"session_id": ""}, {"session_id"}),
        ({"turn_number": -1}, {"turn_number"}),
        (
            {"concepts": [_concept("", "attribute"), _concept("x", "feeling")]},
            {"concepts[0].label", "concepts[1].node_type"},
        ),
        ({"methodology": "astrology"}, {"methodology"}),
    ],
)
async def test_bad_apply_request_is_invalid_argument_and_changes_nothing(
    served: Served, overrides: dict[str, Any], fields: set[str]
) -> None:
    stub, _ = served
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.ApplyExtraction(_apply(**overrides))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert fields <= set(field_violations(err.value))
    graph = await stub.GetGraph(graph_pb2.GetGraphRequest(session_id="s-1"))
    assert len(graph.nodes) == 0
    # The same utterance id is still free: a valid request afterwards is applied, not replayed.
    assert (await stub.ApplyExtraction(_apply())).replayed is False


async def test_other_rpcs_validate_their_fields(served: Served) -> None:
    stub, _ = served
    cases = [
        (
            stub.GetGraphState(graph_pb2.GetGraphStateRequest(session_id="", methodology="")),
            {"session_id", "methodology"},
        ),
        (stub.ListNodes(graph_pb2.ListNodesRequest(session_id="s", page_size=-1)), {"page_size"}),
        (stub.ListEdges(graph_pb2.ListEdgesRequest(session_id="s", page_token="garbage")), {"page_token"}),
        (
            stub.BatchGetNodes(graph_pb2.BatchGetNodesRequest(session_id="s", node_ids=["a", ""])),
            {"node_ids[1]"},
        ),
        (stub.SearchNodes(graph_pb2.SearchNodesRequest(session_id="s", query=" ")), {"query"}),
        (stub.ListNodes(graph_pb2.ListNodesRequest(session_id="s", view=7)), {"view"}),  # type: ignore[arg-type]
        (
            stub.BatchGetNodes(graph_pb2.BatchGetNodesRequest(session_id="s", node_ids=["a"], view=9)),  # type: ignore[arg-type]
            {"view"},
        ),
        (stub.SearchNodes(graph_pb2.SearchNodesRequest(session_id="s", query="q", view=-1)), {"view"}),  # type: ignore[arg-type]
        (stub.DeleteSessionGraph(graph_pb2.DeleteSessionGraphRequest(session_id="bad id!")), {"session_id"}),
    ]
    for call, fields in cases:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            await call
        assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert fields <= set(field_violations(err.value)), err.value.details()
