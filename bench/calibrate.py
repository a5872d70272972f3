"""How fast this machine runs the suite's kind of work today: a fixed CPU workload, timed.

The benchmark's wall-clock and CPU figures scale with the speed of the two cores, and that speed is
not constant on a shared host: on 2026-11-26 the same commit measured a 0 ms turn at 134 ms where an
earlier day gave 54 ms, and the embedding micro-benchmark moved the same way (fp32, three labels,
two threads: 6.0 → 10.9 ms). The report prints this workload's time before and after the services
run, so that a slow day can be told from a slow commit. It is a reading of the moment, not a
correction: the speed also moves within minutes (20 to 54 ms for this workload during one A/B run),
which is why the growth target is measured side by side (`bench.scenarios.paired_growth`).

The workload is what the services spend their own CPU on: protobuf messages built, serialised and
parsed (a 150-node tracker as the orchestrator sends it to scoring), JSON encoded and decoded (the
stored tracker), and plain Python dict and string work. It is single-threaded and deterministic.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from shared.gen.interview.common.v1 import common_pb2

NODES = 150
ROUNDS = 10


def _state(i: int) -> dict[str, Any]:
    return {
        "node_id": f"node-{i:04d}-0123456789abcdef",
        "label": f"label number {i} of the calibration graph",
        "created_at_turn": i // 3 + 1,
        "depth": i % 4,
        "node_type": ("attribute", "consequence", "value")[i % 3],
        "focus_count": i % 5,
        "yield_rate": (i % 7) / 7.0,
        "all_response_depths": ["surface", "shallow", "deep"][: i % 4],
        "connected_node_ids": [f"node-{j:04d}-0123456789abcdef" for j in range(max(0, i - 2), i)],
        "strategy_usage_count": {"laddering": i % 3} if i % 2 else {},
    }


def workload() -> int:
    """One unit of work; returns a checksum so the work cannot be skipped."""
    states = [_state(i) for i in range(NODES)]
    total = 0
    for _ in range(ROUNDS):
        tracker = common_pb2.NodeTrackerState(schema_version=1, previous_focus=states[0]["node_id"])
        for s in states:
            tracker.states.append(common_pb2.NodeState(**s))
        parsed = common_pb2.NodeTrackerState.FromString(tracker.SerializeToString())
        total += sum(len(m.connected_node_ids) + m.focus_count for m in parsed.states)
        text = json.dumps({"states": {s["node_id"]: s for s in states}})
        loaded = json.loads(text)["states"]
        total += sum(len(key) for key in sorted(loaded, key=lambda k: loaded[k]["label"]))
    return total


def measure(
    repeats: int = 7,
    work: Callable[[], object] = workload,
    clock: Callable[[], float] = time.perf_counter,
) -> dict[str, float]:
    """`work` timed `repeats` times after one untimed run (imports, allocator): median and fastest, ms."""
    if repeats < 1:
        raise ValueError("repeats must be >= 1")
    work()
    times = []
    for _ in range(repeats):
        began = clock()
        work()
        times.append((clock() - began) * 1000)
    median, fastest = statistics.median(times), min(times)
    return {"median_ms": round(median, 2), "min_ms": round(fastest, 2), "repeats": repeats}


if __name__ == "__main__":
    print(json.dumps(measure()))
