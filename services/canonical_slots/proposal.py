"""Slot proposal: which surface nodes express the same latent concept, and what to call it.

Two engines behind one protocol:
- `LLMSlotProposer` asks the scoring LLM client for structured proposals, in batches of at most
  `batch_size` nodes that run concurrently. Every node ends up in exactly one proposal: a node the
  model leaves out (or a whole batch that fails, when fallback is on) is proposed on its own /
  by the offline engine, so no node is ever left unmapped (the reference lost every node past its
  first batch).
- `OfflineSlotProposer` (provider `local`) groups nodes by lemmatised head term and embedding
  similarity; see `offline.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import structlog
from pydantic import BaseModel, Field

from shared.errors import LLMError
from shared.llm.base import LLMClient, LLMUsage

from .lemmas import snake_case
from .vectors import FloatArray

logger = structlog.get_logger(__name__)

_MAX_DESCRIPTION_CHARS = 500


@dataclass(frozen=True)
class PreparedNode:
    """A validated surface node; `vector` is its L2-normalised embedding when the caller sent one
    (engines that need embeddings compute the missing ones)."""

    id: str
    label: str
    node_type: str
    vector: FloatArray | None = field(default=None, repr=False, compare=False)


@dataclass(frozen=True)
class Proposal:
    """A proposed slot covering nodes of a single node_type."""

    slot_name: str
    description: str
    node_type: str
    node_ids: tuple[str, ...]
    origin: str  # "llm", "fallback" (left out by the model) or "offline"


@dataclass(frozen=True)
class ProposalContext:
    """What a proposer may show the model besides the nodes."""

    session_id: str
    methodology: str
    type_descriptions: Mapping[str, str] = field(default_factory=dict)
    existing_slot_names: Mapping[str, Sequence[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class ProposalOutcome:
    """All proposals of a run, the summed LLM usage and warnings for the result."""

    proposals: list[Proposal]
    usage: LLMUsage
    warnings: list[str] = field(default_factory=list)


class SlotProposer(Protocol):
    """Proposes slots for the nodes of one run."""

    async def propose(self, nodes: Sequence[PreparedNode], context: ProposalContext) -> ProposalOutcome:
        """Proposals covering every node exactly once."""
        ...


class ProposedSlotOut(BaseModel):
    """One slot in the model's answer."""

    slot_name: str = Field(description="snake_case name of the latent concept, e.g. charging_speed")
    description: str = Field(description="one sentence defining the concept")
    node_ids: list[str] = Field(description="ids (n1, n2, ...) of the listed nodes this slot covers")


class SlotProposalOut(BaseModel):
    """The model's whole answer for one batch."""

    slots: list[ProposedSlotOut]


SYSTEM_PROMPT = (
    "You normalise concepts from a qualitative research interview into canonical slots. "
    "A slot is a stable latent concept that paraphrases and grammatical variants share "
    "(e.g. 'fast car', 'quick vehicle' -> speed_performance). Group only nodes of the SAME node "
    "type, never merge opposite or unrelated ideas, and reuse an existing slot name when a node "
    "expresses that concept. Every listed node must appear in exactly one slot. Answer with "
    "snake_case slot names and a one-sentence description per slot."
)


def render_batch(batch: Sequence[PreparedNode], context: ProposalContext) -> str:
    """The user prompt for one batch; nodes are keyed n1..nK (models copy short keys reliably)."""
    lines = [f"Methodology: {context.methodology}", "", "Nodes:"]
    lines += [f'- n{i}: "{node.label}" (type: {node.node_type})' for i, node in enumerate(batch, 1)]
    types = sorted({node.node_type for node in batch})
    lines += ["", "Node types:"]
    lines += [f"- {t}: {context.type_descriptions.get(t, '')}".rstrip(": ") for t in types]
    existing = [(t, context.existing_slot_names.get(t, ())) for t in types]
    if any(names for _, names in existing):
        lines += ["", "Existing slots (reuse a name when it fits):"]
        lines += [f"- {t}: {', '.join(names)}" for t, names in existing if names]
    return "\n".join(lines)


def add_usage(total: LLMUsage, part: LLMUsage) -> LLMUsage:
    """Sum of two usages (identity fields taken from whichever is set)."""
    return LLMUsage(
        client=total.client or part.client,
        provider=total.provider or part.provider,
        model=total.model or part.model,
        input_tokens=total.input_tokens + part.input_tokens,
        output_tokens=total.output_tokens + part.output_tokens,
        cost_usd=total.cost_usd + part.cost_usd,
        latency_ms=max(total.latency_ms, part.latency_ms),  # batches run concurrently
        calls=total.calls + part.calls,
    )


def single_node_proposal(node: PreparedNode, origin: str) -> Proposal:
    """A node's own slot, named after its label."""
    return Proposal(
        slot_name=snake_case(node.label) or "concept",
        description=node.label.strip(),
        node_type=node.node_type,
        node_ids=(node.id,),
        origin=origin,
    )


def proposals_from_answer(
    batch: Sequence[PreparedNode], answer: SlotProposalOut
) -> tuple[list[Proposal], list[str]]:
    """Turn the model's answer into per-node_type proposals that cover the batch exactly once."""
    by_key: dict[str, PreparedNode] = {}
    for i, node in enumerate(batch, 1):
        by_key[f"n{i}"] = node
        by_key[node.id] = node  # models sometimes echo the real id
    claimed: set[str] = set()
    proposals: list[Proposal] = []
    warnings: list[str] = []
    for slot in answer.slots:
        name = snake_case(slot.slot_name)
        covered: dict[str, list[str]] = {}
        for key in slot.node_ids:
            found = by_key.get(key.strip())
            if found is None:
                warnings.append(f"slot proposal {slot.slot_name!r} named an unknown node {key!r}")
                continue
            if found.id in claimed:
                continue  # first proposal wins: a node maps to one slot
            claimed.add(found.id)
            covered.setdefault(found.node_type, []).append(found.id)
        for node_type, ids in covered.items():
            first = next(n for n in batch if n.id == ids[0])
            description = slot.description.strip()[:_MAX_DESCRIPTION_CHARS]
            proposals.append(
                Proposal(
                    slot_name=name or snake_case(first.label) or "concept",
                    description=description or first.label,
                    node_type=node_type,
                    node_ids=tuple(ids),
                    origin="llm",
                )
            )
    missed = [node for node in batch if node.id not in claimed]
    if missed:
        warnings.append(f"{len(missed)} node(s) left out by the slot proposal were given their own slot")
    proposals.extend(single_node_proposal(node, "fallback") for node in missed)
    return proposals, warnings


class LLMSlotProposer:
    """Proposals from the scoring LLM client, `batch_size` nodes per call, batches concurrent."""

    def __init__(
        self,
        client: LLMClient,
        *,
        batch_size: int,
        fallback: SlotProposer | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._client = client
        self._batch_size = batch_size
        self._fallback = fallback

    def batches(self, nodes: Sequence[PreparedNode]) -> list[list[PreparedNode]]:
        """Chunks of ≤ batch_size, nodes ordered by type so most batches hold one type."""
        ordered = sorted(nodes, key=lambda n: n.node_type)
        return [ordered[i : i + self._batch_size] for i in range(0, len(ordered), self._batch_size)]

    async def propose(self, nodes: Sequence[PreparedNode], context: ProposalContext) -> ProposalOutcome:
        """One concurrent LLM call per batch; see the module docstring for the coverage rule."""
        batches = self.batches(nodes)
        results = await asyncio.gather(
            *(self._propose_batch(batch, context) for batch in batches), return_exceptions=True
        )
        proposals: list[Proposal] = []
        warnings: list[str] = []
        client = self._client
        usage = LLMUsage(client=str(client.name), provider=client.provider, model=client.model)
        for batch, result in zip(batches, results, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, LLMError) or self._fallback is None:
                    raise result
                # The run must still map every node: degrade this batch to the offline engine.
                logger.warning("slots.proposal_batch_failed", error=type(result).__name__, nodes=len(batch))
                fallback = await self._fallback.propose(batch, context)
                proposals.extend(fallback.proposals)
                warnings.append(
                    f"slot proposal failed for {len(batch)} node(s) ({result.public_message}); "
                    "grouped offline"
                )
                continue
            batch_proposals, batch_warnings, batch_usage = result
            proposals.extend(batch_proposals)
            warnings.extend(batch_warnings)
            usage = add_usage(usage, batch_usage)
        return ProposalOutcome(proposals=proposals, usage=usage, warnings=warnings)

    async def _propose_batch(
        self, batch: Sequence[PreparedNode], context: ProposalContext
    ) -> tuple[list[Proposal], list[str], LLMUsage]:
        result = await self._client.complete_json(
            system=SYSTEM_PROMPT,
            user=render_batch(batch, context),
            schema=SlotProposalOut,
            tool_name="propose_slots",
            session_id=context.session_id,
        )
        proposals, warnings = proposals_from_answer(batch, result.value)
        return proposals, warnings, result.usage
