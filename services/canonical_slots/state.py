"""Canonical graph metrics (pure functions over slots and canonical edges).

`longest_chain` is the longest *simple* directed path, counted in slots. On a DAG it is the
classic linear-time DP. With cycles the exact problem is NP-hard, so a budgeted depth-first
search explores simple paths (canonical graphs are small: tens of slots) and, if the budget runs
out, the best chain found so far is returned — always a real simple path, never inflated by a
cycle and never an infinite loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .domain import CanonicalState, GraphComparison, SlotStatus, SurfaceCounts

DFS_BUDGET = 200_000  # path extensions explored before settling for the best chain found


@dataclass(frozen=True)
class SlotStat:
    """What the metrics need of a slot."""

    id: str
    status: SlotStatus
    support_count: int


def _adjacency(nodes: Iterable[str], edges: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    adj: dict[str, list[str]] = {n: [] for n in nodes}
    for src, dst in edges:
        if src != dst and src in adj and dst in adj and dst not in adj[src]:
            adj[src].append(dst)
    for targets in adj.values():
        targets.sort()  # deterministic choice among equally long chains
    return adj


def _topological_order(adj: Mapping[str, Sequence[str]]) -> list[str] | None:
    indegree = {n: 0 for n in adj}
    for targets in adj.values():
        for t in targets:
            indegree[t] += 1
    ready = sorted(n for n, d in indegree.items() if d == 0)
    order: list[str] = []
    while ready:
        n = ready.pop()
        order.append(n)
        for t in adj[n]:
            indegree[t] -= 1
            if indegree[t] == 0:
                ready.append(t)
    return order if len(order) == len(adj) else None


def _dag_longest(adj: Mapping[str, Sequence[str]], order: Sequence[str]) -> list[str]:
    best_len: dict[str, int] = {}
    best_next: dict[str, str | None] = {}
    for n in reversed(order):  # successors first
        best_len[n], best_next[n] = 1, None
        for t in adj[n]:
            if best_len[t] + 1 > best_len[n]:
                best_len[n], best_next[n] = best_len[t] + 1, t
    if not best_len:
        return []
    start = max(sorted(best_len), key=lambda n: best_len[n])
    chain: list[str] = []
    cursor: str | None = start
    while cursor is not None:
        chain.append(cursor)
        cursor = best_next[cursor]
    return chain


def _cyclic_longest(adj: Mapping[str, Sequence[str]], budget: int) -> list[str]:
    best: list[str] = []
    steps = 0
    for start in sorted(adj):
        path, on_path = [start], {start}
        stack: list[Iterable[str]] = [iter(adj[start])]
        while stack and steps < budget:
            nxt = next((t for t in stack[-1] if t not in on_path), None)
            if nxt is None:
                stack.pop()
                on_path.discard(path.pop())
                continue
            steps += 1
            path.append(nxt)
            on_path.add(nxt)
            stack.append(iter(adj[nxt]))
            if len(path) > len(best):
                best = list(path)
        if len(best) == len(adj) or steps >= budget:
            break
    return best or sorted(adj)[:1]


def longest_chain(
    nodes: Iterable[str], edges: Iterable[tuple[str, str]], *, budget: int = DFS_BUDGET
) -> list[str]:
    """One longest simple directed chain (list of node ids, source first); [] without nodes."""
    adj = _adjacency(nodes, edges)
    if not adj:
        return []
    order = _topological_order(adj)
    return _dag_longest(adj, order) if order is not None else _cyclic_longest(adj, budget)


def canonical_state(
    slots: Sequence[SlotStat], edges: Sequence[tuple[str, str]], *, mapped_node_count: int
) -> CanonicalState:
    """Metrics of a canonical graph. max_depth runs over all slots and canonical edges (candidate
    slots included: an edge is evidence whatever the endpoints' support); the concept, orphan and
    support figures count active slots only, as in the reference."""
    active = [s for s in slots if s.status is SlotStatus.ACTIVE]
    linked = {endpoint for edge in edges for endpoint in edge}
    chain = longest_chain((s.id for s in slots), edges)
    return CanonicalState(
        concept_count=len(active),
        candidate_count=len(slots) - len(active),
        edge_count=len(edges),
        orphan_count=sum(1 for s in active if s.id not in linked),
        max_depth=len(chain),
        longest_chain=tuple(chain),
        avg_support=(sum(s.support_count for s in active) / len(active)) if active else 0.0,
        mapped_node_count=mapped_node_count,
    )


def compare(state: CanonicalState, surface: SurfaceCounts) -> GraphComparison:
    """Surface vs canonical sizes; compression = surface nodes per active concept."""
    return GraphComparison(
        surface_node_count=surface.node_count,
        surface_edge_count=surface.edge_count,
        canonical_concept_count=state.concept_count,
        canonical_edge_count=state.edge_count,
        compression_ratio=(surface.node_count / state.concept_count) if state.concept_count else 0.0,
    )
