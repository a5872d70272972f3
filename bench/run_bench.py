"""End-to-end benchmark of the six services, each in its own process, with a fake LLM provider.

    python -m bench.run_bench [--out .bench] [--quick] [--no-postgres] [--no-micro]

For each database (SQLite files in a temporary folder; PostgreSQL when TEST_DATABASE_URL is set) it
starts the services with every LLM client pointed at `bench.fake_provider` (its own process, latency
set per scenario), drives interviews through the public gRPC API, and measures: the first turn after
start-up, sequential turns at 0 ms and 300 ms per LLM call (latency, per-stage times, LLM round-trips
on the critical path, non-LLM overhead), time to the first question token with StreamTurn, a
50-turn interview (turn 5 vs turn 50, RSS per service), turns per second at several concurrency
levels, and all of it for `deferred` and `inline` slot discovery. The graph_store and scoring
micro-benchmarks run too. Writes `<out>/report.json` and `<out>/report.md`.

Everything listens on 127.0.0.1 and every phase is bounded (RPC deadlines, a bounded number of
turns, a global timeout), so the run ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import calibrate, scenarios
from bench.answers import ROUND, FreshAnswers
from bench.drive import Client, FakeControl
from bench.procs import (
    ROOT,
    LoadMeter,
    ServiceSet,
    die_with_parent,
    sqlite_urls,
)
from bench.report import render_markdown, targets
from tests.pg import create_database, drop_database

SLOW_MS = 300.0
WARM_TURNS = 3
# The cold-start scenario: a first session and five warm ones, each answering a turn 1 of its own.
COLD_SESSIONS = 6


@dataclass(frozen=True)
class Plan:
    """How much to run (the quick plan is for trying the harness, not for figures)."""

    sequential_turns: int = 20
    slow_turns: int = 12
    stream_turns: int = 8
    long_turns: int = 50
    paired_rounds: int = 3
    levels: tuple[tuple[int, int], ...] = ((1, 20), (10, 6), (20, 6), (50, 4))
    modes: tuple[str, ...] = ("deferred", "inline")

    @classmethod
    def quick(cls) -> Plan:
        """A few turns of everything."""
        return cls(
            sequential_turns=4,
            slow_turns=3,
            stream_turns=3,
            long_turns=12,
            paired_rounds=1,
            levels=((1, 4), (10, 2), (20, 2), (50, 1)),
        )

    def fresh_indices(self) -> int:
        """How many answer indices one database's scenarios take from `FreshAnswers` at most
        (the cold start, each mode's sequential scenarios, the long session aligned to a round,
        every concurrent session)."""
        per_mode = WARM_TURNS + self.sequential_turns + self.slow_turns + self.stream_turns
        concurrent = sum(sessions * turns for sessions, turns in self.levels)
        # Aligning the long session to a round skips at most ROUND - 1 indices.
        return COLD_SESSIONS + len(self.modes) * per_mode + ROUND - 1 + self.long_turns + concurrent


@dataclass(frozen=True)
class HelperProcess:
    """A helper process of the benchmark (the fake provider, a span receiver) and its URL."""

    process: asyncio.subprocess.Process
    url: str


async def start_child(module: str, *args: str) -> HelperProcess:
    """`python -m module args` in its own process (stopped with the benchmark), which prints
    `port N` once it listens on 127.0.0.1:N."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        module,
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        preexec_fn=die_with_parent,
    )
    assert process.stdout is not None
    line = (await asyncio.wait_for(process.stdout.readline(), 30)).decode().split()
    if len(line) != 2 or line[0] != "port":
        process.kill()
        raise RuntimeError(f"{module} did not start: {line}")
    return HelperProcess(process, f"http://127.0.0.1:{line[1]}")


async def start_fake(latency_ms: float) -> HelperProcess:
    """The fake provider in its own process (stopped with the benchmark)."""
    return await start_child("bench.fake_provider", "--latency-ms", str(latency_ms))


async def run_database(
    kind: str, database_urls: dict[str, str], fake: HelperProcess, workdir: Path, plan: Plan
) -> dict[str, Any]:
    """Every scenario on one database; both slot-discovery modes."""
    control = FakeControl(fake.url)
    await control.set_latency(0)
    services = ServiceSet(
        workdir, fake.url, database_urls, {"ORCHESTRATOR_CANONICAL_SLOTS_MODE": plan.modes[0]}
    )
    result: dict[str, Any] = {"database": kind, "modes": {}}
    try:
        result["startup_s"] = round(await services.start(), 1)
        client = Client(services.target)
        try:
            print(f"[{kind}] services up in {result['startup_s']} s; cold start", flush=True)
            meter = LoadMeter()
            meter.start([*services.pids, fake.process.pid])
            # Every measured scenario answers in words these processes have not encoded yet (their
            # embedding caches live as long as they do), as a new interview would: see FreshAnswers.
            fresh = FreshAnswers()
            result["cold_start"] = await scenarios.cold_start(
                client, control, COLD_SESSIONS - 1, offset=fresh.take(COLD_SESSIONS)
            )
            result["cold_start"]["machine"] = meter.stop()
            for i, mode in enumerate(plan.modes):
                if i > 0:
                    await client.close()
                    await services.restart_orchestrator({"ORCHESTRATOR_CANONICAL_SLOTS_MODE": mode})
                    client = Client(services.target)
                meter.start([*services.pids, fake.process.pid])
                result["modes"][mode] = await run_mode(
                    kind, mode, client, control, services, plan, fresh, first=i == 0
                )
                result["modes"][mode]["machine"] = meter.stop()
            result["memory"] = scenarios.peak_memory(services)
        finally:
            await client.close()
    finally:
        await services.stop()
    return result


async def run_mode(
    kind: str,
    mode: str,
    client: Client,
    fake: FakeControl,
    services: ServiceSet,
    plan: Plan,
    fresh: FreshAnswers,
    *,
    first: bool,
) -> dict[str, Any]:
    """The scenarios of one slot-discovery mode (the long sessions and concurrency only once).

    Only the orchestrator restarts between modes: the second mode's scenarios take new words from
    `fresh` too, or they would find the first mode's labels in the other services' caches."""
    out: dict[str, Any] = {}
    print(f"[{kind}/{mode}] sequential at 0 ms", flush=True)
    await fake.set_latency(0)
    # Warms the orchestrator (a restarted process in the second mode).
    await scenarios.sequential(client, fake, WARM_TURNS, offset=fresh.take(WARM_TURNS))
    out["llm_0ms"] = await scenarios.sequential(
        client, fake, plan.sequential_turns, services=services, offset=fresh.take(plan.sequential_turns)
    )
    print(f"[{kind}/{mode}] sequential at {SLOW_MS:.0f} ms", flush=True)
    await fake.set_latency(SLOW_MS)
    out[f"llm_{SLOW_MS:.0f}ms"] = await scenarios.sequential(
        client, fake, plan.slow_turns, services=services, offset=fresh.take(plan.slow_turns)
    )
    print(f"[{kind}/{mode}] StreamTurn at {SLOW_MS:.0f} ms", flush=True)
    out[f"stream_{SLOW_MS:.0f}ms"] = await scenarios.sequential(
        client, fake, plan.stream_turns, stream=True, offset=fresh.take(plan.stream_turns)
    )
    await fake.set_latency(0)
    if first:
        print(f"[{kind}/{mode}] two {plan.long_turns}-turn sessions", flush=True)
        # One round of the word lists: every turn in new words, answers of one length throughout.
        long_offset = fresh.take(plan.long_turns, align=True)
        out["long_session"] = await scenarios.long_session(
            client, fake, services, plan.long_turns, offset=long_offset
        )
        # The same answers again: the caches are warm in both windows (the memory plateau).
        out["long_session_2"] = await scenarios.long_session(
            client, fake, services, plan.long_turns, offset=long_offset
        )
        print(f"[{kind}/{mode}] turn {plan.long_turns} and turn 5, side by side", flush=True)
        out["paired_growth"] = await scenarios.paired_growth(
            client, plan.long_turns, offset=long_offset, rounds=plan.paired_rounds
        )
        print(f"[{kind}/{mode}] concurrency {[n for n, _ in plan.levels]}", flush=True)
        out["concurrency"] = await scenarios.concurrency(client, services, plan.levels, fresh)
    return out


def logs(out_dir: Path, kind: str) -> Path:
    """An empty folder for the services' logs of one database (kept for reading failures)."""
    folder = out_dir / "logs" / kind
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.log"):
        old.unlink()
    return folder


def run_micro(out_dir: Path, quick: bool) -> dict[str, Any]:
    """The graph_store, scoring and SQLite-driver micro-benchmarks (subprocesses, their own JSON)."""
    results: dict[str, Any] = {}
    jobs = {
        "graph_store": [sys.executable, "bench/bench_graph_store.py", str(out_dir / "graph_store.json")]
        + (["--runs", "3"] if quick else []),
        "scoring": [sys.executable, "bench/bench_scoring.py", str(out_dir / "scoring.json")],
        "sqlite": [sys.executable, "bench/bench_sqlite.py", str(out_dir / "sqlite.json")]
        + (["--repeats", "2", "--statements", "500"] if quick else []),
    }
    for name, cmd in jobs.items():
        print(f"[micro] {name}", flush=True)
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=900, check=False)
        path = out_dir / f"{name}.json"
        if done.returncode == 0 and path.exists():
            results[name] = json.loads(path.read_text())
        else:
            results[name] = {"error": f"exit {done.returncode}", "stderr": done.stderr[-2000:]}
    return results


async def run(args: argparse.Namespace) -> dict[str, Any]:
    """All databases, then the micro-benchmarks."""
    plan = Plan.quick() if args.quick else Plan()
    report: dict[str, Any] = {
        "started": datetime.now(UTC).isoformat(),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "host": calibrate.host(),
        },
        "llm_latencies_ms": [0, SLOW_MS],
        "plan": plan.__dict__,
        "databases": {},
    }
    calibration = report["machine"]["calibration"] = [{"when": "start", **calibrate.reading()}]
    fake = await start_fake(0)
    began = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
            work = Path(tmp)
            (work / "sqlite").mkdir()
            report["databases"]["sqlite"] = await run_database(
                "sqlite", sqlite_urls(work / "sqlite"), fake, logs(args.out, "sqlite"), plan
            )
            calibration.append({"when": "after sqlite", **calibrate.reading()})
            pg_server = os.environ.get("TEST_DATABASE_URL", "")
            if pg_server and not args.no_postgres:
                database = await create_database(pg_server, prefix="bench")
                try:
                    urls = {name: database for name in ("orchestrator", "graph_store", "canonical_slots")}
                    report["databases"]["postgres"] = await run_database(
                        "postgres", urls, fake, logs(args.out, "postgres"), plan
                    )
                finally:
                    await drop_database(pg_server, database)
                calibration.append({"when": "after postgres", **calibrate.reading()})
            else:
                report["databases"]["postgres"] = {"skipped": "TEST_DATABASE_URL not set (or --no-postgres)"}
    finally:
        fake.process.terminate()
        await fake.process.wait()
    report["suite_wall_s"] = round(time.monotonic() - began, 1)
    if not args.no_micro:
        report["micro"] = run_micro(args.out, args.quick)
    report["targets"] = targets(report)
    return report


async def _bounded(work: Coroutine[Any, Any, dict[str, Any]], timeout_s: float) -> dict[str, Any]:
    """`work` under a global timeout; SIGTERM cancels it too, so every child is stopped on the way out."""
    task = asyncio.ensure_future(asyncio.wait_for(work, timeout_s))
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    return await task


def main(argv: list[str] | None = None) -> int:
    """Run, write the JSON and Markdown reports, print the Markdown."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=ROOT / ".bench", help="report folder")
    parser.add_argument("--quick", action="store_true", help="a few turns of everything (harness check)")
    parser.add_argument("--no-postgres", action="store_true", help="SQLite only")
    parser.add_argument("--no-micro", action="store_true", help="skip the micro-benchmarks")
    parser.add_argument("--timeout", type=float, default=1800.0, help="global limit, seconds")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    report = asyncio.run(_bounded(run(args), args.timeout))
    (args.out / "report.json").write_text(json.dumps(report, indent=2))
    markdown = render_markdown(report)
    (args.out / "report.md").write_text(markdown)
    print(markdown)
    print(f"wrote {args.out / 'report.json'} and {args.out / 'report.md'}")
    failed = [t for t in report["targets"] if t["pass"] is False]
    return 1 if failed and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
