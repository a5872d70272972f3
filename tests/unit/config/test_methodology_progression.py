"""The shipped strategy weights make an interview progress: explore early, deepen mid, validate/close late.

Scores are computed here with the SPEC.md formula (independent of the scoring service): a weight
key's qualifier matches the signal's bin/category/bool; unqualified numbers multiply; missing
signals are skipped; `temporal.strategy_repetition_count` and `technique.node.strategy_repetition`
only apply to the strategy that was repeated (SPEC: "penalise the repeated strategy, not every
strategy"), while `temporal.turns_since_strategy_change` describes the interview and is seen by
every strategy, as in the scoring service (`services/scoring/ranking.py`) — a methodology may
reward *changing* strategy with it; final = base × phase multiplier + phase bonus.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from shared.methodology import MethodologyRegistry
from shared.methodology_models import InterviewPhase, MethodologyConfig, NodeBinding, StrategyConfig
from shared.signal_catalog import SIGNAL_CATALOG, ValueType, resolve_weight_key

CONFIG = Path(__file__).resolve().parents[3] / "config"


@dataclass
class Scene:
    """One moment of an interview: global signals, per-node signals, and the repetition context."""

    phase: str
    globals: dict[str, Any]
    nodes: dict[str, dict[str, Any]]
    last_strategy: str | None = None
    node_last_strategy: dict[str, str] = field(default_factory=dict)


def _contribution(key: str, weight: float, signals: dict[str, Any]) -> float:
    name, qualifier = resolve_weight_key(key)
    value = signals.get(name)
    if value is None:
        return 0.0
    spec = SIGNAL_CATALOG[name]
    if qualifier is None:
        if spec.value_type is ValueType.BOOL:
            return weight if value else 0.0
        return weight * float(value)
    if spec.value_type is ValueType.FLOAT:
        binned = "low" if value <= 0.25 else "high" if value >= 0.75 else "mid"
        return weight if binned == qualifier else 0.0
    if spec.value_type is ValueType.BOOL:
        return weight if str(bool(value)).lower() == qualifier else 0.0
    return weight if value == qualifier else 0.0


def _score(strategy: StrategyConfig, scene: Scene, node: str | None, cfg: MethodologyConfig) -> float:
    signals = dict(scene.globals)
    if scene.last_strategy != strategy.name:
        signals["temporal.strategy_repetition_count"] = 0.0
    if node is not None:
        signals.update(scene.nodes[node])
        if scene.node_last_strategy.get(node) != strategy.name:
            signals["technique.node.strategy_repetition"] = "none"
    base = sum(_contribution(k, w, signals) for k, w in strategy.signal_weights.items())
    phase = cfg.phases.get(InterviewPhase(scene.phase))
    mult = phase.signal_weights.get(strategy.name, 1.0) if phase else 1.0
    bonus = phase.phase_bonuses.get(strategy.name, 0.0) if phase else 0.0
    return base * mult + bonus


def rank(cfg: MethodologyConfig, scene: Scene) -> list[tuple[float, str, str | None]]:
    out: list[tuple[float, str, str | None]] = []
    for strategy in cfg.strategies:
        if strategy.node_binding is NodeBinding.NONE:
            out.append((_score(strategy, scene, None, cfg), strategy.name, None))
        else:
            out.extend((_score(strategy, scene, n, cfg), strategy.name, n) for n in scene.nodes)
    return sorted(out, key=lambda t: -t[0])


FRESH = {
    "graph.node.exhausted": False,
    "graph.node.exhaustion_score": 0.0,
    "graph.node.yield_stagnation": False,
    "graph.node.focus_streak": "none",
    "graph.node.focus_count": "none",
    "graph.node.is_current_focus": False,
    "graph.node.recency_score": 0.0,
    "graph.node.is_orphan": False,
    "graph.node.has_outgoing": False,
    "graph.node.novelty": 0.6,
    "meta.node.opportunity": "fresh",
    "technique.node.strategy_repetition": "none",
}
EXHAUSTED = FRESH | {
    "graph.node.exhausted": True,
    "graph.node.exhaustion_score": 0.85,
    "graph.node.yield_stagnation": True,
    "graph.node.focus_streak": "medium",
    "graph.node.focus_count": "medium",
    "graph.node.has_outgoing": True,
    "graph.node.recency_score": 0.9,
    "meta.node.opportunity": "exhausted",
}
ANSWER = {
    "llm.response_depth": "moderate",
    "llm.specificity": 0.5,
    "llm.certainty": 0.75 - 0.01,
    "llm.valence": 0.5,
    "llm.engagement": 0.5,
    "llm.intellectual_engagement": 0.5,
}


def early() -> Scene:
    return Scene(
        "early",
        ANSWER
        | {
            "meta.interview.phase": "early",
            "meta.interview_progress": 0.1,
            "meta.conversation.saturation": 0.0,
            "graph.max_depth": 0.2,
            "graph.chain_completion.ratio": 0.0,
            "graph.chain_completion.has_complete": False,
        },
        {"a": dict(FRESH), "b": dict(FRESH)},
    )


def mid(last: str) -> Scene:
    focus = FRESH | {
        "graph.node.is_current_focus": True,
        "graph.node.recency_score": 0.95,
        "graph.node.exhaustion_score": 0.3,
        "graph.node.focus_streak": "low",
        "graph.node.focus_count": "low",
        "graph.node.has_outgoing": True,
        "technique.node.strategy_repetition": "low",
    }
    return Scene(
        "mid",
        ANSWER
        | {
            "meta.interview.phase": "mid",
            "meta.interview_progress": 0.4,
            "meta.conversation.saturation": 0.3,
            "graph.max_depth": 0.4,
            "graph.chain_completion.ratio": 0.2,
            "graph.chain_completion.has_complete": False,
            "llm.global_response_trend": "stable",
            "temporal.strategy_repetition_count": 0.4,
            "temporal.turns_since_strategy_change": 0.2,
        },
        {"focus": focus, "fresh": dict(FRESH), "worn": dict(EXHAUSTED)},
        last_strategy=last,
        node_last_strategy={"focus": last, "worn": last},
    )


def late(progress: float, **extra: Any) -> Scene:
    node = FRESH | {
        "graph.node.has_outgoing": True,
        "graph.node.focus_count": "medium",
        "graph.node.exhaustion_score": 0.4,
        "graph.node.recency_score": 0.5,
    }
    return Scene(
        "late",
        ANSWER
        | {
            "meta.interview.phase": "late",
            "meta.interview_progress": progress,
            "meta.conversation.saturation": 0.5,
            "graph.max_depth": 0.8,
            "graph.chain_completion.ratio": 0.5,
            "graph.chain_completion.has_complete": True,
            "llm.global_response_trend": "stable",
        }
        | extra,
        {"n1": node, "worn": dict(EXHAUSTED)},
    )


# methodology -> (opening strategy, main deepening strategy, validation strategy, closing strategy)
ROLES = {
    "means_end_chain": ("explore", "deepen", "validate", "close"),
    "jobs_to_be_done": ("reconstruct_timeline", "dig_for_job", "validate_job", "close"),
    "critical_incident": ("elicit_incident", "probe_outcome", "verify_account", "close"),
    "customer_journey_mapping": ("walk_journey", "identify_need", "validate_journey", "close"),
    "repertory_grid": ("elicit_elements", "ladder_up", "validate_constructs", "close"),
}


@pytest.fixture(scope="module")
def registry() -> MethodologyRegistry:
    return MethodologyRegistry(CONFIG)


def test_roles_cover_every_shipped_methodology(registry: MethodologyRegistry) -> None:
    assert sorted(ROLES) == registry.names()


@pytest.mark.parametrize("name", sorted(ROLES))
def test_early_phase_explores(registry: MethodologyRegistry, name: str) -> None:
    cfg = registry.get(name)
    assert rank(cfg, early())[0][1] == ROLES[name][0]


@pytest.mark.parametrize("name", sorted(ROLES))
def test_mid_phase_deepens_on_a_fresh_node(registry: MethodologyRegistry, name: str) -> None:
    cfg = registry.get(name)
    opening, deepening, _, _ = ROLES[name]
    _, strategy, node = rank(cfg, mid(last=opening))[0]
    assert strategy == deepening
    assert node == "fresh"


@pytest.mark.parametrize("name", sorted(ROLES))
def test_mid_phase_never_targets_an_exhausted_node_first(registry: MethodologyRegistry, name: str) -> None:
    cfg = registry.get(name)
    for last in [s.name for s in cfg.strategies]:
        assert rank(cfg, mid(last=last))[0][2] != "worn"


@pytest.mark.parametrize("name", sorted(ROLES))
def test_repeating_the_deepening_strategy_hands_over(registry: MethodologyRegistry, name: str) -> None:
    """After the deepening strategy was used repeatedly on the focus node, it loses that node."""
    cfg = registry.get(name)
    _, deepening, _, _ = ROLES[name]
    scene = mid(last=deepening)
    scene.globals["temporal.strategy_repetition_count"] = 1.0
    scene.globals["temporal.turns_since_strategy_change"] = 1.0
    scene.nodes["focus"]["technique.node.strategy_repetition"] = "high"
    ranked = rank(cfg, scene)
    assert (ranked[0][1], ranked[0][2]) != (deepening, "focus")
    fresh_rank = next(r[0] for r in ranked if r[1] == deepening and r[2] == "fresh")
    focus_rank = next(r[0] for r in ranked if r[1] == deepening and r[2] == "focus")
    assert fresh_rank > focus_rank


@pytest.mark.parametrize("name", sorted(ROLES))
def test_late_phase_validates_then_closes(registry: MethodologyRegistry, name: str) -> None:
    cfg = registry.get(name)
    _, _, validation, closing = ROLES[name]
    first = late(0.95)
    assert rank(cfg, first)[0][1] == validation
    # once validation ran, the closing strategy wins the last turn
    after = late(
        1.0, **{"temporal.strategy_repetition_count": 0.2, "temporal.turns_since_strategy_change": 0.2}
    )
    after.last_strategy = validation
    after.node_last_strategy = {"n1": validation}
    after.nodes["n1"]["technique.node.strategy_repetition"] = "low"
    assert rank(cfg, after)[0][1] == closing


@pytest.mark.parametrize("name", sorted(ROLES))
def test_late_phase_closes_at_once_when_fatigued_and_saturated(
    registry: MethodologyRegistry, name: str
) -> None:
    cfg = registry.get(name)
    scene = late(0.95, **{"llm.global_response_trend": "fatigued", "meta.conversation.saturation": 0.9})
    assert rank(cfg, scene)[0][1] == ROLES[name][3]


@pytest.mark.parametrize("name", sorted(ROLES))
def test_closing_never_wins_before_the_late_phase(registry: MethodologyRegistry, name: str) -> None:
    cfg = registry.get(name)
    closing = ROLES[name][3]
    worst = {"llm.global_response_trend": "fatigued", "meta.conversation.saturation": 1.0}
    scene = mid(last=ROLES[name][1])
    scene.globals.update(
        worst | {"meta.interview_progress": 0.85, "graph.chain_completion.has_complete": True}
    )
    assert rank(cfg, scene)[0][1] != closing
    scene = early()
    scene.globals.update(worst)
    assert rank(cfg, scene)[0][1] != closing


@pytest.mark.parametrize("name", sorted(ROLES))
def test_exactly_one_closing_strategy(registry: MethodologyRegistry, name: str) -> None:
    cfg = registry.get(name)
    closing = [s.name for s in cfg.strategies if s.generates_closing_question]
    assert closing == [ROLES[name][3]]


@pytest.mark.parametrize("name", sorted(ROLES))
def test_mid_phase_broadens_again_when_every_node_is_exhausted(
    registry: MethodologyRegistry, name: str
) -> None:
    cfg = registry.get(name)
    scene = mid(last=ROLES[name][1])
    scene.nodes = {"worn": dict(EXHAUSTED), "worn2": dict(EXHAUSTED)}
    scene.node_last_strategy = {"worn": ROLES[name][1], "worn2": ROLES[name][1]}
    scene.globals["meta.conversation.saturation"] = 0.9
    top = rank(cfg, scene)[0]
    assert top[2] is None  # a topic/summary strategy, not another push on a worn-out node
    assert top[1] != ROLES[name][3]


def test_repertory_grid_runs_triads_while_the_grid_holds_only_elements(registry: MethodologyRegistry) -> None:
    cfg = registry.get("repertory_grid")
    scene = mid(last="elicit_elements")
    scene.globals["graph.max_depth"] = 0.25  # elements only: one level of four
    assert rank(cfg, scene)[0][1] == "triad_elicitation"


# methodology -> the strategies that check an account back with the respondent (mid and late)
CHECKS = {
    "means_end_chain": ("validate", "reflect"),
    "jobs_to_be_done": ("validate_job",),
    "critical_incident": ("verify_account",),
    "customer_journey_mapping": ("validate_journey",),
    "repertory_grid": ("validate_constructs",),
}


def ladder_run(name: str, run: int) -> Scene:
    """Mid phase after `run` consecutive uses of the deepening strategy, each on a new rung that yielded."""
    deepening = ROLES[name][1]
    scene = mid(last=deepening)
    scene.globals.update(
        {
            "temporal.strategy_repetition_count": run / 5,
            "temporal.turns_since_strategy_change": run / 5,
            "graph.chain_completion.has_complete": True,
            "meta.conversation.saturation": 0.2,
        }
    )
    # the rung just asked about now leads on; a new, never-asked rung is open
    scene.nodes["focus"]["technique.node.strategy_repetition"] = "low"
    scene.nodes["focus"]["graph.node.focus_streak"] = "none"
    return scene


# methodology -> the node-free strategies that open new ground (a new item, incident, stage or triad)
BROADEN = {
    "means_end_chain": ("explore",),
    "jobs_to_be_done": ("reconstruct_timeline",),
    "critical_incident": ("elicit_incident", "contrast_incident"),
    "customer_journey_mapping": ("walk_journey",),
    "repertory_grid": ("elicit_elements", "triad_elicitation"),
}


@pytest.mark.parametrize("name", sorted(ROLES))
def test_after_one_rung_the_interview_keeps_working_on_the_open_one(
    registry: MethodologyRegistry, name: str
) -> None:
    top = rank(registry.get(name), ladder_run(name, 1))[0]
    assert top[2] == "fresh" and top[1] not in CHECKS[name], top


@pytest.mark.parametrize("name", sorted(ROLES))
def test_after_three_rungs_in_a_row_something_else_wins(registry: MethodologyRegistry, name: str) -> None:
    top = rank(registry.get(name), ladder_run(name, 3))[0]
    assert top[1] != ROLES[name][1], top
    assert top[1] != ROLES[name][3]  # and not the closing strategy in mid phase


@pytest.mark.parametrize("name", sorted(ROLES))
def test_a_node_that_just_gave_nothing_is_not_laddered_again(
    registry: MethodologyRegistry, name: str
) -> None:
    """The top of a ladder ("nothing deeper than that"): the node was the last focus, its answer brought
    nothing new (focus streak 1 without yield) and it still leads nowhere."""
    deepening = ROLES[name][1]
    scene = mid(last=deepening)
    scene.globals["temporal.strategy_repetition_count"] = 0.2
    scene.globals["temporal.turns_since_strategy_change"] = 0.2
    scene.nodes["focus"].update(
        {
            "graph.node.has_outgoing": False,
            "graph.node.focus_streak": "low",
            "graph.node.exhaustion_score": 0.1,
        }
    )
    ranked = rank(registry.get(name), scene)
    assert (ranked[0][1], ranked[0][2]) != (deepening, "focus"), ranked[0]
    on_focus = next(r[0] for r in ranked if r[1] == deepening and r[2] == "focus")
    on_fresh = next(r[0] for r in ranked if r[1] == deepening and r[2] == "fresh")
    assert on_fresh > on_focus


def test_a_laddering_answer_that_kept_to_the_practical_is_probed_again_another_way(
    registry: MethodologyRegistry,
) -> None:
    """ "Honestly it's just the practical side of it, nothing deep. Like I said, I don't have to fiddle
    with them mid-run": the answer added nothing (saturation high), the node was asked once and still
    leads nowhere. The interviewer went on to deepen another attribute, and a respondent who names
    feelings only when pressed never got to them; the method says to postulate absence when someone
    cannot say why something matters."""
    scene = mid(last="deepen")
    scene.globals.update(
        {
            "meta.conversation.saturation": 1.0,
            "llm.response_depth": "shallow",
            "temporal.strategy_repetition_count": 0.4,
            "temporal.turns_since_strategy_change": 0.4,
        }
    )
    scene.nodes["focus"].update({"graph.node.has_outgoing": False, "graph.node.exhaustion_score": 0.4})
    top = rank(registry.get("means_end_chain"), scene)[0]
    assert top[1:] == ("absence_probe", "focus"), top
    # once the absence was asked (streak two, same strategy), the node is left alone
    scene.nodes["focus"].update(
        {"graph.node.focus_streak": "medium", "technique.node.strategy_repetition": "low"}
    )
    scene.last_strategy = "absence_probe"
    scene.node_last_strategy = {"focus": "absence_probe", "worn": "deepen"}
    assert rank(registry.get("means_end_chain"), scene)[0][2] != "focus"


@pytest.mark.parametrize("name", sorted(ROLES))
def test_a_stalled_ladder_is_checked_back_or_broadened(registry: MethodologyRegistry, name: str) -> None:
    scene = mid(last=ROLES[name][1])
    scene.globals.update(
        {
            "meta.conversation.saturation": 1.0,
            "graph.chain_completion.has_complete": True,
            "temporal.strategy_repetition_count": 0.4,
            "temporal.turns_since_strategy_change": 0.4,
        }
    )
    scene.nodes = {
        "focus": scene.nodes["focus"] | {"graph.node.focus_streak": "low"},
        "worn": dict(EXHAUSTED),
    }
    top = rank(registry.get(name), scene)[0]
    # check the chain back, or open new ground; never push the stalled node again
    assert top[1] in CHECKS[name] + BROADEN[name], top


@pytest.mark.parametrize("name", sorted(ROLES))
def test_a_check_wins_in_mid_phase_after_a_productive_run(registry: MethodologyRegistry, name: str) -> None:
    assert rank(registry.get(name), ladder_run(name, 3))[0][1] in CHECKS[name]


@pytest.mark.parametrize("name", sorted(ROLES))
def test_after_a_check_the_interview_moves_on(registry: MethodologyRegistry, name: str) -> None:
    check = CHECKS[name][0]
    scene = mid(last=check)
    scene.globals.update(
        {
            "meta.conversation.saturation": 1.0,
            "graph.chain_completion.has_complete": True,
            "llm.response_depth": "surface",
            "temporal.strategy_repetition_count": 0.2,
            "temporal.turns_since_strategy_change": 0.2,
        }
    )
    scene.node_last_strategy = {"focus": check}
    top = rank(registry.get(name), scene)[0]
    assert top[1] not in CHECKS[name] and top[1] != ROLES[name][3], top


# a node asked about once, whose push or pull is known (it has an outgoing edge)
HEARD = FRESH | {
    "graph.node.focus_count": "low",
    "graph.node.has_outgoing": True,
    "graph.node.recency_score": 0.8,
    "graph.node.exhaustion_score": 0.2,
    "technique.node.strategy_repetition": "low",
}


def test_a_switch_interview_asks_what_held_back_a_solution_whose_forces_it_has_heard(
    registry: MethodologyRegistry,
) -> None:
    # In 36 simulated switch interviews no anxiety or habit was ever asked about and no alternative
    # compared: what pushed and pulled was asked again instead, even of the job ("What did you hope
    # being awake before your first meeting would let you do?"). Once a solution's push or pull is
    # known and its job laddered, the forces that held the switch back come next.
    cfg = registry.get("jobs_to_be_done")
    scene = mid(last="dig_for_job")
    scene.nodes = {"capsule machine": dict(HEARD), "be awake": dict(HEARD)}
    scene.node_last_strategy = {"capsule machine": "probe_push_pull", "be awake": "dig_for_job"}
    holding_back = ("probe_anxiety_habit", "compare_alternatives")
    # what held a switch back is asked of a solution, never of the job ("What worried you about
    # being awake … when you were deciding?")
    for name in holding_back:
        strategy = cfg.strategy(name)
        assert strategy is not None and "solution" in strategy.focus_node_types, name
        assert not {"job", "emotional_social_job", "desired_outcome"} & set(strategy.focus_node_types), name
    ranked = [c for c in rank(cfg, scene) if not (c[2] == "be awake" and c[1] in holding_back)]
    assert ranked[0][1:] == ("probe_anxiety_habit", "capsule machine"), ranked[:3]


def test_what_held_a_switch_back_comes_before_the_next_fresh_node_is_pushed_and_pulled(
    registry: MethodologyRegistry,
) -> None:
    # With a fresh node beside the heard solution, the push and pull of the fresh node won, turn
    # after turn: in 36 simulated switch interviews the worry and habit question came up 16 times
    # and 25 of 36 anxieties went unsaid. Once the job is laddered, the held-back forces come first.
    cfg = registry.get("jobs_to_be_done")
    scene = mid(last="dig_for_job")
    scene.nodes = {"capsule machine": dict(HEARD), "fresh": dict(FRESH)}
    scene.node_last_strategy = {"capsule machine": "probe_push_pull"}
    assert rank(cfg, scene)[0][1:] == ("probe_anxiety_habit", "capsule machine"), rank(cfg, scene)[:3]
