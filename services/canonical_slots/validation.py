"""Request validation for the canonical_slots service (every violation reported at once)."""

from __future__ import annotations

import math

from shared.methodology_models import MethodologyConfig
from shared.validation import Violations

from .domain import DiscoverSlotsInput
from .pagination import MAX_PAGE_SIZE


def validate_discover(
    req: DiscoverSlotsInput,
    methodology: MethodologyConfig | None,
    *,
    max_label_chars: int,
    max_nodes: int,
    embedding_dim: int,
) -> None:
    """Raise `InvalidArgumentError` listing every bad field of a discovery request.

    `methodology` is None when the name is unknown (the caller looked it up).
    """
    v = Violations()
    v.require_id(req.session_id, "session_id")
    v.check(req.turn_number >= 1, "turn_number", "must be >= 1")
    if v.require_id(req.methodology, "methodology", max_chars=64):
        v.check(methodology is not None, "methodology", f"unknown methodology {req.methodology!r}")
    node_types = {n.name for n in methodology.ontology.nodes} if methodology else None
    edge_types = {e.name for e in methodology.ontology.edges} if methodology else None
    v.check(len(req.nodes) <= max_nodes, "nodes", f"at most {max_nodes} nodes per request")
    seen_nodes: set[str] = set()
    for i, node in enumerate(req.nodes):
        with v.nested(f"nodes[{i}]") as nv:
            if nv.require_id(node.id, "node_id"):
                nv.check(node.id not in seen_nodes, "node_id", "duplicate node id in the request")
                seen_nodes.add(node.id)
            nv.require_text(node.label, "label", max_label_chars)
            if node_types is not None:
                nv.check(
                    node.node_type in node_types,
                    "node_type",
                    f"{node.node_type!r} is not a node type of {req.methodology}",
                )
            if node.embedding:
                ok = nv.check(
                    len(node.embedding) == embedding_dim,
                    "embedding",
                    f"must have {embedding_dim} values or be empty",
                )
                if ok:
                    nv.check(
                        all(math.isfinite(x) for x in node.embedding),
                        "embedding",
                        "must contain finite values",
                    )
    seen_edges: set[str] = set()
    for i, edge in enumerate(req.edges):
        with v.nested(f"edges[{i}]") as ev:
            if ev.require_id(edge.id, "edge_id"):
                ev.check(edge.id not in seen_edges, "edge_id", "duplicate edge id in the request")
                seen_edges.add(edge.id)
            ev.require_id(edge.source_node_id, "source_node_id")
            ev.require_id(edge.target_node_id, "target_node_id")
            if edge_types is not None:
                ev.check(
                    edge.edge_type in edge_types,
                    "edge_type",
                    f"{edge.edge_type!r} is not an edge type of {req.methodology}",
                )
    v.raise_if_any()


def validate_session(session_id: str) -> None:
    """A request that names only a session."""
    v = Violations()
    v.require_id(session_id, "session_id")
    v.raise_if_any()


def validate_list(session_id: str, page_size: int) -> None:
    """A paginated list request."""
    v = Violations()
    v.require_id(session_id, "session_id")
    v.require_page_size(page_size, maximum=MAX_PAGE_SIZE)
    v.raise_if_any()


def validate_state(session_id: str, surface_node_count: int, surface_edge_count: int) -> None:
    """A canonical-state request (surface counts for the comparison)."""
    v = Violations()
    v.require_id(session_id, "session_id")
    v.require_range(surface_node_count, "surface_node_count", minimum=0)
    v.require_range(surface_edge_count, "surface_edge_count", minimum=0)
    v.raise_if_any()


def validate_resolve(session_id: str, node_ids: list[str], max_ids: int) -> None:
    """A resolve request."""
    v = Violations()
    v.require_id(session_id, "session_id")
    v.check(len(node_ids) <= max_ids, "node_ids", f"at most {max_ids} ids per request")
    for i, node_id in enumerate(node_ids[:max_ids]):
        v.require_id(node_id, f"node_ids[{i}]")
    v.raise_if_any()
