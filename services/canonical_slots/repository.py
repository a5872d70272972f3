"""Data access for slots, mappings, canonical edges, surface edges and discovery runs.

A `SlotRepository` wraps one `AsyncSession` (one unit of work); the caller owns the transaction.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, delete, func, or_, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from .domain import DeleteCounts, DiscoveryResult, SlotStatus, SurfaceEdgeState
from .models import CanonicalEdgeRow, DiscoveryRunRow, SlotMappingRow, SlotRow, SurfaceEdgeRow
from .pagination import PageKey

_IN_CHUNK = 500  # bound IN (...) lists (SQLite's variable limit, planner friendliness)


def advisory_key(session_id: str) -> int:
    """A stable signed 64-bit key for `pg_advisory_xact_lock` (same on every replica)."""
    digest = hashlib.blake2b(f"canonical_slots:{session_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _chunks(values: Sequence[str]) -> Iterable[Sequence[str]]:
    for i in range(0, len(values), _IN_CHUNK):
        yield values[i : i + _IN_CHUNK]


def _after(turn_col: Any, id_col: Any, key: PageKey | None) -> ColumnElement[bool] | None:
    if key is None:
        return None
    return or_(turn_col > key.turn, and_(turn_col == key.turn, id_col > key.ident))


class SlotRepository:
    """Queries and writes of one unit of work."""

    def __init__(self, db: AsyncSession) -> None:
        self.db = db

    # -- locking & runs -------------------------------------------------------------------------
    async def lock_session(self, session_id: str) -> None:
        """On PostgreSQL, serialise discovery per session across replicas (released at commit)."""
        if self.db.bind.dialect.name == "postgresql":
            key = advisory_key(session_id)
            await self.db.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})

    async def get_run(self, session_id: str, turn_number: int) -> DiscoveryResult | None:
        """The stored result of (session, turn), if that run completed."""
        row = await self.db.get(DiscoveryRunRow, (session_id, turn_number))
        return None if row is None else DiscoveryResult.model_validate(row.result)

    def add_run(self, result: DiscoveryResult) -> None:
        """Record a completed run (its primary key makes a duplicate run fail the transaction)."""
        self.db.add(
            DiscoveryRunRow(
                session_id=result.session_id,
                turn_number=result.turn_number,
                result=result.model_dump(mode="json"),
            )
        )

    # -- slots & mappings -----------------------------------------------------------------------
    async def slots(self, session_id: str) -> list[SlotRow]:
        """Every slot of the session (with embeddings), oldest first."""
        stmt = (
            select(SlotRow)
            .where(SlotRow.session_id == session_id)
            .order_by(SlotRow.first_seen_turn, SlotRow.id)
        )
        return list((await self.db.scalars(stmt)).all())

    async def slot_names_by_type(self, session_id: str) -> dict[str, list[str]]:
        """Slot names per node_type (for the proposal prompt)."""
        stmt = (
            select(SlotRow.node_type, SlotRow.slot_name)
            .where(SlotRow.session_id == session_id)
            .order_by(SlotRow.node_type, SlotRow.slot_name)
        )
        names: dict[str, list[str]] = {}
        for node_type, name in (await self.db.execute(stmt)).all():
            names.setdefault(node_type, []).append(name)
        return names

    async def mappings_for(self, session_id: str, node_ids: Sequence[str]) -> dict[str, SlotMappingRow]:
        """Existing mappings of the given surface nodes, by node id."""
        found: dict[str, SlotMappingRow] = {}
        for chunk in _chunks(list(dict.fromkeys(node_ids))):
            stmt = select(SlotMappingRow).where(
                SlotMappingRow.session_id == session_id, SlotMappingRow.surface_node_id.in_(chunk)
            )
            found.update({m.surface_node_id: m for m in (await self.db.scalars(stmt)).all()})
        return found

    def add(self, row: SlotRow | SlotMappingRow | CanonicalEdgeRow | SurfaceEdgeRow) -> None:
        """Stage a new row in the unit of work."""
        self.db.add(row)

    async def flush(self) -> None:
        """Send staged changes (so constraint violations surface inside the transaction)."""
        await self.db.flush()

    # -- edges ----------------------------------------------------------------------------------
    async def known_surface_edges(self, session_id: str, edge_ids: Sequence[str]) -> set[str]:
        """Which of these surface edge ids the service has seen before."""
        known: set[str] = set()
        for chunk in _chunks(list(dict.fromkeys(edge_ids))):
            stmt = select(SurfaceEdgeRow.surface_edge_id).where(
                SurfaceEdgeRow.session_id == session_id, SurfaceEdgeRow.surface_edge_id.in_(chunk)
            )
            known.update((await self.db.scalars(stmt)).all())
        return known

    async def pending_edges(self, session_id: str) -> list[SurfaceEdgeRow]:
        """Surface edges not yet aggregated (an endpoint was unmapped), oldest first."""
        stmt = (
            select(SurfaceEdgeRow)
            .where(SurfaceEdgeRow.session_id == session_id, SurfaceEdgeRow.state == SurfaceEdgeState.PENDING)
            .order_by(SurfaceEdgeRow.turn_number, SurfaceEdgeRow.surface_edge_id)
        )
        return list((await self.db.scalars(stmt)).all())

    async def canonical_edges(self, session_id: str) -> list[CanonicalEdgeRow]:
        """Every canonical edge of the session."""
        stmt = (
            select(CanonicalEdgeRow)
            .where(CanonicalEdgeRow.session_id == session_id)
            .order_by(CanonicalEdgeRow.first_seen_turn, CanonicalEdgeRow.id)
        )
        return list((await self.db.scalars(stmt)).all())

    # -- state ----------------------------------------------------------------------------------
    async def slot_stats(self, session_id: str) -> list[tuple[str, str, int]]:
        """(id, status, support_count) of every slot."""
        stmt = select(SlotRow.id, SlotRow.status, SlotRow.support_count).where(
            SlotRow.session_id == session_id
        )
        return [(i, s, c) for i, s, c in (await self.db.execute(stmt)).all()]

    async def edge_pairs(self, session_id: str) -> list[tuple[str, str]]:
        """(source_slot_id, target_slot_id) of every canonical edge."""
        stmt = select(CanonicalEdgeRow.source_slot_id, CanonicalEdgeRow.target_slot_id).where(
            CanonicalEdgeRow.session_id == session_id
        )
        return [(s, t) for s, t in (await self.db.execute(stmt)).all()]

    async def mapping_count(self, session_id: str) -> int:
        """Number of mapped surface nodes."""
        stmt = select(func.count()).select_from(SlotMappingRow).where(SlotMappingRow.session_id == session_id)
        return int((await self.db.scalar(stmt)) or 0)

    # -- listing --------------------------------------------------------------------------------
    async def _page(self, stmt: Select[Any], limit: int) -> list[Any]:
        return list((await self.db.scalars(stmt.limit(limit))).all())

    async def _count(self, where: Sequence[ColumnElement[bool]], model: type[Any]) -> int:
        return int((await self.db.scalar(select(func.count()).select_from(model).where(*where))) or 0)

    async def list_slots(
        self, session_id: str, status: SlotStatus | None, after: PageKey | None, limit: int
    ) -> tuple[list[SlotRow], int]:
        """One page of slots ordered by (first_seen_turn, id), and the total matching."""
        where: list[ColumnElement[bool]] = [SlotRow.session_id == session_id]
        if status is not None:
            where.append(SlotRow.status == status.value)
        stmt = select(SlotRow).where(*where).order_by(SlotRow.first_seen_turn, SlotRow.id)
        cursor = _after(SlotRow.first_seen_turn, SlotRow.id, after)
        rows = await self._page(stmt if cursor is None else stmt.where(cursor), limit)
        return rows, await self._count(where, SlotRow)

    async def list_mappings(
        self, session_id: str, after: PageKey | None, limit: int
    ) -> tuple[list[SlotMappingRow], int]:
        """One page of mappings ordered by (assigned_turn, surface_node_id), and the total."""
        where: list[ColumnElement[bool]] = [SlotMappingRow.session_id == session_id]
        stmt = (
            select(SlotMappingRow)
            .where(*where)
            .order_by(SlotMappingRow.assigned_turn, SlotMappingRow.surface_node_id)
        )
        cursor = _after(SlotMappingRow.assigned_turn, SlotMappingRow.surface_node_id, after)
        rows = await self._page(stmt if cursor is None else stmt.where(cursor), limit)
        return rows, await self._count(where, SlotMappingRow)

    async def list_edges(
        self, session_id: str, after: PageKey | None, limit: int
    ) -> tuple[list[CanonicalEdgeRow], int]:
        """One page of canonical edges ordered by (first_seen_turn, id), and the total."""
        where: list[ColumnElement[bool]] = [CanonicalEdgeRow.session_id == session_id]
        stmt = (
            select(CanonicalEdgeRow)
            .where(*where)
            .order_by(CanonicalEdgeRow.first_seen_turn, CanonicalEdgeRow.id)
        )
        cursor = _after(CanonicalEdgeRow.first_seen_turn, CanonicalEdgeRow.id, after)
        rows = await self._page(stmt if cursor is None else stmt.where(cursor), limit)
        return rows, await self._count(where, CanonicalEdgeRow)

    async def resolve(self, session_id: str, node_ids: Sequence[str]) -> dict[str, str]:
        """Surface node id → slot id for the mapped ones."""
        return {n: m.slot_id for n, m in (await self.mappings_for(session_id, node_ids)).items()}

    async def delete_session(self, session_id: str) -> DeleteCounts:
        """Remove every row of the session (children first: no reliance on FK cascades)."""
        counts: dict[str, int] = {}
        for name, model in (
            ("surface_edges", SurfaceEdgeRow),
            ("edges", CanonicalEdgeRow),
            ("mappings", SlotMappingRow),
            ("runs", DiscoveryRunRow),
            ("slots", SlotRow),
        ):
            result = await self.db.execute(delete(model).where(model.session_id == session_id))
            counts[name] = int(getattr(result, "rowcount", 0) or 0)
        return DeleteCounts(slots=counts["slots"], mappings=counts["mappings"], edges=counts["edges"])
