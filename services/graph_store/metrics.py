"""Graph-state metrics of one session's surface graph (pure functions, no I/O).

Depth is the *longest* directed chain, counted in nodes (SPEC: not a BFS shortest-path depth).
Longest simple paths are NP-hard on graphs with cycles, so cycles are handled by condensation:
the strongly connected components (iterative Tarjan, no recursion limit) form a DAG, and a
dynamic programme in topological order computes the longest chain over that DAG where a
component weighs its number of nodes — every member of a cycle is reachable from every other,
so a chain entering a cycle can pass through all of it (exact for simple cycles; for denser
components it is an upper bound). This runs in O(V + E) and always terminates.

`avg_depth` is the mean, over nodes, of the longest chain ending at the node. Chain completion is
the share of level-1 nodes from which a node of a terminal type is reachable (a level-1 node of a
terminal type counts itself).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from shared.methodology_models import MethodologyConfig

from .domain import ChainCompletion, DepthMetrics, GraphState, NodeDegree


@dataclass(frozen=True)
class NodeRef:
    """The part of a node the metrics need."""

    id: str
    node_type: str
    label: str = ""


@dataclass(frozen=True)
class EdgeRef:
    """The part of an edge the metrics need."""

    source_node_id: str
    target_node_id: str
    edge_type: str


def strongly_connected_components(adj: Sequence[Sequence[int]]) -> list[list[int]]:
    """Tarjan's algorithm, iterative. Components come out in reverse topological order (sinks first)."""
    n = len(adj)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    components: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        work: list[tuple[int, int]] = [(root, 0)]
        while work:
            v, i = work[-1]
            if i < len(adj[v]):
                work[-1] = (v, i + 1)
                w = adj[v][i]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[v])
            if low[v] == index[v]:
                comp: list[int] = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                components.append(sorted(comp))
    return components


Condensation = tuple[list[list[int]], list[int]]  # components (Tarjan order), component of each node


def condense(adj: Sequence[Sequence[int]]) -> Condensation:
    """Strongly connected components and, per node, the index of its component."""
    comps = strongly_connected_components(adj)
    comp_of = [0] * len(adj)
    for c, members in enumerate(comps):
        for v in members:
            comp_of[v] = c
    return comps, comp_of


def _walk_component(entry: int, members: set[int], adj: Sequence[Sequence[int]]) -> list[int]:
    """Members of a component in DFS preorder from `entry` along edges inside the component."""
    order: list[int] = []
    seen = {entry}
    todo = [entry]
    while todo:
        v = todo.pop()
        order.append(v)
        for w in reversed(adj[v]):
            if w in members and w not in seen:
                seen.add(w)
                todo.append(w)
    return order


def depth_metrics(
    ids: Sequence[str], adj: Sequence[Sequence[int]], level_count: int, condensed: Condensation | None = None
) -> DepthMetrics:
    """Longest-chain metrics of the graph whose node i is `ids[i]` with adjacency lists `adj`."""
    n = len(ids)
    if n == 0:
        return DepthMetrics()
    comps, comp_of = condensed or condense(adj)
    weight = [len(m) for m in comps]
    end = list(weight)  # longest chain (in nodes) ending in component c, c included
    # best predecessor edge (u, v) into c on a longest chain, or None
    came_from: list[tuple[int, int] | None] = [None] * len(comps)
    for c in reversed(range(len(comps))):  # Tarjan order reversed = topological order
        for u in comps[c]:
            for v in adj[u]:
                d = comp_of[v]
                if d != c and end[c] + weight[d] > end[d]:
                    end[d] = end[c] + weight[d]
                    came_from[d] = (u, v)
    best = max(range(len(comps)), key=lambda c: (end[c], -min(comps[c])))
    # Walk back to the chain's first component, noting where the chain enters and leaves each one.
    segments: list[tuple[int, int | None, int | None]] = []  # (component, entry node, exit node)
    c, exit_node = best, None
    while True:
        prev = came_from[c]
        segments.append((c, prev[1] if prev else None, exit_node))
        if prev is None:
            break
        exit_node, c = prev[0], comp_of[prev[0]]
    path: list[int] = []
    for comp, entry, leave in reversed(segments):
        inside = set(comps[comp])
        if entry is None:
            # First component: start just after the exit node so a cycle is walked round to it.
            entry = comps[comp][0] if leave is None else next((w for w in adj[leave] if w in inside), leave)
        path.extend(_walk_component(entry, inside, adj))
    max_depth = end[best]
    normalised = min(1.0, max_depth / level_count) if level_count > 0 else 0.0
    return DepthMetrics(
        max_depth=max_depth,
        max_depth_normalized=normalised,
        avg_depth=sum(end[comp_of[v]] for v in range(n)) / n,
        longest_chain_path=[ids[v] for v in path],
    )


def chain_completion(
    n: int,
    adj: Sequence[Sequence[int]],
    level1: Sequence[bool],
    terminal: Sequence[bool],
    condensed: Condensation | None = None,
) -> ChainCompletion:
    """Share of level-1 nodes that reach a terminal-type node (memoised over the SCC DAG)."""
    level1_count = sum(level1)
    if n == 0 or level1_count == 0:
        return ChainCompletion(level1_count=level1_count)
    comps, comp_of = condensed or condense(adj)
    reaches = [any(terminal[v] for v in members) for members in comps]
    for c, members in enumerate(comps):  # sinks first: successors are already final
        if not reaches[c]:
            reaches[c] = any(reaches[comp_of[w]] for v in members for w in adj[v])
    complete = sum(1 for v in range(n) if level1[v] and reaches[comp_of[v]])
    return ChainCompletion(
        level1_count=level1_count,
        complete_chain_count=complete,
        ratio=complete / level1_count,
        has_complete=complete > 0,
    )


def chain_edge_types(
    path: Sequence[str], edges: Sequence[EdgeRef], methodology: MethodologyConfig
) -> list[str]:
    """The type of the edge from each node of `path` to the next. Where two nodes are linked by
    edges of several types, one that joins a chain said back wins (a step both "leads to" and
    "conflicts with" is still a step), then the first stored."""
    steps = set(itertools.pairwise(path))
    if not steps:
        return []
    breaks = methodology.chain_breaking_edges
    chosen: dict[tuple[str, str], str] = {}
    for e in edges:
        key = (e.source_node_id, e.target_node_id)
        if key in steps and (key not in chosen or (chosen[key] in breaks and e.edge_type not in breaks)):
            chosen[key] = e.edge_type
    return [chosen.get(step, "") for step in itertools.pairwise(path)]


def compute_graph_state(
    session_id: str, nodes: Sequence[NodeRef], edges: Sequence[EdgeRef], methodology: MethodologyConfig
) -> GraphState:
    """All `GraphState` metrics of a session's nodes and edges under `methodology`'s ontology."""
    pos = {node.id: i for i, node in enumerate(nodes)}
    adj: list[list[int]] = [[] for _ in nodes]
    in_count = [0] * len(nodes)
    out_count = [0] * len(nodes)
    for e in edges:
        s, t = pos.get(e.source_node_id), pos.get(e.target_node_id)
        if s is None or t is None:
            continue  # cannot happen with foreign keys; tolerate rather than crash the metrics
        adj[s].append(t)
        out_count[s] += 1
        in_count[t] += 1
    types = {t.name: t for t in methodology.ontology.nodes}
    level1 = [(types[n.node_type].level == 1) if n.node_type in types else False for n in nodes]
    terminal = [types[n.node_type].terminal if n.node_type in types else False for n in nodes]
    condensed = condense(adj)
    depth = depth_metrics([n.id for n in nodes], adj, methodology.level_count, condensed)
    depth.longest_chain_labels = [nodes[pos[i]].label for i in depth.longest_chain_path]
    depth.longest_chain_node_types = [nodes[pos[i]].node_type for i in depth.longest_chain_path]
    depth.longest_chain_edge_types = chain_edge_types(depth.longest_chain_path, edges, methodology)
    return GraphState(
        session_id=session_id,
        node_count=len(nodes),
        edge_count=len(edges),
        nodes_by_type=dict(Counter(n.node_type for n in nodes)),
        edges_by_type=dict(Counter(e.edge_type for e in edges)),
        orphan_count=sum(1 for i in range(len(nodes)) if in_count[i] == 0 and out_count[i] == 0),
        depth=depth,
        chain_completion=chain_completion(len(nodes), adj, level1, terminal, condensed),
        node_degrees=[
            NodeDegree(node_id=n.id, in_degree=in_count[i], out_degree=out_count[i])
            for i, n in enumerate(nodes)
        ],
    )
