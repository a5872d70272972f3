"""The PNG plots of a run."""

from __future__ import annotations

from pathlib import Path

from simulation import plots
from simulation.metrics import compute
from simulation.records import RunRecord
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer
from tests.unit.simulation.support import sample_record

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _finished(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> RunRecord:
    record = sample_record()
    record.metrics = compute(record, mini_scenario, lemmatizer)
    return record


def test_plots_are_non_empty_pngs(tmp_path: Path, mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    record = _finished(mini_scenario, lemmatizer)
    paths = plots.write_all(record, tmp_path, elements_total=7, matched=["n1", "n2"])
    assert [p.name for p in paths] == [
        "graph_growth.png",
        "strategy_timeline.png",
        "signals.png",
        "final_graph.png",
    ]
    for path in paths:
        data = path.read_bytes()
        assert data.startswith(PNG_MAGIC), path
        assert len(data) > 5000, path  # a drawn figure, not an empty canvas


def test_numeric_signals_keep_numbers_and_map_depth(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    series = plots.numeric_signals(_finished(mini_scenario, lemmatizer))
    assert list(series)[:2] == ["graph.max_depth", "meta.interview_progress"]  # preferred order
    assert series["graph.max_depth"] == [(1, 0.2), (2, 0.4), (3, 0.6), (4, 0.6)]
    assert series["llm.response_depth"] == [(1, 1 / 3), (2, 2 / 3), (3, 1.0)]
    assert series["graph.chain_completion.has_complete"] == [(1, 0.0)]


def test_revealed_per_turn_counts_elements_named_in_passing(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    record = _finished(mini_scenario, lemmatizer)
    assert plots.revealed_per_turn(record) == [1, 2, 3, 4]
    record.turns[1] = record.turns[1].model_copy(update={"mentioned_elements": ["a_light", "v_peace"]})
    assert plots.revealed_per_turn(record) == [1, 4, 5, 6]
