"""Every detector of every pool, and the default registry built from them."""

from __future__ import annotations

from services.scoring.detectors import graph, llm, meta, technique, temporal
from services.scoring.registry import SignalDetector, SignalRegistry

ALL_DETECTORS: tuple[SignalDetector, ...] = (
    *graph.DETECTORS,
    *llm.DETECTORS,
    *temporal.DETECTORS,
    *technique.DETECTORS,
    *meta.DETECTORS,
)


def build_default_registry() -> SignalRegistry:
    """A validated registry holding every detector (its names equal `shared.signal_catalog`)."""
    registry = SignalRegistry(ALL_DETECTORS)
    registry.validate()
    return registry
