"""Listing (pagination, filters), resolve and session deletion."""

from __future__ import annotations

import pytest

from services.canonical_slots.app import SlotsCore
from services.canonical_slots.domain import DiscoverSlotsInput, SlotStatus, SurfaceCounts
from shared.errors import InvalidArgumentError

from .conftest import METHODOLOGY, OpenCore, edge, node

LABELS = ["low price", "red color", "two year warranty", "large screen", "loud speakers"]


async def _seed(core: SlotsCore) -> None:
    discovery = core.discovery
    nodes = [node(f"n{i}", label) for i, label in enumerate(LABELS)]
    nodes += [node("n9", "low prices"), node("f1", "saves money", "functional_consequence")]
    await discovery.discover(
        DiscoverSlotsInput(
            session_id="s1",
            turn_number=1,
            methodology=METHODOLOGY,
            nodes=tuple(nodes),
            edges=(edge("e1", "n0", "f1"), edge("e2", "n1", "f1")),
        )
    )
    await discovery.discover(
        DiscoverSlotsInput(
            session_id="s1", turn_number=2, methodology=METHODOLOGY, nodes=(node("n10", "gps tracking"),)
        )
    )


async def test_pages_cover_every_slot_once_in_order(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        await _seed(core)
        seen: list[str] = []
        token = ""
        pages = 0
        while True:
            page = await core.queries.list_slots("s1", size=2, token=token)
            assert page.total_size == 7 and len(page.items) <= 2
            seen += [s.id for s in page.items]
            pages += 1
            token = page.next_page_token
            if not token:
                break
        assert pages == 4 and len(seen) == len(set(seen)) == 7
        everything = (await core.queries.list_slots("s1", size=100)).items
        assert [s.id for s in everything] == seen
        assert everything[-1].first_seen_turn == 2  # ordered by turn


async def test_status_filter(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        await _seed(core)
        active = await core.queries.list_slots("s1", status=SlotStatus.ACTIVE)
        assert [(s.slot_name, s.support_count) for s in active.items] == [("low_price", 2)]
        assert active.total_size == 1
        candidates = await core.queries.list_slots("s1", status=SlotStatus.CANDIDATE)
        assert candidates.total_size == 6 and all(s.status is SlotStatus.CANDIDATE for s in candidates.items)


async def test_mappings_and_edges_pages(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        await _seed(core)
        first = await core.queries.list_mappings("s1", size=5)
        second = await core.queries.list_mappings("s1", size=5, token=first.next_page_token)
        assert first.total_size == 8 and len(first.items) == 5 and len(second.items) == 3
        assert second.next_page_token == ""
        assert {m.surface_node_id for m in [*first.items, *second.items]} == {
            "n0",
            "n1",
            "n2",
            "n3",
            "n4",
            "n9",
            "f1",
            "n10",
        }
        edges = await core.queries.list_edges("s1", size=1)
        assert edges.total_size == 2 and len(edges.items) == 1 and edges.next_page_token
        rest = await core.queries.list_edges("s1", size=1, token=edges.next_page_token)
        assert rest.items[0].id != edges.items[0].id and rest.next_page_token == ""


async def test_bad_page_requests(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        with pytest.raises(InvalidArgumentError) as info:
            await core.queries.list_slots("s1", token="not-a-token")
        assert [v.field for v in info.value.violations] == ["page_token"]
        with pytest.raises(InvalidArgumentError) as info:
            await core.queries.list_mappings("s1", size=501)
        assert [v.field for v in info.value.violations] == ["page_size"]
        with pytest.raises(InvalidArgumentError):
            await core.queries.list_edges("", size=1)


async def test_resolve_maps_surface_nodes_to_slots(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        await _seed(core)
        resolved = await core.queries.resolve("s1", ["n0", "n9", "n1", "unknown"])
        assert set(resolved) == {"n0", "n9", "n1"}
        assert resolved["n0"] == resolved["n9"] != resolved["n1"]
        assert await core.queries.resolve("s2", ["n0"]) == {}
        with pytest.raises(InvalidArgumentError):
            await core.queries.resolve("s1", [""])


async def test_delete_session_removes_everything_and_is_idempotent(db_url: str, open_slots: OpenCore) -> None:
    async with open_slots(db_url) as core:
        await _seed(core)
        await core.discovery.discover(
            DiscoverSlotsInput(
                session_id="keep", turn_number=1, methodology=METHODOLOGY, nodes=(node("k", "price"),)
            )
        )
        counts = await core.queries.delete_session("s1")
        assert (counts.slots, counts.mappings, counts.edges) == (7, 8, 2)
        assert (await core.queries.list_slots("s1")).total_size == 0
        assert (await core.queries.canonical_state("s1", _counts())).state.candidate_count == 0
        again = await core.queries.delete_session("s1")
        assert (again.slots, again.mappings, again.edges) == (0, 0, 0)
        assert (await core.queries.list_slots("keep")).total_size == 1
        # The turn key is free again after deletion: discovery runs anew.
        rerun = await core.discovery.discover(
            DiscoverSlotsInput(
                session_id="s1", turn_number=1, methodology=METHODOLOGY, nodes=(node("n0", "price"),)
            )
        )
        assert not rerun.replayed and len(rerun.slots_created) == 1


def _counts() -> SurfaceCounts:
    return SurfaceCounts()
