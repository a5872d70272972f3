"""Meta pool (pass 2): phase, progress, saturation, and the per-node opportunity."""

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
    SignalMap,
    SignalScalar,
)
from shared.methodology import phase_for
from shared.node_state import NodeState
from shared.signal_catalog import SignalPool, SignalScope, ValueType


def _phase(ctx: DetectionContext, _: DetectionResult) -> SignalScalar:
    return phase_for(ctx.inputs.turn_number, ctx.inputs.max_turns).value


def _canonical_saturation(ctx: DetectionContext, _: DetectionResult) -> SignalScalar | None:
    if not ctx.inputs.canonical_enabled:
        return None  # SPEC: absent when canonical slots are off
    v = ctx.inputs.velocity
    return f.canonical_saturation(v.canonical_delta, v.surface_delta)


def _opportunity(_c: DetectionContext, s: NodeState, node: SignalMap, _r: DetectionResult) -> SignalScalar:
    return f.node_opportunity(
        bool(node["graph.node.exhausted"]), s.all_response_depths, s.turns_since_last_yield
    )


def _m(name: str, vt: ValueType, fn: GlobalCompute) -> SignalDetector:
    return SignalDetector(
        name,
        SignalPool.META,
        SignalScope.GLOBAL,
        vt,
        CostTier.FREE,
        RefreshTrigger.PER_TURN,
        compute_global=fn,
    )


def _mn(name: str, vt: ValueType, fn: NodeCompute, deps: tuple[str, ...]) -> SignalDetector:
    return SignalDetector(
        name,
        SignalPool.META,
        SignalScope.NODE,
        vt,
        CostTier.LOW,
        RefreshTrigger.PER_TURN,
        deps,
        compute_node=fn,
    )


DETECTORS: tuple[SignalDetector, ...] = (
    _m("meta.interview.phase", ValueType.STR, _phase),
    _m(
        "meta.interview_progress",
        ValueType.FLOAT,
        lambda c, r: f.interview_progress(c.inputs.turn_number, c.inputs.max_turns),
    ),
    _m(
        "meta.conversation.saturation",
        ValueType.FLOAT,
        lambda c, r: f.conversation_saturation(
            c.inputs.velocity.surface_delta, c.inputs.velocity.surface_peak
        ),
    ),
    _m("meta.canonical.saturation", ValueType.FLOAT, _canonical_saturation),
    _mn("meta.node.opportunity", ValueType.STR, _opportunity, ("graph.node.exhausted",)),
)
