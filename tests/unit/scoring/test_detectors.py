"""Detection through the engine: only named signals are computed; values per pool from the inputs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from services.scoring.context import _label_terms, label_novelty
from services.scoring.models import CanonicalMetrics, GraphMetrics, SignalInputs, Velocity
from shared.node_tracker import GraphChangeSummary, NodeStateTracker
from tests.unit.scoring.support import CountingScorer, engine_for, methodology_dict, rubric, write_methodology

ALL_GLOBAL = {
    "graph": [
        "graph.node_count",
        "graph.edge_count",
        "graph.max_depth",
        "graph.avg_depth",
        "graph.orphan_count",
        "graph.chain_completion.ratio",
        "graph.chain_completion.has_complete",
        "graph.canonical_concept_count",
        "graph.canonical_edge_density",
        "graph.canonical_exhaustion_score",
    ],
    "llm": [
        "llm.response_depth",
        "llm.specificity",
        "llm.certainty",
        "llm.valence",
        "llm.engagement",
        "llm.intellectual_engagement",
        "llm.global_response_trend",
    ],
    "temporal": ["temporal.strategy_repetition_count", "temporal.turns_since_strategy_change"],
    "meta": [
        "meta.interview.phase",
        "meta.interview_progress",
        "meta.conversation.saturation",
        "meta.canonical.saturation",
        "meta.node.opportunity",
    ],
    "technique": ["technique.node.strategy_repetition"],
}
NODE_GRAPH = [
    "graph.node.exhausted",
    "graph.node.exhaustion_score",
    "graph.node.yield_stagnation",
    "graph.node.focus_streak",
    "graph.node.focus_count",
    "graph.node.is_current_focus",
    "graph.node.recency_score",
    "graph.node.is_orphan",
    "graph.node.edge_count",
    "graph.node.has_outgoing",
    "graph.node.novelty",
]


@pytest.fixture
def config_dir(tmp_path: Path) -> Path:
    everything = {**ALL_GLOBAL, "graph": ALL_GLOBAL["graph"] + NODE_GRAPH}
    write_methodology(
        tmp_path,
        methodology_dict(
            "everything",
            [{"name": "deepen", "signal_weights": {"graph.node_count": 0.1}}],
            signals=everything,
        ),
    )
    write_methodology(
        tmp_path,
        methodology_dict(
            "graph_only",
            [{"name": "deepen", "signal_weights": {"graph.node.is_orphan.true": 0.5}}],
            signals={"graph": ["graph.node_count", "graph.node.is_orphan"]},
        ),
    )
    return tmp_path


def _exhausting_tracker() -> NodeStateTracker:
    """Node a: focused turns 1–3 with shallow answers and no yield; b: created at 1, never focused."""
    t = NodeStateTracker()
    t.register_node("a", 1, label="creamy texture", node_type="attribute", level=1)
    t.register_node("b", 1, label="plant based milk", node_type="attribute", level=1)
    t.update_focus("a", 1, "deepen")
    for turn, depth in ((2, "shallow"), (3, "surface")):
        t.record_yield("a", turn, GraphChangeSummary())
        t.append_response_signal(None, depth, turn_number=turn)
        t.update_focus("a", turn, "deepen")
    t.record_yield("a", 4, GraphChangeSummary())
    t.append_response_signal(None, "moderate", turn_number=4)
    return t


async def test_everything_methodology_computes_every_pool(config_dir: Path) -> None:
    scorer = CountingScorer(
        rubric(depth=4, specificity=2, certainty=5, valence=1, engagement=3, intellectual=4)
    )
    inputs = SignalInputs(
        methodology="everything",
        turn_number=4,
        max_turns=20,
        tracker=_exhausting_tracker(),
        graph=GraphMetrics(
            node_count=2,
            edge_count=0,
            orphan_count=2,
            max_depth=2,
            avg_depth=1.5,
            chain_completion_ratio=0.5,
            chain_completion_has_complete=True,
        ),
        canonical=CanonicalMetrics(concept_count=4, edge_count=6),
        canonical_enabled=True,
        answer="Because it is smooth.",
        question="Why does that matter?",
        strategy_history=("explore", "deepen", "deepen"),
        response_depth_history=(3, 2, 2),
        velocity=Velocity(surface_delta=1, surface_peak=4, canonical_delta=0),
    )
    detection = await engine_for(config_dir, scorer).detect(inputs)
    g, nodes = detection.signals.global_signals, detection.signals.node_signals
    assert scorer.calls == [("Why does that matter?", "Because it is smooth.")]  # one batched call
    assert g["graph.max_depth"] == pytest.approx(2 / 3)  # longest chain 2 nodes / 3 levels
    assert g["graph.avg_depth"] == pytest.approx(0.5)
    assert (g["graph.node_count"], g["graph.orphan_count"], g["graph.chain_completion.has_complete"]) == (
        2,
        2,
        True,
    )
    assert g["graph.canonical_concept_count"] == 4
    assert g["graph.canonical_edge_density"] == pytest.approx(6 / 12)
    assert (g["llm.response_depth"], g["llm.specificity"], g["llm.certainty"]) == ("deep", 0.25, 1.0)
    assert (g["llm.valence"], g["llm.intellectual_engagement"]) == (0.0, 0.75)
    # history (3, 2, 2) + this answer's 4: halves (3,2)=2.5 → (2,4)=3.0 = +0.5 ⇒ deepening
    assert g["llm.global_response_trend"] == "deepening"
    assert g["temporal.strategy_repetition_count"] == pytest.approx(0.4)
    assert g["temporal.turns_since_strategy_change"] == pytest.approx(0.4)
    assert (g["meta.interview.phase"], g["meta.interview_progress"]) == ("mid", pytest.approx(0.2))
    assert g["meta.conversation.saturation"] == pytest.approx(0.75)
    assert g["meta.canonical.saturation"] == pytest.approx(1.0)
    a = nodes["a"]
    # a: created 1, focused 1,2,3 (streak 3), clock 4 → 3 turns without yield;
    # its answers: shallow, surface, moderate (last 3 → 2/3 shallow)
    assert a["graph.node.exhausted"] is True  # focus ≥1, tsy 3 ≥ 3, streak 3 ≥ 2, shallow 2/3
    assert a["graph.node.exhaustion_score"] == pytest.approx(0.4 * 3 / 10 + 0.3 * 3 / 5 + 0.3 * 2 / 3)
    assert (a["graph.node.focus_streak"], a["graph.node.focus_count"]) == ("medium", "medium")
    assert a["graph.node.is_current_focus"] is True and a["graph.node.recency_score"] == pytest.approx(0.95)
    assert a["meta.node.opportunity"] == "exhausted"
    assert a["technique.node.strategy_repetition"] == "medium"
    b = nodes["b"]
    # b was never asked about: it does not stagnate by ageing
    assert (b["graph.node.exhausted"], b["graph.node.yield_stagnation"]) == (False, False)
    assert b["graph.node.exhaustion_score"] == 0.0
    assert b["graph.node.focus_streak"] == "none" and b["meta.node.opportunity"] == "fresh"
    assert b["graph.node.recency_score"] == pytest.approx(1 - 3 / 20)
    assert g["graph.canonical_exhaustion_score"] == pytest.approx(
        (float(a["graph.node.exhaustion_score"]) + float(b["graph.node.exhaustion_score"])) / 2
    )


async def test_only_named_signals_are_computed_and_no_rubric_call_is_made(config_dir: Path) -> None:
    scorer = CountingScorer(rubric())
    t = NodeStateTracker()
    t.register_node("a", 1, label="x")
    inputs = SignalInputs(
        methodology="graph_only",
        turn_number=1,
        max_turns=10,
        tracker=t,
        answer="hi",
        graph=GraphMetrics(node_count=1),
    )
    detection = await engine_for(config_dir, scorer).detect(inputs)
    assert set(detection.signals.global_signals) == {"graph.node_count", "meta.interview.phase"}
    assert detection.signals.node_signals == {"a": {"graph.node.is_orphan": True}}
    assert scorer.calls == [] and detection.rubric is None


async def test_canonical_signals_are_absent_when_canonical_slots_are_off(config_dir: Path) -> None:
    inputs = SignalInputs(
        methodology="everything",
        turn_number=2,
        max_turns=20,
        answer="ok",
        canonical=CanonicalMetrics(concept_count=3),
        canonical_enabled=False,
        response_depth_history=(3, 3),
    )
    detection = await engine_for(config_dir, CountingScorer(rubric())).detect(inputs)
    g = detection.signals.global_signals
    absent = {
        "graph.canonical_concept_count",
        "graph.canonical_edge_density",
        "graph.canonical_exhaustion_score",
        "meta.canonical.saturation",
        "llm.global_response_trend",
    }  # trend: 2 prior + 1 current < 4
    assert absent.isdisjoint(g)
    assert "graph.node_count" in g


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({"a": "fast car", "b": "fast cars"}, {"a": 0.0, "b": 0.0}),  # plural folded: a near repeat
        ({"a": "fast car", "b": "price"}, {"a": 1.0, "b": 1.0}),
        (
            {"a": "fast car", "b": "fast delivery"},
            {"a": 1 - 1 / 3, "b": 1 - 1 / 3},
        ),  # {fast} / {fast,car,delivery}
        ({"a": "the"}, {"a": 0.0}),  # no content word
        ({"a": "solo"}, {"a": 1.0}),
    ],
)
def test_label_novelty(labels: dict[str, str], expected: dict[str, float]) -> None:
    assert label_novelty(labels) == pytest.approx(expected)


def _pairwise_novelty(labels: dict[str, str]) -> dict[str, float]:
    """The definition, pair by pair: 1 − the best Jaccard overlap of term sets with any other label."""
    terms = {k: _label_terms(v) for k, v in labels.items()}
    out = {}
    for key, mine in terms.items():
        if not mine:
            out[key] = 0.0
            continue
        overlaps = [
            len(mine & theirs) / len(mine | theirs) for other, theirs in terms.items() if other != key
        ]
        out[key] = 1.0 - max(overlaps, default=0.0)
    return out


def test_label_novelty_matches_the_pairwise_definition_on_many_labels() -> None:
    rng = random.Random(11)
    words = ["battery", "cars", "car", "noise", "comfort", "price", "the", "of", "glass", "travel", "calm"]
    for _ in range(40):
        labels = {f"n{i}": " ".join(rng.sample(words, rng.randint(0, 4))) for i in range(rng.randint(1, 50))}
        assert label_novelty(labels) == pytest.approx(_pairwise_novelty(labels))
