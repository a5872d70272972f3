"""Session lifecycle and read APIs: create, get, list, pause, resume, end, delete, graph."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from services.orchestrator.clients import Dependencies
from services.orchestrator.contracts import SessionState, UsageRecord
from services.orchestrator.convert import (
    STATUS_FROM_PB,
    concept_to_pb,
    page_limit,
    session_cursor,
    session_page_token,
    session_to_pb,
    utterance_to_pb,
)
from services.orchestrator.locks import SessionLocks
from services.orchestrator.models import SessionRow
from services.orchestrator.repository import OrchestratorRepository, utc_now
from services.orchestrator.settings import OrchestratorSettings
from services.orchestrator.stages.graph import complete_pending
from services.orchestrator.turn_errors import SessionEndedError
from shared.errors import AlreadyExistsError, FailedPreconditionError, InvalidArgumentError, NotFoundError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2
from shared.gen.interview.question.v1 import question_pb2
from shared.gen.interview.slots.v1 import slots_pb2
from shared.methodology import ConceptRegistry, MethodologyRegistry
from shared.validation import Violations

MAX_METADATA_ENTRIES = 32
MAX_METADATA_KEY = 64
MAX_METADATA_VALUE = 1024
MAX_TURNS_LIMIT = 200
_LIST_ALL = 500
_SESSION_NAMESPACE = uuid.UUID("6f1c2a4e-3b7d-5e8f-9a0b-1c2d3e4f5a6b")


class RequestIdReusedError(FailedPreconditionError):
    """CreateSession's request_id was used before for a different request (ErrorInfo reason
    REQUEST_ID_REUSED; metadata: the earlier session's id and the differing fields)."""


@dataclass(frozen=True)
class _CreateRequest:
    """The fields of a CreateSession request that shape the session, as sent."""

    concept_id: str
    methodology: str
    max_turns: int
    metadata: dict[str, str]


class SessionService:
    """Everything about sessions except running turns."""

    def __init__(
        self,
        settings: OrchestratorSettings,
        repo: OrchestratorRepository,
        deps: Dependencies,
        methodologies: MethodologyRegistry,
        concepts: ConceptRegistry,
        locks: SessionLocks,
    ) -> None:
        self._settings = settings
        self._repo = repo
        self._deps = deps
        self._methodologies = methodologies
        self._concepts = concepts
        self._locks = locks

    # -- create ---------------------------------------------------------------------------------
    async def create(
        self, concept_id: str, methodology: str, max_turns: int, metadata: Mapping[str, str], request_id: str
    ) -> tuple[orchestrator_pb2.Session, str]:
        """A new session and its opening question (idempotent on request_id)."""
        v = Violations()
        v.require_id(concept_id, "concept_id")
        if methodology:
            v.check(methodology in self._methodologies, "methodology", f"unknown methodology {methodology!r}")
        v.check(0 <= max_turns <= MAX_TURNS_LIMIT, "max_turns", f"must be 0 (default) to {MAX_TURNS_LIMIT}")
        v.check(len(metadata) <= MAX_METADATA_ENTRIES, "metadata", f"at most {MAX_METADATA_ENTRIES} entries")
        for key, value in metadata.items():
            v.check(0 < len(key) <= MAX_METADATA_KEY, f"metadata[{key[:20]}]", "key must be 1-64 characters")
            v.check(len(value) <= MAX_METADATA_VALUE, f"metadata[{key[:20]}]", "value is too long")
        if request_id:
            v.require_id(request_id, "request_id")
        v.raise_if_any()
        sent = _CreateRequest(concept_id, methodology, max_turns, dict(metadata))
        if request_id:
            existing = await self._repo.find_by_create_request(request_id)
            if existing is not None:
                return await self._replay(existing, sent)
        concept = self._concepts.get(concept_id)
        method = methodology or concept.methodology
        concept_pb = concept_to_pb(concept)
        # With a request id the session id derives from it: a client that repeats the call (or
        # replays a scripted interview against another deployment) gets the same id.
        session_id = uuid.uuid5(_SESSION_NAMESPACE, request_id).hex if request_id else uuid.uuid4().hex
        opening: question_pb2.GenerateOpeningQuestionResponse = await self._deps(
            self._deps.question.GenerateOpeningQuestion,
            question_pb2.GenerateOpeningQuestionRequest(
                session_id=session_id, methodology=method, concept=concept_pb
            ),
            service="question",
        )
        now = utc_now()
        state = SessionState()
        if opening.usage.calls or opening.usage.provider:
            state.usage["generation"] = UsageRecord(client="generation").add(opening.usage)
        row = SessionRow(
            id=session_id,
            concept_id=concept.id,
            concept_name=concept.name,
            concept={
                "id": concept.id,
                "name": concept.name,
                "methodology": method,
                "objective": concept.objective,
                "max_turns": concept.max_turns or 0,
                "vocabulary": list(concept.vocabulary),
            },
            methodology=method,
            status="active",
            max_turns=self._resolved_max_turns(max_turns, concept.max_turns or 0),
            turn_count=0,
            phase=common_pb2.INTERVIEW_PHASE_EARLY,
            termination_reason=0,
            metadata_=dict(metadata),
            current_question=opening.question,
            state=state.model_dump(mode="json"),
            node_tracker_state=None,
            canonical_enabled=self._settings.enable_canonical_slots,
            create_request_id=request_id or None,
            created_at=now,
            updated_at=now,
        )
        try:
            await self._repo.create_session(row, opening.question)
        except AlreadyExistsError:
            # A concurrent call with the same request id stored its session first (the unique
            # create_request_id, and the session id derived from it): answer as its retry would be.
            existing = await self._repo.find_by_create_request(request_id) if request_id else None
            if existing is None:
                raise
            return await self._replay(existing, sent)
        return session_to_pb(row), opening.question

    async def _replay(
        self, existing: SessionRow, sent: _CreateRequest
    ) -> tuple[orchestrator_pb2.Session, str]:
        """The session an earlier CreateSession with the same request id created, when this request
        is that one again; FAILED_PRECONDITION (nothing created) when the request id was used for a
        different request, as a silent replay would hand the client a session it did not ask for."""
        differing = self._create_differences(existing, sent)
        if differing:
            request_id = existing.create_request_id or ""
            # No "request_id" key: the error's ErrorInfo uses it for the call's tracing id.
            raise RequestIdReusedError(
                f"request_id {request_id!r} was already used by a different CreateSession request "
                f"(it differs in {', '.join(differing)}); send a new request_id to create another "
                "session, or repeat the original request unchanged to get its session",
                metadata={"session_id": existing.id, "fields": ",".join(differing)},
            )
        return session_to_pb(existing), await self._opening(existing.id)

    def _create_differences(self, existing: SessionRow, sent: _CreateRequest) -> list[str]:
        """The request fields in which a CreateSession differs from the one that created `existing`.

        The request as sent is not stored, so both sides are compared resolved, as `create` resolves
        them: an empty methodology is the concept's, max_turns 0 the concept's (from the snapshot
        stored with the session) or else the configured default. A request that resolves to the
        same session (max_turns 0 or the concept's own number) is the same request."""
        differing: list[str] = []
        if sent.concept_id != existing.concept_id:
            # The other fields resolve against another concept: this difference says it all.
            return ["concept_id"]
        if (sent.methodology or self._concept_methodology(existing)) != existing.methodology:
            differing.append("methodology")
        snapshot_max = int((existing.concept or {}).get("max_turns") or 0)
        if self._resolved_max_turns(sent.max_turns, snapshot_max) != existing.max_turns:
            differing.append("max_turns")
        if sent.metadata != dict(existing.metadata_ or {}):
            differing.append("metadata")
        return differing

    def _resolved_max_turns(self, requested: int, concept_max: int) -> int:
        """A session's max_turns: the request's, else the concept's, else the configured default."""
        return requested or concept_max or self._settings.default_max_turns

    def _concept_methodology(self, existing: SessionRow) -> str:
        """The concept's own methodology; the session's when the concept left the catalogue since
        (an identical retry must still get its session)."""
        try:
            return self._concepts.get(existing.concept_id).methodology
        except NotFoundError:
            return existing.methodology

    async def _opening(self, session_id: str) -> str:
        utterances = await self._repo.list_utterances(session_id)
        return next((u.text for u in utterances if u.turn_number == 0), "")

    # -- reads ----------------------------------------------------------------------------------
    async def get(self, session_id: str) -> orchestrator_pb2.GetSessionResponse:
        """The session and its transcript."""
        _require_session_id(session_id)
        row = await self._repo.get_session(session_id)
        utterances = await self._repo.list_utterances(session_id)
        return orchestrator_pb2.GetSessionResponse(
            session=session_to_pb(row), transcript=[utterance_to_pb(u, row.turn_count) for u in utterances]
        )

    async def list(
        self, page_size: int, page_token: str, status: int
    ) -> orchestrator_pb2.ListSessionsResponse:
        """A page of sessions, newest first (then by id).

        Keyset pagination: the token carries the last session's (create time, id) and the next page
        starts strictly after it, so a session created or deleted between two pages neither repeats
        nor skips one (an offset would shift by one). The token is bound to the status filter."""
        if status and status not in STATUS_FROM_PB:
            raise InvalidArgumentError.for_field("status", f"unknown session status {status}")
        limit = page_limit(page_size)
        status_name = STATUS_FROM_PB.get(status, "")  # type: ignore[call-overload]
        cursor = session_cursor(page_token, status_name)
        after = None if cursor is None else (cursor.create_time, cursor.session_id)
        # One row more than the page tells whether another page follows.
        rows, total = await self._repo.list_sessions(status_name or None, after, limit + 1)
        page = rows[:limit]
        return orchestrator_pb2.ListSessionsResponse(
            sessions=[session_to_pb(r) for r in page],
            next_page_token=session_page_token(status_name, page[-1]) if len(rows) > limit else "",
            total_size=total,
        )

    async def graph(self, session_id: str) -> orchestrator_pb2.GetSessionGraphResponse:
        """Surface graph, metrics and (when enabled) the canonical graph."""
        _require_session_id(session_id)
        row = await self._repo.get_session(session_id)
        deps = self._deps
        graph: graph_pb2.GetGraphResponse = await deps(
            deps.graph.GetGraph, graph_pb2.GetGraphRequest(session_id=session_id), service="graph_store"
        )
        state: graph_pb2.GetGraphStateResponse = await deps(
            deps.graph.GetGraphState,
            graph_pb2.GetGraphStateRequest(session_id=session_id, methodology=row.methodology),
            service="graph_store",
        )
        response = orchestrator_pb2.GetSessionGraphResponse(
            nodes=graph.nodes, edges=graph.edges, graph_state=state.graph_state
        )
        if self._canonical_on(row):
            await self.complete_pending_slots(row)
            await self._canonical(session_id, response)
        return response

    def _canonical_on(self, row: SessionRow) -> bool:
        return row.canonical_enabled and self._settings.enable_canonical_slots

    async def complete_pending_slots(self, row: SessionRow) -> None:
        """Make sure every answered turn's deferred slot discovery has completed.

        Deferred discovery runs after a turn's response; the next turn completes it, but a read of
        the canonical graph (or an end or a delete) may come first. Re-sending the stored request
        is idempotent per turn: a replay of the finished run, or a wait for the run in progress."""
        if self._canonical_on(row):
            await complete_pending(self._deps, SessionState.model_validate(row.state or {}).pending_slots)

    async def _canonical(self, session_id: str, out: orchestrator_pb2.GetSessionGraphResponse) -> None:
        deps = self._deps
        token = ""
        while True:
            slots: slots_pb2.ListSlotsResponse = await deps(
                deps.slots.ListSlots,
                slots_pb2.ListSlotsRequest(session_id=session_id, page_size=_LIST_ALL, page_token=token),
                service="canonical_slots",
            )
            out.slots.extend(slots.slots)
            token = slots.next_page_token
            if not token:
                break
        while True:
            mappings: slots_pb2.ListMappingsResponse = await deps(
                deps.slots.ListMappings,
                slots_pb2.ListMappingsRequest(session_id=session_id, page_size=_LIST_ALL, page_token=token),
                service="canonical_slots",
            )
            out.mappings.extend(mappings.mappings)
            token = mappings.next_page_token
            if not token:
                break
        while True:
            edges: slots_pb2.ListCanonicalEdgesResponse = await deps(
                deps.slots.ListCanonicalEdges,
                slots_pb2.ListCanonicalEdgesRequest(
                    session_id=session_id, page_size=_LIST_ALL, page_token=token
                ),
                service="canonical_slots",
            )
            out.canonical_edges.extend(edges.edges)
            token = edges.next_page_token
            if not token:
                break
        state: slots_pb2.GetCanonicalStateResponse = await deps(
            deps.slots.GetCanonicalState,
            slots_pb2.GetCanonicalStateRequest(
                session_id=session_id, surface_node_count=len(out.nodes), surface_edge_count=len(out.edges)
            ),
            service="canonical_slots",
        )
        out.canonical_state.CopyFrom(state.canonical_state)
        out.comparison.CopyFrom(state.comparison)

    # -- lifecycle ------------------------------------------------------------------------------
    async def pause(self, session_id: str) -> orchestrator_pb2.Session:
        """Active → paused (idempotent for a paused session)."""
        _require_session_id(session_id)
        async with self._locks.hold(session_id):
            row = await self._repo.get_session(session_id)
            if row.status == "completed":
                raise SessionEndedError.of_session()
            if row.status == "active":
                row = await self._repo.update_session(session_id, status="paused")
        return session_to_pb(row)

    async def resume(self, session_id: str) -> tuple[orchestrator_pb2.Session, str]:
        """Paused → active (idempotent for an active session)."""
        _require_session_id(session_id)
        async with self._locks.hold(session_id):
            row = await self._repo.get_session(session_id)
            if row.status == "completed":
                raise SessionEndedError.of_session()
            if row.status == "paused":
                row = await self._repo.update_session(session_id, status="active")
        return session_to_pb(row), row.current_question

    async def end(self, session_id: str) -> tuple[orchestrator_pb2.Session, str]:
        """End now with a closing message (idempotent for an ended session)."""
        _require_session_id(session_id)
        async with self._locks.hold(session_id):
            row = await self._repo.get_session(session_id)
            if row.status == "completed":
                return session_to_pb(row), row.current_question
            await self.complete_pending_slots(row)  # the ended session's canonical graph is whole
            utterances = await self._repo.list_utterances(session_id)
            recent = [
                common_pb2.ConversationTurn(speaker=u.speaker, text=u.text, turn_number=u.turn_number)
                for u in utterances[-self._settings.recent_turns :]
            ]
            closing: question_pb2.GenerateClosingMessageResponse = await self._deps(
                self._deps.question.GenerateClosingMessage,
                question_pb2.GenerateClosingMessageRequest(
                    session_id=session_id,
                    methodology=row.methodology,
                    concept=common_pb2.Concept(**row.concept),
                    recent_turns=recent,
                    termination_reason=common_pb2.TERMINATION_REASON_ENDED_BY_CLIENT,
                ),
                service="question",
            )
            await self._repo.save_utterance(
                session_id, row.turn_count + 1, common_pb2.SPEAKER_INTERVIEWER, closing.message
            )
            row = await self._repo.update_session(
                session_id,
                status="completed",
                current_question=closing.message,
                termination_reason=common_pb2.TERMINATION_REASON_ENDED_BY_CLIENT,
                ended_at=utc_now(),
            )
        return session_to_pb(row), closing.message

    async def delete(self, session_id: str) -> None:
        """Delete the session's data in every service (graph and slots first, then our own rows)."""
        _require_session_id(session_id)
        async with self._locks.hold(session_id):
            row = await self._repo.get_session(session_id)
            # A discovery still running after the last turn would write slots after the delete.
            await self.complete_pending_slots(row)
            await self._deps(
                self._deps.graph.DeleteSessionGraph,
                graph_pb2.DeleteSessionGraphRequest(session_id=session_id),
                service="graph_store",
            )
            if self._settings.enable_canonical_slots:
                await self._deps(
                    self._deps.slots.DeleteSessionSlots,
                    slots_pb2.DeleteSessionSlotsRequest(session_id=session_id),
                    service="canonical_slots",
                )
            await self._repo.delete_session(session_id)


def _require_session_id(session_id: str) -> None:
    v = Violations()
    v.require_id(session_id, "session_id")
    v.raise_if_any()
