"""deploy/docker: the Dockerfile's structure, .dockerignore, and the health probe against real servers.

No Docker engine runs here, so the image is not built; the Dockerfile is parsed instead, and the
probe script the image's HEALTHCHECK runs is exercised against real gRPC servers on real sockets.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc.aio
import pytest
import pytest_asyncio
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer

from tests.deploy.helpers import ROOT
from tests.ports import closed_port
from tests.tls import self_signed

DOCKERFILE = ROOT / "deploy" / "docker" / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
HEALTHCHECK = ROOT / "deploy" / "docker" / "healthcheck.py"
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


# -- Dockerfile parsing -----------------------------------------------------------------------------
@dataclass
class Stage:
    """One build stage: its name, base image and instructions as (KEYWORD, arguments)."""

    name: str
    image: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def args(self, keyword: str) -> list[str]:
        return [a for k, a in self.instructions if k == keyword]


def parse_dockerfile(text: str) -> tuple[dict[str, str], list[Stage]]:
    """(global ARG defaults, stages) of a Dockerfile: continuation lines joined, comments dropped."""
    logical: list[str] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    global_args: dict[str, str] = {}
    stages: list[Stage] = []
    for line in logical:
        keyword, _, rest = line.partition(" ")
        keyword, rest = keyword.upper(), rest.strip()
        if keyword == "FROM":
            match = re.fullmatch(r"(\S+)(?:\s+AS\s+(\S+))?", rest, re.IGNORECASE)
            assert match, line
            stages.append(Stage(match.group(2) or str(len(stages)), match.group(1)))
        elif not stages:
            assert keyword == "ARG", f"only ARG may precede FROM: {line}"
            name, _, default = rest.partition("=")
            global_args[name] = default
        else:
            stages[-1].instructions.append((keyword, rest))
    return global_args, stages


def arg_default(stage: Stage, name: str) -> str:
    for value in stage.args("ARG"):
        key, _, default = value.partition("=")
        if key == name:
            return default
    raise AssertionError(f"ARG {name} not declared in stage {stage.name}")


@pytest.fixture(scope="module")
def dockerfile() -> tuple[dict[str, str], list[Stage]]:
    return parse_dockerfile(DOCKERFILE.read_text())


def test_multi_stage_on_slim_python_311(dockerfile: tuple[dict[str, str], list[Stage]]) -> None:
    global_args, stages = dockerfile
    assert [s.name for s in stages] == ["builder", "runtime"]
    for stage in stages:
        image = stage.image
        if image.startswith("${"):
            image = global_args[image[2:-1]]
        assert re.fullmatch(r"python:3\.11-slim(-\w+)?", image), image


def test_builder_installs_cpu_torch_first_then_the_project_and_generates_code(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    builder = dockerfile[1][0]
    runs = builder.args("RUN")

    def index(pattern: str) -> int:
        hits = [i for i, run in enumerate(runs) if re.search(pattern, run)]
        assert hits, f"no RUN matches {pattern!r}"
        return hits[0]

    assert "download.pytorch.org/whl/cpu" in arg_default(builder, "TORCH_INDEX_URL")
    torch = index(r"--index-url \"?\$\{TORCH_INDEX_URL\}.*torch==")
    project = index(r"pip install -c constraints\.txt \.")
    generate = index(r"python scripts/gen_protos\.py")
    assert index(r"python -m venv /opt/venv") < torch < project < generate
    copies = " ".join(builder.args("COPY"))
    for source in ("protos", "scripts/gen_protos.py", "shared", "services", "config"):
        assert re.search(rf"(^|\s){re.escape(source)}\s", copies), f"builder does not copy {source}"


def test_runtime_is_non_root_and_copies_only_what_it_runs(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    runtime = dockerfile[1][-1]
    keywords = [k for k, _ in runtime.instructions]
    [user] = runtime.args("USER")
    uid = user.split(":")[0]
    if uid.startswith("${"):
        uid = arg_default(runtime, uid[2:-1])
    assert uid not in ("0", "root") and int(uid) > 0
    assert "RUN" not in keywords[keywords.index("USER") :], "nothing runs as root after USER"
    copies = runtime.args("COPY")
    assert all(c.startswith("--from=builder ") for c in copies), (
        "the runtime takes files from the builder only"
    )
    assert any("/opt/venv" in c for c in copies)
    assert not any(re.search(r"\s\.\s", c + " ") for c in copies), "no copy of the whole context"


def test_runtime_runs_the_service_chosen_at_build_time(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    runtime = dockerfile[1][-1]
    assert arg_default(runtime, "SERVICE") == "orchestrator"
    env = " ".join(runtime.args("ENV"))
    assert re.search(r"SERVICE=\$\{SERVICE\}", env) and re.search(r"PORT=\$\{PORT\}", env)
    for setting in ("HF_HUB_OFFLINE=1", "HOME=/tmp", "PYTHONDONTWRITEBYTECODE=1"):
        assert setting in env, setting
    assert runtime.args("EXPOSE") == ["${PORT}"]
    [cmd] = runtime.args("CMD")
    assert "exec python -m" in cmd and "services.${SERVICE}" in cmd


def test_healthcheck_runs_the_shipped_probe(dockerfile: tuple[dict[str, str], list[Stage]]) -> None:
    runtime = dockerfile[1][-1]
    [healthcheck] = runtime.args("HEALTHCHECK")
    match = re.search(r"CMD \[\"python\", \"(/app/[^\"]+)\"\]", healthcheck)
    assert match, healthcheck
    in_image = match.group(1)
    [workdir] = runtime.args("WORKDIR")
    destinations = {
        str(Path(workdir) / c.split()[-1]) if not c.split()[-1].startswith("/") else c.split()[-1]
        for c in runtime.args("COPY")
    }
    assert in_image in {str(Path(d).resolve()) for d in destinations}
    assert (ROOT / Path(in_image).relative_to(workdir)) == HEALTHCHECK


# -- .dockerignore ----------------------------------------------------------------------------------
def dockerignore_patterns() -> list[str]:
    lines = [line.strip() for line in DOCKERIGNORE.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out)


def ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule: a path is excluded when it or a parent directory matches; the last match wins."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    result = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        regex = _pattern_regex(pattern.lstrip("!").strip("/"))
        if any(regex.fullmatch(p) for p in prefixes):
            result = not negate
    return result


def test_dockerignore_keeps_local_state_and_secrets_out() -> None:
    patterns = dockerignore_patterns()
    for path in (
        ".venv/bin/python",
        "node_modules/x/index.js",
        "data/orchestrator.db",
        "shared/gen/interview/__init__.py",
        ".mypy_cache/x",
        ".pytest_cache/v",
        ".ruff_cache/x",
        "services/scoring/__pycache__/engine.cpython-311.pyc",
        ".env",
        ".git/HEAD",
    ):
        assert ignored(path, patterns), f"{path} would be sent to the build"


def test_dockerignore_keeps_everything_the_dockerfile_copies(
    dockerfile: tuple[dict[str, str], list[Stage]],
) -> None:
    patterns = dockerignore_patterns()
    builder = dockerfile[1][0]
    sources = [s for c in builder.args("COPY") for s in c.split()[:-1] if not s.startswith("--")]
    assert sources
    for source in sources:
        path = ROOT / source
        assert path.exists(), source
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        wanted = [f for f in files if "__pycache__" not in f.parts and f.parent.name != "gen"]
        for file in wanted:
            relative = file.relative_to(ROOT).as_posix()
            if relative.startswith("shared/gen/"):
                continue
            assert not ignored(relative, patterns), f"{relative} is needed by the build but ignored"


# -- the health probe against real servers -----------------------------------------------------------
@dataclass
class HealthServer:
    port: int
    health: HealthServicer


@pytest_asyncio.fixture(loop_scope="session")
async def health_server() -> AsyncIterator[HealthServer]:
    """A real grpc.aio server with grpc.health.v1 on 127.0.0.1, port 0."""
    server = grpc.aio.server()
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    await health.set("", SERVING)
    try:
        yield HealthServer(port, health)
    finally:
        await server.stop(None)


async def probe(*args: str, port_env: int | None = None) -> tuple[int, str]:
    """Run `python deploy/docker/healthcheck.py ARGS` as the image does; (exit status, output)."""
    env = {k: v for k, v in os.environ.items() if k != "PORT"}
    if port_env is not None:
        env["PORT"] = str(port_env)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(HEALTHCHECK),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        env=env,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=60)
    assert process.returncode is not None
    return process.returncode, output.decode()


async def test_probe_passes_while_serving(health_server: HealthServer) -> None:
    code, output = await probe("--port", str(health_server.port))
    assert (code, "SERVING" in output) == (0, True), output


async def test_probe_reads_the_port_from_the_environment(health_server: HealthServer) -> None:
    code, output = await probe(port_env=health_server.port)
    assert code == 0, output


async def test_probe_fails_when_not_serving(health_server: HealthServer) -> None:
    await health_server.health.set("", NOT_SERVING)
    code, output = await probe("--port", str(health_server.port))
    assert code == 1 and "NOT_SERVING" in output, output


async def test_probe_checks_a_named_service(health_server: HealthServer) -> None:
    await health_server.health.set("interview.graph.v1.GraphService", SERVING)
    code, _ = await probe("--port", str(health_server.port), "--service", "interview.graph.v1.GraphService")
    assert code == 0
    code, output = await probe("--port", str(health_server.port), "--service", "interview.nope.v1.Nope")
    assert code == 1 and "NOT_FOUND" in output, output


async def test_probe_fails_when_nothing_listens() -> None:
    port = closed_port()
    code, output = await probe("--port", str(port), "--timeout", "2")
    assert code == 1 and "UNAVAILABLE" in output, output


async def test_probe_without_a_port_is_unhealthy_not_reserved_exit_2() -> None:
    code, output = await probe()
    assert code == 1 and "no port" in output, output


@pytest_asyncio.fixture(loop_scope="session")
async def tls_health_server(tmp_path: Path) -> AsyncIterator[tuple[int, Path]]:
    """A grpc.aio health server serving TLS with a self-signed `localhost` certificate: (port, cert)."""
    cert_file, key_file = self_signed(tmp_path)
    server = grpc.aio.server()
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    credentials = grpc.ssl_server_credentials([(key_file.read_bytes(), cert_file.read_bytes())])
    port = server.add_secure_port("127.0.0.1:0", credentials)
    await server.start()
    await health.set("", SERVING)
    try:
        yield port, cert_file
    finally:
        await server.stop(None)


async def test_probe_speaks_tls_to_a_tls_port(tls_health_server: tuple[int, Path]) -> None:
    port, cert = tls_health_server
    code, output = await probe("--port", str(port), "--tls", "--ca", str(cert), "--server-name", "localhost")
    assert (code, "SERVING" in output) == (0, True), output
    # Plaintext against the TLS port, or TLS without the roots that signed it, is unhealthy.
    plain, _ = await probe("--port", str(port), "--timeout", "2")
    untrusted, _ = await probe("--port", str(port), "--timeout", "2", "--tls", "--server-name", "localhost")
    assert (plain, untrusted) == (1, 1)


async def test_probe_reads_its_tls_settings_from_the_environment(
    tls_health_server: tuple[int, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, cert = tls_health_server
    monkeypatch.setenv("HEALTHCHECK_TLS", "true")
    monkeypatch.setenv("HEALTHCHECK_CA_FILE", str(cert))
    monkeypatch.setenv("HEALTHCHECK_SERVER_NAME", "localhost")
    code, output = await probe("--port", str(port))
    assert code == 0, output


async def test_probe_with_an_unreadable_ca_file_is_unhealthy(tls_health_server: tuple[int, Path]) -> None:
    port, _ = tls_health_server
    code, output = await probe("--port", str(port), "--tls", "--ca", "/nonexistent/ca.pem")
    assert code == 1 and "cannot read the CA file /nonexistent/ca.pem" in output, output
