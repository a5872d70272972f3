"""Temporal pool: strategy repetition over the strategy history (oldest first, at most 30).

The values here are the SPEC's turn-level values. In ranking, `temporal.strategy_repetition_count`
is re-evaluated per candidate strategy (see `ranking.candidate_overrides`) so that the penalty falls
only on the strategy being repeated.
"""

from __future__ import annotations

from services.scoring import formulas as f
from services.scoring.registry import CostTier, GlobalCompute, RefreshTrigger, SignalDetector
from shared.signal_catalog import SignalPool, SignalScope, ValueType


def _t(name: str, fn: GlobalCompute) -> SignalDetector:
    return SignalDetector(
        name,
        SignalPool.TEMPORAL,
        SignalScope.GLOBAL,
        ValueType.FLOAT,
        CostTier.FREE,
        RefreshTrigger.PER_TURN,
        compute_global=fn,
    )


DETECTORS: tuple[SignalDetector, ...] = (
    _t(
        "temporal.strategy_repetition_count",
        lambda c, r: f.strategy_repetition_count(c.inputs.strategy_history),
    ),
    _t(
        "temporal.turns_since_strategy_change",
        lambda c, r: f.turns_since_strategy_change(c.inputs.strategy_history),
    ),
)
