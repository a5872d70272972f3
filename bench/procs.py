"""The six services (and the fake LLM provider) as separate OS processes for the benchmark.

Each service runs `python -m services.<name>` with its own port, its own SQLite file in a temporary
folder (or a schema of one scratch PostgreSQL database), INFO logs to a file, and the LLM clients
pointed at the benchmark's fake provider with fake keys. Real provider keys of the parent
environment are never passed on. Everything binds 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bench.fake_provider import free_ports
from services.launcher import SERVICES, child_env, wait_healthy

STATEFUL = ("orchestrator", "graph_store", "canonical_slots")
ROOT = Path(__file__).resolve().parents[1]
_PR_SET_PDEATHSIG = 1
# Loaded here, in the parent: the child must not dlopen between fork and exec (a thread of the
# parent could hold the loader lock).
_LIBC = ctypes.CDLL(None, use_errno=True)
_SECRET_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "KIMI_API_KEY", "DEEPSEEK_API_KEY")


def llm_env(fake_url: str) -> dict[str, str]:
    """Every logical client on a networked provider at the fake (both APIs are exercised)."""
    return {
        "LLM_EXTRACTION_PROVIDER": "anthropic",
        "LLM_EXTRACTION_BASE_URL": fake_url,
        "LLM_SCORING_PROVIDER": "openai",
        "LLM_SCORING_BASE_URL": fake_url,
        "LLM_GENERATION_PROVIDER": "anthropic",
        "LLM_GENERATION_BASE_URL": fake_url,
        "ANTHROPIC_API_KEY": "bench-fake-anthropic-key",
        "OPENAI_API_KEY": "bench-fake-openai-key",
    }


def service_env(
    base: Mapping[str, str],
    ports: Mapping[str, int],
    database_urls: Mapping[str, str],
    fake_url: str,
    overrides: Mapping[str, str],
) -> dict[str, str]:
    """The environment of every child: ports, targets, databases, LLM at the fake, overrides."""
    env = {k: v for k, v in base.items() if k not in _SECRET_VARS and not k.startswith("LLM_")}
    env = child_env(env, ports)
    for name, url in database_urls.items():
        env[f"{name.upper()}_DATABASE_URL"] = url
    env.update(llm_env(fake_url))
    env.update({"HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"})
    for name, _, _ in SERVICES:
        env[f"{name.upper()}_HOST"] = "127.0.0.1"
    env.update(overrides)
    return env


def die_with_parent() -> None:
    """In the child before exec: SIGTERM it when the benchmark process dies (Linux prctl), so a
    killed benchmark leaves no service behind."""
    with contextlib.suppress(OSError, AttributeError):
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def read_rss_kib(pid: int) -> dict[str, int]:
    """VmRSS (current) and VmHWM (peak) of a process in KiB, from /proc (Linux)."""
    out: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def read_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far, from /proc (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # After the command name: state is field 3, utime field 14, stime field 15 (1-based, proc(5)).
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_s() -> float:
    """CPU seconds the whole machine has been busy since boot (all cores, /proc/stat)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(x) for x in fields[:8])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


@dataclass
class LoadMeter:
    """How busy the machine was with work other than ours (other users' tests, builds ...)
    between `start()` and `stop()`: our processes are the given pids and this one."""

    pids: list[int] = field(default_factory=list)
    _t0: float = 0.0
    _busy0: float = 0.0
    _ours0: float = 0.0

    def _ours(self) -> float:
        return sum(read_cpu_s(pid) for pid in {*self.pids, os.getpid()})

    def start(self, pids: list[int]) -> None:
        """Begin measuring; `pids` are our processes (services, fake provider)."""
        self.pids = list(pids)
        self._t0, self._busy0, self._ours0 = time.monotonic(), machine_busy_s(), self._ours()

    def stop(self) -> dict[str, float]:
        """Average cores used by us and by everything else since `start()`."""
        wall = max(time.monotonic() - self._t0, 1e-9)
        busy = machine_busy_s() - self._busy0
        ours = self._ours() - self._ours0
        return {
            "wall_s": round(wall, 1),
            "our_cores": round(ours / wall, 2),
            "other_cores": round(max(busy - ours, 0.0) / wall, 2),
            "loadavg_1m": round(os.getloadavg()[0], 2),
        }


@dataclass
class ServiceSet:
    """The running services of one configuration."""

    workdir: Path
    fake_url: str
    database_urls: dict[str, str]
    overrides: dict[str, str] = field(default_factory=dict)
    startup_timeout_s: float = 180.0
    ports: dict[str, int] = field(default_factory=dict)
    processes: dict[str, asyncio.subprocess.Process] = field(default_factory=dict)

    @property
    def target(self) -> str:
        """host:port of the orchestrator."""
        return f"127.0.0.1:{self.ports['orchestrator']}"

    def _env(self) -> dict[str, str]:
        return service_env(os.environ, self.ports, self.database_urls, self.fake_url, self.overrides)

    async def start(self, names: tuple[str, ...] | None = None) -> float:
        """Start the services (dependencies first) and wait until all are SERVING; returns seconds."""
        loop = asyncio.get_running_loop()
        began = loop.time()
        if not self.ports:
            every = [name for name, _, _ in SERVICES]
            self.ports = dict(zip(every, free_ports(len(every)), strict=True))
        wanted = names or tuple(name for name, _, _ in SERVICES)
        env = self._env()
        for name, _, _ in SERVICES:
            if name not in wanted:
                continue
            log = (self.workdir / f"{name}.log").open("ab")
            self.processes[name] = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                f"services.{name}",
                env=env,
                cwd=ROOT,
                stdout=log,
                stderr=log,
                preexec_fn=die_with_parent,
            )
            log.close()
        healthy = await asyncio.gather(*(wait_healthy(self.ports[n], self.startup_timeout_s) for n in wanted))
        failed = [n for n, ok in zip(wanted, healthy, strict=True) if not ok]
        if failed:
            raise RuntimeError(f"services not healthy: {failed}; logs in {self.workdir}")
        return loop.time() - began

    async def restart_orchestrator(self, overrides: Mapping[str, str]) -> float:
        """Stop the orchestrator and start it again with changed settings."""
        await self.stop(("orchestrator",))
        self.overrides.update(overrides)
        return await self.start(("orchestrator",))

    def memory(self) -> dict[str, dict[str, int]]:
        """Current and peak RSS (KiB) per running service."""
        return {name: read_rss_kib(p.pid) for name, p in self.processes.items() if p.returncode is None}

    @property
    def pids(self) -> list[int]:
        """Process ids of the running services."""
        return [p.pid for p in self.processes.values() if p.returncode is None]

    def cpu(self) -> dict[str, float]:
        """CPU seconds used so far per running service."""
        return {name: read_cpu_s(p.pid) for name, p in self.processes.items() if p.returncode is None}

    async def stop(self, names: tuple[str, ...] | None = None, grace_s: float = 10.0) -> None:
        """SIGTERM (orchestrator first), SIGKILL after the grace."""
        chosen = [n for n in reversed(list(self.processes)) if names is None or n in names]
        for name in chosen:
            process = self.processes[name]
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
        for name in chosen:
            process = self.processes.pop(name)
            try:
                await asyncio.wait_for(process.wait(), grace_s)
            except TimeoutError:
                process.kill()
                await process.wait()


def sqlite_urls(folder: Path) -> dict[str, str]:
    """One SQLite file per stateful service."""
    return {name: f"sqlite+aiosqlite:///{folder / f'{name}.db'}" for name in STATEFUL}
