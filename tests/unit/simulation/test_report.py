"""The JSON record, the Markdown report and the matrix index."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

from simulation import report
from simulation.metrics import compute
from simulation.records import ChainBreakReason, GraphEdge, GraphNode, RunRecord
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer
from tests.unit.simulation.support import sample_record


def _finished(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> RunRecord:
    record = sample_record()
    record.metrics = compute(record, mini_scenario, lemmatizer)
    return record


def test_record_and_report(tmp_path: Path, mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    record = _finished(mini_scenario, lemmatizer)
    saved = report.write_record(record, tmp_path)
    loaded = RunRecord.model_validate_json(saved.read_text(encoding="utf-8"))
    assert loaded.metrics is not None and loaded.metrics.recall.elements_recovered == 5
    text = report.write_report(record, tmp_path).read_text(encoding="utf-8")
    assert "| ground-truth element recall | 71% (5/7; type agrees: 71%) |" in text
    assert "| hidden link recall | 60% (3/5; typed 2); of revealed: 67% |" in text
    repeats = "| repeated questions (exact / near) | 1 / 1 of the 3 questions after the first (33% / 33%) |"
    assert repeats in text
    assert "| asked again after 'nothing left' | 0 of 4 questions asked for more of what" in text
    # each hidden chain: the battery one completed, the noise one stopped before the unextracted value
    assert "| battery | ladder | yes | – |  |  |" in text
    assert "| noise | ladder | no | – | p_calm → v_peace | element said, not in the graph |" in text
    # the opening question found nothing left, and turn 4 asked for another item and got nothing
    record.turns[0] = record.turns[0].model_copy(update={"nothing_left": True})
    record.turns[3] = record.turns[3].model_copy(update={"revealed_elements": []})
    record.metrics = compute(record, mini_scenario, lemmatizer)
    text = report.write_report(record, tmp_path).read_text(encoding="utf-8")
    assert "| asked again after 'nothing left' | 1 of 4 questions asked for more of what" in text
    # an engine that does not say what it had left (the LLM respondent) leaves the figure unknown
    record.turns = [t.model_copy(update={"nothing_left": None}) for t in record.turns]
    record.metrics = compute(record, mini_scenario, lemmatizer)
    text = report.write_report(record, tmp_path).read_text(encoding="utf-8")
    assert "| asked again after 'nothing left' | not known (the respondent does not tell) |" in text
    assert "![final graph](final_graph.png)" in text
    assert (
        "| 2 | explore |  | Why is noise cancelling important to you? |" in text
    )  # asked by turn 1's strategy


def test_index_lists_runs_and_means(mini_scenario: Scenario, lemmatizer: Lemmatizer, tmp_path: Path) -> None:
    from simulation.matrix import write_index

    record = _finished(mini_scenario, lemmatizer)
    write_index(tmp_path, [("mini__plain__s1/report.md", record)], [])
    text = (tmp_path / "index.md").read_text(encoding="utf-8")
    assert "[mini__plain__s1](mini__plain__s1/report.md)" in text
    # no slots in the run; its respondent said every time what a question asked for, never "nothing left"
    assert "| plain | 1 | 4.0 | 71% | 60% | 50% | – | 57% | 33% | 0.00 |" in text
    summary = json.loads((tmp_path / "index.json").read_text(encoding="utf-8"))
    assert summary[0]["metrics"]["recall"]["elements_recovered"] == 5
    # chains per concept: completed, never said, said but not extracted, split, link never said, link lost
    assert f"| {record.meta.concept_id} | 2 | 1 | 0 | 1 | 0 | 0 | 0 |" in text


def test_a_split_chain_names_the_nodes_that_hold_its_element(
    mini_scenario: Scenario, lemmatizer: Lemmatizer, tmp_path: Path
) -> None:
    record = sample_record()
    record.graph.nodes += [
        GraphNode(id="n7", label="peace of mind", node_type="terminal_value", level=4),
        GraphNode(id="n8", label="feel calm", node_type="psychosocial_consequence", level=3),
    ]
    record.graph.edges.append(GraphEdge(id="e4", source="n8", target="n7", edge_type="leads_to"))
    record.graph.slot_of = {"n3": "s_calm", "n8": "s_calm"}
    record.metrics = compute(record, mini_scenario, lemmatizer)
    text = report.markdown(record)
    assert (
        "| noise | ladder | no | yes | p_calm → v_peace | element held by two nodes: "
        "calm (psychosocial_consequence); feel calm (psychosocial_consequence) |"
    ) in text
    index = report.index_markdown([("r/report.md", record)])
    assert f"| {record.meta.concept_id} | 2 | 1 | 0 | 0 | 1 | 0 | 0 |" in index


def test_every_reason_a_chain_stops_has_its_wording() -> None:
    assert set(report.CHAIN_REASONS) == set(get_args(ChainBreakReason))


def test_an_index_of_records_without_chain_outcomes_leaves_the_table_out(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    record = _finished(mini_scenario, lemmatizer)
    assert "Where the chains stopped" in report.index_markdown([("r/report.md", record)])
    assert record.metrics is not None
    record.metrics.recall.chains = []  # a record written before chains were diagnosed
    assert "Where the chains stopped" not in report.index_markdown([("r/report.md", record)])


def test_transcript_marks_elements_named_in_passing(
    tmp_path: Path, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    record = _finished(mini_scenario, lemmatizer)
    record.turns[2] = record.turns[2].model_copy(update={"mentioned_elements": ["v_peace"]})
    text = report.write_report(record, tmp_path).read_text(encoding="utf-8")
    assert text.count(" | p_calm, v_peace (in passing) |") == 1
    assert " | a_battery |" in text  # a turn without mentions keeps the plain list
