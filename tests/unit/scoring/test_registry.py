"""The detector registry: catalogue parity, declarations, validation errors, dependency-ordered plans."""

from __future__ import annotations

import pytest

from services.scoring.detectors import ALL_DETECTORS, build_default_registry
from services.scoring.registry import (
    CostTier,
    RefreshTrigger,
    SignalDetector,
    SignalRegistry,
    SignalRegistryError,
    UnknownSignalError,
)
from shared.signal_catalog import SIGNAL_CATALOG, SignalPool, SignalScope, ValueType


def test_registry_names_equal_the_signal_catalogue() -> None:
    registry = build_default_registry()
    assert sorted(registry.names()) == sorted(SIGNAL_CATALOG)


@pytest.mark.parametrize("detector", ALL_DETECTORS, ids=lambda d: d.name)
def test_each_detector_declares_what_the_catalogue_says(detector: SignalDetector) -> None:
    spec = SIGNAL_CATALOG[detector.name]
    assert (detector.pool, detector.scope, detector.value_type) == (spec.pool, spec.scope, spec.value_type)
    assert isinstance(detector.cost, CostTier) and isinstance(detector.refresh, RefreshTrigger)
    if detector.pool is SignalPool.LLM:  # the batched rubric: expensive and never cached
        assert (detector.cost, detector.refresh) == (CostTier.HIGH, RefreshTrigger.PER_RESPONSE)


def _g(name: str, deps: tuple[str, ...] = (), pool: SignalPool = SignalPool.GRAPH) -> SignalDetector:
    return SignalDetector(
        name,
        pool,
        SignalScope.GLOBAL,
        ValueType.FLOAT,
        CostTier.FREE,
        RefreshTrigger.PER_TURN,
        deps,
        compute_global=lambda c, r: 0.0,
    )


def test_unknown_signal_is_rejected_with_its_name() -> None:
    with pytest.raises(UnknownSignalError, match=r"graph\.nope") as info:
        build_default_registry().plan(["graph.node_count", "graph.nope"])
    assert info.value.names == ["graph.nope"]


def test_dependency_cycle_is_detected() -> None:
    registry = SignalRegistry(
        [_g("graph.a", ("graph.b",)), _g("graph.b", ("graph.c",)), _g("graph.c", ("graph.a",))]
    )
    with pytest.raises(SignalRegistryError, match=r"dependency cycle among: graph\.a, graph\.b, graph\.c"):
        registry.validate()


def test_unknown_dependency_is_detected() -> None:
    registry = SignalRegistry([_g("graph.a", ("graph.ghost",))])
    with pytest.raises(SignalRegistryError, match=r"unknown signal 'graph\.ghost'"):
        registry.validate()


def test_non_meta_signal_may_not_depend_on_a_meta_signal() -> None:
    registry = SignalRegistry([_g("graph.a", ("meta.b",)), _g("meta.b", pool=SignalPool.META)])
    with pytest.raises(SignalRegistryError, match="meta signals come last"):
        registry.validate()


def test_duplicate_detector_is_rejected() -> None:
    with pytest.raises(SignalRegistryError, match="duplicate"):
        SignalRegistry([_g("graph.a"), _g("graph.a")])


@pytest.mark.parametrize(
    ("name", "pool", "scope"),
    [("llm.x", SignalPool.GRAPH, SignalScope.GLOBAL), ("graph.node.x", SignalPool.GRAPH, SignalScope.GLOBAL)],
)
def test_declaration_must_match_namespace(name: str, pool: SignalPool, scope: SignalScope) -> None:
    with pytest.raises(SignalRegistryError):
        SignalDetector(
            name,
            pool,
            scope,
            ValueType.FLOAT,
            CostTier.FREE,
            RefreshTrigger.PER_TURN,
            compute_global=lambda c, r: 0.0,
        )


def test_plan_holds_only_requested_signals_and_their_dependencies() -> None:
    registry = build_default_registry()
    plan = registry.plan(["llm.global_response_trend", "meta.node.opportunity"])
    assert plan.names == {
        "llm.global_response_trend",
        "llm.response_depth",
        "meta.node.opportunity",
        "graph.node.exhausted",
    }
    order = [d.name for d in plan.detectors]
    assert order.index("llm.response_depth") < order.index("llm.global_response_trend")
    assert order.index("graph.node.exhausted") < order.index("meta.node.opportunity")
    assert plan.needs_rubric
    assert not registry.plan(["graph.node_count", "meta.interview.phase"]).needs_rubric


def test_meta_signals_run_in_the_second_pass_even_when_registered_first() -> None:
    registry = SignalRegistry(
        [_g("meta.m", ("graph.b",), pool=SignalPool.META), _g("graph.b"), _g("graph.c")]
    )
    assert [d.name for d in registry.plan(["meta.m", "graph.c"]).detectors] == [
        "graph.b",
        "graph.c",
        "meta.m",
    ]


def test_topological_order_follows_dependencies_not_registration() -> None:
    registry = SignalRegistry(
        [_g("graph.top", ("graph.mid",)), _g("graph.mid", ("graph.base",)), _g("graph.base")]
    )
    assert [d.name for d in registry.plan(["graph.top"]).detectors] == [
        "graph.base",
        "graph.mid",
        "graph.top",
    ]
