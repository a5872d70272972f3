"""The /graph tree: roots, branches, cycles, shared children, orphans, bad edges, long chains."""

from __future__ import annotations

from cli.graph_tree import render_graph
from shared.gen.interview.common.v1 import common_pb2


def node(node_id: str, label: str, node_type: str = "attribute", superseded_by: str = "") -> common_pb2.Node:
    return common_pb2.Node(id=node_id, label=label, node_type=node_type, superseded_by=superseded_by)


def edge(source: str, target: str, edge_type: str = "leads_to") -> common_pb2.Edge:
    return common_pb2.Edge(
        id=f"{source}-{target}", source_node_id=source, target_node_id=target, edge_type=edge_type
    )


def test_empty_graph_says_so() -> None:
    assert render_graph([], []) == ["The graph is empty (answer a question first)."]


def test_chain_and_branches_are_indented_under_their_root() -> None:
    nodes = [
        node("a", "battery life", "attribute"),
        node("b", "fewer charges", "functional_consequence"),
        node("c", "peace of mind", "psychosocial_consequence"),
        node("d", "security", "value"),
    ]
    edges = [edge("a", "b"), edge("b", "c"), edge("a", "d", "supports")]
    assert render_graph(nodes, edges) == [
        "Graph: 4 nodes, 3 edges",
        "battery life [attribute]",
        "├─(leads_to)→ fewer charges [functional_consequence]",
        "│  └─(leads_to)→ peace of mind [psychosocial_consequence]",
        "└─(supports)→ security [value]",
    ]


def test_a_cycle_below_a_root_is_marked_and_not_followed() -> None:
    nodes = [node("r", "root"), node("a", "x"), node("b", "y")]
    edges = [edge("r", "a"), edge("a", "b"), edge("b", "a")]
    assert render_graph(nodes, edges)[1:] == [
        "root [attribute]",
        "└─(leads_to)→ x [attribute]",
        "   └─(leads_to)→ y [attribute]",
        "      └─(leads_to)→ x [attribute]  ↻ cycle",
    ]


def test_a_pure_cycle_without_roots_still_appears_once() -> None:
    nodes = [node("a", "x"), node("b", "y"), node("s", "self")]
    edges = [edge("a", "b"), edge("b", "a"), edge("s", "s")]
    lines = render_graph(nodes, edges)
    assert lines[1:] == [
        "x [attribute]",
        "└─(leads_to)→ y [attribute]",
        "   └─(leads_to)→ x [attribute]  ↻ cycle",
        "self [attribute]",
        "└─(leads_to)→ self [attribute]  ↻ cycle",
    ]


def test_a_shared_subtree_is_expanded_once_and_referenced_after() -> None:
    nodes = [node("p", "p1"), node("q", "p2"), node("s", "shared"), node("t", "leaf")]
    edges = [edge("p", "s"), edge("q", "s"), edge("s", "t")]
    assert render_graph(nodes, edges)[1:] == [
        "p1 [attribute]",
        "└─(leads_to)→ shared [attribute]",
        "   └─(leads_to)→ leaf [attribute]",
        "p2 [attribute]",
        "└─(leads_to)→ shared [attribute]  ↑ see above",
    ]


def test_orphans_are_listed_and_not_treated_as_trees() -> None:
    nodes = [node("a", "x"), node("o", "lonely", "value"), node("b", "y", "value")]
    lines = render_graph(nodes, [edge("a", "b")])
    assert lines == [
        "Graph: 3 nodes, 1 edges",
        "x [attribute]",
        "└─(leads_to)→ y [value]",
        "Not connected (1):",
        "  · lonely [value]",
    ]


def test_edges_to_missing_nodes_and_duplicates_are_ignored() -> None:
    nodes = [node("a", "x"), node("b", "y")]
    edges = [edge("a", "b"), edge("a", "b"), edge("a", "ghost"), edge("ghost", "b")]
    assert render_graph(nodes, edges) == [
        "Graph: 2 nodes, 1 edges",
        "x [attribute]",
        "└─(leads_to)→ y [attribute]",
    ]


def test_revised_nodes_are_marked() -> None:
    lines = render_graph([node("a", "old", superseded_by="b"), node("b", "new")], [edge("a", "b")])
    assert lines[1] == "old [attribute] (revised)"


def test_a_very_long_chain_renders_without_recursion() -> None:
    count = 3000  # deeper than Python's default recursion limit
    nodes = [node(str(i), f"n{i}") for i in range(count)]
    edges = [edge(str(i), str(i + 1)) for i in range(count - 1)]
    lines = render_graph(nodes, edges)
    assert len(lines) == count + 1
    assert lines[-1].endswith("└─(leads_to)→ n2999 [attribute]")
    assert lines[-1].startswith("   " * (count - 2))
