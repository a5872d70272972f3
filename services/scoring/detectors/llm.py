"""LLM pool: the six rubric signals (one batched call per answer, always fresh) and the response trend.

The rubric itself is resolved by the engine before detection (given in the request, or computed by
the LLM / offline scorer); these detectors only map its 1–5 scores (SPEC): continuous dimensions
to (s − 1)/4, `response_depth` to surface/shallow/moderate/deep.
"""

from __future__ import annotations

from services.scoring import formulas as f
from services.scoring.context import DetectionContext
from services.scoring.registry import (
    CostTier,
    DetectionResult,
    GlobalCompute,
    RefreshTrigger,
    SignalDetector,
    SignalScalar,
)
from services.scoring.rubric.models import RUBRIC_DIMENSIONS
from shared.signal_catalog import SignalPool, SignalScope, ValueType


def _continuous(dimension: str) -> GlobalCompute:
    def compute(ctx: DetectionContext, _: DetectionResult) -> SignalScalar:
        return f.rubric_continuous(ctx.require_rubric().score(dimension))

    return compute


def _depth(ctx: DetectionContext, _: DetectionResult) -> SignalScalar:
    return f.response_depth_category(ctx.require_rubric().score("response_depth"))


def _trend(ctx: DetectionContext, _: DetectionResult) -> SignalScalar | None:
    """Previous answers' depth scores plus this answer's, over the last 6 (None with < 4)."""
    history = [*ctx.inputs.response_depth_history, ctx.require_rubric().score("response_depth")]
    return f.response_trend(history)


def _llm(name: str, vt: ValueType, fn: GlobalCompute, deps: tuple[str, ...] = ()) -> SignalDetector:
    # Every rubric signal shares the one HIGH-cost batched call and is fresh per response.
    return SignalDetector(
        name,
        SignalPool.LLM,
        SignalScope.GLOBAL,
        vt,
        CostTier.HIGH,
        RefreshTrigger.PER_RESPONSE,
        deps,
        compute_global=fn,
    )


DETECTORS: tuple[SignalDetector, ...] = (
    _llm("llm.response_depth", ValueType.STR, _depth),
    *(
        _llm(f"llm.{dim}", ValueType.FLOAT, _continuous(dim))
        for dim in RUBRIC_DIMENSIONS
        if dim != "response_depth"
    ),
    _llm("llm.global_response_trend", ValueType.STR, _trend, ("llm.response_depth",)),
)
