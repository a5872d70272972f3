"""Surface node → canonical slot ids this process has already seen, per session.

canonical_slots only ever adds mappings (a node keeps its slot until the whole session is deleted),
so a mapping once seen stays true: a turn asks canonical_slots (ResolveNodes) only for the nodes
not known to be mapped yet. The mappings arrive with the discovery responses (inline, or the
deferred runs a turn catches up with) and with earlier resolutions. A process that has not seen a
session (restart, another replica) asks once and knows from then on.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence

from shared.gen.interview.slots.v1 import slots_pb2


class KnownSlots:
    """The mappings seen per session, for the `sessions` most recently used sessions."""

    def __init__(self, sessions: int = 1024) -> None:
        self._limit = sessions
        self._by_session: OrderedDict[str, dict[str, str]] = OrderedDict()

    def _session(self, session_id: str) -> dict[str, str]:
        known = self._by_session.get(session_id)
        if known is None:
            known = self._by_session[session_id] = {}
            while len(self._by_session) > self._limit:
                self._by_session.popitem(last=False)
        else:
            self._by_session.move_to_end(session_id)
        return known

    def split(self, session_id: str, node_ids: Sequence[str]) -> tuple[dict[str, str], list[str]]:
        """(slot id by node id for the known ones, the ids not known to be mapped)."""
        known = self._by_session.get(session_id)
        if known is None:  # nothing seen yet: no entry either (made by the first `add`)
            return {}, list(node_ids)
        self._by_session.move_to_end(session_id)
        found: dict[str, str] = {}
        missing: list[str] = []
        for node_id in node_ids:
            slot_id = known.get(node_id)
            if slot_id is None:
                missing.append(node_id)
            else:
                found[node_id] = slot_id
        return found, missing

    def add(self, session_id: str, slot_ids: Mapping[str, str]) -> None:
        """Remember mappings (from a resolution)."""
        if slot_ids:
            self._session(session_id).update(slot_ids)

    def add_runs(self, session_id: str, responses: Iterable[slots_pb2.DiscoverSlotsResponse]) -> None:
        """Remember the mappings discovery runs created."""
        self.add(
            session_id,
            {m.surface_node_id: m.slot_id for r in responses for m in r.mappings_created},
        )

    def __len__(self) -> int:
        return len(self._by_session)
