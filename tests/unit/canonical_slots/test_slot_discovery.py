"""discover_slots end to end on SQLite and PostgreSQL (offline proposer unless stated)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func, select

from services.canonical_slots.domain import DiscoverSlotsInput, MatchKind, SlotStatus, SurfaceNodeIn
from services.canonical_slots.models import DiscoveryRunRow, SlotMappingRow, SlotRow, SurfaceEdgeRow
from shared.db import create_session_factory
from shared.errors import InvalidArgumentError
from shared.llm import build_llm_clients
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings
from tests.sqlite import never_wait_for_the_write_lock

from .conftest import METHODOLOGY, OpenCore, edge, node


def req(session: str, turn: int, nodes: list[SurfaceNodeIn], edges: Any = ()) -> DiscoverSlotsInput:
    return DiscoverSlotsInput(
        session_id=session, turn_number=turn, methodology=METHODOLOGY, nodes=tuple(nodes), edges=tuple(edges)
    )


async def _count(core: Any, model: type[Any]) -> int:
    async with create_session_factory(core.engine)() as db:
        return int(await db.scalar(select(func.count()).select_from(model)) or 0)


async def test_slot_lifecycle_across_turns(db_url: str, open_slots: OpenCore) -> None:
    async with open_slots(db_url) as core:
        first = await core.discovery.discover(req("s1", 1, [node("a", "running shoes")]))
        assert len(first.slots_created) == 1
        slot = first.slots_created[0]
        assert (slot.status, slot.support_count, slot.first_seen_turn, slot.promoted_turn) == (
            SlotStatus.CANDIDATE,
            1,
            1,
            None,
        )
        assert first.assignments[0].match is MatchKind.NEW_SLOT

        # The same surface node again (another turn) is not new support.
        again = await core.discovery.discover(req("s1", 2, [node("a", "running shoes")]))
        assert again.mappings_created == () and again.slots_updated == () and again.slots_promoted == ()
        assert again.assignments[0].match is MatchKind.EXISTING_MAPPING
        assert again.llm_usage.calls == 0
        page = await core.queries.list_slots("s1")
        assert [(s.support_count, s.status) for s in page.items] == [(1, SlotStatus.CANDIDATE)]

        # A second distinct node with the lemma-equal name promotes the slot at turn 3.
        third = await core.discovery.discover(req("s1", 3, [node("b", "running shoe")]))
        assert third.assignments[0].match is MatchKind.NAME_MATCH
        assert third.assignments[0].slot_id == slot.id
        assert [s.id for s in third.slots_promoted] == [slot.id]
        promoted = third.slots_promoted[0]
        assert (promoted.status, promoted.support_count, promoted.promoted_turn) == (SlotStatus.ACTIVE, 2, 3)
        assert third.canonical_state is not None and third.canonical_state.concept_count == 1

        # A third node keeps it active; promoted_turn stays the turn of promotion.
        await core.discovery.discover(req("s1", 4, [node("c", "Running-Shoes")]))
        (final,) = (await core.queries.list_slots("s1")).items
        assert (final.support_count, final.status, final.promoted_turn) == (3, SlotStatus.ACTIVE, 3)


async def test_discovery_is_idempotent_on_session_and_turn(db_url: str, open_slots: OpenCore) -> None:
    async with open_slots(db_url) as core:
        nodes = [node("a", "low price"), node("b", "fast charging")]
        first = await core.discovery.discover(req("s1", 1, nodes, [edge("e1", "a", "b")]))
        counts = [await _count(core, m) for m in (SlotRow, SlotMappingRow, SurfaceEdgeRow, DiscoveryRunRow)]

        repeat = await core.discovery.discover(req("s1", 1, nodes, [edge("e1", "a", "b")]))
        # A repeat with other content is still a repeat of the key: it writes nothing.
        other = await core.discovery.discover(req("s1", 1, [node("z", "warranty")]))

        assert repeat.replayed and other.replayed and not first.replayed
        assert repeat.model_copy(update={"replayed": False}) == first
        assert other.slots_created == first.slots_created
        assert [
            await _count(core, m) for m in (SlotRow, SlotMappingRow, SurfaceEdgeRow, DiscoveryRunRow)
        ] == counts
        assert await core.queries.resolve("s1", ["z"]) == {}


async def test_canonical_edges_aggregate_distinct_surface_edges(db_url: str, open_slots: OpenCore) -> None:
    async with open_slots(db_url) as core:
        await core.discovery.discover(
            req(
                "s1",
                1,
                [node("a", "running shoes"), node("b", "comfortable feet", "functional_consequence")],
                [edge("e1", "a", "b")],
            )
        )
        second = await core.discovery.discover(
            req(
                "s1",
                2,
                [node("c", "running shoe"), node("d", "comfortable foot", "functional_consequence")],
                [
                    edge("e2", "c", "d"),  # same slots as e1 → support 2
                    edge("e1", "a", "b"),  # re-sent: not counted twice
                    edge("e3", "a", "c", "conflicts_with"),  # both in one slot: a self-loop, no edge
                    edge("e4", "c", "later"),  # endpoint not mapped yet: pending
                ],
            )
        )
        assert second.pending_edge_count == 1
        (canonical,) = (await core.queries.list_edges("s1")).items
        assert canonical.support_count == 2
        assert sorted(canonical.surface_edge_ids) == ["e1", "e2"]
        assert [e.id for e in second.edges_updated] == [canonical.id]
        slots = {s.node_type: s for s in (await core.queries.list_slots("s1")).items}
        assert (canonical.source_slot_id, canonical.target_slot_id) == (
            slots["attribute"].id,
            slots["functional_consequence"].id,
        )

        # The pending edge is aggregated once its endpoint gets mapped in a later turn.
        third = await core.discovery.discover(
            req("s1", 3, [node("later", "peace of mind", "terminal_value")])
        )
        assert third.pending_edge_count == 0
        assert [e.surface_edge_ids for e in third.edges_created] == [("e4",)]
        state = await core.queries.canonical_state("s1", _surface(5, 4))
        assert state.state.edge_count == 2
        assert state.state.max_depth == 2


def _surface(nodes: int, edges: int) -> Any:
    from services.canonical_slots.domain import SurfaceCounts

    return SurfaceCounts(node_count=nodes, edge_count=edges)


async def test_state_metrics_orphans_and_compression(db_url: str, open_slots: OpenCore) -> None:
    async with open_slots(db_url) as core:
        await core.discovery.discover(
            req(
                "s1",
                1,
                [
                    node("a1", "running shoes"),
                    node("a2", "running shoe"),  # active attribute slot
                    node("f1", "saves time", "functional_consequence"),
                    node("f2", "saving time", "functional_consequence"),  # active consequence slot
                    node("v1", "peace of mind", "terminal_value"),
                    node("v2", "peace of minds", "terminal_value"),  # active value slot: orphan
                    node("x1", "low price"),  # candidate
                ],
                [edge("e1", "a1", "f1")],
            )
        )
        report = await core.queries.canonical_state("s1", _surface(7, 1))
        state = report.state
        assert (state.concept_count, state.candidate_count, state.edge_count) == (3, 1, 1)
        assert state.orphan_count == 1
        assert state.max_depth == 2
        assert state.avg_support == 2.0
        assert state.mapped_node_count == 7
        assert report.comparison.compression_ratio == pytest.approx(7 / 3)

        empty = await core.queries.canonical_state("nobody", _surface(0, 0))
        assert (empty.state.concept_count, empty.state.max_depth, empty.comparison.compression_ratio) == (
            0,
            0,
            0.0,
        )


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"session_id": ""}, "session_id"),
        ({"turn_number": -1}, "turn_number"),
        ({"methodology": "astrology"}, "methodology"),
        ({"nodes": (SurfaceNodeIn(id="a", label="  ", node_type="attribute"),)}, "nodes[0].label"),
        ({"nodes": (SurfaceNodeIn(id="a", label="price", node_type="feeling"),)}, "nodes[0].node_type"),
        (
            {"nodes": (SurfaceNodeIn(id="a", label="price", node_type="attribute", embedding=(0.1,)),)},
            "nodes[0].embedding",
        ),
        ({"edges": (edge("e1", "a", "b", "causes"),)}, "edges[0].edge_type"),
    ],
)
async def test_bad_input_is_rejected_and_writes_nothing(
    sqlite_url: str, open_slots: OpenCore, kwargs: dict[str, Any], field: str
) -> None:
    base = {
        "session_id": "s1",
        "turn_number": 1,
        "methodology": METHODOLOGY,
        "nodes": (node("ok", "price"),),
        "edges": (),
    }
    async with open_slots(sqlite_url) as core:
        with pytest.raises(InvalidArgumentError) as info:
            await core.discovery.discover(DiscoverSlotsInput(**{**base, **kwargs}))
        assert field in [v.field for v in info.value.violations]
        assert [await _count(core, m) for m in (SlotRow, SlotMappingRow, DiscoveryRunRow)] == [0, 0, 0]
        # The key was not consumed: a valid call for the same turn is a first run.
        assert not (await core.discovery.discover(DiscoverSlotsInput(**base))).replayed


async def test_every_violation_is_reported_at_once(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        bad = DiscoverSlotsInput(
            session_id="",
            turn_number=0,
            methodology=METHODOLOGY,
            nodes=(node("a", ""), node("a", "x", "nope")),
        )
        with pytest.raises(InvalidArgumentError) as info:
            await core.discovery.discover(bad)
        fields = {v.field for v in info.value.violations}
        assert {
            "session_id",
            "turn_number",
            "nodes[0].label",
            "nodes[1].node_id",
            "nodes[1].node_type",
        } <= fields


async def test_concurrent_turns_of_one_session_keep_counts_exact(db_url: str, open_slots: OpenCore) -> None:
    variants = [
        "running shoes",
        "running shoe",
        "Running Shoes",
        "running-shoes",
        "running shoes!",
        "RUNNING SHOE",
    ]
    async with open_slots(db_url) as core:
        results = await asyncio.gather(
            *(
                core.discovery.discover(req("s1", turn, [node(f"n{turn}", label)]))
                for turn, label in enumerate(variants, 1)
            ),
            # a duplicate of turn 1 racing the original: one run, one replay
            core.discovery.discover(req("s1", 1, [node("n1", variants[0])])),
        )
        assert sum(r.replayed for r in results) == 1
        (slot,) = (await core.queries.list_slots("s1")).items
        assert slot.support_count == len(variants)
        assert slot.status is SlotStatus.ACTIVE
        assert await _count(core, SlotMappingRow) == len(variants)
        assert await _count(core, DiscoveryRunRow) == len(variants)


async def test_concurrent_sessions_never_meet_in_sqlites_busy_handler(
    sqlite_url: str, open_slots: OpenCore
) -> None:
    # SQLite has one write lock per file. The sessions' write transactions queue in the process
    # instead: with a busy timeout of 0, a run that found the file locked would fail at once.
    sessions = [f"s{i}" for i in range(16)]
    async with open_slots(sqlite_url) as core:
        await never_wait_for_the_write_lock(core.engine)
        for turn in (1, 2):
            runs = [
                core.discovery.discover(
                    req(
                        s,
                        turn,
                        [
                            node(f"{s}-a{turn}", "long battery life"),
                            node(f"{s}-b{turn}", "fewer worries", "psychosocial_consequence"),
                        ],
                        [edge(f"{s}-e{turn}", f"{s}-a{turn}", f"{s}-b{turn}")],
                    )
                )
                for s in sessions
            ]
            outcomes = await asyncio.gather(*runs, return_exceptions=True)
            assert [o for o in outcomes if isinstance(o, BaseException)] == []
        for s in sessions:
            assert (await core.queries.list_slots(s)).total_size == 2
        assert await _count(core, DiscoveryRunRow) == 2 * len(sessions)
        assert await _count(core, SlotMappingRow) == 4 * len(sessions)


async def test_sessions_are_isolated(sqlite_url: str, open_slots: OpenCore) -> None:
    async with open_slots(sqlite_url) as core:
        await core.discovery.discover(req("s1", 1, [node("a", "price")]))
        other = await core.discovery.discover(req("s2", 1, [node("a", "price")]))
        assert len(other.slots_created) == 1 and not other.replayed
        assert (await core.queries.list_slots("s2")).total_size == 1


# -- the LLM path ----------------------------------------------------------------------------------
# Twenty attributes measured pairwise < 0.60 (and < 0.60 against the battery_life proposal), so the
# nodes the fake's answer leaves out keep their own slots.
DISTINCT = [
    "low price",
    "light weight",
    "red color",
    "two year warranty",
    "large screen",
    "loud speakers",
    "fast processor",
    "waterproof case",
    "wireless charging",
    "good camera",
    "comfortable fit",
    "soft strap",
    "metal frame",
    "voice assistant",
    "gps tracking",
    "sleep tracking",
    "heart rate monitor",
    "step counter",
    "bright display",
    "easy setup",
]


async def test_llm_batches_map_all_twenty_nodes(db_url: str, open_slots: OpenCore) -> None:
    with FakeLLMServer() as fake:
        reply = {
            "slots": [
                {
                    "slot_name": "battery_life",
                    "description": "How long the battery lasts",
                    "node_ids": ["n1", "n2"],
                }
            ]
        }
        fake.enqueue(*(Reply.structured(reply) for _ in range(3)))
        clients = build_llm_clients(fake_llm_settings(fake, provider="openai", max_retries=0))
        try:
            async with open_slots(db_url, client=clients.scoring) as core:
                nodes = [node(f"node-{i:02d}", label) for i, label in enumerate(DISTINCT)]
                result = await core.discovery.discover(req("s1", 1, nodes))
                resolved = await core.queries.resolve("s1", [n.id for n in nodes])
        finally:
            await clients.aclose()
    assert len(fake.requests) == 3
    assert result.llm_usage.calls == 3 and result.llm_usage.provider == "openai"
    assert len(result.mappings_created) == 20 and set(resolved) == {n.id for n in nodes}
    # The three batches' battery_life proposals merge by name into one slot of support 6.
    battery = [s for s in result.slots_created if s.slot_name == "battery_life"]
    assert len(battery) == 1
    assert list(resolved.values()).count(battery[0].id) == 6
    assert battery[0].id in {s.id for s in result.slots_promoted}
    assert len(result.slots_created) == 1 + 14  # left-out nodes each got their own slot


async def test_llm_proposals_merge_by_embedding_at_the_real_threshold(
    sqlite_url: str, open_slots: OpenCore, embedder: Any
) -> None:
    with FakeLLMServer() as fake:
        fake.enqueue(
            Reply.structured(
                {
                    "slots": [
                        {
                            "slot_name": "charging_speed",
                            "description": "How quickly the battery recharges",
                            "node_ids": ["n1"],
                        }
                    ]
                }
            ),
            Reply.structured(
                {
                    "slots": [
                        {
                            "slot_name": "quick_recharge",
                            "description": "Recharging the battery takes little time",
                            "node_ids": ["n1"],
                        },
                        {
                            "slot_name": "battery_life",
                            "description": "How long the battery lasts on one charge",
                            "node_ids": ["n2"],
                        },
                    ]
                }
            ),
        )
        clients = build_llm_clients(fake_llm_settings(fake, provider="anthropic", max_retries=0))
        try:
            async with open_slots(sqlite_url, client=clients.scoring) as core:
                first = await core.discovery.discover(req("s1", 1, [node("a", "fast charging")]))
                second = await core.discovery.discover(
                    req("s1", 2, [node("b", "recharges in minutes"), node("c", "lasts all day")])
                )
        finally:
            await clients.aclose()
    by_node = {a.surface_node_id: a for a in second.assignments}
    assert by_node["b"].match is MatchKind.EMBEDDING_MATCH
    assert by_node["b"].slot_id == first.slots_created[0].id
    assert 0.60 <= by_node["b"].similarity < 1.0
    assert by_node["c"].match is MatchKind.NEW_SLOT
    assert [s.slot_name for s in second.slots_created] == ["battery_life"]
    assert [s.slot_name for s in second.slots_promoted] == ["charging_speed"]
    # The second prompt offered the existing slot name for reuse.
    assert "charging_speed" in str(fake.requests[1].body)


@pytest.mark.postgres
async def test_two_replicas_are_serialised_by_the_advisory_lock(
    fresh_pg_url: str, open_slots: OpenCore
) -> None:
    # Two cores = two processes' worth of engines and in-process locks: only PostgreSQL's advisory
    # lock keeps their read-merge-write sections from interleaving.
    variants = [
        "running shoes",
        "running shoe",
        "Running Shoes",
        "running-shoes",
        "RUNNING SHOE",
        "running shoes!",
    ]
    async with open_slots(fresh_pg_url) as one, open_slots(fresh_pg_url) as two:
        results = await asyncio.gather(
            *(
                (one if turn % 2 else two).discovery.discover(req("s1", turn, [node(f"n{turn}", label)]))
                for turn, label in enumerate(variants, 1)
            )
        )
        assert sum(len(r.slots_created) for r in results) == 1
        (slot,) = (await one.queries.list_slots("s1")).items
        assert slot.support_count == len(variants)
        assert sorted(r.assignments[0].slot_id for r in results) == [slot.id] * len(variants)


async def test_a_concurrent_repeat_of_a_turn_waits_for_the_run_in_progress(
    sqlite_url: str, open_slots: OpenCore
) -> None:
    # The orchestrator's background discovery and the next turn's completion of it arrive
    # together: one run (one LLM call), and the repeat returns that run marked as a replay.
    with FakeLLMServer() as fake:
        reply = {
            "slots": [{"slot_name": "battery_life", "description": "How long it lasts", "node_ids": ["n1"]}]
        }
        fake.enqueue(Reply.structured(reply), Reply.structured(reply))
        clients = build_llm_clients(fake_llm_settings(fake, provider="openai", max_retries=0))
        try:
            async with open_slots(sqlite_url, client=clients.scoring) as core:
                request = req("s1", 1, [node("n1", "battery life")])
                first, second = await asyncio.gather(
                    core.discovery.discover(request), core.discovery.discover(request)
                )
                later = await core.discovery.discover(request)
        finally:
            await clients.aclose()
    assert len(fake.requests) == 1
    assert not first.replayed and second.replayed and later.replayed
    assert second.mappings_created == first.mappings_created and len(first.mappings_created) == 1
