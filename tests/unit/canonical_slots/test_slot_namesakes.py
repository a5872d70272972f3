"""A proposal named like an existing slot of its type merges by name, so its slot text is not
encoded; the texts that are encoded still end up with their own proposals (SQLite and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import select

from services.canonical_slots.app import open_core
from services.canonical_slots.discovery import DiscoveryConfig, SlotDiscovery
from services.canonical_slots.domain import DiscoverSlotsInput, MatchKind, SurfaceNodeIn
from services.canonical_slots.lemmas import Lemmatizer
from services.canonical_slots.locks import SessionLocks
from services.canonical_slots.models import SlotRow
from services.canonical_slots.proposal import PreparedNode, Proposal, ProposalContext, ProposalOutcome
from services.canonical_slots.settings import CanonicalSlotsSettings
from services.canonical_slots.vectors import slot_text
from shared.db import create_session_factory, single_writer
from shared.llm import build_llm_clients
from shared.llm.base import LLMClientName, LLMUsage
from shared.llm.local import LocalLLMClient
from shared.methodology import MethodologyRegistry
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings

from .conftest import METHODOLOGY, node

BATTERY = slot_text("battery_life", "How long the battery lasts")
# The first run's slot in the plural: another name, the same merge key ("charge_speed").
NAMESAKE = slot_text("charging_speeds", "Recharging takes little time")


class RecordingEncoder:
    """The real embedder, with every batch it is asked to encode kept in `calls`."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.calls: list[list[str]] = []

    async def aencode(self, texts: Sequence[str]) -> Any:
        self.calls.append(list(texts))
        return await self._inner.aencode(texts)

    def texts(self) -> list[str]:
        return [text for call in self.calls for text in call]


def req(session: str, turn: int, nodes: list[SurfaceNodeIn]) -> DiscoverSlotsInput:
    return DiscoverSlotsInput(
        session_id=session, turn_number=turn, methodology=METHODOLOGY, nodes=tuple(nodes)
    )


def proposed(name: str, description: str, key: str) -> dict[str, Any]:
    """One slot of the model's answer (`key`: the node's key in the prompt, n1, n2, ...)."""
    return {"slot_name": name, "description": description, "node_ids": [key]}


async def _slot_vector(core: Any, slot_id: str) -> np.ndarray:
    async with create_session_factory(core.engine)() as db:
        data = await db.scalar(select(SlotRow.embedding).where(SlotRow.id == slot_id))
    assert data is not None
    return np.frombuffer(data, dtype="<f4")


async def test_a_namesake_proposal_merges_by_name_without_encoding_its_text(
    db_url: str, embedder: Any, lemmatizer: Lemmatizer, registry: MethodologyRegistry
) -> None:
    recorder = RecordingEncoder(embedder)
    with FakeLLMServer() as fake:
        fake.enqueue(
            Reply.structured(
                {"slots": [proposed("charging_speed", "How quickly the battery recharges", "n1")]}
            ),
            Reply.structured(
                {
                    "slots": [
                        proposed("charging_speeds", "Recharging takes little time", "n1"),
                        proposed("battery_life", "How long the battery lasts", "n2"),
                    ]
                }
            ),
        )
        clients = build_llm_clients(fake_llm_settings(fake, provider="anthropic", max_retries=0))
        try:
            async with open_core(
                CanonicalSlotsSettings(database_url=db_url),
                encoder=recorder,
                lemmatizer=lemmatizer,
                scoring_client=clients.scoring,
                methodologies=registry.get,
            ) as core:
                first = await core.discovery.discover(req("s1", 1, [node("a", "fast charging")]))
                recorder.calls.clear()
                second = await core.discovery.discover(
                    req("s1", 2, [node("b", "recharges in minutes"), node("c", "lasts all day")])
                )
                battery = next(s for s in second.slots_created if s.slot_name == "battery_life")
                stored = await _slot_vector(core, battery.id)
        finally:
            await clients.aclose()
    by_node = {a.surface_node_id: a for a in second.assignments}
    assert by_node["b"].match is MatchKind.NAME_MATCH
    assert by_node["b"].slot_id == first.slots_created[0].id
    assert [s.slot_name for s in second.slots_updated] == ["charging_speed"]
    assert by_node["c"].match is MatchKind.NEW_SLOT
    assert NAMESAKE not in recorder.texts()
    assert recorder.texts().count(BATTERY) == 1
    # The one text encoded is stored with its own proposal's slot, not with the skipped one's.
    assert np.allclose(stored, (await embedder.aencode([BATTERY]))[0], atol=1e-6)


class _NamesakeAfterDelete:
    """Proposes a namesake of the session's slot, after the session's slots were deleted: what a
    DeleteSession arriving between the proposal and the run's lock leaves behind."""

    def __init__(self, delete: Any) -> None:
        self._delete = delete

    async def propose(self, nodes: Sequence[PreparedNode], context: ProposalContext) -> ProposalOutcome:
        await self._delete()
        proposal = Proposal(
            slot_name="fast_charging",
            description="Charging that takes little time",
            node_type=nodes[0].node_type,
            node_ids=tuple(n.id for n in nodes),
            origin="llm",
        )
        return ProposalOutcome(proposals=[proposal], usage=LLMUsage())


async def test_a_namesake_whose_slot_is_gone_is_encoded_under_the_lock(
    db_url: str, embedder: Any, lemmatizer: Lemmatizer, registry: MethodologyRegistry
) -> None:
    recorder = RecordingEncoder(embedder)
    async with open_core(
        CanonicalSlotsSettings(database_url=db_url),
        encoder=recorder,
        lemmatizer=lemmatizer,
        scoring_client=LocalLLMClient(name=LLMClientName.SCORING),  # the offline proposer
        methodologies=registry.get,
    ) as core:
        first = await core.discovery.discover(req("s1", 1, [node("a", "fast charging")]))
        assert [s.slot_name for s in first.slots_created] == ["fast_charging"]
        discovery = SlotDiscovery(
            sessions=create_session_factory(core.engine),
            encoder=recorder,
            lemmatizer=lemmatizer,
            proposer=_NamesakeAfterDelete(lambda: core.queries.delete_session("s1")),
            methodologies=registry.get,
            locks=SessionLocks(one_writer=single_writer(core.engine)),
            config=DiscoveryConfig(),
        )
        recorder.calls.clear()
        second = await discovery.discover(req("s1", 2, [node("b", "quick charging")]))
        (created,) = second.slots_created
        stored = await _slot_vector(core, created.id)
    text = slot_text("fast_charging", "Charging that takes little time")
    assert second.assignments[0].match is MatchKind.NEW_SLOT
    assert created.slot_name == "fast_charging" and created.id != first.slots_created[0].id
    assert recorder.texts() == [text]  # skipped before the lock, encoded once under it
    assert np.allclose(stored, (await embedder.aencode([text]))[0], atol=1e-6)
