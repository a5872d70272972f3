"""Benchmark of the scoring service's domain logic (not a test): detect + rank with 20, 200 and 2 000
tracked nodes × 7 strategies, offline (a precomputed rubric, so no LLM call is timed).

    python bench/bench_scoring.py OUTPUT.json [--repeats N]

For each size it reports the median (and p90) wall time in milliseconds of: signal detection,
joint ranking, two-stage ranking, a whole `select` (detect + joint rank), and the protobuf
conversion of the full response. The methodology is means_end_chain without its `close` strategy
(7 strategies, 5 of them node-bound).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from services.scoring.convert import selection_to_proto
from services.scoring.detectors import build_default_registry
from services.scoring.engine import ScoringEngine
from services.scoring.models import GraphMetrics, SelectionMode, SignalInputs, Velocity
from services.scoring.ranking import PhaseModifiers, compile_strategies, rank_joint, rank_two_stage
from services.scoring.rubric.local_scorer import LocalRubricScorer
from services.scoring.rubric.models import Rubric
from shared.methodology import MethodologyRegistry
from shared.node_tracker import GraphChangeSummary, NodeStateTracker

SIZES = (20, 200, 2000)
WORDS = (
    "battery",
    "noise",
    "comfort",
    "price",
    "sound",
    "fit",
    "brand",
    "travel",
    "focus",
    "calm",
    "work",
    "music",
    "quality",
    "design",
    "weight",
    "case",
    "call",
    "bass",
    "charge",
    "style",
    "sleep",
    "gym",
)
ROOT = Path(__file__).resolve().parents[1]


def _methodology_dir(tmp: Path) -> Path:
    doc = yaml.safe_load(
        (ROOT / "config" / "methodologies" / "means_end_chain.yaml").read_text(encoding="utf-8")
    )
    doc["method"]["name"] = "bench_mec7"
    doc["strategies"] = [s for s in doc["strategies"] if s["name"] != "close"]
    for phase in doc.get("phases", {}).values():
        for block in ("signal_weights", "phase_bonuses"):
            phase.get(block, {}).pop("close", None)
    folder = tmp / "methodologies"
    folder.mkdir(parents=True)
    (folder / "bench_mec7.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return tmp


def _tracker(n: int, turn: int, rng: random.Random) -> NodeStateTracker:
    t = NodeStateTracker()
    for i in range(n):
        label = " ".join(rng.sample(WORDS, 2)) + f" {i}"
        t.register_node(
            f"node-{i:05d}", rng.randint(1, turn - 1), label=label, node_type="attribute", level=1
        )
    keys = list(t.states)
    for _ in range(n):
        a, b = rng.sample(keys, 2)
        t.update_edge(a, b)
    strategies = ("deepen", "clarify", "contrast", "validate")
    for step in range(1, turn):
        focus = rng.choice(keys)
        t.update_focus(focus, step, rng.choice(strategies))
        t.record_yield(focus, step + 1, GraphChangeSummary(nodes_added=rng.randint(0, 1)))
        t.append_response_signal(
            None, rng.choice(("surface", "shallow", "moderate", "deep")), turn_number=step + 1
        )
    return t


def _inputs(n: int, rng: random.Random) -> SignalInputs:
    turn = 12
    return SignalInputs(
        session_id="bench",
        methodology="bench_mec7",
        turn_number=turn,
        max_turns=20,
        tracker=_tracker(n, turn, rng),
        graph=GraphMetrics(
            node_count=n,
            edge_count=n,
            orphan_count=n // 5,
            max_depth=3,
            avg_depth=1.8,
            chain_completion_ratio=0.3,
            chain_completion_has_complete=True,
        ),
        answer="It keeps me calm on the train because the noise cancelling is strong.",
        question="Why?",
        strategy_history=("explore", "deepen", "deepen", "clarify", "deepen"),
        response_depth_history=(3, 3, 2, 4),
        velocity=Velocity(surface_delta=2, surface_peak=5),
        rubric=Rubric.from_scores(
            {
                "response_depth": 3,
                "specificity": 2,
                "certainty": 4,
                "valence": 4,
                "engagement": 3,
                "intellectual_engagement": 3,
            }
        ),
    )


async def _time(fn: Callable[[], Awaitable[Any]], repeats: int) -> dict[str, float]:
    await fn()  # warm-up (compiles the methodology, fills caches)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        await fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 3),
        "p90_ms": round(samples[min(len(samples) - 1, int(0.9 * len(samples)))], 3),
        "runs": repeats,
    }


async def run(repeats: int) -> dict[str, Any]:
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        registry = MethodologyRegistry(_methodology_dir(Path(tmp)))
        engine = ScoringEngine(registry, build_default_registry(), LocalRubricScorer())
        methodology = registry.get("bench_mec7")
        compiled = compile_strategies(methodology)
        results: dict[str, Any] = {}
        for n in SIZES:
            inputs = _inputs(n, rng)
            detection = await engine.detect(inputs)
            mods = PhaseModifiers.of(methodology.phases.get(detection.phase))
            selection = await engine.select(inputs)
            reps = max(5, repeats // (1 if n < 2000 else 4))

            async def detect(inputs: SignalInputs = inputs) -> object:
                return await engine.detect(inputs)

            async def joint(
                inputs: SignalInputs = inputs, d: Any = detection, m: PhaseModifiers = mods
            ) -> object:
                return rank_joint(compiled, d.signals, inputs.tracker, m, inputs.strategy_history)

            async def two_stage(
                inputs: SignalInputs = inputs, d: Any = detection, m: PhaseModifiers = mods
            ) -> object:
                return rank_two_stage(compiled, d.signals, inputs.tracker, m, inputs.strategy_history)

            async def select(inputs: SignalInputs = inputs) -> object:
                return await engine.select(inputs, SelectionMode.JOINT)

            async def to_proto(s: Any = selection) -> object:
                return selection_to_proto(s)

            results[str(n)] = {
                "nodes": n,
                "strategies": len(compiled),
                "candidates": len(selection.candidates),
                "detect": await _time(detect, reps),
                "rank_joint": await _time(joint, reps),
                "rank_two_stage": await _time(two_stage, reps),
                "select_joint": await _time(select, reps),
                "selection_to_proto": await _time(to_proto, reps),
            }
            print(
                f"{n:>5} nodes, {results[str(n)]['candidates']:>6} candidates: "
                + ", ".join(
                    f"{k} {v['median_ms']:.2f} ms" for k, v in results[str(n)].items() if isinstance(v, dict)
                )
            )
    return {
        "benchmark": "scoring",
        "python": platform.python_version(),
        "machine": platform.machine(),
        "results": results,
    }


def main() -> int:
    """Run the benchmark and write the JSON report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=Path, help="where to write the JSON report")
    parser.add_argument(
        "--repeats", type=int, default=21, help="timed runs per measurement (fewer at 2000 nodes)"
    )
    args = parser.parse_args()
    report = asyncio.run(run(args.repeats))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(f"report written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
