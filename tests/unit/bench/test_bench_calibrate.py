"""The calibration workload is fixed, its timing is the median of the timed repeats, and the cost of
a pause compares the same work after a sleep with the same work at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.calibrate import describe_host, host, measure, pause_cost, small_workload, workload


def test_the_workload_is_deterministic_and_does_the_work() -> None:
    first = workload()
    assert first == workload()
    assert first > 0


def test_measure_reports_the_median_and_fastest_of_the_timed_runs_only() -> None:
    calls: list[int] = []
    # Clock readings in seconds: (start, end) per timed run; the untimed first run reads no clock.
    ticks = iter([0.0, 0.010, 1.0, 1.030, 2.0, 2.020])
    result = measure(repeats=3, work=lambda: calls.append(1), clock=lambda: next(ticks))
    assert len(calls) == 4  # one untimed run, then three timed
    assert result == {"median_ms": 20.0, "min_ms": 10.0, "repeats": 3}


def test_measure_needs_a_repeat() -> None:
    with pytest.raises(ValueError, match="repeats"):
        measure(repeats=0, work=lambda: None)


def test_pause_cost_times_the_work_after_each_pause_and_again_at_once() -> None:
    events: list[str] = []
    # Per round: (start, end) of the run after the pause, then of the run straight after it.
    ticks = iter([0.0, 0.0006, 1.0, 1.0003, 2.0, 2.0008, 3.0, 3.0002, 4.0, 4.0004, 5.0, 5.0003])
    result = pause_cost(
        pause_s=0.03,
        rounds=3,
        work=lambda: events.append("work"),
        clock=lambda: next(ticks),
        sleep=lambda s: events.append(f"sleep {s}"),
    )
    # One untimed run, then each round: the pause, the run after it, the run back to back.
    assert events == ["work"] + ["sleep 0.03", "work", "work"] * 3
    assert result["pause_ms"] == 30.0
    assert result["after_pause_us"] == pytest.approx(600.0)  # median of 600, 800, 400
    assert result["back_to_back_us"] == pytest.approx(300.0)  # median of 300, 200, 300
    assert result["after_pause_ratio"] == 2.0


def test_pause_cost_needs_a_round() -> None:
    with pytest.raises(ValueError, match="rounds"):
        pause_cost(rounds=0, work=lambda: None, sleep=lambda s: None)


def test_the_small_workload_is_a_smaller_piece_of_the_same_work() -> None:
    assert small_workload() == small_workload()
    assert 0 < small_workload() < workload()


def _cache(root: Path, index: int, level: int, size: str) -> None:
    entry = root / f"index{index}"
    entry.mkdir(parents=True)
    (entry / "level").write_text(f"{level}\n")
    (entry / "size").write_text(f"{size}\n")


def test_host_reads_the_model_the_last_level_cache_and_the_widest_vector_instructions(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse4_2 avx fma avx2\n\n"
        "processor\t: 1\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse4_2 avx fma avx2\n"
    )
    caches = tmp_path / "cache"
    _cache(caches, 0, 1, "32K")
    _cache(caches, 1, 1, "32K")
    _cache(caches, 3, 3, "32768K")  # made before index2: the highest level counts, not the last index
    _cache(caches, 2, 2, "512K")
    info = host(cpuinfo, caches)
    assert info == {"cpu_model": "AMD EPYC", "llc_level": 3, "llc_kib": 32768, "vector_isa": "AVX2"}
    assert describe_host(info) == "AMD EPYC, L3 32 MiB, AVX2"


def test_host_prefers_avx512_and_reads_sizes_in_megabytes_or_bytes(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("model name\t: Intel Xeon\nflags\t\t: avx avx2 avx512f avx512bw\n")
    caches = tmp_path / "cache"
    _cache(caches, 0, 2, "2M")
    assert host(cpuinfo, caches)["llc_kib"] == 2048
    assert host(cpuinfo, caches)["vector_isa"] == "AVX-512"
    bytes_only = tmp_path / "bytes"
    _cache(bytes_only, 0, 3, str(1536 * 1024))
    info = host(cpuinfo, bytes_only)
    assert (info["llc_level"], info["llc_kib"]) == (3, 1536)
    assert describe_host(info) == "Intel Xeon, L3 1536 KiB, AVX-512"


def test_host_without_proc_or_sys_knows_nothing_and_describes_nothing(tmp_path: Path) -> None:
    caches = tmp_path / "cache"
    _cache(caches, 0, 3, "unknown")  # an unreadable size is skipped, not a crash
    info = host(tmp_path / "no-cpuinfo", caches)
    assert info == {"cpu_model": None, "llc_level": None, "llc_kib": None, "vector_isa": None}
    assert describe_host(info) == ""
    assert describe_host(None) == ""
