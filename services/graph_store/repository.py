"""Database access of the graph store: every query lives here, inside a caller's AsyncSession.

The repository neither commits nor decides anything: `store.GraphStore` owns transactions,
locking and the domain logic; `planner` decides what to write.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, Select, delete, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from shared.embeddings import EMBEDDING_DIM, stack_bytes

from .domain import Edge, Node, Quote
from .metrics import EdgeRef, NodeRef
from .models import AppliedUtteranceRow, EdgeMentionRow, EdgeRow, NodeMentionRow, NodeRow
from .planner import GraphSnapshot, Mention, Plan, SnapshotNode

# First key of the two-key advisory lock: other services may lock on hashtext(session_id) too,
# and must not contend with (or deadlock against) the graph store.
ADVISORY_LOCK_NAMESPACE = zlib.crc32(b"interview.graph_store") & 0x7FFFFFFF
_IN_CHUNK = 500  # bound the size of IN (...) lists


def _utc(value: datetime) -> datetime:
    """SQLite returns naive datetimes; everything stored is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _chunks(items: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(items), _IN_CHUNK):
        yield items[i : i + _IN_CHUNK]


async def lock_session(db: AsyncSession, session_id: str) -> None:
    """PostgreSQL: serialise writers of one session until the transaction ends (no-op on SQLite)."""
    if db.get_bind().dialect.name == "postgresql":
        await db.execute(
            text("SELECT pg_advisory_xact_lock(:ns, hashtext(:sid))"),
            {"ns": ADVISORY_LOCK_NAMESPACE, "sid": session_id},
        )


# -- idempotency record -------------------------------------------------------------------------
async def get_applied(db: AsyncSession, utterance_id: str) -> AppliedUtteranceRow | None:
    """The idempotency record of `utterance_id`, if it was applied."""
    return await db.get(AppliedUtteranceRow, utterance_id)


def add_applied(
    db: AsyncSession, *, utterance_id: str, session_id: str, turn_number: int, result_json: str, now: datetime
) -> None:
    """Record that `utterance_id` was applied, with its serialized result."""
    db.add(
        AppliedUtteranceRow(
            utterance_id=utterance_id,
            session_id=session_id,
            turn_number=turn_number,
            result_json=result_json,
            applied_at=now,
        )
    )


# -- snapshot and plan --------------------------------------------------------------------------
async def load_snapshot(db: AsyncSession, session_id: str) -> GraphSnapshot:
    """Every node (creation order, with embeddings) and edge key of the session."""
    rows = (
        await db.execute(
            select(NodeRow.id, NodeRow.label_norm, NodeRow.node_type, NodeRow.label, NodeRow.embedding)
            .where(NodeRow.session_id == session_id)
            .order_by(NodeRow.pk)
        )
    ).all()
    edges = (
        await db.execute(
            select(EdgeRow.source_node_id, EdgeRow.target_node_id, EdgeRow.edge_type, EdgeRow.id)
            .where(EdgeRow.session_id == session_id)
            .order_by(EdgeRow.pk)
        )
    ).all()
    return GraphSnapshot(
        nodes=[SnapshotNode(r.id, r.label_norm, r.node_type, r.label) for r in rows],
        embeddings=stack_bytes([r.embedding for r in rows], EMBEDDING_DIM),
        edges={(e.source_node_id, e.target_node_id, e.edge_type): e.id for e in edges},
    )


def _mention_values(
    m: Mention, session_id: str, utterance_id: str, turn: int, now: datetime
) -> dict[str, Any]:
    return {
        "session_id": session_id,
        "utterance_id": utterance_id,
        "turn_number": turn,
        "extracted_label": m.extracted_label,
        "quote_text": m.quote.text if m.quote else None,
        "quote_start": m.quote.start if m.quote else None,
        "quote_end": m.quote.end if m.quote else None,
        "recorded_at": now,
    }


async def write_plan(
    db: AsyncSession, plan: Plan, *, session_id: str, utterance_id: str, turn: int, now: datetime
) -> None:
    """Insert the plan's nodes, edges and provenance; raise confidences; set superseded_by."""
    # Plain multi-row INSERT statements, in reference order (nodes, then the edges and mentions
    # that point at them): the ORM's unit of work cost more than the writes themselves per turn.
    nodes = [
        {
            "id": n.id,
            "session_id": session_id,
            "label": n.label,
            "label_norm": n.label_norm,
            "node_type": n.node_type,
            "confidence": n.confidence,
            "stance": n.stance,
            "properties": n.properties,
            "level": n.level,
            "is_terminal": n.is_terminal,
            "embedding": n.embedding,
            "created_turn": turn,
            "recorded_at": now,
        }
        for n in plan.new_nodes
    ]
    edges = [
        {
            "id": e.id,
            "session_id": session_id,
            "source_node_id": e.source_node_id,
            "target_node_id": e.target_node_id,
            "edge_type": e.edge_type,
            "confidence": e.confidence,
            "properties": e.properties,
            "created_turn": turn,
            "recorded_at": now,
        }
        for e in plan.new_edges
    ]
    node_mentions = [
        {"node_id": m.target_id, **_mention_values(m, session_id, utterance_id, turn, now)}
        for m in plan.node_mentions
    ]
    edge_mentions = [
        {"edge_id": m.target_id, **_mention_values(m, session_id, utterance_id, turn, now)}
        for m in plan.edge_mentions
    ]
    for model, rows in (
        (NodeRow, nodes),
        (EdgeRow, edges),
        (NodeMentionRow, node_mentions),
        (EdgeMentionRow, edge_mentions),
    ):
        if rows:
            await db.execute(insert(model), rows)
    # "Highest confidence seen" on re-mentions of existing nodes and edges.
    created = {n.id for n in plan.new_nodes} | {e.id for e in plan.new_edges}
    for model, mentions in ((NodeRow, plan.node_mentions), (EdgeRow, plan.edge_mentions)):
        for m in mentions:
            if m.target_id not in created:
                await db.execute(
                    update(model)
                    .where(model.id == m.target_id, model.confidence < m.confidence)
                    .values(confidence=m.confidence)
                )
    for old, new in plan.supersede.items():
        await db.execute(update(NodeRow).where(NodeRow.id == old).values(superseded_by=new))
    await db.flush()


# -- reading nodes and edges with provenance ------------------------------------------------------
def _provenance(rows: Sequence[Any]) -> tuple[list[str], list[Quote]]:
    utterances: list[str] = []
    quotes: list[Quote] = []
    for r in rows:
        if r.utterance_id not in utterances:
            utterances.append(r.utterance_id)
        if r.quote_text is not None:
            quotes.append(
                Quote(utterance_id=r.utterance_id, text=r.quote_text, start=r.quote_start, end=r.quote_end)
            )
    return utterances, quotes


async def _node_mentions(db: AsyncSession, ids: Sequence[str]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = defaultdict(list)
    for chunk in _chunks(ids):
        rows = (
            await db.execute(
                select(NodeMentionRow).where(NodeMentionRow.node_id.in_(chunk)).order_by(NodeMentionRow.pk)
            )
        ).scalars()
        for r in rows:
            out[r.node_id].append(r)
    return out


async def _edge_mentions(db: AsyncSession, ids: Sequence[str]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = defaultdict(list)
    for chunk in _chunks(ids):
        rows = (
            await db.execute(
                select(EdgeMentionRow).where(EdgeMentionRow.edge_id.in_(chunk)).order_by(EdgeMentionRow.pk)
            )
        ).scalars()
        for r in rows:
            out[r.edge_id].append(r)
    return out


async def nodes_with_provenance(
    db: AsyncSession, rows: Sequence[NodeRow | Row[Any]], *, embeddings: bool, provenance: bool = True
) -> list[Node]:
    """Domain nodes for `rows` (order kept), provenance attached unless `provenance` is False
    (then no mention is read and the nodes' source utterances and quotes are empty)."""
    mentions = await _node_mentions(db, [r.id for r in rows]) if provenance else {}
    return domain_nodes(rows, mentions, embeddings=embeddings)


def domain_nodes(
    rows: Sequence[NodeRow | Row[Any]], mentions: Mapping[str, Sequence[Any]], *, embeddings: bool
) -> list[Node]:
    """Domain nodes for ORM rows or plain rows of the node columns (the embedding only when
    `embeddings`), with the given mentions."""
    out: list[Node] = []
    for r in rows:
        utterances, quotes = _provenance(mentions.get(r.id, ()))
        out.append(
            Node(
                id=r.id,
                session_id=r.session_id,
                label=r.label,
                node_type=r.node_type,
                confidence=r.confidence,
                stance=r.stance,
                properties=dict(r.properties or {}),
                recorded_at=_utc(r.recorded_at),
                created_turn=r.created_turn,
                level=r.level,
                is_terminal=r.is_terminal,
                superseded_by=r.superseded_by,
                source_utterance_ids=utterances,
                quotes=quotes,
                embedding=r.embedding if embeddings else b"",
            )
        )
    return out


async def edges_with_provenance(db: AsyncSession, rows: Sequence[EdgeRow]) -> list[Edge]:
    """Domain edges for `rows` (order kept), provenance attached."""
    mentions = await _edge_mentions(db, [r.id for r in rows])
    out: list[Edge] = []
    for r in rows:
        utterances, quotes = _provenance(mentions.get(r.id, []))
        out.append(
            Edge(
                id=r.id,
                session_id=r.session_id,
                source_node_id=r.source_node_id,
                target_node_id=r.target_node_id,
                edge_type=r.edge_type,
                confidence=r.confidence,
                properties=dict(r.properties or {}),
                recorded_at=_utc(r.recorded_at),
                created_turn=r.created_turn,
                source_utterance_ids=utterances,
                quotes=quotes,
            )
        )
    return out


async def node_rows_by_id(db: AsyncSession, session_id: str, ids: Sequence[str]) -> list[NodeRow]:
    """Nodes of the session with these ids, in the order of `ids` (unknown ids omitted)."""
    found: dict[str, NodeRow] = {}
    for chunk in _chunks(list(dict.fromkeys(ids))):
        stmt = select(NodeRow).where(NodeRow.session_id == session_id, NodeRow.id.in_(chunk))
        for row in (await db.execute(stmt)).scalars():
            found[row.id] = row
    return [found[i] for i in dict.fromkeys(ids) if i in found]


async def edge_rows_by_id(db: AsyncSession, session_id: str, ids: Sequence[str]) -> list[EdgeRow]:
    """Edges of the session with these ids, in the order of `ids`."""
    found: dict[str, EdgeRow] = {}
    for chunk in _chunks(list(dict.fromkeys(ids))):
        stmt = select(EdgeRow).where(EdgeRow.session_id == session_id, EdgeRow.id.in_(chunk))
        for row in (await db.execute(stmt)).scalars():
            found[row.id] = row
    return [found[i] for i in dict.fromkeys(ids) if i in found]


# -- listings -------------------------------------------------------------------------------------
def _node_filter(stmt: Select[Any], session_id: str, node_type: str) -> Select[Any]:
    stmt = stmt.where(NodeRow.session_id == session_id)
    return stmt.where(NodeRow.node_type == node_type) if node_type else stmt


def _edge_filter(stmt: Select[Any], session_id: str, edge_type: str) -> Select[Any]:
    stmt = stmt.where(EdgeRow.session_id == session_id)
    return stmt.where(EdgeRow.edge_type == edge_type) if edge_type else stmt


_LISTED_NODE_COLUMNS = [c for c in NodeRow.__table__.columns if c.name != "embedding"]


async def page_nodes(
    db: AsyncSession, session_id: str, *, after_pk: int, limit: int, node_type: str = ""
) -> tuple[list[Row[Any]], int]:
    """Up to `limit` nodes after `after_pk` (creation order), as plain rows of every column but the
    embedding (a listing never returns it: 1.5 KB a node), and the total matching count. No mapped
    objects to make and no blob to read per node: extraction's node lookup lists up to 80 nodes on
    every turn."""
    rows = (
        await db.execute(
            _node_filter(select(*_LISTED_NODE_COLUMNS), session_id, node_type)
            .where(NodeRow.pk > after_pk)
            .order_by(NodeRow.pk)
            .limit(limit)
        )
    ).all()
    total = (
        await db.execute(_node_filter(select(func.count(NodeRow.pk)), session_id, node_type))
    ).scalar_one()
    return list(rows), int(total)


async def page_edges(
    db: AsyncSession, session_id: str, *, after_pk: int, limit: int, edge_type: str = ""
) -> tuple[list[EdgeRow], int]:
    """Up to `limit` edges after `after_pk` (creation order) and the total matching count."""
    rows = (
        await db.execute(
            _edge_filter(select(EdgeRow), session_id, edge_type)
            .where(EdgeRow.pk > after_pk)
            .order_by(EdgeRow.pk)
            .limit(limit)
        )
    ).scalars()
    total = (
        await db.execute(_edge_filter(select(func.count(EdgeRow.pk)), session_id, edge_type))
    ).scalar_one()
    return list(rows), int(total)


async def all_node_rows(db: AsyncSession, session_id: str) -> list[NodeRow]:
    """Every node of the session, creation order."""
    stmt = select(NodeRow).where(NodeRow.session_id == session_id).order_by(NodeRow.pk)
    return list((await db.execute(stmt)).scalars())


async def all_edge_rows(db: AsyncSession, session_id: str) -> list[EdgeRow]:
    """Every edge of the session, creation order."""
    stmt = select(EdgeRow).where(EdgeRow.session_id == session_id).order_by(EdgeRow.pk)
    return list((await db.execute(stmt)).scalars())


async def metric_refs(db: AsyncSession, session_id: str) -> tuple[list[NodeRef], list[EdgeRef]]:
    """The slim node and edge tuples `metrics.compute_graph_state` needs."""
    nodes = (
        await db.execute(
            select(NodeRow.id, NodeRow.node_type, NodeRow.label)
            .where(NodeRow.session_id == session_id)
            .order_by(NodeRow.pk)
        )
    ).all()
    edges = (
        await db.execute(
            select(EdgeRow.source_node_id, EdgeRow.target_node_id, EdgeRow.edge_type)
            .where(EdgeRow.session_id == session_id)
            .order_by(EdgeRow.pk)
        )
    ).all()
    return [NodeRef(n.id, n.node_type, n.label) for n in nodes], [EdgeRef(*e) for e in edges]


async def session_nodes(db: AsyncSession, session_id: str) -> Sequence[Row[Any]]:
    """Every node of the session with all its columns (creation order), as plain rows: a search
    ranks them all by embedding and makes domain nodes of the best few only."""
    stmt = select(*NodeRow.__table__.columns).where(NodeRow.session_id == session_id).order_by(NodeRow.pk)
    return (await db.execute(stmt)).all()


async def delete_session(db: AsyncSession, session_id: str) -> tuple[int, int]:
    """Delete everything of the session; returns (nodes deleted, edges deleted)."""
    counts = []
    for model in (EdgeMentionRow, NodeMentionRow, EdgeRow, NodeRow, AppliedUtteranceRow):
        result = await db.execute(delete(model).where(model.session_id == session_id))
        counts.append(int(getattr(result, "rowcount", 0) or 0))
    return counts[3], counts[2]
