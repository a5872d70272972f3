"""The graph store's domain service: what the servicer calls, and what unit tests call directly.

`apply_extraction` is idempotent on `utterance_id` and serialised per session:
* PostgreSQL: `pg_advisory_xact_lock(<graph_store namespace>, hashtext(session_id))` inside the
  transaction, so replicas on one database never interleave two updates of one session;
* SQLite: one asyncio lock per store for all writes (SQLite has a single writer anyway, and
  serialising in-process avoids SQLITE_BUSY on read→write lock upgrades), plus SQLite's own lock.
The unique constraint on (session_id, label_norm, node_type) is the last line of defence.

Embeddings are computed before the lock is taken, and a repeat of an applied utterance is
answered from the stored result without computing anything.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Protocol

import numpy as np
import structlog
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db import single_writer
from shared.embeddings import FloatMatrix, cosine_matrix, stack_bytes
from shared.errors import InvalidArgumentError, NotFoundError
from shared.methodology_models import MethodologyConfig

from . import repository as repo
from .domain import (
    ApplyResult,
    ConceptInput,
    DeleteResult,
    Edge,
    EdgePage,
    ExtractionInput,
    GraphState,
    Node,
    NodeMention,
    NodePage,
    QuoteHint,
    RelationshipInput,
    ScoredNode,
)
from .metrics import EdgeRef, NodeRef, compute_graph_state
from .pagination import DEFAULT_PAGE_SIZE, decode_page_token, encode_page_token, page_size
from .planner import GraphSnapshot, Plan, labels_to_embed, plan_extraction
from .validation import validate_extraction
from .written import created_edges, created_nodes


class TextEncoder(Protocol):
    """What the store needs from `shared.embeddings.Embedder`."""

    async def aencode(self, texts: Sequence[str]) -> FloatMatrix:
        """Unit embeddings, one row per text."""
        ...


class MethodologySource(Protocol):
    """What the store needs from `shared.methodology.MethodologyRegistry`."""

    def get(self, name: str) -> MethodologyConfig:
        """The methodology `name`; raises `NotFoundError` when unknown."""
        ...


MAX_SEARCH_LIMIT = 100
DEFAULT_SEARCH_LIMIT = 20

_log = structlog.get_logger("graph_store.store")
_WARM_UP_SESSION = "graph-store-warm-up"  # never committed (see GraphStore.warm_up)


class GraphStore:
    """Surface-graph operations over one database (SQLite or PostgreSQL)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        embedder: TextEncoder,
        methodologies: MethodologySource,
        *,
        similarity_threshold: float,
        max_text_chars: int,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        query_encoder: TextEncoder | None = None,
    ) -> None:
        self._sessions = sessions
        self._embedder = embedder
        # Search queries only (ranked against stored vectors): may be a cheaper model.
        self._query_encoder = query_encoder or embedder
        self._methodologies = methodologies
        self._threshold = similarity_threshold
        self._max_text_chars = max_text_chars
        self._clock = clock
        # SQLite: one write lock for all sessions (held in-process); PostgreSQL: a lock per session.
        self._one_writer = single_writer(sessions.kw["bind"])
        self._sqlite_write_lock = asyncio.Lock()

    # -- helpers ---------------------------------------------------------------------------------
    def methodology(self, name: str, field: str = "methodology") -> MethodologyConfig:
        """The named methodology; an unknown name is bad input (INVALID_ARGUMENT)."""
        if not name.strip():
            raise InvalidArgumentError.for_field(field, "must not be empty")
        try:
            return self._methodologies.get(name)
        except NotFoundError as exc:
            raise InvalidArgumentError.for_field(field, f"unknown methodology {name!r}") from exc

    @asynccontextmanager
    async def _write(self, session_id: str) -> AsyncIterator[AsyncSession]:
        """A transaction holding the session's write lock."""
        async with self._sessions() as db:
            if self._one_writer:
                async with self._sqlite_write_lock, db.begin():
                    yield db
            else:
                async with db.begin():
                    await repo.lock_session(db, session_id)
                    yield db

    @staticmethod
    def _replay(row_session: str, result_json: str, inp: ExtractionInput) -> ApplyResult:
        if row_session != inp.session_id:
            raise InvalidArgumentError.for_field("utterance_id", "was already applied to a different session")
        result = ApplyResult.model_validate_json(result_json)
        result.replayed = True
        _log.info("graph.apply.replayed", session_id=inp.session_id, utterance_id=inp.utterance_id)
        return result

    # -- apply -----------------------------------------------------------------------------------
    async def apply_extraction(self, inp: ExtractionInput) -> ApplyResult:
        """Apply one utterance's concepts and relationships (idempotent on `utterance_id`).

        Raises `InvalidArgumentError` (nothing written) for invalid input; items the ontology
        rejects, unresolvable endpoints, self-loops and quotes not in the utterance are skipped
        with warnings in the result.
        """
        methodology = self.methodology(inp.methodology)
        validate_extraction(inp, methodology, max_text_chars=self._max_text_chars)
        # The labels are encoded (in the encoder's thread) while the transaction takes the session
        # lock, checks for a replay and loads the snapshot; the plan is the first to need them.
        encoding = asyncio.ensure_future(self._vectors(labels_to_embed(inp)))
        try:
            if self._one_writer:
                # One write lock for all sessions: waiting for the encoder inside it would stall
                # every other session's write. The replay check runs beside the encoding instead,
                # and the lock is taken once the vectors are there.
                async with self._sessions() as db:
                    done = await repo.get_applied(db, inp.utterance_id)
                if done is not None:
                    return self._replay(done.session_id, done.result_json, inp)
                await encoding
            for attempt in range(2):
                try:
                    return await self._apply_locked(inp, methodology, encoding)
                except IntegrityError:
                    # Only reachable when a writer bypassed the session lock (e.g. the same
                    # utterance id sent for two sessions at once): re-read, then retry once.
                    if attempt == 1:
                        raise
                    async with self._sessions() as db:
                        done = await repo.get_applied(db, inp.utterance_id)
                        if done is not None:
                            return self._replay(done.session_id, done.result_json, inp)
            raise AssertionError("unreachable")
        finally:
            if not encoding.done():  # a replay needs no vectors
                encoding.cancel()
            await asyncio.gather(encoding, return_exceptions=True)

    async def _vectors(self, labels: list[str]) -> dict[str, np.ndarray]:
        matrix = await self._embedder.aencode(labels) if labels else np.zeros((0, 0), np.float32)
        return {label: matrix[i] for i, label in enumerate(labels)}

    async def _apply_locked(
        self,
        inp: ExtractionInput,
        methodology: MethodologyConfig,
        vectors: Awaitable[Mapping[str, np.ndarray]],
    ) -> ApplyResult:
        async with self._write(inp.session_id) as db:
            done = await repo.get_applied(db, inp.utterance_id)
            if done is not None:  # applied before (a retry), or a concurrent duplicate won the lock
                return self._replay(done.session_id, done.result_json, inp)
            result = await self._apply_in(db, inp, methodology, vectors)
        # Counts and ids only: labels and quotes are respondent text.
        _log.info(
            "graph.apply.applied",
            session_id=inp.session_id,
            utterance_id=inp.utterance_id,
            turn_number=inp.turn_number,
            nodes_created=len(result.nodes_created),
            nodes_mentioned=len(result.nodes_mentioned),
            edges_created=len(result.edges_created),
            edges_reinforced=len(result.edges_reinforced),
            warnings=[f"{w.field}:{w.code.value}" for w in result.warnings],
        )
        return result

    async def _apply_in(
        self,
        db: AsyncSession,
        inp: ExtractionInput,
        methodology: MethodologyConfig,
        vectors: Awaitable[Mapping[str, np.ndarray]],
    ) -> ApplyResult:
        """Plan and write `inp` inside the caller's transaction (which holds the session lock)."""
        snapshot = await repo.load_snapshot(db, inp.session_id)
        plan = plan_extraction(inp, methodology, snapshot, await vectors, threshold=self._threshold)
        now = self._clock()
        await repo.write_plan(
            db, plan, session_id=inp.session_id, utterance_id=inp.utterance_id, turn=inp.turn_number, now=now
        )
        result = await self._result(db, inp, plan, snapshot, methodology, now)
        await repo.add_applied(
            db,
            utterance_id=inp.utterance_id,
            session_id=inp.session_id,
            turn_number=inp.turn_number,
            result_json=result.model_dump_json(),
            now=now,
        )
        return result

    async def warm_up(self, methodology: str) -> None:
        """Run the write path and the read queries once in a transaction that is rolled back.

        SQLAlchemy compiles each statement on its first use, and the first similarity computation
        sets up threadpoolctl: ~50 ms together on the 2-core benchmark machine, which the first
        respondent's turn paid (bench/run_bench.py, "first turn after start"). Start-up pays it
        instead. Nothing is written: the synthetic session is rolled back.
        """
        config = self.methodology(methodology)
        edge = next(e for e in config.ontology.edges if e.permitted_connections)
        source_type, target_type = edge.permitted_connections[0]
        text = "warm up: battery life means fewer worries"
        inp = ExtractionInput(
            session_id=_WARM_UP_SESSION,
            utterance_id=f"{_WARM_UP_SESSION}:1",
            turn_number=1,
            methodology=methodology,
            utterance_text=text,
            concepts=[
                ConceptInput(
                    label="battery life", node_type=source_type, quote=QuoteHint(text="battery life")
                ),
                ConceptInput(
                    label="fewer worries", node_type=target_type, quote=QuoteHint(text="fewer worries")
                ),
            ],
            relationships=[
                RelationshipInput(
                    source_label="battery life",
                    target_label="fewer worries",
                    edge_type=edge.name,
                    quote=QuoteHint(text="battery life means fewer worries"),
                )
            ],
        )
        encoding = asyncio.ensure_future(self._vectors(labels_to_embed(inp)))
        sid = inp.session_id
        async with self._sessions() as db:
            transaction = await db.begin()
            try:
                if not self._one_writer:
                    await repo.lock_session(db, sid)
                await repo.get_applied(db, inp.utterance_id)
                result = await self._apply_in(db, inp, config, encoding)
                await db.flush()
                await repo.metric_refs(db, sid)
                rows, _ = await repo.page_nodes(db, sid, after_pk=0, limit=DEFAULT_PAGE_SIZE)
                await repo.nodes_with_provenance(db, rows, embeddings=False)
                await repo.page_edges(db, sid, after_pk=0, limit=DEFAULT_PAGE_SIZE)
                await repo.node_rows_by_id(db, sid, [n.id for n in result.nodes_created])
                # The search's read and ranking (its node lookup is on every turn past 80 nodes).
                nodes = await repo.session_nodes(db, sid)
                if nodes:
                    first = next(iter(encoding.result().values()))
                    cosine_matrix(first[None, :], stack_bytes([r.embedding for r in nodes]))
                    repo.domain_nodes(nodes[:1], {}, embeddings=False)
            finally:
                await transaction.rollback()
        _log.info("graph.warm_up.done", methodology=methodology)

    async def _result(
        self,
        db: AsyncSession,
        inp: ExtractionInput,
        plan: Plan,
        snapshot: GraphSnapshot,
        methodology: MethodologyConfig,
        now: datetime,
    ) -> ApplyResult:
        sid = inp.session_id
        uid, turn = inp.utterance_id, inp.turn_number
        # What this utterance created comes from the plan; only what it mentioned again is read (its
        # provenance spans earlier utterances).
        node_rows = await repo.node_rows_by_id(db, sid, [r.node_id for r in plan.rementioned])
        mentioned = {n.id: n for n in await repo.nodes_with_provenance(db, node_rows, embeddings=False)}
        edge_rows = await repo.edge_rows_by_id(db, sid, plan.reinforced_edge_ids)
        reinforced = {e.id: e for e in await repo.edges_with_provenance(db, edge_rows)}
        # Metrics after the update, from the snapshot plus the plan (no second read of the graph).
        node_refs = [NodeRef(n.id, n.node_type, n.label) for n in snapshot.nodes]
        node_refs += [NodeRef(n.id, n.node_type, n.label) for n in plan.new_nodes]
        edge_refs = [EdgeRef(s, t, k) for (s, t, k) in snapshot.edges]
        edge_refs += [EdgeRef(e.source_node_id, e.target_node_id, e.edge_type) for e in plan.new_edges]
        state = compute_graph_state(sid, node_refs, edge_refs, methodology)
        return ApplyResult(
            session_id=sid,
            utterance_id=inp.utterance_id,
            turn_number=inp.turn_number,
            nodes_created=created_nodes(plan, session_id=sid, utterance_id=uid, turn=turn, now=now),
            nodes_mentioned=[
                NodeMention(
                    node=mentioned[r.node_id],
                    extracted_label=r.extracted_label,
                    kind=r.kind,
                    similarity=r.similarity,
                )
                for r in plan.rementioned
            ],
            edges_created=created_edges(plan, session_id=sid, utterance_id=uid, turn=turn, now=now),
            edges_reinforced=[reinforced[i] for i in plan.reinforced_edge_ids],
            warnings=plan.warnings,
            graph_state=state,
        )

    # -- reads -----------------------------------------------------------------------------------
    async def graph_state(self, session_id: str, methodology: str) -> GraphState:
        """Current metrics of the session's graph (an unknown session has an empty graph)."""
        config = self.methodology(methodology)
        async with self._sessions() as db:
            nodes, edges = await repo.metric_refs(db, session_id)
        return compute_graph_state(session_id, nodes, edges, config)

    async def list_nodes(
        self, session_id: str, size: int, token: str, node_type: str = "", *, provenance: bool = True
    ) -> NodePage:
        """A page of the session's nodes in creation order (optionally of one node type)."""
        limit = page_size(size)
        after = decode_page_token(token, kind="nodes", session_id=session_id, filter_value=node_type)
        async with self._sessions() as db:
            rows, total = await repo.page_nodes(
                db, session_id, after_pk=after, limit=limit + 1, node_type=node_type
            )
            more = len(rows) > limit
            rows = rows[:limit]
            nodes = await repo.nodes_with_provenance(db, rows, embeddings=False, provenance=provenance)
        next_token = encode_page_token("nodes", session_id, node_type, rows[-1].pk) if more else ""
        return NodePage(nodes=nodes, next_page_token=next_token, total_size=total)

    async def list_edges(self, session_id: str, size: int, token: str, edge_type: str = "") -> EdgePage:
        """A page of the session's edges in creation order (optionally of one edge type)."""
        limit = page_size(size)
        after = decode_page_token(token, kind="edges", session_id=session_id, filter_value=edge_type)
        async with self._sessions() as db:
            rows, total = await repo.page_edges(
                db, session_id, after_pk=after, limit=limit + 1, edge_type=edge_type
            )
            more = len(rows) > limit
            rows = rows[:limit]
            edges = await repo.edges_with_provenance(db, rows)
        next_token = encode_page_token("edges", session_id, edge_type, rows[-1].pk) if more else ""
        return EdgePage(edges=edges, next_page_token=next_token, total_size=total)

    async def get_graph(self, session_id: str, *, include_embeddings: bool) -> tuple[list[Node], list[Edge]]:
        """The whole graph of the session (export)."""
        async with self._sessions() as db:
            nodes = await repo.nodes_with_provenance(
                db, await repo.session_nodes(db, session_id), embeddings=include_embeddings
            )
            edges = await repo.edges_with_provenance(db, await repo.all_edge_rows(db, session_id))
        return nodes, edges

    async def batch_get_nodes(
        self, session_id: str, node_ids: Sequence[str], *, provenance: bool = True
    ) -> list[Node]:
        """The session's nodes with these ids, in request order; unknown ids are omitted."""
        async with self._sessions() as db:
            rows = await repo.node_rows_by_id(db, session_id, node_ids)
            return await repo.nodes_with_provenance(db, rows, embeddings=False, provenance=provenance)

    async def search_nodes(
        self, session_id: str, query: str, limit: int, *, provenance: bool = True
    ) -> list[ScoredNode]:
        """The `limit` nodes most similar to `query` (cosine of embeddings), best first. The query is
        embedded by the store's query encoder (the int8 model by default: see the settings)."""
        k = DEFAULT_SEARCH_LIMIT if limit == 0 else min(limit, MAX_SEARCH_LIMIT)
        # The query is encoded (in the encoder's thread) while the session's nodes are read, whole:
        # the encoding is most of a search's time, so the read is hidden behind it, and once the
        # query vector is there only the ranking and the best nodes' conversion remain (a second
        # read of the best rows by id was ~5 ms of the turn's critical path at 150 nodes).
        encoding = asyncio.ensure_future(self._query_encoder.aencode([query]))
        try:
            async with self._sessions() as db:
                rows = await repo.session_nodes(db, session_id)
            if not rows:
                return []
            qvec = await encoding
        finally:
            if not encoding.done():  # an empty graph, or the read failed
                encoding.cancel()
            await asyncio.gather(encoding, return_exceptions=True)
        at = rows[0]._fields.index("embedding")  # by position: see repository's note on rows
        sims = cosine_matrix(qvec, stack_bytes([r[at] for r in rows]))[0]
        top = [int(i) for i in np.argsort(-sims, kind="stable")[:k]]
        best = [rows[i] for i in top]
        if provenance:
            async with self._sessions() as db:
                nodes = await repo.nodes_with_provenance(db, best, embeddings=False)
        else:
            nodes = repo.domain_nodes(best, {}, embeddings=False)
        return [ScoredNode(node=node, similarity=float(sims[i])) for node, i in zip(nodes, top, strict=True)]

    async def delete_session_graph(self, session_id: str) -> DeleteResult:
        """Delete the session's nodes, edges, provenance and applied-utterance records."""
        async with self._write(session_id) as db:
            nodes, edges = await repo.delete_session(db, session_id)
        return DeleteResult(nodes_deleted=nodes, edges_deleted=edges)


__all__ = ["DEFAULT_PAGE_SIZE", "GraphStore", "MethodologySource", "TextEncoder"]
