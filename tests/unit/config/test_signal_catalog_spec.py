"""The signal catalogue holds exactly the signals of SPEC.md / issue 6, and weight keys resolve against it."""

from __future__ import annotations

import pytest

from shared.signal_catalog import (
    SIGNAL_CATALOG,
    SignalKeyError,
    SignalPool,
    SignalScope,
    ValueType,
    bin_continuous,
    is_node_scoped,
    resolve_weight_key,
    signals_in_pool,
)

BANDS = ("none", "low", "medium", "high")

# name -> (pool, scope, value type, categories); written from SPEC.md and issue 6.
EXPECTED: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "graph.node_count": ("graph", "global", "int", ()),
    "graph.edge_count": ("graph", "global", "int", ()),
    "graph.max_depth": ("graph", "global", "float", ()),
    "graph.avg_depth": ("graph", "global", "float", ()),
    "graph.orphan_count": ("graph", "global", "int", ()),
    "graph.chain_completion.ratio": ("graph", "global", "float", ()),
    "graph.chain_completion.has_complete": ("graph", "global", "bool", ()),
    "graph.canonical_concept_count": ("graph", "global", "int", ()),
    "graph.canonical_edge_density": ("graph", "global", "float", ()),
    "graph.canonical_exhaustion_score": ("graph", "global", "float", ()),
    "graph.node.exhausted": ("graph", "node", "bool", ()),
    "graph.node.exhaustion_score": ("graph", "node", "float", ()),
    "graph.node.yield_stagnation": ("graph", "node", "bool", ()),
    "graph.node.focus_streak": ("graph", "node", "str", BANDS),
    "graph.node.focus_count": ("graph", "node", "str", BANDS),
    "graph.node.is_current_focus": ("graph", "node", "bool", ()),
    "graph.node.recency_score": ("graph", "node", "float", ()),
    "graph.node.is_orphan": ("graph", "node", "bool", ()),
    "graph.node.edge_count": ("graph", "node", "int", ()),
    "graph.node.has_outgoing": ("graph", "node", "bool", ()),
    "graph.node.novelty": ("graph", "node", "float", ()),
    "llm.response_depth": ("llm", "global", "str", ("surface", "shallow", "moderate", "deep")),
    "llm.specificity": ("llm", "global", "float", ()),
    "llm.certainty": ("llm", "global", "float", ()),
    "llm.valence": ("llm", "global", "float", ()),
    "llm.engagement": ("llm", "global", "float", ()),
    "llm.intellectual_engagement": ("llm", "global", "float", ()),
    "llm.global_response_trend": ("llm", "global", "str", ("deepening", "stable", "shallowing", "fatigued")),
    "temporal.strategy_repetition_count": ("temporal", "global", "float", ()),
    "temporal.turns_since_strategy_change": ("temporal", "global", "float", ()),
    "meta.interview.phase": ("meta", "global", "str", ("early", "mid", "late")),
    "meta.interview_progress": ("meta", "global", "float", ()),
    "meta.conversation.saturation": ("meta", "global", "float", ()),
    "meta.canonical.saturation": ("meta", "global", "float", ()),
    "meta.node.opportunity": ("meta", "node", "str", ("exhausted", "probe_deeper", "fresh")),
    "technique.node.strategy_repetition": ("technique", "node", "str", BANDS),
}


def test_catalogue_is_exactly_the_specified_signals() -> None:
    assert set(SIGNAL_CATALOG) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_signal_spec_matches(name: str) -> None:
    spec = SIGNAL_CATALOG[name]
    pool, scope, value_type, categories = EXPECTED[name]
    assert (spec.name, spec.pool, spec.scope, spec.value_type, spec.categories) == (
        name,
        SignalPool(pool),
        SignalScope(scope),
        ValueType(value_type),
        categories,
    )
    # one sentence a question-writer can quote
    assert spec.description.endswith(".") and len(spec.description) > 30


def test_specs_are_immutable_and_catalogue_is_read_only() -> None:
    spec = SIGNAL_CATALOG["llm.certainty"]
    with pytest.raises(AttributeError):
        spec.name = "x"  # type: ignore[misc]
    with pytest.raises(TypeError):
        SIGNAL_CATALOG["x"] = spec  # type: ignore[index]


def test_signals_in_pool() -> None:
    assert [s.name for s in signals_in_pool("temporal")] == [
        "temporal.strategy_repetition_count",
        "temporal.turns_since_strategy_change",
    ]
    assert {s.name for s in signals_in_pool(SignalPool.TECHNIQUE)} == {"technique.node.strategy_repetition"}


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("llm.response_depth.surface", ("llm.response_depth", "surface")),
        ("graph.node.exhaustion_score.low", ("graph.node.exhaustion_score", "low")),
        ("graph.node.exhaustion_score", ("graph.node.exhaustion_score", None)),
        ("graph.chain_completion.has_complete.false", ("graph.chain_completion.has_complete", "false")),
        ("graph.chain_completion.has_complete", ("graph.chain_completion.has_complete", None)),
        ("graph.chain_completion.ratio.mid", ("graph.chain_completion.ratio", "mid")),
        ("meta.interview.phase.late", ("meta.interview.phase", "late")),
        ("meta.interview_progress.high", ("meta.interview_progress", "high")),
        ("meta.node.opportunity.probe_deeper", ("meta.node.opportunity", "probe_deeper")),
        ("technique.node.strategy_repetition.high", ("technique.node.strategy_repetition", "high")),
        ("graph.node.focus_count.medium", ("graph.node.focus_count", "medium")),
        ("graph.node.edge_count", ("graph.node.edge_count", None)),
        ("graph.edge_count", ("graph.edge_count", None)),
        ("temporal.strategy_repetition_count", ("temporal.strategy_repetition_count", None)),
        ("graph.node.is_orphan.true", ("graph.node.is_orphan", "true")),
    ],
)
def test_resolve_weight_key(key: str, expected: tuple[str, str | None]) -> None:
    assert resolve_weight_key(key) == expected


@pytest.mark.parametrize(
    ("key", "fragment"),
    [
        ("llm.depth.low", "unknown signal"),
        ("graph.chain_completion", "unknown signal"),
        ("graph.chain_completion.foo", "unknown signal"),
        ("llm.response_depth.very_deep", "invalid qualifier 'very_deep'"),
        ("llm.response_depth.deep.extra", "invalid qualifier 'deep.extra'"),
        ("llm.certainty.true", "invalid qualifier 'true' for float"),
        ("graph.node.exhausted.high", "invalid qualifier 'high' for bool"),
        ("graph.node.exhausted.True", "invalid qualifier 'True'"),
        ("graph.node_count.low", "takes no qualifier"),
        ("llm.response_depth", "needs a category qualifier"),
        ("meta.interview.phase", "needs a category qualifier"),
        ("graph.node.focus_streak.extreme", "expected one of none, low, medium, high"),
        ("", "unknown signal"),
    ],
)
def test_resolve_weight_key_rejects(key: str, fragment: str) -> None:
    with pytest.raises(SignalKeyError) as info:
        resolve_weight_key(key)
    assert fragment in str(info.value)


def test_unknown_signal_error_suggests_the_close_name() -> None:
    with pytest.raises(SignalKeyError, match=r"did you mean 'llm\.certainty'"):
        resolve_weight_key("llm.certainty_score")


@pytest.mark.parametrize(
    ("key", "node"),
    [
        ("graph.node.exhausted.true", True),
        ("technique.node.strategy_repetition.high", True),
        ("meta.node.opportunity.fresh", True),
        ("graph.node_count", False),
        ("graph.max_depth.low", False),
        ("meta.interview.phase.late", False),
        ("llm.response_depth.deep", False),
        ("temporal.strategy_repetition_count", False),
    ],
)
def test_is_node_scoped(key: str, node: bool) -> None:
    assert is_node_scoped(key) is node


def test_node_scope_agrees_with_catalogue_scope() -> None:
    for name, spec in SIGNAL_CATALOG.items():
        assert is_node_scoped(name) is (spec.scope is SignalScope.NODE), name


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.0, "low"),
        (0.25, "low"),
        (0.2501, "mid"),
        (0.5, "mid"),
        (0.7499, "mid"),
        (0.75, "high"),
        (1.0, "high"),
    ],
)
def test_bin_continuous_boundaries(value: float, expected: str) -> None:
    assert bin_continuous(value) == expected
