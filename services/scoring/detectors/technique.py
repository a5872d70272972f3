"""Technique pool: `technique.node.strategy_repetition` (focus-streak bands on consecutive same strategy).

The detected value describes the node's last strategy. In ranking it is re-evaluated per
(strategy, node) candidate: the band applies only when the candidate strategy IS the node's last
strategy, otherwise it is "none" (see `ranking.candidate_overrides`).
"""

from __future__ import annotations

from services.scoring import formulas as f
from services.scoring.registry import CostTier, RefreshTrigger, SignalDetector
from shared.signal_catalog import SignalPool, SignalScope, ValueType

DETECTORS: tuple[SignalDetector, ...] = (
    SignalDetector(
        "technique.node.strategy_repetition",
        SignalPool.TECHNIQUE,
        SignalScope.NODE,
        ValueType.STR,
        CostTier.FREE,
        RefreshTrigger.PER_TURN,
        compute_node=lambda c, s, n, r: f.focus_streak_band(s.consecutive_same_strategy),
    ),
)
