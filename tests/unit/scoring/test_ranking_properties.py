"""Properties of ranking for arbitrary strategies, signals and phase modifiers (hypothesis)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from services.scoring.ranking import (
    CompiledStrategy,
    PhaseModifiers,
    Ranking,
    compile_strategies,
    evaluate_weight,
    node_overrides,
    rank_joint,
    rank_two_stage,
    strategy_overrides,
)
from services.scoring.registry import DetectionResult, SignalMap
from shared.methodology_models import MethodologyConfig
from shared.node_tracker import NodeStateTracker
from tests.unit.scoring.support import methodology_dict

KEYS = [
    "graph.node.exhausted.true",
    "graph.node.exhausted.false",
    "graph.node.exhaustion_score.low",
    "graph.node.exhaustion_score.mid",
    "graph.node.exhaustion_score.high",
    "graph.node.exhaustion_score",
    "graph.node.focus_streak.medium",
    "graph.node.is_orphan",
    "graph.node.edge_count",
    "llm.response_depth.deep",
    "llm.response_depth.surface",
    "llm.engagement.high",
    "llm.engagement",
    "temporal.strategy_repetition_count",
    "meta.interview.phase.early",
    "graph.node_count",
    "technique.node.strategy_repetition.high",
    "meta.node.opportunity.fresh",
]
NAMES = ["s0", "s1", "s2", "s3", "s4"]
weights = st.floats(min_value=-3, max_value=3, allow_nan=False).map(lambda w: round(w, 3))
unit = st.floats(min_value=0, max_value=1, allow_nan=False)
# Node values from a few choices, so that nodes often share all of a strategy's signal values.
few = st.sampled_from([0.0, 0.5, 1.0])


# Compiled strategies, detected signals, tracker, phase modifiers and strategy history.
Scenario = tuple[
    tuple[CompiledStrategy, ...], DetectionResult, NodeStateTracker, PhaseModifiers, tuple[str, ...]
]


@st.composite
def scenario(
    draw: st.DrawFn,
) -> Scenario:
    n_strategies = draw(st.integers(1, 5))
    strategies = []
    for name in NAMES[:n_strategies]:
        keys = draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=6, unique=True))
        strategies.append(
            {
                "name": name,
                "node_binding": draw(st.sampled_from(["required", "none"])),
                "signal_weights": {k: draw(weights) for k in keys},
            }
        )
    compiled = compile_strategies(MethodologyConfig.model_validate(methodology_dict("p", strategies)))
    tracker = NodeStateTracker()
    nodes: dict[str, SignalMap] = {}
    for i in range(draw(st.integers(0, 6))):
        key = f"n{i}"
        tracker.register_node(key, 1, label=key)
        nodes[key] = {
            "graph.node.exhausted": draw(st.booleans()),
            "graph.node.exhaustion_score": draw(st.one_of(few, unit)),
            "graph.node.focus_streak": draw(st.sampled_from(["none", "low", "medium", "high"])),
            "graph.node.is_orphan": draw(st.booleans()),
            # Mixed types on purpose: True == 1 == 1.0, yet each keeps its own raw value.
            "graph.node.edge_count": draw(
                st.one_of(st.integers(0, 2), st.sampled_from([0.0, 1.0, 2.0]), st.booleans())
            ),
            "technique.node.strategy_repetition": draw(st.sampled_from(["none", "low", "high"])),
            "meta.node.opportunity": draw(st.sampled_from(["fresh", "exhausted"])),
        }
    g: SignalMap = {
        "llm.response_depth": draw(st.sampled_from(["surface", "shallow", "moderate", "deep"])),
        "llm.engagement": draw(unit),
        "temporal.strategy_repetition_count": draw(unit),
        "meta.interview.phase": draw(st.sampled_from(["early", "mid", "late"])),
        "graph.node_count": draw(st.integers(0, 30)),
    }
    for key in draw(st.lists(st.sampled_from(sorted(g)), unique=True, max_size=2)):
        del g[key]  # some signals missing
    names = NAMES[:n_strategies]
    mods = PhaseModifiers(
        {
            n: draw(st.floats(0, 2).map(lambda x: round(x, 2)))
            for n in draw(st.lists(st.sampled_from(names), unique=True))
        },
        {n: draw(weights) for n in draw(st.lists(st.sampled_from(names), unique=True))},
    )
    history = tuple(draw(st.lists(st.sampled_from(names), max_size=8)))
    return compiled, DetectionResult(g, nodes), tracker, mods, history


def _check(ranking: Ranking, mods: PhaseModifiers) -> None:
    candidates = ranking.candidates
    assert sorted(c.rank for c in candidates) == list(range(1, len(candidates) + 1))
    assert [c.rank for c in candidates] == list(range(1, len(candidates) + 1))  # best first
    assert sum(c.selected for c in candidates) == 1 and candidates[0].selected
    finals = [round(c.final_score, 9) for c in candidates]
    assert finals == sorted(finals, reverse=True)
    for c in candidates:
        assert c.base_score == sum(x.contribution for x in c.contributions)
        assert c.final_score == c.base_score * c.phase_multiplier + c.phase_bonus
        assert c.phase_multiplier == mods.multipliers.get(c.strategy, 1.0)
        assert c.phase_bonus == mods.bonuses.get(c.strategy, 0.0)


@settings(max_examples=150, deadline=None)
@given(scenario())
def test_joint_ranking_invariants(
    data: Scenario,
) -> None:
    compiled, detection, tracker, mods, history = data
    ranking = rank_joint(compiled, detection, tracker, mods, history)
    _check(ranking, mods)
    n_nodes = len(tracker.states)
    expected = sum(n_nodes if (s.binds_node and n_nodes) else 1 for s in compiled)
    assert len(ranking.candidates) == expected
    for c in ranking.candidates:
        strategy = next(s for s in compiled if s.name == c.strategy)
        assert (c.node_id is None) == (not strategy.binds_node or n_nodes == 0)
    # Candidates are made when read: slices, negative indices and a second read agree.
    listed = list(ranking.candidates)
    assert ranking.candidates[: len(listed) // 2] == tuple(listed[: len(listed) // 2])
    assert ranking.candidates[-1] is listed[-1] and ranking.candidates[0] is listed[0]


Matched = list[tuple[str, object, type, float]]
Scored = tuple[Matched, float, float]


def _reference_scores(
    compiled: tuple[CompiledStrategy, ...],
    detection: DetectionResult,
    tracker: NodeStateTracker,
    mods: PhaseModifiers,
    history: tuple[str, ...],
) -> dict[tuple[str, str | None], Scored]:
    """Every candidate scored the plain way (SPEC): each weight evaluated for each candidate, the
    contributions summed in order, then the phase modifiers."""

    def matched(weights: Any, signals: SignalMap, overrides: SignalMap) -> Matched:
        out: Matched = []
        for w in weights:
            value = overrides.get(w.signal, signals.get(w.signal))
            if value is None:
                continue
            c = evaluate_weight(w, value)
            if c is not None:
                out.append((w.key, value, type(value), c))
        return out

    def scored(name: str, contributions: Matched) -> Scored:
        base = 0.0
        for item in contributions:
            base += item[3]
        return contributions, base, base * mods.multipliers.get(name, 1.0) + mods.bonuses.get(name, 0.0)

    g = detection.global_signals
    out: dict[tuple[str, str | None], Scored] = {}
    for s in compiled:
        s_part = matched(s.strategy_weights, g, strategy_overrides(s.name, g, history))
        if not s.binds_node or not tracker.states:
            out[(s.name, None)] = scored(s.name, s_part)
            continue
        for key, state in tracker.states.items():
            n_signals = detection.node_signals.get(key, {})
            n_part = matched(s.node_weights, n_signals, node_overrides(s.name, state, n_signals))
            out[(s.name, key)] = scored(s.name, s_part + n_part)
    return out


@settings(max_examples=150, deadline=None)
@given(scenario())
def test_joint_ranking_scores_every_candidate_as_the_plain_evaluation_does(
    data: Scenario,
) -> None:
    """Joint ranking reuses a node's contributions for nodes with the same signal values: the
    scores, raw values (with their types) and order of contributions must stay exactly those of
    evaluating every candidate on its own."""
    compiled, detection, tracker, mods, history = data
    ranking = rank_joint(compiled, detection, tracker, mods, history)
    got = {
        (c.strategy, c.node_id): (
            [(x.weight_key, x.raw_value, type(x.raw_value), x.contribution) for x in c.contributions],
            c.base_score,
            c.final_score,
        )
        for c in ranking.candidates
    }
    assert got == _reference_scores(compiled, detection, tracker, mods, history)


@settings(max_examples=100, deadline=None)
@given(scenario())
def test_two_stage_invariants(
    data: Scenario,
) -> None:
    compiled, detection, tracker, mods, history = data
    ranking = rank_two_stage(compiled, detection, tracker, mods, history)
    _check(ranking, mods)
    assert len(ranking.candidates) == len(compiled)
    assert all(not x.node_scoped for c in ranking.candidates for x in c.contributions)
    if ranking.node_candidates:
        assert ranking.selected.node_id == ranking.node_candidates[0].node_id
        assert [c.rank for c in ranking.node_candidates] == list(range(1, len(ranking.node_candidates) + 1))
        assert all(x.node_scoped for c in ranking.node_candidates for x in c.contributions)
