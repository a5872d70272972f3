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

A second reading, `pause_cost`, is what this host charges for having slept: a small piece of the
same work (0.25 ms) timed right after a 30 ms pause and again at once. A turn is a relay through
seven processes, each of which waits tens of milliseconds for the others between its calls, so
nearly all of the suite's work is done right after a pause. On the 2-core KVM host (2026-11-26)
the piece took about twice as long after 30 ms asleep (0.47-0.57 against 0.23-0.32 ms; +0.13 ms
after 5 ms, +0.04 ms after 1 ms), with the process pinned to one core and with both cores kept
busy by idle-priority spinners alike. Whatever the processor or the host loses while a process
sleeps, no setting of the suite brings it back; only less work per wake-up, or fewer wake-ups.

`host` names the processor the readings were taken on. The same workload's speed differs between
the hosts a session may land on (2026-12-03: an AMD EPYC with a 32 MB L3 and AVX2, and one whose `lscpu`
read a 480 MB L3, with a third of the pause cost), and the encoders' kernels depend on the vector
instructions: a reading is compared with another taken on the same kind of processor.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from shared.gen.interview.common.v1 import common_pb2

NODES = 150
ROUNDS = 10
# `pause_cost`: the pause, about what a service waits between its calls in a 0 ms turn, and the
# size of the piece of work timed after it.
PAUSE_S = 0.03
PAUSE_NODES = 20


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


def workload(nodes: int = NODES, rounds: int = ROUNDS) -> int:
    """One unit of work; returns a checksum so the work cannot be skipped."""
    states = [_state(i) for i in range(nodes)]
    total = 0
    for _ in range(rounds):
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


def small_workload() -> int:
    """The workload cut to about a handler's share of a turn (0.25 ms on the 2-core machine)."""
    return workload(nodes=PAUSE_NODES, rounds=1)


def pause_cost(
    pause_s: float = PAUSE_S,
    rounds: int = 40,
    work: Callable[[], object] = small_workload,
    clock: Callable[[], float] = time.perf_counter,
    sleep: Callable[[float], object] = time.sleep,
) -> dict[str, float]:
    """`work` timed right after a `pause_s` sleep and again at once, `rounds` times: the medians
    (µs) and their ratio, what the host charges for work that follows a wait."""
    if rounds < 1:
        raise ValueError("rounds must be >= 1")
    work()
    after_pause: list[float] = []
    back_to_back: list[float] = []
    for _ in range(rounds):
        sleep(pause_s)
        for times in (after_pause, back_to_back):
            began = clock()
            work()
            times.append((clock() - began) * 1e6)
    cold, warm = statistics.median(after_pause), statistics.median(back_to_back)
    return {
        "pause_ms": round(pause_s * 1000, 1),
        "after_pause_us": round(cold, 1),
        "back_to_back_us": round(warm, 1),
        "after_pause_ratio": round(cold / warm, 2) if warm > 0 else 0.0,
        "after_pause_extra_us": round(cold - warm, 1),
    }


# Widest first: the first of these flags /proc/cpuinfo lists names the processor's vector instructions.
_VECTOR_FLAGS = (("avx512f", "AVX-512"), ("avx2", "AVX2"), ("avx", "AVX"), ("sse4_2", "SSE4.2"))
_SIZE_UNITS = {"K": 1, "M": 1024, "G": 1024 * 1024}


def host(
    cpuinfo: Path = Path("/proc/cpuinfo"), caches: Path = Path("/sys/devices/system/cpu/cpu0/cache")
) -> dict[str, Any]:
    """The processor: its model name, its last-level cache (level and KiB) and its widest vector
    instructions; None for what this system does not tell (no /proc or /sys outside Linux)."""
    model: str | None = None
    vector: str | None = None
    try:
        text = cpuinfo.read_text()
    except OSError:
        text = ""
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model is None:
            model = value.strip() or None
        elif key == "flags" and vector is None:
            flags = set(value.split())
            vector = next((name for flag, name in _VECTOR_FLAGS if flag in flags), None)
    level, size = _last_level_cache(caches)
    return {"cpu_model": model, "llc_level": level, "llc_kib": size, "vector_isa": vector}


def _last_level_cache(caches: Path) -> tuple[int | None, int | None]:
    """The highest cache level of one CPU and its size in KiB (sysfs writes sizes as "32768K")."""
    best: tuple[int | None, int | None] = (None, None)
    for index in sorted(caches.glob("index*")):
        try:
            level = int((index / "level").read_text())
            raw = (index / "size").read_text().strip()
        except (OSError, ValueError):
            continue
        unit = _SIZE_UNITS.get(raw[-1:].upper())
        digits = raw[:-1] if unit else raw
        if not digits.isdigit():
            continue
        kib = int(digits) * unit if unit else int(digits) // 1024  # no unit: bytes
        if best[0] is None or level > best[0]:
            best = (level, kib)
    return best


def describe_host(info: dict[str, Any] | None) -> str:
    """`host`'s reading in a few words ("AMD EPYC, L3 32 MiB, AVX2"); empty when nothing is known."""
    if not info:
        return ""
    parts = [info.get("cpu_model") or ""]
    kib, level = info.get("llc_kib"), info.get("llc_level")
    if kib:
        size = f"{kib // 1024} MiB" if kib >= 1024 and kib % 1024 == 0 else f"{kib} KiB"
        parts.append(f"L{level} {size}" if level else f"cache {size}")
    parts.append(info.get("vector_isa") or "")
    return ", ".join(p for p in parts if p)


def reading() -> dict[str, float]:
    """Both readings: the workload's speed (`measure`) and the cost of a pause (`pause_cost`)."""
    return {**measure(), **pause_cost()}


if __name__ == "__main__":
    print(json.dumps({**reading(), "host": host()}))
