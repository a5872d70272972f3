"""What every stage may use: internal service stubs, the repository and settings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from services.orchestrator.background import LocalDiscoveries
from services.orchestrator.clients import Dependencies
from services.orchestrator.contracts import ContextLoadingOutput, GraphUpdateOutput
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.rules import TerminationRules
from services.orchestrator.settings import OrchestratorSettings
from services.orchestrator.slotcache import KnownSlots
from services.orchestrator.tracking import tracked_labels
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.methodology import MethodologyRegistry


@dataclass(frozen=True)
class StageDeps:
    """Injected into every stage's constructor."""

    deps: Dependencies
    repo: OrchestratorRepository
    settings: OrchestratorSettings
    methodologies: MethodologyRegistry
    rules: TerminationRules
    # The deferred slot discoveries this process started (the next turn takes their responses).
    discoveries: LocalDiscoveries = field(default_factory=LocalDiscoveries)
    # The surface node → slot mappings seen so far (a mapping never changes).
    known_slots: KnownSlots = field(default_factory=KnownSlots)


def depth_score(rubric_scores: list[common_pb2.RubricScore]) -> int:
    """The rubric's response_depth score (3 = moderate when absent)."""
    for score in rubric_scores:
        if score.name == "response_depth":
            return max(1, min(5, score.score))
    return 3


def known_labels(loaded: ContextLoadingOutput, update: GraphUpdateOutput) -> dict[str, tuple[str, str]]:
    """(label, node type) by node id for the nodes this turn already holds: the tracker's, those
    shown to extraction and those the graph update created or matched (labels never change).

    With the tracker's labels a large graph (where extraction is shown only the most relevant
    nodes) needs no lookup either."""
    known = tracked_labels(update.tracker)
    known.update((n.node_id, (n.label, n.node_type)) for n in loaded.existing_nodes or ())
    known.update((n.id, (n.label, n.node_type)) for n in update.response.nodes_created)
    known.update((m.node.id, (m.node.label, m.node.node_type)) for m in update.response.nodes_mentioned)
    return known


async def node_labels(
    d: StageDeps, session_id: str, node_ids: Sequence[str], known: Mapping[str, tuple[str, str]]
) -> dict[str, tuple[str, str]]:
    """(label, node type) of `node_ids`: from `known`, and one BatchGetNodes for the rest (ids the
    graph no longer has are left out)."""
    found = {i: known[i] for i in node_ids if i in known}
    missing = [i for i in dict.fromkeys(node_ids) if i not in found]
    if missing:
        response: graph_pb2.BatchGetNodesResponse = await d.deps(
            d.deps.graph.BatchGetNodes,
            graph_pb2.BatchGetNodesRequest(
                session_id=session_id, node_ids=missing, view=graph_pb2.NODE_VIEW_BASIC
            ),
            service="graph_store",
        )
        found.update((n.id, (n.label, n.node_type)) for n in response.nodes)
    return found
