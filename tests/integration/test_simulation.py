"""A short simulated interview through the real suite (six services, real sockets, offline engines)."""

from __future__ import annotations

import json
from pathlib import Path

from shared.embeddings import Embedder
from shared.methodology import ConceptRegistry, MethodologyRegistry
from simulation.client import InterviewClient
from simulation.personas import PersonaRegistry
from simulation.records import RunRecord
from simulation.scenarios import ScenarioRegistry
from simulation.session import Toolkit, simulate
from simulation.text import Lemmatizer
from tests.integration.suite import running_suite

CONFIG = Path(__file__).resolve().parents[2] / "config"
PNGS = ("graph_growth.png", "strategy_timeline.png", "signals.png", "final_graph.png")


async def test_simulated_interview_recovers_ground_truth(tmp_path: Path, embedder: Embedder) -> None:
    personas = PersonaRegistry(CONFIG)
    scenarios = ScenarioRegistry(CONFIG, MethodologyRegistry(CONFIG), ConceptRegistry(CONFIG))
    scenario = scenarios.get("headphones_mec_commuter")
    # SQLite only: what is measured here does not depend on the storage back-end
    async with (
        running_suite(None, tmp_path / "db", embedder=embedder) as suite,
        InterviewClient(suite.target) as client,
    ):
        record, directory = await simulate(
            client,
            Toolkit(Lemmatizer(), embedder),
            persona=personas.get("baseline_cooperative"),
            scenario=scenario,
            seed=11,
            engine="offline",
            out_dir=tmp_path / "out",
            max_turns=8,
        )
        session = await client.get_session(record.session.session_id)

    # the interview ran through the public API to its end
    assert 1 <= len(record.turns) <= 8
    assert record.turns[-1].should_continue is False
    assert record.session.status == "completed"
    assert record.metrics is not None and record.metrics.termination_reason not in ("", "unspecified")
    answers = [u.text for u in session.transcript if u.speaker == 2]
    assert answers == [t.answer for t in record.turns]

    # what was said was partly recovered in the graph
    recall = record.metrics.recall
    assert recall.elements_revealed >= 3
    assert recall.element_recall > 0
    assert recall.elements_recovered <= recall.elements_total == len(scenario.elements)
    assert record.metrics.questions.count == len(record.turns)
    # every hidden chain is diagnosed, and its outcomes add up to the completion count
    assert [c.chain_id for c in recall.chains] == [c.id for c in scenario.chains]
    assert recall.chains_completed == sum(c.completed for c in recall.chains)
    assert all(c.completed == (c.reason is None) for c in recall.chains)

    # the record, the report and the plots are on disk
    saved = json.loads((directory / "record.json").read_text(encoding="utf-8"))
    assert saved["meta"]["scenario_id"] == "headphones_mec_commuter"
    assert saved["metrics"]["recall"]["elements_recovered"] == recall.elements_recovered
    assert "ground-truth element recall" in (directory / "report.md").read_text(encoding="utf-8")
    for name in PNGS:
        assert (directory / name).read_bytes().startswith(b"\x89PNG"), name


async def test_the_same_run_spec_repeats_its_interview_on_a_fresh_store(
    tmp_path: Path, embedder: Embedder
) -> None:
    personas = PersonaRegistry(CONFIG)
    scenarios = ScenarioRegistry(CONFIG, MethodologyRegistry(CONFIG), ConceptRegistry(CONFIG))
    tools = Toolkit(Lemmatizer(), embedder)

    async def interview(client: InterviewClient, out: str) -> RunRecord:
        record, _ = await simulate(
            client,
            tools,
            persona=personas.get("verbose_tangential"),
            scenario=scenarios.get("coffee_jtbd_cafe_to_capsule"),
            seed=5,
            engine="offline",
            out_dir=tmp_path / out,
            max_turns=6,
        )
        return record

    async with (
        running_suite(None, tmp_path / "first", embedder=embedder) as suite,
        InterviewClient(suite.target) as client,
    ):
        first = await interview(client, "out1")
        # the same spec again on the same store: its session is taken, so the rerun gets a fresh one
        again = await interview(client, "again")
    async with (
        running_suite(None, tmp_path / "second", embedder=embedder) as suite,
        InterviewClient(suite.target) as client,
    ):
        second = await interview(client, "out2")

    assert first.meta.reproducible and second.meta.reproducible
    assert not again.meta.reproducible
    assert again.session.session_id != first.session.session_id
    assert again.session.status == "completed" and again.turns
    assert second.session.session_id == first.session.session_id
    # word for word: the interviewer's questions (their phrasing rotates by session id) and the answers
    assert second.opening_question == first.opening_question
    assert [(t.question, t.answer) for t in second.turns] == [(t.question, t.answer) for t in first.turns]
    assert second.closing_message == first.closing_message
    assert sorted(n.label for n in second.graph.nodes) == sorted(n.label for n in first.graph.nodes)
    assert first.metrics is not None and second.metrics is not None
    assert second.metrics.recall.element_recall == first.metrics.recall.element_recall
    assert second.metrics.recall.link_recall == first.metrics.recall.link_recall
    assert second.metrics.recall.chains == first.metrics.recall.chains
