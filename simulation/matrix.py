"""Concept × persona matrix of offline simulated interviews, with an `index.md` summary."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import structlog

from shared.errors import DomainError
from simulation import report
from simulation.client import InterviewClient
from simulation.personas import Persona
from simulation.records import RunRecord
from simulation.scenarios import Scenario, ScenarioRegistry
from simulation.session import Toolkit, simulate

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class MatrixJob:
    """One cell of the matrix."""

    persona: Persona
    scenario: Scenario
    seed: int


@dataclass(frozen=True)
class MatrixFailure:
    """A cell that did not complete, and why (the other cells still run)."""

    job: MatrixJob
    error: str


def plan(
    concepts: Sequence[str], personas: Sequence[Persona], scenarios: ScenarioRegistry, seed: int
) -> list[MatrixJob]:
    """Every (concept, persona) pair; a concept's scenarios are rotated over the personas."""
    jobs: list[MatrixJob] = []
    for concept in concepts:
        options = scenarios.for_concept(concept)
        if not options:
            raise DomainError(f"no scenario in {scenarios.directory} names concept {concept!r}")
        for i, persona in enumerate(personas):
            jobs.append(MatrixJob(persona, options[i % len(options)], seed + len(jobs)))
    return jobs


async def run_matrix(
    client: InterviewClient,
    tools: Toolkit,
    jobs: Sequence[MatrixJob],
    out_dir: Path,
    *,
    max_turns: int = 0,
    parallel: int = 1,
    turn_cap: int = 200,
) -> tuple[list[tuple[str, RunRecord]], list[MatrixFailure]]:
    """Run `jobs` (at most `parallel` at once, offline engine) and write `index.md` + `index.json`."""
    gate = asyncio.Semaphore(max(1, parallel))
    done: list[tuple[str, RunRecord]] = []
    failed: list[MatrixFailure] = []

    async def one(job: MatrixJob) -> None:
        async with gate:
            try:
                record, directory = await simulate(
                    client,
                    tools,
                    persona=job.persona,
                    scenario=job.scenario,
                    seed=job.seed,
                    engine="offline",
                    out_dir=out_dir,
                    max_turns=max_turns,
                    turn_cap=turn_cap,
                )
            except (grpc.aio.AioRpcError, DomainError) as exc:
                # one broken cell must not lose the others; the index lists it with the reason
                reason = (
                    f"{exc.code().name}: {exc.details()}"
                    if isinstance(exc, grpc.aio.AioRpcError)
                    else str(exc)
                )
                log.warning(
                    "simulation_run_failed", scenario=job.scenario.id, persona=job.persona.name, error=reason
                )
                failed.append(MatrixFailure(job, reason))
                return
            done.append((f"{directory.name}/{report.REPORT_FILE}", record))
            log.info("simulation_run_done", run=record.meta.run_id)

    await asyncio.gather(*(one(job) for job in jobs))
    order = {(j.scenario.id, j.persona.name): i for i, j in enumerate(jobs)}
    done.sort(key=lambda item: order.get((item[1].meta.scenario_id, item[1].meta.persona), 0))
    write_index(out_dir, done, failed)
    return done, failed


def write_index(
    out_dir: Path, done: Sequence[tuple[str, RunRecord]], failed: Sequence[MatrixFailure]
) -> Path:
    """`index.md` (table + means) and `index.json` (one summary object per run)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    text = report.index_markdown(done)
    if failed:
        text += (
            "\n## Failed runs\n\n"
            + "\n".join(
                f"- {f.job.scenario.id} × {f.job.persona.name} (seed {f.job.seed}): {f.error}" for f in failed
            )
            + "\n"
        )
    path = out_dir / "index.md"
    path.write_text(text, encoding="utf-8")
    summary = [
        {
            "run": rec.meta.run_id,
            "report": rel,
            "concept": rec.meta.concept_id,
            "persona": rec.meta.persona,
            "scenario": rec.meta.scenario_id,
            "seed": rec.meta.seed,
            "metrics": rec.metrics.model_dump(exclude={"recall": {"matches", "recovered"}, "timeline": True})
            if rec.metrics
            else None,
        }
        for rel, rec in done
    ]
    summary += [
        {"scenario": f.job.scenario.id, "persona": f.job.persona.name, "seed": f.job.seed, "error": f.error}
        for f in failed
    ]
    (out_dir / "index.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return path
