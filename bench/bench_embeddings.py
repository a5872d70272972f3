"""Micro-benchmark of one embedding forward pass with one and with two (non-spinning) threads.

    python bench/bench_embeddings.py OUTPUT.json [--passes 60] [--only-concurrent]

The graph store embeds a turn's new labels (about three) on the critical path of the turn, and
canonical_slots a run's slot texts; the settings' `EMBEDDING_THREADS` decides how many threads one
ONNX Runtime pass uses. For 1 and 3 labels, with the fp32 and the int8 model, this reports the
median wall and CPU milliseconds of a pass (cache off) with 1 and 2 threads: on an idle machine,
and next to two busy processes (one per core of the 2-core machine: the other services of a
loaded suite). Sleeping workers should win on an idle machine and lose nothing on a busy one.

`concurrent` is what a loaded service sees: 1, 3 and 6 callers (the worker threads of
`Embedder.aencode`) asking at the same moment for three new labels or three slot texts each, the
fp32 model on two threads, idle machine. With shared passes (the default) the callers that find
the model busy share its next pass; `separate` gives each caller a pass of its own, as before
2026-12-03. Per round of callers: median wall ms, CPU ms per caller and passes run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.embeddings import Embedder


def _spin(stop: Any) -> None:
    while not stop.is_set():
        pass


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """`processes` busy loops for the duration of the block."""
    stop = multiprocessing.Event()
    workers = [multiprocessing.Process(target=_spin, args=(stop,), daemon=True) for _ in range(processes)]
    for w in workers:
        w.start()
    time.sleep(0.3)
    try:
        yield
    finally:
        stop.set()
        for w in workers:
            w.join(5)


def measure(embedder: Embedder, labels: int, passes: int) -> dict[str, float]:
    """Median wall and CPU ms of one pass over `labels` new labels."""
    walls, cpus = [], []
    for i in range(passes):
        texts = [f"battery life number {i} of item {j}" for j in range(labels)]
        wall, cpu = time.perf_counter(), time.process_time()
        embedder.encode(texts)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return {"wall_ms": round(statistics.median(walls), 2), "cpu_ms": round(statistics.median(cpus), 2)}


def _texts(kind: str, round_: int, caller: int) -> list[str]:
    """Three new texts: labels as the graph store encodes them, or slot texts as canonical_slots."""
    if kind == "labels":
        return [f"battery life {round_} of caller {caller} item {j}" for j in range(3)]
    return [
        f"battery_life_{j}: how long the headphones play between charges, round {round_}, caller {caller}"
        for j in range(3)
    ]


def _caller(embedder: Embedder, start: threading.Barrier, texts: list[str]) -> None:
    start.wait()
    embedder.encode(texts)


def measure_callers(embedder: Embedder, callers: int, kind: str, rounds: int) -> dict[str, float]:
    """`callers` threads encoding three new texts each at the same moment, `rounds` times."""
    walls, cpus, passes = [], [], []
    for r in range(rounds):
        start = threading.Barrier(callers + 1)
        texts = [_texts(kind, r, c) for c in range(callers)]
        threads = [threading.Thread(target=_caller, args=(embedder, start, t)) for t in texts]
        for thread in threads:
            thread.start()
        before = embedder.pass_counts[0]
        wall, cpu = time.perf_counter(), time.process_time()
        start.wait()
        for thread in threads:
            thread.join()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000 / callers)
        passes.append(embedder.pass_counts[0] - before)
        time.sleep(0.02)  # the callers of a service arrive after a wait, not back to back
    return {
        "wall_ms": round(statistics.median(walls), 2),
        "cpu_ms_per_caller": round(statistics.median(cpus), 2),
        "passes": round(statistics.mean(passes), 2),
    }


def run_concurrent(rounds: int) -> dict[str, Any]:
    """Shared against separate passes, for each number of callers and kind of text."""
    models = {
        "shared": Embedder(cache_size=0, threads=2),
        "separate": Embedder(cache_size=0, threads=2, shared_pass_texts=1),
    }
    out: dict[str, Any] = {}
    for kind in ("labels", "slot_texts"):
        for callers in (1, 3, 6):
            for name, embedder in models.items():
                out[f"{kind}/callers={callers}/{name}"] = measure_callers(embedder, callers, kind, rounds)
    return out


def run(passes: int) -> dict[str, Any]:
    """Every (load, model, threads, batch) combination."""
    models = {
        (quantized, threads): Embedder(cache_size=0, threads=threads, quantized=quantized)
        for quantized in (False, True)
        for threads in (1, 2)
    }
    out: dict[str, Any] = {}
    for load, processes in (("idle", 0), ("two_busy_processes", 2)):
        with busy(processes):
            for (quantized, threads), embedder in models.items():
                for labels in (1, 3):
                    key = f"{'int8' if quantized else 'fp32'}/threads={threads}/labels={labels}"
                    out.setdefault(load, {})[key] = measure(embedder, labels, passes)
    return out


def main() -> int:
    """Run and write the JSON report."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("output", type=Path)
    parser.add_argument("--passes", type=int, default=60)
    parser.add_argument("--only-concurrent", action="store_true", help="skip the single-pass table")
    args = parser.parse_args()
    results = {} if args.only_concurrent else run(args.passes)
    concurrent = run_concurrent(args.passes)
    machine = {"cpus": multiprocessing.cpu_count(), "python": platform.python_version()}
    report = {"machine": machine, **results, "concurrent": concurrent}
    args.output.write_text(json.dumps(report, indent=2))
    for load, rows in results.items():
        print(load)
        for key, value in rows.items():
            print(f"  {key:28s} wall {value['wall_ms']:6.2f} ms  cpu {value['cpu_ms']:6.2f} ms")
    print("concurrent")
    for key, value in concurrent.items():
        print(
            f"  {key:36s} wall {value['wall_ms']:6.2f} ms  cpu/caller {value['cpu_ms_per_caller']:6.2f} ms"
            f"  passes {value['passes']:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
