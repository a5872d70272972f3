"""The session graph as an indented tree (`/graph`).

Roots are the nodes without incoming edges; children follow outgoing edges, each line showing the
edge type and the child's node type. A node reached again through a cycle is marked and not
expanded (so the output is finite); a node already expanded under another parent is referenced, not
repeated. Nodes that only sit on cycles (no root reaches them) start trees of their own, and nodes
without any edge are listed at the end.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shared.gen.interview.common.v1 import common_pb2

_BRANCH, _LAST, _PIPE, _BLANK = "├─", "└─", "│  ", "   "


@dataclass
class _Frame:
    node: str
    children: list[tuple[str, str]]  # (edge type, target id)
    prefix: str
    index: int = 0


@dataclass
class _Graph:
    labels: dict[str, str]
    out: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    incoming: dict[str, int] = field(default_factory=dict)
    connected: set[str] = field(default_factory=set)


def _node_text(node: common_pb2.Node) -> str:
    text = f"{node.label or node.id} [{node.node_type or '?'}]"
    return text + (" (revised)" if node.superseded_by else "")


def _build(nodes: Sequence[common_pb2.Node], edges: Sequence[common_pb2.Edge]) -> _Graph:
    graph = _Graph(labels={n.id: _node_text(n) for n in nodes})
    seen: set[tuple[str, str, str]] = set()
    for edge in edges:
        key = (edge.source_node_id, edge.target_node_id, edge.edge_type)
        # Edges to nodes the response does not carry cannot be drawn; duplicates add nothing.
        if key in seen or edge.source_node_id not in graph.labels or edge.target_node_id not in graph.labels:
            continue
        seen.add(key)
        graph.out.setdefault(edge.source_node_id, []).append((edge.edge_type or "?", edge.target_node_id))
        graph.incoming[edge.target_node_id] = graph.incoming.get(edge.target_node_id, 0) + 1
        graph.connected.update((edge.source_node_id, edge.target_node_id))
    return graph


def _tree(graph: _Graph, root: str, expanded: set[str]) -> list[str]:
    """One tree, depth first, iteratively (long chains must not hit the recursion limit)."""
    lines = [graph.labels[root]]
    expanded.add(root)
    path = {root}
    stack = [_Frame(root, graph.out.get(root, []), "")]
    while stack:
        frame = stack[-1]
        if frame.index == len(frame.children):
            stack.pop()
            path.discard(frame.node)
            continue
        edge_type, child = frame.children[frame.index]
        frame.index += 1
        last = frame.index == len(frame.children)
        line = f"{frame.prefix}{_LAST if last else _BRANCH}({edge_type})→ {graph.labels[child]}"
        if child in path:
            lines.append(f"{line}  ↻ cycle")
        elif child in expanded:
            lines.append(f"{line}  ↑ see above" if graph.out.get(child) else line)
        else:
            lines.append(line)
            expanded.add(child)
            path.add(child)
            stack.append(_Frame(child, graph.out.get(child, []), frame.prefix + (_BLANK if last else _PIPE)))
    return lines


def render_graph(nodes: Sequence[common_pb2.Node], edges: Sequence[common_pb2.Edge]) -> list[str]:
    """The graph as lines of text (a summary line first)."""
    if not nodes:
        return ["The graph is empty (answer a question first)."]
    graph = _build(nodes, edges)
    edge_count = sum(len(children) for children in graph.out.values())
    order = list(dict.fromkeys(n.id for n in nodes))
    lines = [f"Graph: {len(order)} nodes, {edge_count} edges"]
    expanded: set[str] = set()
    roots = [n for n in order if n in graph.connected and graph.incoming.get(n, 0) == 0]
    for root in roots:
        if root not in expanded:
            lines += _tree(graph, root, expanded)
    # Whatever is left is only reachable around a cycle: start a tree at the first such node.
    for node in order:
        if node in graph.connected and node not in expanded:
            lines += _tree(graph, node, expanded)
    orphans = [n for n in order if n not in graph.connected]
    if orphans:
        lines.append(f"Not connected ({len(orphans)}):")
        lines += [f"  · {graph.labels[n]}" for n in orphans]
    return lines
