"""Database access of the graph store: every query lives here, inside a caller's AsyncSession.

The repository neither commits nor decides anything: `store.GraphStore` owns transactions,
locking and the domain logic; `planner` decides what to write.
"""

from __future__ import annotations

import zlib
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import Row, Table, bindparam, delete, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from shared.embeddings import EMBEDDING_DIM, stack_bytes

from .domain import Edge, Node, Quote
from .metrics import EdgeRef, NodeRef
from .models import Base
from .planner import GraphSnapshot, Mention, Plan, SnapshotNode

# First key of the two-key advisory lock: other services may lock on hashtext(session_id) too,
# and must not contend with (or deadlock against) the graph store.
ADVISORY_LOCK_NAMESPACE = zlib.crc32(b"interview.graph_store") & 0x7FFFFFFF
_IN_CHUNK = 500  # bound the size of IN (...) lists

# Core statements on the tables, built once with bound parameters. A statement built per call
# generates its cache key on every execute, and one built from the mapped classes goes through
# the ORM's execution layer (entity loading, bulk-insert and synchronize-session machinery): both
# cost more CPU than SQLite spends running the statement (bench/README). Rows come back as
# named tuples with the columns' attribute names; the per-turn paths unpack them by position
# instead, since a Row's attribute lookup is a Python-level call (~1.7 µs, fifteen times an index),
# and a listing of 80 nodes reads a thousand of them.
NODES: Table = Base.metadata.tables["nodes"]
EDGES: Table = Base.metadata.tables["edges"]
NODE_MENTIONS: Table = Base.metadata.tables["node_mentions"]
EDGE_MENTIONS: Table = Base.metadata.tables["edge_mentions"]
APPLIED: Table = Base.metadata.tables["applied_utterances"]

_LISTED_NODE_COLUMNS = [c for c in NODES.c if c.name != "embedding"]
_MENTION_COLUMNS = ("utterance_id", "quote_text", "quote_start", "quote_end")

_GET_APPLIED = select(APPLIED.c.session_id, APPLIED.c.result_json).where(
    APPLIED.c.utterance_id == bindparam("uid")
)
_SNAPSHOT_NODES = (
    select(NODES.c.id, NODES.c.label_norm, NODES.c.node_type, NODES.c.label, NODES.c.embedding)
    .where(NODES.c.session_id == bindparam("sid"))
    .order_by(NODES.c.pk)
)
_SNAPSHOT_EDGES = (
    select(EDGES.c.source_node_id, EDGES.c.target_node_id, EDGES.c.edge_type, EDGES.c.id)
    .where(EDGES.c.session_id == bindparam("sid"))
    .order_by(EDGES.c.pk)
)


def _raise_confidence(table: Table) -> Any:
    """UPDATE to the higher of the stored and the seen confidence (executed once per mention)."""
    return (
        update(table)
        .where(table.c.id == bindparam("target"), table.c.confidence < bindparam("seen"))
        .values(confidence=bindparam("raised"))
    )


_RAISE = {NODES.name: _raise_confidence(NODES), EDGES.name: _raise_confidence(EDGES)}
_SUPERSEDE = update(NODES).where(NODES.c.id == bindparam("old")).values(superseded_by=bindparam("new"))


def _mentions_of(table: Table, key: str) -> Any:
    return (
        select(table.c[key], *(table.c[c] for c in _MENTION_COLUMNS))
        .where(table.c[key].in_(bindparam("ids", expanding=True)))
        .order_by(table.c.pk)
    )


_NODE_MENTIONS_OF = _mentions_of(NODE_MENTIONS, "node_id")
_EDGE_MENTIONS_OF = _mentions_of(EDGE_MENTIONS, "edge_id")
_NODES_BY_ID = select(*_LISTED_NODE_COLUMNS).where(
    NODES.c.session_id == bindparam("sid"), NODES.c.id.in_(bindparam("ids", expanding=True))
)
_EDGES_BY_ID = select(*EDGES.c).where(
    EDGES.c.session_id == bindparam("sid"), EDGES.c.id.in_(bindparam("ids", expanding=True))
)


def _page(table: Table, columns: Sequence[Any], type_column: str, *, typed: bool) -> tuple[Any, Any]:
    """The page and count statements of a listing, with or without its type filter."""
    where = [table.c.session_id == bindparam("sid")]
    if typed:
        where.append(table.c[type_column] == bindparam("kind"))
    rows = (
        select(*columns)
        .where(*where, table.c.pk > bindparam("after"))
        .order_by(table.c.pk)
        .limit(bindparam("lim"))
    )
    return rows, select(func.count(table.c.pk)).where(*where)


_PAGE_NODES = {typed: _page(NODES, _LISTED_NODE_COLUMNS, "node_type", typed=typed) for typed in (False, True)}
_PAGE_EDGES = {typed: _page(EDGES, list(EDGES.c), "edge_type", typed=typed) for typed in (False, True)}
_ALL_NODES = select(*NODES.c).where(NODES.c.session_id == bindparam("sid")).order_by(NODES.c.pk)
_ALL_EDGES = select(*EDGES.c).where(EDGES.c.session_id == bindparam("sid")).order_by(EDGES.c.pk)
_METRIC_NODES = (
    select(NODES.c.id, NODES.c.node_type, NODES.c.label)
    .where(NODES.c.session_id == bindparam("sid"))
    .order_by(NODES.c.pk)
)
_METRIC_EDGES = (
    select(EDGES.c.source_node_id, EDGES.c.target_node_id, EDGES.c.edge_type)
    .where(EDGES.c.session_id == bindparam("sid"))
    .order_by(EDGES.c.pk)
)


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
async def get_applied(db: AsyncSession, utterance_id: str) -> Row[Any] | None:
    """The idempotency record of `utterance_id` (its `session_id` and `result_json`), if it was
    applied."""
    return (await db.execute(_GET_APPLIED, {"uid": utterance_id})).first()


async def add_applied(
    db: AsyncSession, *, utterance_id: str, session_id: str, turn_number: int, result_json: str, now: datetime
) -> None:
    """Record that `utterance_id` was applied, with its serialized result."""
    row = {
        "utterance_id": utterance_id,
        "session_id": session_id,
        "turn_number": turn_number,
        "result_json": result_json,
        "applied_at": now,
    }
    await db.execute(insert(APPLIED), [row])


# -- snapshot and plan --------------------------------------------------------------------------
async def load_snapshot(db: AsyncSession, session_id: str) -> GraphSnapshot:
    """Every node (creation order, with embeddings) and edge key of the session."""
    rows = (await db.execute(_SNAPSHOT_NODES, {"sid": session_id})).all()
    edges = (await db.execute(_SNAPSHOT_EDGES, {"sid": session_id})).all()
    # Unpacked by position, in the order of _SNAPSHOT_NODES and _SNAPSHOT_EDGES.
    return GraphSnapshot(
        nodes=[SnapshotNode(ident, norm, kind, label) for ident, norm, kind, label, _ in rows],
        embeddings=stack_bytes([r[4] for r in rows], EMBEDDING_DIM),
        edges={(source, target, kind): ident for source, target, kind, ident in edges},
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
    for table, rows in (
        (NODES, nodes),
        (EDGES, edges),
        (NODE_MENTIONS, node_mentions),
        (EDGE_MENTIONS, edge_mentions),
    ):
        if rows:
            await db.execute(insert(table), rows)
    # "Highest confidence seen" on re-mentions of existing nodes and edges.
    created = {n.id for n in plan.new_nodes} | {e.id for e in plan.new_edges}
    for table, mentions in ((NODES, plan.node_mentions), (EDGES, plan.edge_mentions)):
        raised = [
            {"target": m.target_id, "seen": m.confidence, "raised": m.confidence}
            for m in mentions
            if m.target_id not in created
        ]
        if raised:
            await db.execute(_RAISE[table.name], raised)
    if plan.supersede:
        await db.execute(_SUPERSEDE, [{"old": old, "new": new} for old, new in plan.supersede.items()])


# -- reading nodes and edges with provenance ------------------------------------------------------
def _provenance(rows: Sequence[Any]) -> tuple[list[str], list[Quote]]:
    utterances: list[str] = []
    quotes: list[Quote] = []
    for _, utterance_id, quote_text, start, end in rows:  # the key, then _MENTION_COLUMNS
        if utterance_id not in utterances:
            utterances.append(utterance_id)
        if quote_text is not None:
            quotes.append(Quote(utterance_id=utterance_id, text=quote_text, start=start, end=end))
    return utterances, quotes


async def _mentions(db: AsyncSession, statement: Any, ids: Sequence[str]) -> dict[str, list[Any]]:
    """Mention rows (key first, then `_MENTION_COLUMNS`) of the given node or edge ids, by id."""
    out: dict[str, list[Any]] = defaultdict(list)
    for chunk in _chunks(ids):
        for r in (await db.execute(statement, {"ids": list(chunk)})).all():
            out[r[0]].append(r)
    return out


async def nodes_with_provenance(
    db: AsyncSession, rows: Sequence[Row[Any]], *, embeddings: bool, provenance: bool = True
) -> list[Node]:
    """Domain nodes for `rows` (order kept), provenance attached unless `provenance` is False
    (then no mention is read and the nodes' source utterances and quotes are empty)."""
    if not provenance or not rows:
        return domain_nodes(rows, {}, embeddings=embeddings)
    at_id = rows[0]._fields.index("id")
    mentions = await _mentions(db, _NODE_MENTIONS_OF, [r[at_id] for r in rows])
    return domain_nodes(rows, mentions, embeddings=embeddings)


# The node columns a domain node is made of, in the order `domain_nodes` unpacks them.
_DOMAIN_NODE_FIELDS = (
    "id",
    "session_id",
    "label",
    "node_type",
    "confidence",
    "stance",
    "properties",
    "recorded_at",
    "created_turn",
    "level",
    "is_terminal",
    "superseded_by",
)


def domain_nodes(
    rows: Sequence[Row[Any]], mentions: Mapping[str, Sequence[Any]], *, embeddings: bool
) -> list[Node]:
    """Domain nodes for rows of the node columns (the embedding column is read only when
    `embeddings`), with the given mentions. The rows may come from any statement that selects
    those columns: their positions are looked up once, from the first row."""
    if not rows:
        return []
    fields = rows[0]._fields
    pick = itemgetter(*(fields.index(name) for name in _DOMAIN_NODE_FIELDS))
    at_embedding = fields.index("embedding") if embeddings else -1
    out: list[Node] = []
    for r in rows:
        (ident, sid, label, kind, confidence, stance, props, recorded, turn, level, terminal, by) = pick(r)
        utterances, quotes = _provenance(mentions.get(ident, ()))
        out.append(
            Node(
                id=ident,
                session_id=sid,
                label=label,
                node_type=kind,
                confidence=confidence,
                stance=stance,
                properties=dict(props or {}),
                recorded_at=_utc(recorded),
                created_turn=turn,
                level=level,
                is_terminal=terminal,
                superseded_by=by,
                source_utterance_ids=utterances,
                quotes=quotes,
                embedding=r[at_embedding] if embeddings else b"",
            )
        )
    return out


async def edges_with_provenance(db: AsyncSession, rows: Sequence[Row[Any]]) -> list[Edge]:
    """Domain edges for `rows` (order kept), provenance attached."""
    mentions = await _mentions(db, _EDGE_MENTIONS_OF, [r.id for r in rows])
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


async def _rows_by_id(
    db: AsyncSession, statement: Any, session_id: str, ids: Sequence[str]
) -> list[Row[Any]]:
    found: dict[str, Row[Any]] = {}
    unique = list(dict.fromkeys(ids))
    for chunk in _chunks(unique):
        for row in (await db.execute(statement, {"sid": session_id, "ids": list(chunk)})).all():
            found[row.id] = row
    return [found[i] for i in unique if i in found]


async def node_rows_by_id(db: AsyncSession, session_id: str, ids: Sequence[str]) -> list[Row[Any]]:
    """Nodes of the session with these ids (every column but the embedding), in the order of `ids`
    (unknown ids omitted)."""
    return await _rows_by_id(db, _NODES_BY_ID, session_id, ids)


async def edge_rows_by_id(db: AsyncSession, session_id: str, ids: Sequence[str]) -> list[Row[Any]]:
    """Edges of the session with these ids, in the order of `ids`."""
    return await _rows_by_id(db, _EDGES_BY_ID, session_id, ids)


# -- listings -------------------------------------------------------------------------------------
async def _listing(
    db: AsyncSession,
    statements: Mapping[bool, tuple[Any, Any]],
    session_id: str,
    *,
    after_pk: int,
    limit: int,
    kind: str,
) -> tuple[list[Row[Any]], int]:
    page, count = statements[bool(kind)]
    params: dict[str, Any] = {"sid": session_id, "kind": kind} if kind else {"sid": session_id}
    rows = (await db.execute(page, {**params, "after": after_pk, "lim": limit})).all()
    total = (await db.execute(count, params)).scalar_one()
    return list(rows), int(total)


async def page_nodes(
    db: AsyncSession, session_id: str, *, after_pk: int, limit: int, node_type: str = ""
) -> tuple[list[Row[Any]], int]:
    """Up to `limit` nodes after `after_pk` (creation order), as plain rows of every column but the
    embedding (a listing never returns it: 1.5 KB a node), and the total matching count. No blob to
    read per node: extraction's node lookup lists up to 80 nodes on every turn."""
    return await _listing(db, _PAGE_NODES, session_id, after_pk=after_pk, limit=limit, kind=node_type)


async def page_edges(
    db: AsyncSession, session_id: str, *, after_pk: int, limit: int, edge_type: str = ""
) -> tuple[list[Row[Any]], int]:
    """Up to `limit` edges after `after_pk` (creation order) and the total matching count."""
    return await _listing(db, _PAGE_EDGES, session_id, after_pk=after_pk, limit=limit, kind=edge_type)


async def all_edge_rows(db: AsyncSession, session_id: str) -> list[Row[Any]]:
    """Every edge of the session, creation order."""
    return list((await db.execute(_ALL_EDGES, {"sid": session_id})).all())


async def metric_refs(db: AsyncSession, session_id: str) -> tuple[list[NodeRef], list[EdgeRef]]:
    """The slim node and edge tuples `metrics.compute_graph_state` needs."""
    nodes = (await db.execute(_METRIC_NODES, {"sid": session_id})).all()
    edges = (await db.execute(_METRIC_EDGES, {"sid": session_id})).all()
    return [NodeRef(*n) for n in nodes], [EdgeRef(*e) for e in edges]  # the statements' column order


async def session_nodes(db: AsyncSession, session_id: str) -> Sequence[Row[Any]]:
    """Every node of the session with all its columns (creation order), as plain rows: the export,
    and a search, which ranks them all by embedding and makes domain nodes of the best few only."""
    return (await db.execute(_ALL_NODES, {"sid": session_id})).all()


async def delete_session(db: AsyncSession, session_id: str) -> tuple[int, int]:
    """Delete everything of the session; returns (nodes deleted, edges deleted)."""
    counts = []
    for table in (EDGE_MENTIONS, NODE_MENTIONS, EDGES, NODES, APPLIED):
        result = await db.execute(delete(table).where(table.c.session_id == session_id))
        counts.append(int(getattr(result, "rowcount", 0) or 0))
    return counts[3], counts[2]
