"""Slot proposal: coverage of every node, batching through the real SDK + fake provider, offline."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from services.canonical_slots.lemmas import Lemmatizer
from services.canonical_slots.offline import OfflineSlotProposer
from services.canonical_slots.proposal import (
    LLMSlotProposer,
    PreparedNode,
    ProposalContext,
    ProposedSlotOut,
    SlotProposalOut,
    proposals_from_answer,
)
from shared.errors import LLMError
from shared.llm import LLMClients, build_llm_clients
from tests.fakes.llm_server import FakeLLMServer, Reply, fake_llm_settings

CONTEXT = ProposalContext(session_id="s1", methodology="means_end_chain")


def _nodes(labels: list[str], node_type: str = "attribute") -> list[PreparedNode]:
    return [PreparedNode(id=f"node-{i}", label=label, node_type=node_type) for i, label in enumerate(labels)]


def _covered(proposals: Any) -> list[str]:
    return sorted(i for p in proposals for i in p.node_ids)


@pytest_asyncio.fixture(loop_scope="session")
async def llm_clients(fake_llm: FakeLLMServer) -> AsyncIterator[LLMClients]:
    clients = build_llm_clients(fake_llm_settings(fake_llm, provider="anthropic", max_retries=0))
    try:
        yield clients
    finally:
        await clients.aclose()


def _offline(lemmatizer: Lemmatizer, embedder: Any) -> OfflineSlotProposer:
    return OfflineSlotProposer(lemmatizer, embedder, cluster_threshold=0.70, head_threshold=0.45)


# -- turning an answer into proposals ---------------------------------------------------------------
def test_answer_keys_map_to_nodes_and_left_out_nodes_get_their_own_slot() -> None:
    batch = _nodes(["fast charging", "quick charging", "low price"])
    answer = SlotProposalOut(
        slots=[
            ProposedSlotOut(
                slot_name="Charging Speed", description="How fast it charges", node_ids=["n1", "n2"]
            )
        ]
    )
    proposals, warnings = proposals_from_answer(batch, answer)
    assert [(p.slot_name, p.node_ids, p.origin) for p in proposals] == [
        ("charging_speed", ("node-0", "node-1"), "llm"),
        ("low_price", ("node-2",), "fallback"),
    ]
    assert any("left out" in w for w in warnings)


def test_answer_with_unknown_duplicate_and_real_ids() -> None:
    batch = _nodes(["comfort", "soft cushioning"])
    answer = SlotProposalOut(
        slots=[
            ProposedSlotOut(
                slot_name="comfort", description="", node_ids=["node-0", "n9"]
            ),  # real id + unknown
            ProposedSlotOut(slot_name="cushioning", description="soft", node_ids=["n1", "n1", "n2"]),
        ]
    )
    proposals, warnings = proposals_from_answer(batch, answer)
    assert _covered(proposals) == ["node-0", "node-1"]  # each node exactly once
    assert proposals[0].description == "comfort"  # empty description → label
    assert any("unknown node 'n9'" in w for w in warnings)


def test_a_proposal_mixing_node_types_is_split_per_type() -> None:
    batch = [*_nodes(["durable"]), *_nodes(["lasts for years"], "functional_consequence")]
    batch[1] = PreparedNode(id="node-x", label="lasts for years", node_type="functional_consequence")
    answer = SlotProposalOut(
        slots=[ProposedSlotOut(slot_name="durability", description="d", node_ids=["n1", "n2"])]
    )
    proposals, _ = proposals_from_answer(batch, answer)
    assert sorted((p.node_type, p.node_ids) for p in proposals) == [
        ("attribute", ("node-0",)),
        ("functional_consequence", ("node-x",)),
    ]


# -- batching through the real SDK ------------------------------------------------------------------
async def test_twenty_nodes_make_three_concurrent_calls_and_all_are_mapped(
    fake_llm: FakeLLMServer, llm_clients: LLMClients
) -> None:
    nodes = _nodes([f"battery detail {i}" for i in range(20)])
    # Every batch gets the same answer: it groups its first two nodes and omits the rest.
    reply = {
        "slots": [{"slot_name": "battery_life", "description": "How long it lasts", "node_ids": ["n1", "n2"]}]
    }
    fake_llm.enqueue(*(Reply.structured(reply, input_tokens=100, output_tokens=20) for _ in range(3)))
    proposer = LLMSlotProposer(llm_clients.scoring, batch_size=8)

    outcome = await proposer.propose(nodes, CONTEXT)

    assert len(fake_llm.requests) == 3
    sizes = sorted(json.dumps(r.body).count("(type: attribute)") for r in fake_llm.requests)
    assert sizes == [4, 8, 8]
    assert _covered(outcome.proposals) == sorted(n.id for n in nodes)  # all 20, once each
    assert sum(1 for p in outcome.proposals if p.slot_name == "battery_life") == 3
    assert sum(1 for p in outcome.proposals if p.origin == "fallback") == 14
    assert outcome.usage.calls == 3
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (300, 60)
    assert outcome.usage.provider == "anthropic"


async def test_failed_batch_falls_back_to_offline_grouping(
    fake_llm: FakeLLMServer, llm_clients: LLMClients, lemmatizer: Lemmatizer, embedder: Any
) -> None:
    fake_llm.enqueue(*(Reply.server_error(500) for _ in range(4)))
    nodes = _nodes(["fast charging", "quick charging", "low price"])
    proposer = LLMSlotProposer(llm_clients.scoring, batch_size=8, fallback=_offline(lemmatizer, embedder))

    outcome = await proposer.propose(nodes, CONTEXT)

    assert _covered(outcome.proposals) == ["node-0", "node-1", "node-2"]
    assert {p.origin for p in outcome.proposals} == {"offline"}
    assert any("grouped offline" in w for w in outcome.warnings)


async def test_failed_batch_without_fallback_raises(fake_llm: FakeLLMServer, llm_clients: LLMClients) -> None:
    fake_llm.enqueue(*(Reply.server_error(500) for _ in range(4)))
    with pytest.raises(LLMError):
        await LLMSlotProposer(llm_clients.scoring, batch_size=8).propose(_nodes(["price"]), CONTEXT)


async def test_prompt_names_types_and_existing_slots(
    fake_llm: FakeLLMServer, llm_clients: LLMClients
) -> None:
    fake_llm.enqueue(Reply.structured({"slots": []}))
    context = ProposalContext(
        session_id="s1",
        methodology="means_end_chain",
        type_descriptions={"attribute": "A property of the product"},
        existing_slot_names={"attribute": ["charging_speed"]},
    )
    await LLMSlotProposer(llm_clients.scoring, batch_size=8).propose(_nodes(["fast charging"]), context)
    body = json.dumps(fake_llm.requests[0].body)
    assert "fast charging" in body and "A property of the product" in body and "charging_speed" in body


def test_batch_size_must_be_positive(llm_clients: LLMClients) -> None:
    with pytest.raises(ValueError, match="batch_size"):
        LLMSlotProposer(llm_clients.scoring, batch_size=0)


# -- offline --------------------------------------------------------------------------------------
async def test_offline_groups_variants_heads_and_paraphrases(lemmatizer: Lemmatizer, embedder: Any) -> None:
    labels = [
        "running shoes",  # 0 ─┐ same lemmas
        "running shoe",  # 1 ─┘
        "long battery life",  # 2 ─┐ same head, similar
        "battery life",  # 3 ─┘
        "social life",  # 4   same head "life" but unrelated: alone
        "fast charging",  # 5 ─┐ paraphrases (cosine ≈ 0.88)
        "quick charging",  # 6 ─┘
        "low price",  # 7   alone
    ]
    nodes = _nodes(labels)
    nodes.append(PreparedNode(id="v-1", label="peace of mind", node_type="terminal_value"))

    outcome = await _offline(lemmatizer, embedder).propose(nodes, CONTEXT)

    groups = sorted(sorted(p.node_ids) for p in outcome.proposals)
    assert groups == sorted(
        [
            ["node-0", "node-1"],
            ["node-2", "node-3"],
            ["node-4"],
            ["node-5", "node-6"],
            ["node-7"],
            ["v-1"],
        ]
    )
    by_ids = {p.node_ids: p for p in outcome.proposals}
    assert by_ids[("node-2", "node-3")].slot_name in {"battery_life", "long_battery_life"}
    assert by_ids[("v-1",)].node_type == "terminal_value"
    assert outcome.usage.calls == 0 and outcome.usage.provider == "local"


async def test_offline_uses_sent_embeddings(lemmatizer: Lemmatizer, embedder: Any) -> None:
    # Orthogonal vectors sent by the caller keep paraphrases apart: the sent vectors are used.
    vec_a, vec_b = embedder.encode(["fast charging", "quick charging"])
    orthogonal = vec_b - float(vec_a @ vec_b) * vec_a
    orthogonal /= float((orthogonal @ orthogonal) ** 0.5)
    nodes = [
        PreparedNode(id="a", label="fast charging", node_type="attribute", vector=vec_a),
        PreparedNode(id="b", label="quick charging", node_type="attribute", vector=orthogonal),
    ]
    outcome = await _offline(lemmatizer, embedder).propose(nodes, CONTEXT)
    assert len(outcome.proposals) == 2
