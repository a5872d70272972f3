"""The gRPC servicer: protobuf in, domain call, protobuf out (no logic here).

Domain errors (`InvalidArgumentError`, `LLM*Error`, ...) propagate to the server's error-mapping
interceptor, which turns them into status codes with field violations.
"""

from __future__ import annotations

import grpc

from shared.gen.interview.slots.v1 import slots_pb2, slots_pb2_grpc

from . import convert
from .discovery import SlotDiscovery
from .queries import SlotQueries
from .validation import validate_state


class CanonicalSlotServicer(slots_pb2_grpc.CanonicalSlotServiceServicer):
    """`interview.slots.v1.CanonicalSlotService`."""

    def __init__(self, discovery: SlotDiscovery, queries: SlotQueries) -> None:
        self._discovery = discovery
        self._queries = queries

    async def DiscoverSlots(
        self, request: slots_pb2.DiscoverSlotsRequest, context: grpc.aio.ServicerContext
    ) -> slots_pb2.DiscoverSlotsResponse:
        """Map a turn's new surface nodes to slots; a repeat of (session, turn) returns the stored result."""
        result = await self._discovery.discover(convert.discover_request(request))
        return convert.discover_response(result)

    async def GetCanonicalState(
        self, request: slots_pb2.GetCanonicalStateRequest, context: grpc.aio.ServicerContext
    ) -> slots_pb2.GetCanonicalStateResponse:
        """Canonical metrics and the surface-vs-canonical comparison."""
        validate_state(request.session_id, request.surface_node_count, request.surface_edge_count)
        report = await self._queries.canonical_state(request.session_id, convert.surface_counts(request))
        return convert.state_response(report)

    async def ListSlots(
        self, request: slots_pb2.ListSlotsRequest, context: grpc.aio.ServicerContext
    ) -> slots_pb2.ListSlotsResponse:
        """One page of slots, optionally filtered by status."""
        page = await self._queries.list_slots(
            request.session_id,
            status=convert.status_filter(request.status),
            size=request.page_size,
            token=request.page_token,
        )
        return slots_pb2.ListSlotsResponse(
            slots=[convert.slot(s) for s in page.items],
            next_page_token=page.next_page_token,
            total_size=page.total_size,
        )

    async def ListMappings(
        self, request: slots_pb2.ListMappingsRequest, context: grpc.aio.ServicerContext
    ) -> slots_pb2.ListMappingsResponse:
        """One page of surface-node → slot mappings."""
        page = await self._queries.list_mappings(
            request.session_id, size=request.page_size, token=request.page_token
        )
        return slots_pb2.ListMappingsResponse(
            mappings=[convert.mapping(m) for m in page.items],
            next_page_token=page.next_page_token,
            total_size=page.total_size,
        )

    async def ListCanonicalEdges(
        self, request: slots_pb2.ListCanonicalEdgesRequest, context: grpc.aio.ServicerContext
    ) -> slots_pb2.ListCanonicalEdgesResponse:
        """One page of canonical edges."""
        page = await self._queries.list_edges(
            request.session_id, size=request.page_size, token=request.page_token
        )
        return slots_pb2.ListCanonicalEdgesResponse(
            edges=[convert.edge(e) for e in page.items],
            next_page_token=page.next_page_token,
            total_size=page.total_size,
        )

    async def ResolveNodes(
        self, request: slots_pb2.ResolveNodesRequest, context: grpc.aio.ServicerContext
    ) -> slots_pb2.ResolveNodesResponse:
        """Surface node ids → slot ids (unmapped ids omitted)."""
        return slots_pb2.ResolveNodesResponse(
            slot_ids=await self._queries.resolve(request.session_id, list(request.node_ids))
        )

    async def DeleteSessionSlots(
        self, request: slots_pb2.DeleteSessionSlotsRequest, context: grpc.aio.ServicerContext
    ) -> slots_pb2.DeleteSessionSlotsResponse:
        """Delete the session's slots, mappings, canonical edges and run records (idempotent)."""
        counts = await self._queries.delete_session(request.session_id)
        return slots_pb2.DeleteSessionSlotsResponse(slots_deleted=counts.slots)
