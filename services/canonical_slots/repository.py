"""Read access (state, lists, resolution), session deletion and the per-session lock.

A `SlotRepository` wraps one `AsyncSession`; the caller owns the transaction. A discovery run's
reads and writes are Core statements of their own (`record`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, delete, func, or_, select, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from .domain import DeleteCounts, SlotStatus
from .models import CanonicalEdgeRow, DiscoveryRunRow, SlotMappingRow, SlotRow, SurfaceEdgeRow
from .pagination import PageKey
from .record import mappings_of


def advisory_key(session_id: str) -> int:
    """A stable signed 64-bit key for `pg_advisory_xact_lock` (same on every replica)."""
    digest = hashlib.blake2b(f"canonical_slots:{session_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def lock_session(conn: AsyncConnection, session_id: str) -> None:
    """On PostgreSQL, serialise writers of one session across replicas (released at commit)."""
    if conn.dialect.name == "postgresql":
        await conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": advisory_key(session_id)})


def _after(turn_col: Any, id_col: Any, key: PageKey | None) -> ColumnElement[bool] | None:
    if key is None:
        return None
    return or_(turn_col > key.turn, and_(turn_col == key.turn, id_col > key.ident))


class SlotRepository:
    """The queries of one session (unit of work)."""

    def __init__(self, db: AsyncSession) -> None:
        self.db = db

    # -- locking --------------------------------------------------------------------------------
    async def lock_session(self, session_id: str) -> None:
        """On PostgreSQL, serialise discovery per session across replicas (released at commit)."""
        await lock_session(await self.db.connection(), session_id)

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
        found = await mappings_of(await self.db.connection(), session_id, node_ids)
        return {n: m.slot_id for n, m in found.items()}

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
