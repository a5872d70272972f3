"""The launcher as `make run` runs it: a real process starting real services.

A signal or a child that dies while the others are still loading must end the start-up at once
(stopping every child), not once the health checks time out: Ctrl-C during `make run`, or a port
already taken, once kept the launcher waiting for the whole start-up timeout.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from tests.ports import closed_port

ROOT = Path(__file__).resolve().parents[2]
# far longer than any start-up here: a launcher still waiting for it would hang the test
STARTUP_TIMEOUT_S = 600
HANG_GUARD_S = 180


@contextmanager
def _launcher(env: dict[str, str], *only: str) -> Iterator[subprocess.Popen[str]]:
    """The launcher in a process group of its own; whatever of the group is left at the end (the
    launcher and its services, when a test fails part-way) is killed, so no service outlives it."""
    timeout = ("--startup-timeout", str(STARTUP_TIMEOUT_S))
    proc = subprocess.Popen(
        [sys.executable, "-m", "services.launcher", "--only", *only, *timeout],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_signal_during_start_up_stops_the_launcher_and_its_children() -> None:
    with _launcher({"EXTRACTION_PORT": str(closed_port())}, "extraction") as proc:
        children: list[int] = []
        while not children and proc.poll() is None:
            children = _children(proc.pid)
            time.sleep(0.01)
        assert children, "the launcher never started its child"
        # the child is still importing its libraries: nowhere near healthy
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=HANG_GUARD_S)
        assert not any(_alive(pid) for pid in children)  # before the clean-up kills the group
    assert proc.returncode == 0, out
    assert "stopped during start-up" in out
    assert "healthy" not in out


def test_a_service_that_dies_during_start_up_stops_the_others() -> None:
    with socket.socket() as taken:
        # a listener without SO_REUSEPORT: the gRPC server cannot bind beside it
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        env = {"QUESTION_PORT": str(taken.getsockname()[1]), "EXTRACTION_PORT": str(closed_port())}
        with _launcher(env, "extraction", "question") as proc:
            out, _ = proc.communicate(timeout=HANG_GUARD_S)
    assert proc.returncode == 1, out
    assert "service exited during start-up: question" in out
    assert "services healthy" not in out


def test_the_launcher_reports_healthy_services_and_stops_on_a_signal() -> None:
    with _launcher({"QUESTION_PORT": str(closed_port())}, "question") as proc:
        assert proc.stdout is not None
        lines: list[str] = []
        for line in proc.stdout:
            lines.append(line)
            if "services healthy" in line:
                break
        assert any("all 1 services healthy: question=127.0.0.1:" in line for line in lines), lines
        children = _children(proc.pid)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=HANG_GUARD_S)
        assert not any(_alive(pid) for pid in children)  # before the clean-up kills the group
    assert proc.returncode == 0, out
