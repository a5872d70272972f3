"""Graph-state metrics: longest chain (cycle-safe), avg depth, chain completion, degrees."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest

from services.graph_store.metrics import (
    EdgeRef,
    NodeRef,
    compute_graph_state,
    depth_metrics,
    strongly_connected_components,
)
from shared.methodology_models import MethodologyConfig


def _depth(ids: str, edges: Sequence[str], levels: int = 5) -> tuple[int, float, list[str], float]:
    """Metrics of a graph given as node letters and 'ab' edge strings."""
    pos = {n: i for i, n in enumerate(ids)}
    adj: list[list[int]] = [[] for _ in ids]
    for e in edges:
        adj[pos[e[0]]].append(pos[e[1]])
    m = depth_metrics(list(ids), adj, levels)
    return m.max_depth, m.avg_depth, m.longest_chain_path, m.max_depth_normalized


def _is_path(path: list[str], edges: Sequence[str]) -> bool:
    return all(f"{a}{b}" in edges for a, b in itertools.pairwise(path))


def test_chain_depth_counts_nodes() -> None:
    edges = ["ab", "bc", "cd"]
    max_depth, avg, path, norm = _depth("abcd", edges)
    assert max_depth == 4
    assert path == ["a", "b", "c", "d"]
    assert avg == pytest.approx((1 + 2 + 3 + 4) / 4)
    assert norm == pytest.approx(4 / 5)


def test_diamond_with_a_long_arm_takes_the_longest_not_the_shortest_path() -> None:
    # a→d directly (BFS depth 2) but a→b→c→d is the longest chain (4 nodes).
    edges = ["ad", "ab", "bc", "cd"]
    max_depth, _, path, _ = _depth("abcd", edges)
    assert max_depth == 4
    assert path == ["a", "b", "c", "d"]


def test_plain_diamond() -> None:
    edges = ["ab", "ac", "bd", "cd"]
    max_depth, avg, path, _ = _depth("abcd", edges)
    assert max_depth == 3
    assert path[0] == "a" and path[-1] == "d" and len(path) == 3 and _is_path(path, edges)
    assert avg == pytest.approx((1 + 2 + 2 + 3) / 4)


def test_cycle_terminates_and_counts_each_member_once() -> None:
    # e → (a → b → c → a) → d : the cycle's three nodes can all lie on one chain.
    edges = ["ea", "ab", "bc", "ca", "cd"]
    max_depth, _, path, _ = _depth("abcde", edges)
    assert max_depth == 5
    assert path == ["e", "a", "b", "c", "d"]
    assert _is_path(path, edges)


def test_pure_cycle_and_self_contained_two_cycle() -> None:
    assert _depth("ab", ["ab", "ba"])[0] == 2
    max_depth, avg, path, _ = _depth("abc", ["ab", "bc", "ca"])
    assert max_depth == 3 and avg == 3
    assert sorted(path) == ["a", "b", "c"] and _is_path(path, ["ab", "bc", "ca"])


def test_two_components_reports_the_longer() -> None:
    edges = ["ab", "cd", "de", "ef"]
    max_depth, _, path, _ = _depth("abcdefg", edges)
    assert max_depth == 4
    assert path == ["c", "d", "e", "f"]


def test_normalised_depth_is_capped_at_one() -> None:
    _, _, _, norm = _depth("abcdef", ["ab", "bc", "cd", "de", "ef"], levels=3)
    assert norm == 1.0


def test_long_chain_does_not_hit_the_recursion_limit() -> None:
    n = 5000
    adj = [[i + 1] for i in range(n - 1)] + [[0]]  # one big cycle
    assert len(strongly_connected_components(adj)) == 1
    chain = [[i + 1] for i in range(n - 1)] + [[]]
    assert depth_metrics([str(i) for i in range(n)], chain, 5).max_depth == n


def test_empty_graph() -> None:
    m = depth_metrics([], [], 5)
    assert (m.max_depth, m.avg_depth, m.longest_chain_path) == (0, 0.0, [])


def test_graph_state_counts_orphans_degrees_and_chain_completion(mec: MethodologyConfig) -> None:
    nodes = [
        NodeRef("a1", "attribute"),
        NodeRef("f1", "functional_consequence"),
        NodeRef("t1", "terminal_value"),
        NodeRef("a2", "attribute"),  # ladder stops at a functional consequence
        NodeRef("f2", "functional_consequence"),
        NodeRef("a3", "attribute"),  # orphan
    ]
    edges = [
        EdgeRef("a1", "f1", "leads_to"),
        EdgeRef("f1", "t1", "leads_to"),
        EdgeRef("a2", "f2", "leads_to"),
        EdgeRef("a2", "a1", "conflicts_with"),
    ]
    state = compute_graph_state("s", nodes, edges, mec)
    assert state.node_count == 6 and state.edge_count == 4
    assert state.nodes_by_type == {"attribute": 3, "functional_consequence": 2, "terminal_value": 1}
    assert state.edges_by_type == {"leads_to": 3, "conflicts_with": 1}
    assert state.orphan_count == 1
    # a2 reaches t1 through a1 (any edge counts as a path), a1 reaches t1, a3 reaches nothing.
    cc = state.chain_completion
    assert (cc.level1_count, cc.complete_chain_count, cc.has_complete) == (3, 2, True)
    assert cc.ratio == pytest.approx(2 / 3)
    degrees = {d.node_id: (d.in_degree, d.out_degree) for d in state.node_degrees}
    assert degrees == {"a1": (1, 1), "f1": (1, 1), "t1": (1, 0), "a2": (0, 2), "f2": (1, 0), "a3": (0, 0)}
    assert state.depth.max_depth == 4 and state.depth.longest_chain_path == ["a2", "a1", "f1", "t1"]
    assert state.depth.max_depth_normalized == pytest.approx(4 / mec.level_count)
    # each step of the chain names its edge: the first is the trade-off, not a "leads to"
    assert state.depth.longest_chain_edge_types == ["conflicts_with", "leads_to", "leads_to"]


def test_a_step_linked_twice_is_named_by_the_edge_that_joins_a_chain(mec: MethodologyConfig) -> None:
    nodes = [NodeRef("a", "attribute"), NodeRef("b", "attribute"), NodeRef("f", "functional_consequence")]
    # a -> b both conflicts and (later) leads to: the step reads as a chain step
    edges = [
        EdgeRef("a", "b", "conflicts_with"),
        EdgeRef("a", "b", "leads_to"),
        EdgeRef("b", "f", "revises"),
        EdgeRef("b", "f", "conflicts_with"),
    ]
    state = compute_graph_state("s", nodes, edges, mec)
    assert state.depth.longest_chain_path == ["a", "b", "f"]
    # between two types that both break a chain, the first stored stays
    assert state.depth.longest_chain_edge_types == ["leads_to", "revises"]
    single = compute_graph_state("s", [NodeRef("a", "attribute")], [], mec)
    assert single.depth.longest_chain_path == ["a"] and single.depth.longest_chain_edge_types == []


def test_no_complete_chain_without_a_terminal(mec: MethodologyConfig) -> None:
    state = compute_graph_state(
        "s",
        [NodeRef("a", "attribute"), NodeRef("f", "functional_consequence")],
        [EdgeRef("a", "f", "leads_to")],
        mec,
    )
    assert state.chain_completion.has_complete is False
    assert state.chain_completion.ratio == 0.0
