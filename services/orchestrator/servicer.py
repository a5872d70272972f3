"""The public InterviewService: a thin edge over the session, turn, export and catalogue logic."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import grpc.aio

from services.orchestrator.catalog import Catalog
from services.orchestrator.exporter import Exporter
from services.orchestrator.sessions import SessionService
from services.orchestrator.turns import TurnService
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc

_DONE = object()


class InterviewServicer(orchestrator_pb2_grpc.InterviewServiceServicer):
    """gRPC handlers; every handler converts, delegates, converts back (errors map in the bootstrap)."""

    def __init__(
        self, sessions: SessionService, turns: TurnService, exporter: Exporter, catalog: Catalog
    ) -> None:
        self._sessions = sessions
        self._turns = turns
        self._exporter = exporter
        self._catalog = catalog

    async def CreateSession(
        self, request: pb.CreateSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.CreateSessionResponse:
        """Create a session; returns it with the opening question."""
        session, question = await self._sessions.create(
            request.concept_id,
            request.methodology,
            request.max_turns,
            dict(request.metadata),
            request.request_id,
        )
        return pb.CreateSessionResponse(session=session, opening_question=question)

    async def SubmitTurn(
        self, request: pb.SubmitTurnRequest, context: grpc.aio.ServicerContext
    ) -> pb.SubmitTurnResponse:
        """Answer one turn (exactly once); returns the TurnResult."""
        result = await self._turns.submit(
            request.session_id, request.turn_number, request.text, request.request_id
        )
        return pb.SubmitTurnResponse(result=result)

    async def StreamTurn(
        self, request: pb.StreamTurnRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.StreamTurnResponse]:
        """Answer one turn, streaming stage events and question deltas, then the result."""
        queue: asyncio.Queue[object] = asyncio.Queue()

        async def emit(event: pb.StreamTurnResponse) -> None:
            await queue.put(event)

        async def run() -> pb.TurnResult:
            try:
                return await self._turns.submit(
                    request.session_id, request.turn_number, request.text, request.request_id, emit=emit
                )
            finally:
                await queue.put(_DONE)

        task = asyncio.ensure_future(run())
        try:
            while True:
                item = await queue.get()
                if item is _DONE:
                    break
                assert isinstance(item, pb.StreamTurnResponse)
                yield item
            yield pb.StreamTurnResponse(result=await task)
        finally:
            if not task.done():
                task.cancel()

    async def GetSession(
        self, request: pb.GetSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetSessionResponse:
        """A session with state, histories, usage and transcript."""
        return await self._sessions.get(request.session_id)

    async def ListSessions(
        self, request: pb.ListSessionsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListSessionsResponse:
        """Sessions, newest first, paginated, optionally by status."""
        return await self._sessions.list(request.page_size, request.page_token, request.status)

    async def GetSessionGraph(
        self, request: pb.GetSessionGraphRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetSessionGraphResponse:
        """Surface and canonical graph of a session."""
        return await self._sessions.graph(request.session_id)

    async def ExportSession(
        self, request: pb.ExportSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.ExportSessionResponse:
        """A session as json, markdown, csv, graphml or mermaid."""
        content, content_type, filename = await self._exporter.export(request.session_id, request.format)
        return pb.ExportSessionResponse(content=content, content_type=content_type, filename=filename)

    async def PauseSession(
        self, request: pb.PauseSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.PauseSessionResponse:
        """Pause an active session."""
        return pb.PauseSessionResponse(session=await self._sessions.pause(request.session_id))

    async def ResumeSession(
        self, request: pb.ResumeSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.ResumeSessionResponse:
        """Resume a paused session."""
        session, question = await self._sessions.resume(request.session_id)
        return pb.ResumeSessionResponse(session=session, current_question=question)

    async def EndSession(
        self, request: pb.EndSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.EndSessionResponse:
        """End a session now with a closing message."""
        session, message = await self._sessions.end(request.session_id)
        return pb.EndSessionResponse(session=session, closing_message=message)

    async def DeleteSession(
        self, request: pb.DeleteSessionRequest, context: grpc.aio.ServicerContext
    ) -> pb.DeleteSessionResponse:
        """Delete a session and its data in every service."""
        await self._sessions.delete(request.session_id)
        return pb.DeleteSessionResponse(session_id=request.session_id)

    async def ListConcepts(
        self, request: pb.ListConceptsRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListConceptsResponse:
        """Available concepts."""
        return self._catalog.list_concepts(request.page_size, request.page_token, request.methodology)

    async def GetConcept(
        self, request: pb.GetConceptRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetConceptResponse:
        """One concept."""
        return self._catalog.get_concept(request.concept_id)

    async def ListMethodologies(
        self, request: pb.ListMethodologiesRequest, context: grpc.aio.ServicerContext
    ) -> pb.ListMethodologiesResponse:
        """Available methodologies."""
        return self._catalog.list_methodologies(request.page_size, request.page_token)

    async def GetMethodology(
        self, request: pb.GetMethodologyRequest, context: grpc.aio.ServicerContext
    ) -> pb.GetMethodologyResponse:
        """One methodology in full."""
        return self._catalog.get_methodology(request.name)
