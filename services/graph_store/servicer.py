"""The gRPC servicer of `interview.graph.v1.GraphService`: validate, convert, call the store.

Domain errors propagate to the server's error-mapping interceptor (INVALID_ARGUMENT with field
violations, ...). Every request is validated before the store is touched, so bad input changes
nothing. The graph store does not own sessions: a session it has never seen has an empty graph.
"""

from __future__ import annotations

import grpc

from shared.gen.interview.graph.v1 import graph_pb2, graph_pb2_grpc
from shared.validation import Violations

from . import convert
from .store import MAX_SEARCH_LIMIT, GraphStore

MAX_BATCH_IDS = 1000


def _session(v: Violations, session_id: str) -> None:
    v.require_id(session_id, "session_id")


_VIEWS = {graph_pb2.NODE_VIEW_UNSPECIFIED, graph_pb2.NODE_VIEW_BASIC, graph_pb2.NODE_VIEW_FULL}


def _view(v: Violations, view: int) -> None:
    v.check(view in _VIEWS, "view", f"unknown value {view}")


def _with_provenance(view: int) -> bool:
    """Provenance is left out only when the caller asked for the basic view."""
    return view != graph_pb2.NODE_VIEW_BASIC


class GraphServicer(graph_pb2_grpc.GraphServiceServicer):
    """`interview.graph.v1.GraphService` over a `GraphStore`."""

    def __init__(self, store: GraphStore, *, max_text_chars: int) -> None:
        self._store = store
        self._max_text_chars = max_text_chars

    async def ApplyExtraction(
        self, request: graph_pb2.ApplyExtractionRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.ApplyExtractionResponse:
        """Apply one utterance's extraction; a repeat of the utterance id returns the stored result."""
        # Field validation (ids, turn, labels, node types against the ontology) is the store's,
        # shared with direct callers; it runs before any write.
        result = await self._store.apply_extraction(convert.extraction_input(request))
        return convert.apply_response(result)

    async def GetGraphState(
        self, request: graph_pb2.GetGraphStateRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.GetGraphStateResponse:
        """Node/edge counts, depth metrics, chain completion and node degrees of the session graph."""
        v = Violations()
        _session(v, request.session_id)
        v.check(bool(request.methodology.strip()), "methodology", "must not be empty")
        v.raise_if_any()
        state = await self._store.graph_state(request.session_id, request.methodology)
        return graph_pb2.GetGraphStateResponse(graph_state=convert.graph_state(state))

    async def ListNodes(
        self, request: graph_pb2.ListNodesRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.ListNodesResponse:
        """One page of nodes in creation order (page_size default 50, at most 500)."""
        v = Violations()
        _session(v, request.session_id)
        v.require_range(request.page_size, "page_size", minimum=0)
        _view(v, request.view)
        v.raise_if_any()
        page = await self._store.list_nodes(
            request.session_id,
            request.page_size,
            request.page_token,
            request.node_type,
            provenance=_with_provenance(request.view),
        )
        return graph_pb2.ListNodesResponse(
            nodes=[convert.node(n) for n in page.nodes],
            next_page_token=page.next_page_token,
            total_size=page.total_size,
        )

    async def ListEdges(
        self, request: graph_pb2.ListEdgesRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.ListEdgesResponse:
        """One page of edges in creation order (page_size default 50, at most 500)."""
        v = Violations()
        _session(v, request.session_id)
        v.require_range(request.page_size, "page_size", minimum=0)
        v.raise_if_any()
        page = await self._store.list_edges(
            request.session_id, request.page_size, request.page_token, request.edge_type
        )
        return graph_pb2.ListEdgesResponse(
            edges=[convert.edge(e) for e in page.edges],
            next_page_token=page.next_page_token,
            total_size=page.total_size,
        )

    async def GetGraph(
        self, request: graph_pb2.GetGraphRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.GetGraphResponse:
        """The whole session graph, for export (embeddings on request)."""
        v = Violations()
        _session(v, request.session_id)
        v.raise_if_any()
        nodes, edges = await self._store.get_graph(
            request.session_id, include_embeddings=request.include_embeddings
        )
        return graph_pb2.GetGraphResponse(
            nodes=[convert.node(n, with_embedding=request.include_embeddings) for n in nodes],
            edges=[convert.edge(e) for e in edges],
        )

    async def BatchGetNodes(
        self, request: graph_pb2.BatchGetNodesRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.BatchGetNodesResponse:
        """The session's nodes with the given ids, in request order; unknown ids are omitted."""
        v = Violations()
        _session(v, request.session_id)
        v.check(len(request.node_ids) <= MAX_BATCH_IDS, "node_ids", f"at most {MAX_BATCH_IDS} ids per call")
        for i, node_id in enumerate(request.node_ids):
            v.check(bool(node_id.strip()), f"node_ids[{i}]", "must not be empty")
        _view(v, request.view)
        v.raise_if_any()
        nodes = await self._store.batch_get_nodes(
            request.session_id, list(request.node_ids), provenance=_with_provenance(request.view)
        )
        return graph_pb2.BatchGetNodesResponse(nodes=[convert.node(n) for n in nodes])

    async def SearchNodes(
        self, request: graph_pb2.SearchNodesRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.SearchNodesResponse:
        """The nodes most similar to the query text (cosine of embeddings), best first."""
        v = Violations()
        _session(v, request.session_id)
        v.require_text(request.query, "query", self._max_text_chars)
        v.require_range(request.limit, "limit", minimum=0, maximum=MAX_SEARCH_LIMIT)
        _view(v, request.view)
        v.raise_if_any()
        hits = await self._store.search_nodes(
            request.session_id, request.query, request.limit, provenance=_with_provenance(request.view)
        )
        return graph_pb2.SearchNodesResponse(results=[convert.scored_node(h) for h in hits])

    async def DeleteSessionGraph(
        self, request: graph_pb2.DeleteSessionGraphRequest, context: grpc.aio.ServicerContext
    ) -> graph_pb2.DeleteSessionGraphResponse:
        """Delete the session's graph; deleting an empty or already deleted graph returns zeros."""
        v = Violations()
        _session(v, request.session_id)
        v.raise_if_any()
        result = await self._store.delete_session_graph(request.session_id)
        return graph_pb2.DeleteSessionGraphResponse(
            nodes_deleted=result.nodes_deleted, edges_deleted=result.edges_deleted
        )
