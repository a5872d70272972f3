"""Where a turn's time goes: the six services exporting their spans, one interview, a table.

    python -m bench.trace_turns [--turns 12] [--window 3-7 ...] [--latency-ms 0] [--mode deferred]
                                [--out .bench/trace]

Starts the fake provider and the services as `bench.run_bench` does (SQLite files in a temporary
folder), the services exporting their spans over OTLP to a collector of their own
(`python -m bench.spans`). It answers a short warm-up interview, then `--turns` turns of a new one,
and stops the services (their exporters flush on the way out). For each call on a turn's critical
path it reports the time the orchestrator saw, the time inside the callee's handler, the LLM calls
in that handler and the rest (marshalling, sockets, event-loop queues); and the orchestrator's own
time outside those calls: over all turns, and over each `--window` of turns (e.g.
`--turns 50 --window 3-7 --window 46-50` for how a long interview grows). Writes
`<out>/trace.json`, `<out>/trace.md` and keeps the services' logs in `<out>/logs/`.

Exporting spans costs a little (a batch processor's thread per service): the absolute figures can be
somewhat higher than `bench.run_bench`'s, which exports none; the split is what this is for.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from bench import spans
from bench.answers import FreshAnswers
from bench.drive import Client, FakeControl, run_session
from bench.procs import ROOT, ServiceSet, sqlite_urls
from bench.run_bench import WARM_TURNS, start_child, start_fake
from services.launcher import SERVICES


def otlp_overrides(endpoint: str, mode: str) -> dict[str, str]:
    """Every service exporting its spans to `endpoint` over OTLP, and the slot-discovery mode."""
    out: dict[str, str] = {}
    for name, _, _ in SERVICES:
        out[f"{name.upper()}_OTEL_EXPORTER"] = "otlp"
        out[f"{name.upper()}_OTEL_ENDPOINT"] = endpoint
    out["ORCHESTRATOR_CANONICAL_SLOTS_MODE"] = mode
    return out


def parse_window(text: str) -> tuple[int, int]:
    """`A-B` (turn numbers, 1-based, inclusive) as a pair; argparse's type for `--window`."""
    first, sep, last = text.partition("-")
    try:
        window = (int(first), int(last if sep else first))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected FIRST-LAST turn numbers, got {text!r}") from None
    if not 1 <= window[0] <= window[1]:
        raise argparse.ArgumentTypeError(f"expected 1 <= FIRST <= LAST, got {text!r}")
    return window


async def trace(
    turns: int, latency_ms: float, mode: str, logs: Path, windows: list[tuple[int, int]]
) -> dict[str, Any]:
    """Run the interview with spans on; returns the summary (per window too, and per turn)."""
    fake = await start_fake(latency_ms)
    spans_file = logs / "spans.jsonl"
    receiver = await start_child("bench.spans", str(spans_file))
    try:
        await FakeControl(fake.url).set_latency(latency_ms)
        with tempfile.TemporaryDirectory(prefix="trace-") as tmp:
            folder = Path(tmp)
            (folder / "db").mkdir()
            overrides = otlp_overrides(receiver.url, mode)
            services = ServiceSet(logs, fake.url, sqlite_urls(folder / "db"), overrides)
            try:
                await services.start()
                client = Client(services.target)
                try:
                    fresh = FreshAnswers()
                    warm, _ = await client.create(max_turns=50)
                    await run_session(client, warm, WARM_TURNS, offset=fresh.take(WARM_TURNS))
                    session_id, _ = await client.create(max_turns=max(turns, 50))
                    # Answered as the benchmark's first long session: every turn in words the
                    # warm-up did not use (the embedding caches are cold throughout), one round of
                    # the word lists per 50 turns.
                    run = await run_session(client, session_id, turns, offset=fresh.take(turns, align=True))
                finally:
                    await client.close()
            finally:
                await services.stop()  # a clean exit flushes every exporter to the receiver
    finally:
        for process in (receiver.process, fake.process):
            process.terminate()
            await process.wait()
    collected = spans.read_spans(spans_file)
    budgets = spans.turn_budgets(collected, session_id)
    summary = spans.summarize(budgets)
    summary["windows"] = {
        f"{a}-{b}": spans.summarize(budgets[a - 1 : b]) for a, b in windows if a <= len(budgets)
    }
    summary.update(
        latency_ms=latency_ms,
        mode=mode,
        answered=len(run.samples),
        error=run.error,
        per_turn=[
            {"total_ms": round(b.total_ms, 1), "own_ms": round(b.own_ms, 1)}
            | {c.method: round(c.client_ms, 1) for c in b.calls}
            for b in budgets
        ],
    )
    return summary


def main(argv: list[str] | None = None) -> int:
    """Trace, write the JSON and the Markdown table, print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=12, help="turns of the traced interview")
    parser.add_argument(
        "--window", type=parse_window, action="append", default=[], help="FIRST-LAST: a table of those turns"
    )
    parser.add_argument("--latency-ms", type=float, default=0.0, help="the fake provider's latency per call")
    parser.add_argument("--mode", choices=("deferred", "inline"), default="deferred", help="slot discovery")
    parser.add_argument("--out", type=Path, default=ROOT / ".bench" / "trace", help="output folder")
    args = parser.parse_args(argv)
    if args.turns < 1:
        parser.error("--turns must be >= 1")
    if any(last > args.turns for _, last in args.window):
        parser.error("a --window ends after the last turn")
    logs = args.out / "logs"
    shutil.rmtree(logs, ignore_errors=True)  # spans of an earlier run would be read again
    logs.mkdir(parents=True)
    summary = asyncio.run(trace(args.turns, args.latency_ms, args.mode, logs, args.window))
    (args.out / "trace.json").write_text(json.dumps(summary, indent=2))
    table = f"All turns ({args.mode}, {args.latency_ms:g} ms per LLM call): " + spans.render_markdown(summary)
    for name, window in summary["windows"].items():
        table += f"\nTurns {name}: " + spans.render_markdown(window)
    (args.out / "trace.md").write_text(table)
    print(table)
    print(f"wrote {args.out / 'trace.json'} and {args.out / 'trace.md'}")
    if summary["error"]:
        print(f"the interview stopped early: {summary['error']}")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
