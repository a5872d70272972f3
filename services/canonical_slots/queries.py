"""Read path (state, lists, resolve) and session deletion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from .domain import (
    CanonicalEdge,
    CanonicalState,
    CanonicalStateReport,
    DeleteCounts,
    Slot,
    SlotMapping,
    SlotStatus,
    SurfaceCounts,
)
from .locks import SessionLocks
from .pagination import PageKey, decode_token, encode_token, page_size
from .repository import SlotRepository
from .state import SlotStat, canonical_state, compare
from .validation import validate_list, validate_resolve, validate_session, validate_state
from .views import edge_view, mapping_view, slot_view

MAX_RESOLVE_IDS = 5000
T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a list and the token of the next ("" at the end)."""

    items: list[T]
    next_page_token: str
    total_size: int


async def state_of(repo: SlotRepository, session_id: str) -> CanonicalState:
    """The canonical metrics of a session as the unit of work currently sees them."""
    stats = [SlotStat(i, SlotStatus(s), c) for i, s, c in await repo.slot_stats(session_id)]
    return canonical_state(
        stats, await repo.edge_pairs(session_id), mapped_node_count=await repo.mapping_count(session_id)
    )


class SlotQueries:
    """Reads of slots, mappings, canonical edges and metrics; deletion of a session."""

    def __init__(self, *, sessions: async_sessionmaker[AsyncSession], locks: SessionLocks) -> None:
        self._sessions = sessions
        self._locks = locks

    async def canonical_state(self, session_id: str, surface: SurfaceCounts) -> CanonicalStateReport:
        """Metrics plus the surface-vs-canonical comparison (an unknown session is empty, not an error:
        slots exist only once discovery ran)."""
        validate_state(session_id, surface.node_count, surface.edge_count)
        async with self._sessions() as db:
            state = await state_of(SlotRepository(db), session_id)
        return CanonicalStateReport(session_id=session_id, state=state, comparison=compare(state, surface))

    async def list_slots(
        self, session_id: str, *, status: SlotStatus | None = None, size: int = 0, token: str = ""
    ) -> Page[Slot]:
        """Slots ordered by (first_seen_turn, id), optionally of one status."""
        validate_list(session_id, size)
        after, limit = decode_token(token), page_size(size)
        async with self._sessions() as db:
            rows, total = await SlotRepository(db).list_slots(session_id, status, after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        last = PageKey(rows[-1].first_seen_turn, rows[-1].id) if more and rows else None
        return Page([slot_view(r) for r in rows], encode_token(last), total)

    async def list_mappings(self, session_id: str, *, size: int = 0, token: str = "") -> Page[SlotMapping]:
        """Mappings ordered by (assigned_turn, surface_node_id)."""
        validate_list(session_id, size)
        after, limit = decode_token(token), page_size(size)
        async with self._sessions() as db:
            rows, total = await SlotRepository(db).list_mappings(session_id, after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        last = PageKey(rows[-1].assigned_turn, rows[-1].surface_node_id) if more and rows else None
        return Page([mapping_view(r) for r in rows], encode_token(last), total)

    async def list_edges(self, session_id: str, *, size: int = 0, token: str = "") -> Page[CanonicalEdge]:
        """Canonical edges ordered by (first_seen_turn, id)."""
        validate_list(session_id, size)
        after, limit = decode_token(token), page_size(size)
        async with self._sessions() as db:
            rows, total = await SlotRepository(db).list_edges(session_id, after, limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        last = PageKey(rows[-1].first_seen_turn, rows[-1].id) if more and rows else None
        return Page([edge_view(r) for r in rows], encode_token(last), total)

    async def resolve(self, session_id: str, node_ids: list[str]) -> dict[str, str]:
        """Surface node id → slot id; unmapped ids are left out."""
        validate_resolve(session_id, node_ids, MAX_RESOLVE_IDS)
        async with self._sessions() as db:
            return await SlotRepository(db).resolve(session_id, node_ids)

    async def delete_session(self, session_id: str) -> DeleteCounts:
        """Delete every slot, mapping, edge and run of the session (idempotent: 0s the second time)."""
        validate_session(session_id)
        async with self._locks.hold(session_id), self._sessions() as db, db.begin():
            repo = SlotRepository(db)
            await repo.lock_session(session_id)
            return await repo.delete_session(session_id)
