"""`discover_slots`: map one turn's new surface nodes to canonical slots and aggregate its edges.

Idempotent on (session_id, turn_number): the result of a completed run is stored in the same
transaction as its writes, and a repeat returns it without writing anything.

The slow part (the LLM proposal and embeddings) runs before any lock or transaction. The writes
then happen in one transaction under a per-session lock (asyncio lock in-process, plus
`pg_advisory_xact_lock` on PostgreSQL for other replicas), which re-reads the slots and mappings,
so concurrent calls for one session never corrupt support counts or create duplicate slots.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import structlog
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession, async_sessionmaker

from shared.embeddings import EMBEDDING_DIM, from_bytes, to_bytes
from shared.errors import InvalidArgumentError, NotFoundError
from shared.llm.base import LLMUsage
from shared.methodology_models import MethodologyConfig

from .domain import (
    DiscoverSlotsInput,
    DiscoveryResult,
    MatchKind,
    NodeAssignment,
    SlotMapping,
    SlotStatus,
    SurfaceEdgeIn,
    SurfaceNodeIn,
)
from .edges import aggregate_edges
from .lemmas import Lemmatizer
from .locks import SessionLocks
from .merge import SlotIndex, SlotMatch
from .proposal import (
    PreparedNode,
    Proposal,
    ProposalContext,
    ProposalOutcome,
    SlotProposer,
    single_node_proposal,
)
from .record import (
    Mapping,
    RunWrites,
    SlotRecord,
    mapped_node_count,
    mappings_of,
    session_edges,
    session_slots,
    slot_names_by_type,
    stored_run,
    write_run,
)
from .repository import lock_session
from .state import SlotStat, canonical_state
from .validation import validate_discover
from .vectors import FloatArray, TextEncoder, normalise, slot_text
from .views import slot_view

logger = structlog.get_logger(__name__)

MethodologyLookup = Callable[[str], MethodologyConfig]
_PROMPT_NAMES_PER_TYPE = 40  # existing slot names shown to the model, per node type
_WARM_UP_SESSION = "canonical-slots-warm-up"  # never committed (see SlotDiscovery.warm_up)


@dataclass(frozen=True)
class DiscoveryConfig:
    """Thresholds and limits of discovery (from the service settings)."""

    similarity_threshold: float = 0.60
    min_support: int = 2
    max_nodes: int = 500
    max_label_chars: int = 500


@dataclass
class _RunLog:
    """What one run changed (becomes the DiscoveryResult)."""

    created: dict[str, SlotRecord] = field(default_factory=dict)
    updated: dict[str, SlotRecord] = field(default_factory=dict)
    promoted: list[SlotRecord] = field(default_factory=list)
    mappings: list[SlotMapping] = field(default_factory=list)
    assignments: dict[str, NodeAssignment] = field(default_factory=dict)


class SlotDiscovery:
    """The write path of the service."""

    def __init__(
        self,
        *,
        sessions: async_sessionmaker[AsyncSession],
        encoder: TextEncoder,
        lemmatizer: Lemmatizer,
        proposer: SlotProposer,
        methodologies: MethodologyLookup,
        locks: SessionLocks,
        config: DiscoveryConfig,
    ) -> None:
        self._sessions = sessions
        self._encoder = encoder
        self._lemmatizer = lemmatizer
        self._proposer = proposer
        self._methodologies = methodologies
        self._locks = locks
        self._config = config
        # Runs in progress by (session, turn). The orchestrator's deferred discovery and the next
        # turn's completion of it often arrive together; the second waits for the first instead of
        # proposing and encoding everything again only to find the stored run at the end.
        self._in_flight: dict[tuple[str, int], asyncio.Task[DiscoveryResult]] = {}

    def _methodology(self, name: str) -> MethodologyConfig | None:
        try:
            return self._methodologies(name)
        except NotFoundError:
            return None

    async def discover(self, req: DiscoverSlotsInput) -> DiscoveryResult:
        """Map `req.nodes` to slots (creating, merging, promoting) and aggregate `req.edges`.

        Idempotent per (session, turn): a repeat returns the stored run marked `replayed`, and a
        repeat while the first run is still in progress waits for it (single flight)."""
        key = (req.session_id, req.turn_number)
        running = self._in_flight.get(key)
        if running is not None:
            try:
                result = await asyncio.shield(running)
            except Exception:
                return await self._discover_once(req)
            return result.model_copy(update={"replayed": True})
        task = asyncio.ensure_future(self._discover_once(req))
        self._in_flight[key] = task
        task.add_done_callback(lambda _: self._in_flight.pop(key, None))
        # Shielded: a caller that gives up (deadline, cancelled RPC) does not cancel the run that
        # a concurrent duplicate is waiting for; the run completes and is stored either way.
        return await asyncio.shield(task)

    async def _discover_once(self, req: DiscoverSlotsInput) -> DiscoveryResult:
        methodology = self._methodology(req.methodology) if req.methodology else None
        validate_discover(
            req,
            methodology,
            max_label_chars=self._config.max_label_chars,
            max_nodes=self._config.max_nodes,
            embedding_dim=EMBEDDING_DIM,
        )
        if methodology is None:  # unreachable: validation rejects an unknown methodology
            raise InvalidArgumentError.for_field("methodology", "unknown methodology")
        async with self._sessions() as db:
            conn = await db.connection()
            prior = await stored_run(conn, req.session_id, req.turn_number)
            if prior is not None:
                return prior.model_copy(update={"replayed": True})
            mapped = await mappings_of(conn, req.session_id, [n.id for n in req.nodes])
            names = await slot_names_by_type(conn, req.session_id)
        nodes = [self._prepare(n.id, n.label, n.node_type, n.embedding) for n in req.nodes]
        todo = [n for n in nodes if n.id not in mapped]
        context = ProposalContext(
            session_id=req.session_id,
            methodology=methodology.name,
            type_descriptions={t.name: t.description for t in methodology.ontology.nodes},
            existing_slot_names={t: ns[:_PROMPT_NAMES_PER_TYPE] for t, ns in names.names.items()},
        )
        outcome = await self._proposer.propose(todo, context) if todo else None
        proposals = outcome.proposals if outcome else []
        # Merge keys once: they pick the texts to encode here and the name matches under the lock.
        keys = [self._lemmatizer.name_key(p.slot_name) for p in proposals]
        vectors = await self._proposal_vectors(proposals, keys, names.keys)
        async with self._locks.hold(req.session_id), self._sessions() as db, db.begin():
            conn = await db.connection()
            await lock_session(conn, req.session_id)
            prior = await stored_run(conn, req.session_id, req.turn_number)
            if prior is not None:  # a concurrent duplicate finished while we were proposing
                return prior.model_copy(update={"replayed": True})
            result = await self._record(conn, req, nodes, proposals, keys, vectors, outcome)
        logger.info(
            "slots.discovered",
            session_id=req.session_id,
            turn_number=req.turn_number,
            slots_created=len(result.slots_created),
            mappings_created=len(result.mappings_created),
            llm_calls=result.llm_usage.calls,
        )
        return result

    async def _proposal_vectors(
        self, proposals: Sequence[Proposal], keys: Sequence[str], existing_keys: dict[str, set[str]]
    ) -> list[FloatArray | None]:
        """The embeddings of the proposals' slot texts (one batch), None for a proposal named like
        an existing slot of its type: it merges into that slot by name, which needs no vector. The
        model is shown the session's slot names to reuse, so in a long interview many proposals
        are such namesakes, and their texts are the run's largest cost (`keys`: the proposals'
        merge keys)."""
        wanted = [
            i
            for i, (p, key) in enumerate(zip(proposals, keys, strict=True))
            if not key or key not in existing_keys.get(p.node_type, ())
        ]
        vectors: list[FloatArray | None] = [None] * len(proposals)
        if wanted:
            texts = [slot_text(proposals[i].slot_name, proposals[i].description) for i in wanted]
            for i, vector in zip(wanted, await self._encoder.aencode(texts), strict=True):
                vectors[i] = vector
        return vectors

    async def _record(
        self,
        conn: AsyncConnection,
        req: DiscoverSlotsInput,
        nodes: Sequence[PreparedNode],
        proposals: Sequence[Proposal],
        keys: Sequence[str],
        vectors: Sequence[FloatArray | None],
        outcome: ProposalOutcome | None,
    ) -> DiscoveryResult:
        """The writes of one run inside the caller's locked transaction, and its stored result."""
        writes = RunWrites(slots=await session_slots(conn, req.session_id))
        log = await self._apply(conn, req, nodes, proposals, keys, vectors, writes)
        run_mappings = {m.surface_node_id: m.slot_id for m in writes.mappings}
        edges = await session_edges(conn, req.session_id)
        edges_created, edges_updated, pending = await aggregate_edges(conn, req, run_mappings, edges, writes)
        # The metrics after the run, from what it holds (mappings are only ever added).
        stored = await mapped_node_count(conn, req.session_id)
        state = canonical_state(
            [SlotStat(s.id, SlotStatus(s.status), s.support_count) for s in writes.slots],
            [(e.source_slot_id, e.target_slot_id) for e in edges],
            mapped_node_count=stored + len(writes.mappings),
        )
        result = DiscoveryResult(
            session_id=req.session_id,
            turn_number=req.turn_number,
            assignments=tuple(log.assignments[n.id] for n in nodes if n.id in log.assignments),
            slots_created=tuple(slot_view(r) for r in log.created.values()),
            slots_updated=tuple(slot_view(r) for r in log.updated.values()),
            slots_promoted=tuple(slot_view(r) for r in log.promoted),
            mappings_created=tuple(log.mappings),
            edges_created=tuple(edges_created),
            edges_updated=tuple(edges_updated),
            pending_edge_count=pending,
            warnings=tuple(outcome.warnings) if outcome else (),
            llm_usage=outcome.usage if outcome else LLMUsage(),
            canonical_state=state,
        )
        await write_run(conn, writes, result)
        return result

    async def warm_up(self, methodology: str) -> None:
        """Run a discovery's reads and writes once in a transaction that is rolled back.

        SQLAlchemy compiles each statement on first use, and the first lemmatisation and slot-text
        encoding set up their pipelines: together several tens of ms that the first respondent's
        turn paid (bench/run_bench.py, "first turn after start"). Start-up pays them instead; no
        LLM is called (proposals are one slot per node) and nothing is written.
        """
        config = self._methodologies(methodology)
        edge = next(e for e in config.ontology.edges if e.permitted_connections)
        (source_type, target_type) = edge.permitted_connections[0]
        sid = _WARM_UP_SESSION
        labels = ["battery life", "fewer worries"]
        vectors = await self._encoder.aencode(labels)
        req = DiscoverSlotsInput(
            session_id=sid,
            turn_number=1,
            methodology=methodology,
            nodes=tuple(
                SurfaceNodeIn(id=f"{sid}-n{i}", label=label, node_type=node_type)
                for i, (label, node_type) in enumerate(zip(labels, (source_type, target_type), strict=True))
            ),
            edges=(
                SurfaceEdgeIn(
                    id=f"{sid}-e", source_node_id=f"{sid}-n0", target_node_id=f"{sid}-n1", edge_type=edge.name
                ),
            ),
        )
        nodes = [
            PreparedNode(id=n.id, label=n.label, node_type=n.node_type, vector=v)
            for n, v in zip(req.nodes, vectors, strict=True)
        ]
        proposals = [single_node_proposal(n, "offline") for n in nodes]
        slot_vectors = await self._encoder.aencode([slot_text(p.slot_name, p.description) for p in proposals])
        async with self._sessions() as db:
            transaction = await db.begin()
            try:
                conn = await db.connection()
                await lock_session(conn, sid)
                await stored_run(conn, sid, 1)
                await slot_names_by_type(conn, sid)
                keys = [self._lemmatizer.name_key(p.slot_name) for p in proposals]
                await self._record(conn, req, nodes, proposals, keys, list(slot_vectors), None)
                await mappings_of(conn, sid, [n.id for n in nodes])
            finally:
                await transaction.rollback()
        logger.info("slots.warm_up.done", methodology=methodology)

    def _prepare(self, node_id: str, label: str, node_type: str, embedding: Sequence[float]) -> PreparedNode:
        vector: FloatArray | None = None
        if embedding:
            vector = normalise(np.asarray(embedding, dtype=np.float32))
        return PreparedNode(id=node_id, label=label.strip(), node_type=node_type, vector=vector)

    async def _apply(
        self,
        conn: AsyncConnection,
        req: DiscoverSlotsInput,
        nodes: Sequence[PreparedNode],
        proposals: Sequence[Proposal],
        keys: Sequence[str],
        vectors: Sequence[FloatArray | None],
        writes: RunWrites,
    ) -> _RunLog:
        """Merge proposals into the session's slots (`writes.slots`), map nodes, promote (inside the
        lock); new mappings go to `writes.mappings`."""
        log = _RunLog()
        rows = {row.id: row for row in writes.slots}
        index = SlotIndex(self._config.similarity_threshold)
        for row in writes.slots:
            index.add(row.id, row.node_type, row.name_key, from_bytes(row.embedding))
        existing = await mappings_of(conn, req.session_id, [n.id for n in nodes])
        for node_id, mapping in existing.items():
            slot = rows[mapping.slot_id]
            log.assignments[node_id] = NodeAssignment(
                surface_node_id=node_id,
                slot_id=slot.id,
                slot_name=slot.slot_name,
                similarity=mapping.similarity,
                match=MatchKind.EXISTING_MAPPING,
            )
        labels = {n.id: n.label for n in nodes}
        for proposal, key, vector in zip(proposals, keys, vectors, strict=True):
            node_ids = [i for i in proposal.node_ids if i not in log.assignments]
            if not node_ids:
                continue  # mapped meanwhile by a concurrent run of another turn
            match = index.match_name(proposal.node_type, key) if vector is None else None
            if match is None:
                if vector is None:  # its namesake went with the session (deleted meanwhile)
                    (vector,) = await self._encoder.aencode(
                        [slot_text(proposal.slot_name, proposal.description)]
                    )
                match = index.match(proposal.node_type, key, vector)
                if match is None:
                    created = SlotRecord(
                        id=str(uuid.uuid4()),
                        session_id=req.session_id,
                        slot_name=proposal.slot_name,
                        name_key=key,
                        description=proposal.description,
                        node_type=proposal.node_type,
                        status=SlotStatus.CANDIDATE.value,
                        support_count=0,
                        first_seen_turn=req.turn_number,
                        promoted_turn=None,
                        embedding=to_bytes(vector),
                        new=True,
                    )
                    writes.slots.append(created)
                    rows[created.id] = created
                    index.add(created.id, created.node_type, key, vector)
                    log.created[created.id] = created
                    match = SlotMatch(created.id, MatchKind.NEW_SLOT, 1.0)
            slot = rows[match.slot_id]
            kind, similarity = match.kind, match.similarity
            if slot.id not in log.created:
                log.updated[slot.id] = slot
            for node_id in node_ids:
                writes.mappings.append(
                    Mapping(node_id, slot.id, similarity, labels.get(node_id, ""), req.turn_number)
                )
                slot.support_count += 1  # one mapping per node: support counts distinct nodes
                slot.changed = True
                log.mappings.append(
                    SlotMapping(
                        surface_node_id=node_id,
                        slot_id=slot.id,
                        similarity=similarity,
                        assigned_turn=req.turn_number,
                    )
                )
                log.assignments[node_id] = NodeAssignment(
                    surface_node_id=node_id,
                    slot_id=slot.id,
                    slot_name=slot.slot_name,
                    similarity=similarity,
                    match=kind,
                )
        for slot in [*log.created.values(), *log.updated.values()]:
            if slot.status == SlotStatus.CANDIDATE and slot.support_count >= self._config.min_support:
                slot.status = SlotStatus.ACTIVE.value
                slot.promoted_turn = req.turn_number
                log.promoted.append(slot)
        return log
