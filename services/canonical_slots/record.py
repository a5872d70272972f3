"""The reads and writes of one discovery run, as Core statements on the run's connection.

A run reads the session's slots, the mappings of its nodes, its pending surface edges and the
canonical edges once, works on them in memory (`discovery`, `edges`), and then writes what changed
with one statement per table and kind (insert or update, many rows each), in the order the foreign
keys need: slots, mappings, canonical edges, surface edges, the run. The ORM's unit of work did the
same with a flush per new slot and per new canonical edge and a query per relationship it
followed: several times the CPU of the writes themselves, on every turn.

`SlotRecord` and `EdgeRecord` carry the columns the views (`views.slot_view`, `views.edge_view`)
and the metrics read, so the run's result is made from what it wrote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import BindParameter, Table, bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from .domain import DiscoveryResult, SurfaceEdgeState
from .models import CanonicalEdgeRow, DiscoveryRunRow, SlotMappingRow, SlotRow, SurfaceEdgeRow

SLOTS: Table = SlotRow.__table__  # type: ignore[assignment]
MAPPINGS: Table = SlotMappingRow.__table__  # type: ignore[assignment]
CANONICAL_EDGES: Table = CanonicalEdgeRow.__table__  # type: ignore[assignment]
SURFACE_EDGES: Table = SurfaceEdgeRow.__table__  # type: ignore[assignment]
RUNS: Table = DiscoveryRunRow.__table__  # type: ignore[assignment]
_IN_CHUNK = 500  # bound IN (...) lists (SQLite's variable limit, planner friendliness)


@dataclass
class SlotRecord:
    """A slot of the session as the run holds it (`changed`: an existing slot the run updated)."""

    id: str
    session_id: str
    slot_name: str
    name_key: str
    description: str
    node_type: str
    status: str
    support_count: int
    first_seen_turn: int
    promoted_turn: int | None
    embedding: bytes
    new: bool = False
    changed: bool = False


@dataclass
class EdgeRecord:
    """A canonical edge as the run holds it."""

    id: str
    session_id: str
    source_slot_id: str
    target_slot_id: str
    edge_type: str
    support_count: int
    surface_edge_ids: list[str]
    first_seen_turn: int
    updated_turn: int
    new: bool = False
    changed: bool = False


@dataclass
class SurfaceEdgeRecord:
    """A surface edge the run aggregates (or keeps pending)."""

    surface_edge_id: str
    source_node_id: str
    target_node_id: str
    edge_type: str
    turn_number: int
    state: str = SurfaceEdgeState.PENDING.value
    canonical_edge_id: str | None = None
    new: bool = False
    changed: bool = False


@dataclass
class Mapping:
    """A surface node → slot assignment (stored or made by the run)."""

    surface_node_id: str
    slot_id: str
    similarity: float
    surface_label: str = ""
    assigned_turn: int = 0


@dataclass
class RunWrites:
    """Everything a run changed, written by `write_run`."""

    slots: list[SlotRecord] = field(default_factory=list)
    mappings: list[Mapping] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    surface_edges: list[SurfaceEdgeRecord] = field(default_factory=list)


def _chunks(values: Sequence[str]) -> list[Sequence[str]]:
    return [values[i : i + _IN_CHUNK] for i in range(0, len(values), _IN_CHUNK)]


# -- reads ---------------------------------------------------------------------------------------
# Built once with bound parameters: a statement object memoises its cache key, so running it again
# costs neither its construction nor the key (per-call construction was most of a small read).
_SID: BindParameter[str] = bindparam("sid")
_IDS: BindParameter[list[str]] = bindparam("ids", expanding=True)
_RUN = select(RUNS.c.result).where(RUNS.c.session_id == _SID, RUNS.c.turn_number == bindparam("turn"))
_MAPPINGS_OF = select(MAPPINGS.c.surface_node_id, MAPPINGS.c.slot_id, MAPPINGS.c.similarity).where(
    MAPPINGS.c.session_id == _SID, MAPPINGS.c.surface_node_id.in_(_IDS)
)
_SLOT_NAMES = (
    select(SLOTS.c.node_type, SLOTS.c.slot_name, SLOTS.c.name_key)
    .where(SLOTS.c.session_id == _SID)
    .order_by(SLOTS.c.node_type, SLOTS.c.slot_name)
)


async def stored_run(conn: AsyncConnection, session_id: str, turn_number: int) -> DiscoveryResult | None:
    """The stored result of (session, turn), if that run completed."""
    found = (await conn.execute(_RUN, {"sid": session_id, "turn": turn_number})).scalar_one_or_none()
    return None if found is None else DiscoveryResult.model_validate(found)


async def mappings_of(conn: AsyncConnection, session_id: str, node_ids: Sequence[str]) -> dict[str, Mapping]:
    """The stored mappings of these surface nodes, by node id."""
    found: dict[str, Mapping] = {}
    for chunk in _chunks(list(dict.fromkeys(node_ids))):
        rows = await conn.execute(_MAPPINGS_OF, {"sid": session_id, "ids": list(chunk)})
        for node_id, slot_id, similarity in rows.all():
            found[node_id] = Mapping(node_id, slot_id, similarity)
    return found


@dataclass(frozen=True)
class SlotNames:
    """The session's slot names per node_type, sorted (for the proposal prompt), and their merge
    keys per node_type (a proposal with one of them merges by name)."""

    names: dict[str, list[str]]
    keys: dict[str, set[str]]


async def slot_names_by_type(conn: AsyncConnection, session_id: str) -> SlotNames:
    """The session's slot names and merge keys per node_type."""
    names: dict[str, list[str]] = {}
    keys: dict[str, set[str]] = {}
    for node_type, name, key in (await conn.execute(_SLOT_NAMES, {"sid": session_id})).all():
        names.setdefault(node_type, []).append(name)
        keys.setdefault(node_type, set()).add(key)
    return SlotNames(names, keys)


_SLOT_COLUMNS = (
    "id",
    "session_id",
    "slot_name",
    "name_key",
    "description",
    "node_type",
    "status",
    "support_count",
    "first_seen_turn",
    "promoted_turn",
    "embedding",
)


_SLOTS = (
    select(*(SLOTS.c[name] for name in _SLOT_COLUMNS))
    .where(SLOTS.c.session_id == _SID)
    .order_by(SLOTS.c.first_seen_turn, SLOTS.c.id)
)


async def session_slots(conn: AsyncConnection, session_id: str) -> list[SlotRecord]:
    """Every slot of the session with its embedding, oldest first."""
    return [SlotRecord(*row) for row in (await conn.execute(_SLOTS, {"sid": session_id})).all()]


_EDGE_COLUMNS = (
    "id",
    "session_id",
    "source_slot_id",
    "target_slot_id",
    "edge_type",
    "support_count",
    "surface_edge_ids",
    "first_seen_turn",
    "updated_turn",
)


_EDGES = (
    select(*(CANONICAL_EDGES.c[name] for name in _EDGE_COLUMNS))
    .where(CANONICAL_EDGES.c.session_id == _SID)
    .order_by(CANONICAL_EDGES.c.first_seen_turn, CANONICAL_EDGES.c.id)
)
_KNOWN_SURFACE = select(SURFACE_EDGES.c.surface_edge_id).where(
    SURFACE_EDGES.c.session_id == _SID, SURFACE_EDGES.c.surface_edge_id.in_(_IDS)
)
_PENDING_SURFACE = select(
    SURFACE_EDGES.c.surface_edge_id,
    SURFACE_EDGES.c.source_node_id,
    SURFACE_EDGES.c.target_node_id,
    SURFACE_EDGES.c.edge_type,
    SURFACE_EDGES.c.turn_number,
).where(SURFACE_EDGES.c.session_id == _SID, SURFACE_EDGES.c.state == SurfaceEdgeState.PENDING.value)
_MAPPED_COUNT = select(func.count()).select_from(MAPPINGS).where(MAPPINGS.c.session_id == _SID)


async def session_edges(conn: AsyncConnection, session_id: str) -> list[EdgeRecord]:
    """Every canonical edge of the session, oldest first."""
    edges = [EdgeRecord(*row) for row in (await conn.execute(_EDGES, {"sid": session_id})).all()]
    for edge in edges:
        edge.surface_edge_ids = list(edge.surface_edge_ids)
    return edges


async def known_surface_edges(conn: AsyncConnection, session_id: str, edge_ids: Sequence[str]) -> set[str]:
    """Which of these surface edge ids the service has seen before."""
    known: set[str] = set()
    for chunk in _chunks(list(dict.fromkeys(edge_ids))):
        rows = await conn.execute(_KNOWN_SURFACE, {"sid": session_id, "ids": list(chunk)})
        known.update(rows.scalars().all())
    return known


async def pending_surface_edges(conn: AsyncConnection, session_id: str) -> list[SurfaceEdgeRecord]:
    """Stored surface edges not aggregated yet (an endpoint was unmapped)."""
    rows = await conn.execute(_PENDING_SURFACE, {"sid": session_id})
    return [SurfaceEdgeRecord(*row) for row in rows.all()]


async def mapped_node_count(conn: AsyncConnection, session_id: str) -> int:
    """Number of mapped surface nodes of the session."""
    return int((await conn.execute(_MAPPED_COUNT, {"sid": session_id})).scalar_one())


# -- writes --------------------------------------------------------------------------------------
_UPDATE_SLOTS = (
    update(SLOTS)
    .where(SLOTS.c.id == bindparam("b_id"))
    .values(
        support_count=bindparam("b_support"),
        status=bindparam("b_status"),
        promoted_turn=bindparam("b_promoted"),
    )
)
_UPDATE_EDGES = (
    update(CANONICAL_EDGES)
    .where(CANONICAL_EDGES.c.id == bindparam("b_id"))
    .values(
        support_count=bindparam("b_support"),
        surface_edge_ids=bindparam("b_surface_ids", type_=CANONICAL_EDGES.c.surface_edge_ids.type),
        updated_turn=bindparam("b_turn"),
    )
)
_UPDATE_SURFACE = (
    update(SURFACE_EDGES)
    .where(
        SURFACE_EDGES.c.session_id == bindparam("b_sid"), SURFACE_EDGES.c.surface_edge_id == bindparam("b_id")
    )
    .values(state=bindparam("b_state"), canonical_edge_id=bindparam("b_edge"))
)


async def _executemany(conn: AsyncConnection, statement: Any, rows: list[dict[str, Any]]) -> None:
    if rows:
        await conn.execute(statement, rows)


async def write_run(conn: AsyncConnection, writes: RunWrites, result: DiscoveryResult) -> None:
    """Write a run's changes and its result, in foreign-key order (in the caller's transaction)."""
    sid = result.session_id
    await _executemany(
        conn,
        insert(SLOTS),
        [{name: getattr(s, name) for name in _SLOT_COLUMNS} for s in writes.slots if s.new],
    )
    await _executemany(
        conn,
        insert(MAPPINGS),
        [
            {
                "session_id": sid,
                "surface_node_id": m.surface_node_id,
                "slot_id": m.slot_id,
                "surface_label": m.surface_label,
                "similarity": m.similarity,
                "assigned_turn": m.assigned_turn,
            }
            for m in writes.mappings
        ],
    )
    await _executemany(
        conn,
        _UPDATE_SLOTS,
        [
            {"b_id": s.id, "b_support": s.support_count, "b_status": s.status, "b_promoted": s.promoted_turn}
            for s in writes.slots
            if s.changed and not s.new
        ],
    )
    await _executemany(
        conn,
        insert(CANONICAL_EDGES),
        [{name: getattr(e, name) for name in _EDGE_COLUMNS} for e in writes.edges if e.new],
    )
    await _executemany(
        conn,
        _UPDATE_EDGES,
        [
            {
                "b_id": e.id,
                "b_support": e.support_count,
                "b_surface_ids": e.surface_edge_ids,
                "b_turn": e.updated_turn,
            }
            for e in writes.edges
            if e.changed and not e.new
        ],
    )
    await _executemany(
        conn,
        insert(SURFACE_EDGES),
        [
            {
                "session_id": sid,
                "surface_edge_id": e.surface_edge_id,
                "source_node_id": e.source_node_id,
                "target_node_id": e.target_node_id,
                "edge_type": e.edge_type,
                "turn_number": e.turn_number,
                "state": e.state,
                "canonical_edge_id": e.canonical_edge_id,
            }
            for e in writes.surface_edges
            if e.new
        ],
    )
    await _executemany(
        conn,
        _UPDATE_SURFACE,
        [
            {"b_sid": sid, "b_id": e.surface_edge_id, "b_state": e.state, "b_edge": e.canonical_edge_id}
            for e in writes.surface_edges
            if e.changed and not e.new
        ],
    )
    # The primary key makes a duplicate run fail the transaction (a concurrent run won the lock).
    await conn.execute(
        insert(RUNS).values(
            session_id=sid, turn_number=result.turn_number, result=result.model_dump(mode="json")
        )
    )
