"""`SlotDiscovery.warm_up` exercises discovery at start-up without writing or calling an LLM."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from services.canonical_slots.domain import DiscoverSlotsInput, SurfaceCounts
from services.canonical_slots.models import (
    CanonicalEdgeRow,
    DiscoveryRunRow,
    SlotMappingRow,
    SlotRow,
    SurfaceEdgeRow,
)
from shared.db import create_session_factory
from shared.llm import build_llm_clients
from shared.methodology import MethodologyRegistry
from tests.fakes.llm_server import FakeLLMServer, fake_llm_settings

from .conftest import METHODOLOGY, OpenCore, node

TABLES = (SlotRow, SlotMappingRow, CanonicalEdgeRow, SurfaceEdgeRow, DiscoveryRunRow)


async def _rows(core: Any) -> int:
    async with create_session_factory(core.engine)() as db:
        return sum([int(await db.scalar(select(func.count()).select_from(t)) or 0) for t in TABLES])


async def test_warm_up_writes_nothing_and_calls_no_llm(
    db_url: str, open_slots: OpenCore, registry: MethodologyRegistry, fake_llm: FakeLLMServer
) -> None:
    clients = build_llm_clients(fake_llm_settings(fake_llm, "openai"))
    try:
        async with open_slots(db_url, client=clients.scoring) as core:
            for name in registry.names():
                await core.discovery.warm_up(name)
            assert await _rows(core) == 0
            assert fake_llm.requests == []  # an LLM call at start-up would cost money on every restart
    finally:
        await clients.aclose()


async def test_discovery_works_normally_after_a_warm_up(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        await core.discovery.warm_up(METHODOLOGY)
        result = await core.discovery.discover(
            DiscoverSlotsInput(
                session_id="s1", turn_number=1, methodology=METHODOLOGY, nodes=(node("a", "running shoes"),)
            )
        )
        assert len(result.slots_created) == 1 and result.replayed is False
        report = await core.queries.canonical_state("s1", SurfaceCounts(node_count=1, edge_count=0))
        assert report.state.candidate_count == 1
