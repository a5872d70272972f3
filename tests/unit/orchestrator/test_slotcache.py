"""The surface node → slot mappings the orchestrator has seen (asked for only when unknown)."""

from __future__ import annotations

from services.orchestrator.slotcache import KnownSlots
from shared.gen.interview.slots.v1 import slots_pb2


def _run(*pairs: tuple[str, str]) -> slots_pb2.DiscoverSlotsResponse:
    return slots_pb2.DiscoverSlotsResponse(
        mappings_created=[slots_pb2.SlotMapping(surface_node_id=n, slot_id=s) for n, s in pairs]
    )


def test_only_the_nodes_not_seen_mapped_are_left_to_ask() -> None:
    known = KnownSlots()
    known.add_runs("s1", [_run(("n1", "slot-a"), ("n2", "slot-b")), _run(("n3", "slot-a"))])
    found, missing = known.split("s1", ["n1", "n3", "n4"])
    assert found == {"n1": "slot-a", "n3": "slot-a"} and missing == ["n4"]
    known.add("s1", {"n4": "slot-c"})  # a resolution's answer
    assert known.split("s1", ["n4", "n2"]) == ({"n4": "slot-c", "n2": "slot-b"}, [])


def test_sessions_are_kept_apart() -> None:
    known = KnownSlots()
    known.add("s1", {"n1": "slot-a"})
    assert known.split("s2", ["n1"]) == ({}, ["n1"])


def test_the_least_recently_used_session_is_dropped_beyond_the_limit() -> None:
    known = KnownSlots(sessions=2)
    known.add("s1", {"n1": "a"})
    known.add("s2", {"n2": "b"})
    known.split("s1", ["n1"])  # s1 used last: s2 goes first
    known.add("s3", {"n3": "c"})
    assert len(known) == 2
    assert known.split("s2", ["n2"]) == ({}, ["n2"])  # forgotten: asked again
    assert known.split("s1", ["n1"]) == ({"n1": "a"}, [])
