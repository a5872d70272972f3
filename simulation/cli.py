"""`python -m simulation {run,matrix,wait,validate}` — simulated interviews against a running suite.

    python -m simulation run --target 127.0.0.1:50051 --concept headphones_mec \\
        --persona brief_responder --scenario config/scenarios/headphones_mec_commuter.yaml --seed 7 \\
        --out reports/simulation
    python -m simulation matrix --target 127.0.0.1:50051 --out reports/simulation \\
        [--concepts headphones_mec coffee_jtbd] [--personas baseline_cooperative fatiguing]
    python -m simulation wait --target 127.0.0.1:50051 --timeout 180
    python -m simulation validate

Exit codes: 0 success, 1 a run failed or the service is not healthy, 2 bad options or config.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

import grpc

from shared.errors import DomainError, InvalidArgumentError, NotFoundError
from shared.llm import LLMClients, LLMSettings, build_llm_clients
from shared.methodology import ConceptRegistry, MethodologyRegistry
from simulation.client import InterviewClient
from simulation.matrix import plan, run_matrix
from simulation.personas import PersonaRegistry
from simulation.scenarios import Scenario, ScenarioRegistry, load_scenario_file
from simulation.session import Toolkit, simulate
from simulation.settings import SimulationSettings
from simulation.text import Lemmatizer


def _parser(settings: SimulationSettings) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m simulation", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--target", default=settings.target, help="host:port of the InterviewService")
        p.add_argument("--config-dir", type=Path, default=settings.config_dir)
        p.add_argument("--out", type=Path, default=Path("reports/simulation"), help="output directory")
        p.add_argument("--max-turns", type=int, default=0, help="0 = the concept's own max_turns")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--no-embeddings", action="store_true", help="match ground truth by lemmas only")

    run = sub.add_parser("run", help="one simulated interview")
    common(run)
    run.add_argument("--concept", help="concept id (defaults to the scenario's)")
    run.add_argument("--persona", required=True)
    run.add_argument("--scenario", help="scenario file or id (defaults to the concept's first scenario)")
    run.add_argument("--engine", choices=["offline", "llm", "auto"], default="offline")
    matrix = sub.add_parser("matrix", help="concept × persona, offline respondent, with index.md")
    common(matrix)
    matrix.add_argument("--concepts", nargs="*", help="concept ids (default: every concept with a scenario)")
    matrix.add_argument("--personas", nargs="*", help="persona names (default: all)")
    matrix.add_argument("--parallel", type=int, default=1, help="interviews run at once")
    wait = sub.add_parser("wait", help="wait until the InterviewService reports SERVING")
    wait.add_argument("--target", default=settings.target)
    wait.add_argument("--timeout", type=float, default=settings.wait_s)
    validate = sub.add_parser("validate", help="load and validate every persona and scenario file")
    validate.add_argument("--config-dir", type=Path, default=settings.config_dir)
    return parser


def _registries(
    config_dir: Path,
) -> tuple[PersonaRegistry, ScenarioRegistry, MethodologyRegistry, ConceptRegistry]:
    methodologies = MethodologyRegistry(config_dir)
    concepts = ConceptRegistry(config_dir)
    return (
        PersonaRegistry(config_dir),
        ScenarioRegistry(config_dir, methodologies, concepts),
        methodologies,
        concepts,
    )


def _scenario(
    args: argparse.Namespace,
    scenarios: ScenarioRegistry,
    methodologies: MethodologyRegistry,
    concepts: ConceptRegistry,
) -> Scenario:
    if args.scenario:
        path = Path(args.scenario)
        scenario = (
            load_scenario_file(path, methodologies, concepts)
            if path.suffix in {".yaml", ".yml"}
            else scenarios.get(args.scenario)
        )
        if args.concept and args.concept != scenario.concept_id:
            raise InvalidArgumentError.for_field(
                "concept", f"scenario {scenario.id!r} is for {scenario.concept_id!r}"
            )
        return scenario
    if not args.concept:
        raise InvalidArgumentError.for_field("concept", "give --concept or --scenario")
    options = scenarios.for_concept(args.concept)
    if not options:
        raise NotFoundError("scenario for concept", args.concept)
    return options[0]


async def _toolkit(
    args: argparse.Namespace, settings: SimulationSettings, engine: str
) -> tuple[Toolkit, LLMClients | None]:
    embedder = None
    if settings.use_embeddings and not args.no_embeddings:
        from shared.embeddings import Embedder

        embedder = await asyncio.to_thread(Embedder)
    clients = build_llm_clients(LLMSettings()) if engine != "offline" else None
    return Toolkit(Lemmatizer(), embedder, clients.generation if clients else None), clients


def _client(args: argparse.Namespace, settings: SimulationSettings) -> InterviewClient:
    token = settings.token.get_secret_value() if settings.token else None
    return InterviewClient(
        args.target, token=token, timeout_s=settings.timeout_s, turn_timeout_s=settings.turn_timeout_s
    )


async def _run(args: argparse.Namespace, settings: SimulationSettings) -> int:
    personas, scenarios, methodologies, concepts = _registries(args.config_dir)
    persona = personas.get(args.persona)
    scenario = _scenario(args, scenarios, methodologies, concepts)
    tools, clients = await _toolkit(args, settings, args.engine)
    try:
        async with _client(args, settings) as client:
            record, directory = await simulate(
                client,
                tools,
                persona=persona,
                scenario=scenario,
                seed=args.seed,
                engine=args.engine,
                out_dir=args.out,
                max_turns=args.max_turns,
                turn_cap=settings.turn_cap,
            )
    finally:
        if clients is not None:
            await clients.aclose()
    m = record.metrics
    if m is not None:
        print(
            f"{record.meta.run_id}: {m.turns} turns, {m.termination_reason}, element recall "
            f"{m.recall.element_recall:.0%}, link recall {m.recall.link_recall:.0%} -> {directory}"
        )
    return 0


async def _matrix(args: argparse.Namespace, settings: SimulationSettings) -> int:
    personas, scenarios, _, _ = _registries(args.config_dir)
    chosen = [personas.get(n) for n in args.personas] if args.personas else personas.all()
    concept_ids = args.concepts or sorted({scenarios.get(i).concept_id for i in scenarios.ids()})
    jobs = plan(concept_ids, chosen, scenarios, args.seed)
    tools, _ = await _toolkit(args, settings, "offline")
    async with _client(args, settings) as client:
        done, failed = await run_matrix(
            client,
            tools,
            jobs,
            args.out,
            max_turns=args.max_turns,
            parallel=args.parallel,
            turn_cap=settings.turn_cap,
        )
    print(f"{len(done)} runs written, {len(failed)} failed -> {args.out / 'index.md'}")
    return 1 if failed else 0


async def _wait(args: argparse.Namespace, settings: SimulationSettings) -> int:
    async with _client(args, settings) as client:
        ok = await client.wait_healthy(args.timeout)
    print(f"{args.target}: {'SERVING' if ok else f'not serving after {args.timeout:.0f}s'}")
    return 0 if ok else 1


def _validate(args: argparse.Namespace) -> int:
    personas, scenarios, _, _ = _registries(args.config_dir)
    print(f"{len(personas.names())} personas: {', '.join(personas.names())}")
    for sid in scenarios.ids():
        s = scenarios.get(sid)
        counts = f"{len(s.elements)} elements, {len(s.links)} links, {len(s.chains)} chains"
        print(f"{sid}: concept {s.concept_id}, {counts}")
    return 0


def main(argv: Sequence[str] | None = None, settings: SimulationSettings | None = None) -> int:
    """Command-line entry point; returns the exit code."""
    settings = settings or SimulationSettings()
    args = _parser(settings).parse_args(argv)
    try:
        if args.command == "validate":
            return _validate(args)
        handler = {"run": _run, "matrix": _matrix, "wait": _wait}[args.command]
        return asyncio.run(handler(args, settings))
    except (InvalidArgumentError, NotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except DomainError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except grpc.aio.AioRpcError as exc:
        print(
            f"error: {args.target if hasattr(args, 'target') else ''}: {exc.code().name}: {exc.details()}",
            file=sys.stderr,
        )
        return 1
