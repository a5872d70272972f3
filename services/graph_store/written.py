"""The nodes and edges a plan creates, as a read of them after the write returns them.

`apply_extraction` answers with the nodes and edges it created. They are built here from the plan
and the values written with it instead of being read back in the same transaction (a query per
table for every turn, on the turn's critical path). Existing nodes and edges the utterance
mentioned again are still read: their provenance spans earlier utterances. A unit test compares
both ways on the same writes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from .domain import Edge, Node, Quote
from .planner import Mention, Plan


def _provenance(mentions: Sequence[Mention], utterance_id: str) -> tuple[list[str], list[Quote]]:
    """What `repository._provenance` makes of the mention rows written for one target."""
    quotes = [
        Quote(utterance_id=utterance_id, text=m.quote.text, start=m.quote.start, end=m.quote.end)
        for m in mentions
        if m.quote is not None
    ]
    return ([utterance_id] if mentions else []), quotes


def _by_target(mentions: Sequence[Mention]) -> dict[str, list[Mention]]:
    out: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:  # plan order: the order the rows are inserted (and read back) in
        out[m.target_id].append(m)
    return out


def created_nodes(plan: Plan, *, session_id: str, utterance_id: str, turn: int, now: datetime) -> list[Node]:
    """The plan's new nodes with their embeddings and this utterance's provenance."""
    mentions = _by_target(plan.node_mentions)
    out: list[Node] = []
    for n in plan.new_nodes:
        utterances, quotes = _provenance(mentions.get(n.id, ()), utterance_id)
        out.append(
            Node(
                id=n.id,
                session_id=session_id,
                label=n.label,
                node_type=n.node_type,
                confidence=n.confidence,
                stance=n.stance,
                properties=dict(n.properties),
                recorded_at=now,
                created_turn=turn,
                level=n.level,
                is_terminal=n.is_terminal,
                # A revision in the same answer may supersede a node it created.
                superseded_by=plan.supersede.get(n.id),
                source_utterance_ids=utterances,
                quotes=quotes,
                embedding=n.embedding,
            )
        )
    return out


def created_edges(plan: Plan, *, session_id: str, utterance_id: str, turn: int, now: datetime) -> list[Edge]:
    """The plan's new edges with this utterance's provenance."""
    mentions = _by_target(plan.edge_mentions)
    out: list[Edge] = []
    for e in plan.new_edges:
        utterances, quotes = _provenance(mentions.get(e.id, ()), utterance_id)
        out.append(
            Edge(
                id=e.id,
                session_id=session_id,
                source_node_id=e.source_node_id,
                target_node_id=e.target_node_id,
                edge_type=e.edge_type,
                confidence=e.confidence,
                properties=dict(e.properties),
                recorded_at=now,
                created_turn=turn,
                source_utterance_ids=utterances,
                quotes=quotes,
            )
        )
    return out
