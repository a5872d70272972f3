"""Ranking examples with hand-computed scores (the arithmetic is written next to each expectation)."""

from __future__ import annotations

from typing import Any

import pytest

from services.scoring.ranking import (
    CompiledStrategy,
    PhaseModifiers,
    Ranking,
    compile_strategies,
    rank_joint,
    rank_two_stage,
)
from services.scoring.registry import DetectionResult, SignalMap
from shared.methodology_models import MethodologyConfig
from shared.node_tracker import NodeStateTracker
from tests.unit.scoring.support import methodology_dict


def _compile(strategies: list[dict[str, Any]]) -> tuple[CompiledStrategy, ...]:
    return compile_strategies(MethodologyConfig.model_validate(methodology_dict("t", strategies)))


def _tracker(*keys: str) -> NodeStateTracker:
    t = NodeStateTracker()
    for key in keys:
        t.register_node(key, 1, label=f"label {key}")
    return t


def _table(ranking: Ranking) -> list[tuple[str, str | None, float]]:
    return [(c.strategy, c.node_id, round(c.final_score, 9)) for c in ranking.candidates]


STRATEGIES = [
    {
        "name": "explore",
        "node_binding": "none",
        "signal_weights": {
            "meta.interview.phase.early": 1.0,
            "temporal.strategy_repetition_count": -0.5,
        },
    },
    {
        "name": "deepen",
        "signal_weights": {
            "graph.node.exhausted.true": -1.0,
            "graph.node.exhaustion_score.low": 0.5,
            "llm.response_depth.deep": 0.4,
            "temporal.strategy_repetition_count": -0.5,
        },
    },
]
GLOBAL: SignalMap = {
    "meta.interview.phase": "early",
    "llm.response_depth": "deep",
    "temporal.strategy_repetition_count": 0.4,
}
NODES: dict[str, SignalMap] = {
    "n1": {"graph.node.exhausted": False, "graph.node.exhaustion_score": 0.2},
    "n2": {"graph.node.exhausted": True, "graph.node.exhaustion_score": 0.8},
}
EARLY = PhaseModifiers({"deepen": 0.8}, {"explore": 0.2})


def test_joint_ranking_hand_computed() -> None:
    ranking = rank_joint(
        _compile(STRATEGIES),
        DetectionResult(dict(GLOBAL), NODES),
        _tracker("n1", "n2"),
        EARLY,
        ("deepen", "explore", "deepen"),
    )
    # explore: phase.early +1.0; repetition 0 (explore was not used last: 0 × −0.5 = 0) → base 1.0
    #          final = 1.0 × 1 + 0.2 = 1.2
    # deepen/n1: exhaustion 0.2 ≤ 0.25 → +0.5; deep → +0.4; repetition 0.4 × −0.5 = −0.2 → base 0.7
    #          final = 0.7 × 0.8 + 0 = 0.56
    # deepen/n2: exhausted → −1.0; 0.8 is high (no low match); +0.4; −0.2 → base −0.8; final −0.64
    assert _table(ranking) == [("explore", None, 1.2), ("deepen", "n1", 0.56), ("deepen", "n2", -0.64)]
    best = ranking.selected
    assert (best.rank, best.selected, best.base_score, best.phase_multiplier, best.phase_bonus) == (
        1,
        True,
        1.0,
        1.0,
        0.2,
    )
    n1 = ranking.candidates[1]
    assert [(c.weight_key, c.signal_name, c.raw_value, c.contribution) for c in n1.contributions] == [
        ("llm.response_depth.deep", "llm.response_depth", "deep", 0.4),
        (
            "temporal.strategy_repetition_count",
            "temporal.strategy_repetition_count",
            0.4,
            pytest.approx(-0.2),
        ),
        ("graph.node.exhaustion_score.low", "graph.node.exhaustion_score", 0.2, 0.5),
    ]
    assert [c.node_scoped for c in n1.contributions] == [False, False, True]


def test_repetition_penalty_falls_on_the_repeated_strategy_only() -> None:
    history = ("deepen", "explore", "explore", "explore", "explore")  # explore used 4 of the last 5
    g = {**GLOBAL, "temporal.strategy_repetition_count": 0.8}
    ranking = rank_joint(
        _compile(STRATEGIES), DetectionResult(g, NODES), _tracker("n1"), PhaseModifiers({}, {}), history
    )
    # explore: +1.0 + 0.8 × −0.5 = 0.6 (the repeated strategy pays)
    # deepen/n1: +0.5 + 0.4 + 0 × −0.5 = 0.9 (deepen was not repeated: no penalty)
    assert _table(ranking) == [("deepen", "n1", 0.9), ("explore", None, 0.6)]


def test_node_strategy_repetition_is_charged_to_the_strategy_repeated_on_that_node() -> None:
    strategies = [
        {"name": "deepen", "signal_weights": {"technique.node.strategy_repetition.high": -1.0}},
        {"name": "clarify", "signal_weights": {"technique.node.strategy_repetition.high": -1.0}},
    ]
    t = _tracker("n1")
    for turn in range(1, 5):
        t.update_focus("n1", turn, "deepen")  # deepen 4× in a row on n1 → band high
    nodes: dict[str, SignalMap] = {"n1": {"technique.node.strategy_repetition": "high"}}
    ranking = rank_joint(_compile(strategies), DetectionResult({}, nodes), t, PhaseModifiers({}, {}), ())
    # deepen/n1: −1.0 (deepen is n1's repeated strategy); clarify/n1: band "none" for clarify → 0
    assert _table(ranking) == [("clarify", "n1", 0.0), ("deepen", "n1", -1.0)]
    assert ranking.candidates[1].contributions[0].raw_value == "high"


def test_missing_signals_are_skipped_and_bare_keys_follow_their_type() -> None:
    strategies = [
        {
            "name": "s",
            "signal_weights": {
                "llm.valence.low": 5.0,  # signal absent → skipped, not "false"
                "graph.node.is_orphan": 0.3,  # bare bool: its weight when true
                "meta.interview_progress": 0.5,  # bare float: weight × value
                "graph.node_count": 0.1,  # int: weight × value
                "graph.node.focus_streak.medium": 0.7,  # category
            },
        }
    ]
    nodes: dict[str, SignalMap] = {
        "a": {"graph.node.is_orphan": True, "graph.node.focus_streak": "medium"},
        "b": {"graph.node.is_orphan": False, "graph.node.focus_streak": "low"},
    }
    g: SignalMap = {"meta.interview_progress": 0.25, "graph.node_count": 3}
    ranking = rank_joint(
        _compile(strategies), DetectionResult(g, nodes), _tracker("a", "b"), PhaseModifiers({}, {}), ()
    )
    # a: 0.5 × 0.25 + 0.1 × 3 + 0.3 + 0.7 = 0.125 + 0.3 + 0.3 + 0.7 = 1.425
    # b: 0.125 + 0.3 (orphan false, streak low: no match) = 0.425
    assert _table(ranking) == [("s", "a", 1.425), ("s", "b", 0.425)]
    assert "llm.valence.low" not in {c.weight_key for c in ranking.candidates[0].contributions}
    assert {c.weight_key for c in ranking.candidates[1].contributions} == {
        "meta.interview_progress",
        "graph.node_count",
    }


def test_binning_boundaries_in_scoring() -> None:
    strategies = [
        {
            "name": "s",
            "signal_weights": {
                "graph.node.exhaustion_score.low": 1.0,
                "graph.node.exhaustion_score.mid": 10.0,
                "graph.node.exhaustion_score.high": 100.0,
            },
        }
    ]
    nodes: dict[str, SignalMap] = {
        "a": {"graph.node.exhaustion_score": 0.25},
        "b": {"graph.node.exhaustion_score": 0.5},
        "c": {"graph.node.exhaustion_score": 0.75},
    }
    ranking = rank_joint(
        _compile(strategies), DetectionResult({}, nodes), _tracker("a", "b", "c"), PhaseModifiers({}, {}), ()
    )
    # 0.25 is low (inclusive), 0.75 is high (inclusive), 0.5 is mid
    assert _table(ranking) == [("s", "c", 100.0), ("s", "b", 10.0), ("s", "a", 1.0)]


def test_ties_break_by_yaml_order_then_node_id() -> None:
    strategies = [
        {"name": "second_alpha", "signal_weights": {"graph.node.is_orphan.true": 1.0}},
        {"name": "first_alpha", "signal_weights": {"graph.node.is_orphan.true": 1.0}},
    ]
    nodes: dict[str, SignalMap] = {"n2": {"graph.node.is_orphan": True}, "n1": {"graph.node.is_orphan": True}}
    ranking = rank_joint(
        _compile(strategies), DetectionResult({}, nodes), _tracker("n2", "n1"), PhaseModifiers({}, {}), ()
    )
    assert [(c.strategy, c.node_id) for c in ranking.candidates] == [
        ("second_alpha", "n1"),
        ("second_alpha", "n2"),
        ("first_alpha", "n1"),
        ("first_alpha", "n2"),
    ]


@pytest.mark.parametrize("rank", [rank_joint, rank_two_stage])
def test_nodes_sharing_a_label_tie_break_by_type_before_their_random_ids(rank: Any) -> None:
    # "crashed" as a push and as a hiring criterion tied: the node id (a random UUID) decided, so
    # two runs of one simulated interview asked different questions
    strategies = [{"name": "dig", "signal_weights": {"graph.node.is_orphan.true": 1.0}}]
    for ids in (("b-id", "a-id"), ("a-id", "b-id")):
        tracker = NodeStateTracker()
        tracker.register_node(ids[0], 1, label="crashed", node_type="push")
        tracker.register_node(ids[1], 1, label="crashed", node_type="hiring_criterion")
        nodes: dict[str, SignalMap] = {i: {"graph.node.is_orphan": True} for i in ids}
        ranking = rank(_compile(strategies), DetectionResult({}, nodes), tracker, PhaseModifiers({}, {}), ())
        # the hiring criterion's node first, whichever id it drew
        assert ranking.candidates[0].node_id == ids[1], ids


def test_without_nodes_required_strategies_rank_once_with_no_node() -> None:
    ranking = rank_joint(
        _compile(STRATEGIES), DetectionResult(dict(GLOBAL), {}), NodeStateTracker(), EARLY, ()
    )
    # explore: 1.0 + 0 → 1.0 + 0.2 = 1.2; deepen: deep +0.4 (node weights skip: no node) → 0.4 × 0.8 = 0.32
    assert _table(ranking) == [("explore", None, 1.2), ("deepen", None, 0.32)]


def test_two_stage_picks_strategy_on_global_signals_then_the_node() -> None:
    strategies = [
        {"name": "explore", "node_binding": "none", "signal_weights": {"meta.interview.phase.early": 0.3}},
        {
            "name": "deepen",
            "signal_weights": {
                "llm.response_depth.deep": 0.5,
                "graph.node.is_orphan.true": 2.0,
                "graph.node.recency_score": 1.0,
            },
        },
    ]
    nodes: dict[str, SignalMap] = {
        "a": {"graph.node.is_orphan": False, "graph.node.recency_score": 0.9},
        "b": {"graph.node.is_orphan": True, "graph.node.recency_score": 0.1},
    }
    detection = DetectionResult({"meta.interview.phase": "early", "llm.response_depth": "deep"}, nodes)
    ranking = rank_two_stage(
        _compile(strategies), detection, _tracker("a", "b"), PhaseModifiers({"deepen": 2.0}, {}), ()
    )
    # stage 1 (strategy-scoped only): deepen 0.5 × 2.0 = 1.0; explore 0.3
    # stage 2 (deepen's node weights): a = 0.9; b = 2.0 + 0.1 = 2.1 → b
    assert _table(ranking) == [("deepen", "b", 1.0), ("explore", None, 0.3)]
    assert [(c.node_id, round(c.final_score, 9), c.rank, c.selected) for c in ranking.node_candidates] == [
        ("b", 2.1, 1, True),
        ("a", 0.9, 2, False),
    ]
    # and joint mode would score the pairs together: deepen/b = (0.5 + 2.0 + 0.1) × 2 = 5.2
    joint = rank_joint(
        _compile(strategies), detection, _tracker("a", "b"), PhaseModifiers({"deepen": 2.0}, {}), ()
    )
    assert _table(joint)[0] == ("deepen", "b", 5.2)


def test_phase_modifiers_apply_only_to_named_strategies() -> None:
    mods = PhaseModifiers({"deepen": 1.5}, {"deepen": -0.25})
    strategies = [
        {"name": "deepen", "node_binding": "none", "signal_weights": {"meta.interview_progress": 2.0}},
        {"name": "close", "node_binding": "none", "signal_weights": {"meta.interview_progress": 2.0}},
    ]
    ranking = rank_joint(
        _compile(strategies),
        DetectionResult({"meta.interview_progress": 0.5}, {}),
        NodeStateTracker(),
        mods,
        (),
    )
    # deepen: 2.0 × 0.5 = 1.0 → 1.0 × 1.5 − 0.25 = 1.25; close: 1.0 × 1 + 0 = 1.0
    assert _table(ranking) == [("deepen", None, 1.25), ("close", None, 1.0)]
    close = ranking.candidates[1]
    assert (close.phase_multiplier, close.phase_bonus) == (1.0, 0.0)


def _typed_tracker(**types: str) -> NodeStateTracker:
    t = NodeStateTracker()
    for key, node_type in types.items():
        t.register_node(key, 1, label=f"label {key}", node_type=node_type)
    return t


FOCUS_TYPED = [
    {"name": "explore", "node_binding": "none", "signal_weights": {"meta.interview.phase.early": 0.1}},
    {
        "name": "ladder",
        "focus_node_types": ["consequence"],
        "signal_weights": {"graph.node.recency_score": 1.0},
    },
]
TYPED_NODES: dict[str, SignalMap] = {
    "a": {"graph.node.recency_score": 0.9},  # an attribute: the best node, but not the strategy's type
    "c": {"graph.node.recency_score": 0.4},
}


def test_a_strategy_focuses_only_nodes_of_its_focus_types() -> None:
    detection = DetectionResult({"meta.interview.phase": "early"}, TYPED_NODES)
    tracker = _typed_tracker(a="attribute", c="consequence")
    joint = rank_joint(_compile(FOCUS_TYPED), detection, tracker, PhaseModifiers({}, {}), ())
    # ladder/a (0.9) is no candidate: the attribute is not of its focus types; ladder/c = 0.4
    assert _table(joint) == [("ladder", "c", 0.4), ("explore", None, 0.1)]
    two = rank_two_stage(_compile(FOCUS_TYPED), detection, tracker, PhaseModifiers({}, {"ladder": 1.0}), ())
    assert _table(two)[0] == ("ladder", "c", 1.0)  # stage 1: no strategy weight, bonus 1.0
    assert [c.node_id for c in two.node_candidates] == ["c"]


def test_a_strategy_with_no_node_of_its_focus_types_is_no_candidate() -> None:
    detection = DetectionResult({"meta.interview.phase": "early"}, TYPED_NODES)
    tracker = _typed_tracker(a="attribute")
    joint = rank_joint(_compile(FOCUS_TYPED), detection, tracker, PhaseModifiers({}, {}), ())
    assert _table(joint) == [("explore", None, 0.1)]
    # two-stage: ladder would win stage 1 (0.0 against 0.1 after a bonus), but it has no node to ask about
    two = rank_two_stage(_compile(FOCUS_TYPED), detection, tracker, PhaseModifiers({}, {"ladder": 1.0}), ())
    assert _table(two) == [("explore", None, 0.1)]
    # before any node exists, it ranks once with no node, like every node-bound strategy
    empty = rank_joint(_compile(FOCUS_TYPED), detection, NodeStateTracker(), PhaseModifiers({}, {}), ())
    assert [(c.strategy, c.node_id) for c in empty.candidates] == [("explore", None), ("ladder", None)]
