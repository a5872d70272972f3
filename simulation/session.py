"""One simulated run end to end: respondent → interview → metrics → record, report and plots."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from shared.llm.base import LLMClient
from simulation import metrics, plots, report
from simulation.client import InterviewClient
from simulation.personas import Persona
from simulation.records import RunRecord
from simulation.respondent import Engine, build_respondent
from simulation.runner import RunSpec, run_interview
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer

if TYPE_CHECKING:
    from shared.embeddings import Embedder


@dataclass
class Toolkit:
    """Things built once per process and shared by every run."""

    lemmatizer: Lemmatizer
    embedder: Embedder | None = None
    generation: LLMClient | None = None


async def simulate(
    client: InterviewClient,
    tools: Toolkit,
    *,
    persona: Persona,
    scenario: Scenario,
    seed: int,
    engine: Engine,
    out_dir: Path,
    max_turns: int = 0,
    turn_cap: int = 200,
) -> tuple[RunRecord, Path]:
    """Run one interview and write `record.json`, `report.md` and the PNGs into `out_dir/<run>/`."""
    respondent = build_respondent(
        engine, persona, scenario, seed=seed, generation=tools.generation, lemmatizer=tools.lemmatizer
    )
    spec = RunSpec(scenario=scenario, persona=persona.name, seed=seed, max_turns=max_turns, turn_cap=turn_cap)
    record = await run_interview(client, respondent, spec)
    record.metrics = metrics.compute(record, scenario, tools.lemmatizer, tools.embedder)
    directory = out_dir / record.meta.run_id
    report.write_record(record, directory)
    matched = [str(m["node_id"]) for m in record.metrics.recall.matches]
    plots.write_all(record, directory, elements_total=record.metrics.recall.elements_total, matched=matched)
    report.write_report(record, directory)
    return record, directory
