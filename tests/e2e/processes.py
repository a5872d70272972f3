"""The six services as separate OS processes (`python -m services.<name>`) on free real ports.

    deployment = Deployment.configure(database_url, otlp_endpoint, log_dir)
    deployment.start_all()            # every process started, then waits for grpc.health SERVING
    deployment.kill("graph_store")    # SIGKILL (kill -9)
    deployment.start("graph_store")   # same port, same environment; state comes back from PostgreSQL
    deployment.wait_healthy("graph_store")
    deployment.freeze("question")     # SIGSTOP: the process hangs with its sockets open; thaw() = SIGCONT
    deployment.heal()                 # thaw frozen, restart dead ones
    deployment.stop_all()             # SIGTERM, then SIGKILL after the grace period

Each service's stdout/stderr is appended to `<log_dir>/<service>.log` (shown in the repr of the
deployment in a failing test's report).

Every child gets an environment built here (not the developer's service settings): its port, bound to
127.0.0.1, PostgreSQL for the three stateful services (each in its own schema), the offline LLM
engine with every API key blanked, and OTLP export to the test's receiver with a short batch delay.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.fake_provider import free_ports

ROOT = Path(__file__).resolve().parents[2]
# Start order: the orchestrator's dependencies first (it connects lazily, so order only helps logs).
SERVICES: tuple[str, ...] = (
    "extraction",
    "graph_store",
    "canonical_slots",
    "scoring",
    "question",
    "orchestrator",
)
STATEFUL: tuple[str, ...] = ("orchestrator", "graph_store", "canonical_slots")
FULL_NAMES: dict[str, str] = {
    "orchestrator": "interview.orchestrator.v1.InterviewService",
    "extraction": "interview.extraction.v1.ExtractionService",
    "graph_store": "interview.graph.v1.GraphService",
    "canonical_slots": "interview.slots.v1.CanonicalSlotService",
    "scoring": "interview.scoring.v1.ScoringService",
    "question": "interview.question.v1.QuestionService",
}
API_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "KIMI_API_KEY", "DEEPSEEK_API_KEY")
LLM_CLIENTS = ("EXTRACTION", "SCORING", "GENERATION")
STARTUP_TIMEOUT_S = 240.0


def prefix(name: str) -> str:
    """The settings env prefix of a service (`graph_store` → `GRAPH_STORE_`)."""
    return f"{name.upper()}_"


def _inherited(env: Mapping[str, str]) -> dict[str, str]:
    """The parent's environment minus anything that would configure the services or an LLM."""
    owned = (*(prefix(name) for name in SERVICES), "LLM_", "OTEL_")
    return {k: v for k, v in env.items() if not k.startswith(owned) and k not in API_KEYS}


def child_environment(
    ports: Mapping[str, int], database_url: str, otlp_endpoint: str, base: Mapping[str, str]
) -> dict[str, str]:
    """The environment shared by all six children (each reads only its own prefix)."""
    env = _inherited(base)
    env.update(
        {
            "PYTHONUNBUFFERED": "1",
            "HF_HUB_OFFLINE": "1",
            "TOKENIZERS_PARALLELISM": "false",
            # Six processes share two cores: one math thread each keeps them from starving each other.
            "OMP_NUM_THREADS": "1",
            "MKL_NUM_THREADS": "1",
            # The SDK's BatchSpanProcessor reads this (ms): spans reach the receiver promptly.
            "OTEL_BSP_SCHEDULE_DELAY": "100",
        }
    )
    for key in API_KEYS:
        env[key] = ""
    for client in LLM_CLIENTS:
        env[f"LLM_{client}_PROVIDER"] = "local"
    for name in SERVICES:
        p = prefix(name)
        env[f"{p}PORT"] = str(ports[name])
        env[f"{p}HOST"] = "127.0.0.1"
        env[f"{p}LOG_LEVEL"] = "WARNING"
        env[f"{p}OTEL_EXPORTER"] = "otlp"
        env[f"{p}OTEL_ENDPOINT"] = otlp_endpoint
        env[f"{p}SHUTDOWN_GRACE_S"] = "2"
        if name in STATEFUL:
            env[f"{p}DATABASE_URL"] = database_url
        if name != "orchestrator":
            env[f"ORCHESTRATOR_{name.upper()}_TARGET"] = f"127.0.0.1:{ports[name]}"
    return env


def health_status(port: int, service: str = "", timeout_s: float = 1.0) -> int | None:
    """grpc.health.v1 Check on 127.0.0.1:port (None when the call fails)."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout_s
            )
        except grpc.RpcError:
            return None
    return int(reply.status)


def _command(name: str) -> list[str]:
    """`python -m services.<name>`, under `setpriv --pdeathsig KILL` where available: a killed pytest
    must not leave six services running. The death signal fires when the *thread* that forked exits,
    which is why processes are only ever started from the main thread (see `arestart`)."""
    command = [sys.executable, "-m", f"services.{name}"]
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", *command] if setpriv else command


@dataclass
class ServiceProcess:
    """One running service: its OS process and where its output goes."""

    name: str
    port: int
    log_path: Path
    popen: subprocess.Popen[bytes] | None = None
    starts: int = 0

    @property
    def alive(self) -> bool:
        """Whether the process is running."""
        return self.popen is not None and self.popen.poll() is None

    def log_tail(self, lines: int = 40) -> str:
        """The end of the process's combined stdout/stderr (for failure messages)."""
        try:
            text = self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


@dataclass
class Deployment:
    """Six service processes sharing one environment; start, kill, restart and stop them."""

    env: dict[str, str] = field(repr=False)  # holds the parent's environment: keep it out of reports
    ports: dict[str, int]
    log_dir: Path
    processes: dict[str, ServiceProcess] = field(default_factory=dict, repr=False)
    frozen: set[str] = field(default_factory=set)

    @classmethod
    def configure(
        cls, database_url: str, otlp_endpoint: str, log_dir: Path, base: Mapping[str, str] | None = None
    ) -> Deployment:
        """Pick a free port per service and build the children's environment."""
        ports = dict(zip(SERVICES, free_ports(len(SERVICES)), strict=True))
        env = child_environment(ports, database_url, otlp_endpoint, os.environ if base is None else base)
        log_dir.mkdir(parents=True, exist_ok=True)
        processes = {name: ServiceProcess(name, ports[name], log_dir / f"{name}.log") for name in SERVICES}
        return cls(env, ports, log_dir, processes)

    def target(self, name: str = "orchestrator") -> str:
        """host:port of a service."""
        return f"127.0.0.1:{self.ports[name]}"

    def start(self, name: str) -> None:
        """Start (or restart) one service process on its port; output is appended to its log."""
        proc = self.processes[name]
        if proc.alive:
            raise RuntimeError(f"{name} is already running (pid {proc.popen.pid if proc.popen else '?'})")
        proc.starts += 1
        with proc.log_path.open("ab") as log:
            log.write(f"\n===== start #{proc.starts} of {name} =====\n".encode())
            log.flush()
            proc.popen = subprocess.Popen(
                _command(name),
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )

    def wait_healthy(self, name: str, timeout_s: float = STARTUP_TIMEOUT_S) -> None:
        """Poll grpc.health until SERVING for "" and the service's full name; fail if it dies."""
        proc = self.processes[name]
        deadline = time.monotonic() + timeout_s
        serving = int(health_pb2.HealthCheckResponse.SERVING)
        while time.monotonic() < deadline:
            if not proc.alive:
                code = proc.popen.returncode if proc.popen else None
                raise RuntimeError(f"{name} exited with {code} while starting:\n{proc.log_tail()}")
            if health_status(proc.port) == serving and health_status(proc.port, FULL_NAMES[name]) == serving:
                return
            time.sleep(0.25)
        raise TimeoutError(
            f"{name} not SERVING on port {proc.port} after {timeout_s:.0f}s:\n{proc.log_tail()}"
        )

    def start_all(self) -> None:
        """Start all six processes at once (they load models in parallel), then wait for each."""
        for name in SERVICES:
            self.start(name)
        for name in SERVICES:
            self.wait_healthy(name)

    def kill(self, name: str) -> None:
        """SIGKILL one service (no shutdown hooks, no span flush: a crash) and reap it."""
        proc = self.processes[name]
        self.frozen.discard(name)
        if proc.popen is not None and proc.popen.poll() is None:
            proc.popen.send_signal(signal.SIGKILL)
            proc.popen.wait()

    def freeze(self, name: str) -> None:
        """SIGSTOP one service: its sockets stay open but nothing is answered (a hung process)."""
        proc = self.processes[name]
        if proc.popen is not None and proc.alive:
            proc.popen.send_signal(signal.SIGSTOP)
            self.frozen.add(name)

    def thaw(self, name: str) -> None:
        """SIGCONT a frozen service."""
        proc = self.processes[name]
        if name in self.frozen and proc.popen is not None and proc.alive:
            proc.popen.send_signal(signal.SIGCONT)
        self.frozen.discard(name)

    def heal(self) -> None:
        """Thaw frozen services and restart dead ones, so every service serves again."""
        for name in list(self.frozen):
            self.thaw(name)
        dead = [name for name in SERVICES if not self.processes[name].alive]
        for name in dead:
            self.start(name)
        for name in dead:
            self.wait_healthy(name)

    def restart(self, name: str) -> None:
        """Start a killed service again and wait until it serves."""
        self.start(name)
        self.wait_healthy(name)

    async def arestart(self, name: str) -> None:
        """`restart` for async tests: the process starts from this (the main) thread, the wait runs in
        a worker thread so the event loop keeps serving in-flight calls."""
        self.start(name)
        await asyncio.to_thread(self.wait_healthy, name)

    def stop_all(self, grace_s: float = 10.0) -> None:
        """SIGTERM every live process (orchestrator first), then SIGKILL whatever outlives the grace."""
        for name in list(self.frozen):
            self.thaw(name)
        live = [p for name in reversed(SERVICES) if (p := self.processes[name]).alive]
        for proc in live:
            assert proc.popen is not None
            proc.popen.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for proc in live:
            assert proc.popen is not None
            try:
                proc.popen.wait(max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                proc.popen.kill()
                proc.popen.wait()
