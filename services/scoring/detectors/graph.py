"""Graph pool: global graph metrics and per-node state signals (SPEC formulas in `formulas.py`).

Node signals read the node tracker (its edge counts, focus and yield history); the per-node degrees
of GraphState are not used, so slot-keyed tracking stays consistent.
"""

from __future__ import annotations

from services.scoring import formulas as f
from services.scoring.context import DetectionContext
from services.scoring.registry import (
    CostTier,
    DetectionResult,
    GlobalCompute,
    NodeCompute,
    RefreshTrigger,
    SignalDetector,
    SignalScalar,
)
from shared.node_state import NodeState
from shared.signal_catalog import SignalPool, SignalScope, ValueType

B, INT, F, S = ValueType.BOOL, ValueType.INT, ValueType.FLOAT, ValueType.STR


def _g(
    name: str, vt: ValueType, fn: GlobalCompute, cost: CostTier = CostTier.FREE, deps: tuple[str, ...] = ()
) -> SignalDetector:
    return SignalDetector(
        name, SignalPool.GRAPH, SignalScope.GLOBAL, vt, cost, RefreshTrigger.PER_TURN, deps, compute_global=fn
    )


def _n(name: str, vt: ValueType, fn: NodeCompute, cost: CostTier = CostTier.FREE) -> SignalDetector:
    return SignalDetector(
        name, SignalPool.GRAPH, SignalScope.NODE, vt, cost, RefreshTrigger.PER_TURN, compute_node=fn
    )


def _canonical_on(ctx: DetectionContext) -> bool:
    return ctx.inputs.canonical_enabled and ctx.inputs.canonical is not None


def _canonical_count(ctx: DetectionContext, _: DetectionResult) -> SignalScalar | None:
    canonical = ctx.inputs.canonical
    return canonical.concept_count if canonical is not None and _canonical_on(ctx) else None


def _canonical_density(ctx: DetectionContext, _: DetectionResult) -> SignalScalar | None:
    canonical = ctx.inputs.canonical
    if canonical is None or not _canonical_on(ctx):
        return None
    return f.edge_density(canonical.edge_count, canonical.concept_count)


def _canonical_exhaustion(ctx: DetectionContext, result: DetectionResult) -> SignalScalar | None:
    """Mean `graph.node.exhaustion_score` over the tracked (slot-keyed) nodes; 0 with none tracked."""
    if not _canonical_on(ctx):
        return None
    scores = [float(v["graph.node.exhaustion_score"]) for v in result.node_signals.values()]
    return sum(scores) / len(scores) if scores else 0.0


def _exhausted(s: NodeState) -> bool:
    return f.is_exhausted(s.focus_count, s.turns_since_last_yield, s.current_focus_streak, s.shallow_share)


def _exhaustion(s: NodeState) -> float:
    return f.exhaustion_score(s.turns_since_last_yield, s.current_focus_streak, s.shallow_share)


DETECTORS: tuple[SignalDetector, ...] = (
    _g("graph.node_count", INT, lambda c, r: c.inputs.graph.node_count),
    _g("graph.edge_count", INT, lambda c, r: c.inputs.graph.edge_count),
    _g("graph.max_depth", F, lambda c, r: f.normalised_depth(c.inputs.graph.max_depth, c.level_count)),
    _g("graph.avg_depth", F, lambda c, r: f.normalised_depth(c.inputs.graph.avg_depth, c.level_count)),
    _g("graph.orphan_count", INT, lambda c, r: c.inputs.graph.orphan_count),
    _g("graph.chain_completion.ratio", F, lambda c, r: c.inputs.graph.chain_completion_ratio),
    _g("graph.chain_completion.has_complete", B, lambda c, r: c.inputs.graph.chain_completion_has_complete),
    _g("graph.canonical_concept_count", INT, _canonical_count),
    _g("graph.canonical_edge_density", F, _canonical_density),
    _g(
        "graph.canonical_exhaustion_score",
        F,
        _canonical_exhaustion,
        CostTier.LOW,
        ("graph.node.exhaustion_score",),
    ),
    _n("graph.node.exhausted", B, lambda c, s, n, r: _exhausted(s)),
    _n("graph.node.exhaustion_score", F, lambda c, s, n, r: _exhaustion(s)),
    _n("graph.node.yield_stagnation", B, lambda c, s, n, r: f.yield_stagnation(s.turns_since_last_yield)),
    _n("graph.node.focus_streak", S, lambda c, s, n, r: f.focus_streak_band(s.current_focus_streak)),
    _n("graph.node.focus_count", S, lambda c, s, n, r: f.focus_count_band(s.focus_count)),
    _n("graph.node.is_current_focus", B, lambda c, s, n, r: c.tracker.previous_focus == s.node_id),
    _n("graph.node.recency_score", F, lambda c, s, n, r: f.recency_score(s.turns_since_last_focus)),
    _n("graph.node.is_orphan", B, lambda c, s, n, r: s.is_orphan),
    _n("graph.node.edge_count", INT, lambda c, s, n, r: s.edge_count),
    _n("graph.node.has_outgoing", B, lambda c, s, n, r: s.edge_count_outgoing > 0),
    _n("graph.node.novelty", F, lambda c, s, n, r: c.node_novelty.get(s.node_id, 1.0), CostTier.MEDIUM),
)
