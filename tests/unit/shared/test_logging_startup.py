"""A service's output is its log: one JSON object per line, each record once, from its first line.

Logging is configured first thing (`shared.server.bootstrap`), before model loading, migrations and
warm-up, and it leaves one writer to stdout and stderr: ours. Stray writers were a stdlib handler
installed by `logging.basicConfig()` (which the stdlib runs by itself when a library logs through
`logging.warning(...)` first: onnxruntime's quantiser on a first start), and the handlers libraries
give their own loggers (spaCy).
"""

from __future__ import annotations

import ast
import asyncio
import io
import json
import logging
import os
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from opentelemetry.sdk.trace import TracerProvider
from structlog.testing import capture_logs

from shared.llm import LLMSettings, build_llm_clients
from shared.logging import configure_logging
from shared.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[3]
PROBE = Path(__file__).parent / "startup_probe.py"
SERVICES = ("canonical_slots", "extraction", "graph_store", "orchestrator", "question", "scoring")


# -- in the process ------------------------------------------------------------------------------------
def _events(out: str) -> list[str]:
    """The events of `out`, every line of which must be a JSON object."""
    return [json.loads(line)["event"] for line in out.splitlines()]


def test_a_stdlib_handler_installed_before_logging_is_configured_is_replaced(
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = logging.getLogger()
    stray = logging.StreamHandler()  # what logging.basicConfig() installs: stderr, plain text
    root.addHandler(stray)
    try:
        configure_logging(ServiceSettings(service_name="log-svc"))
        assert stray not in root.handlers
        logging.getLogger("some.library").warning("stdlib line")
    finally:
        root.removeHandler(stray)
    out, err = capsys.readouterr()
    assert _events(out) == ["stdlib line"]
    assert err == ""


def test_a_librarys_own_handler_gives_way_to_ours(capsys: pytest.CaptureFixture[str]) -> None:
    library = logging.getLogger("test_logging_startup.library")
    own = logging.StreamHandler()  # spaCy gives its logger one at import
    library.addHandler(own)
    library.propagate = False  # torch and transformers: their records stop at their own handler
    try:
        configure_logging(ServiceSettings(service_name="log-svc"))
        library.info("library line")
        assert own not in library.handlers and library.propagate
    finally:
        library.removeHandler(own)
    out, err = capsys.readouterr()
    assert _events(out) == ["library line"]
    assert err == ""


def test_handlers_writing_elsewhere_stay(capsys: pytest.CaptureFixture[str]) -> None:
    root = logging.getLogger()
    elsewhere = io.StringIO()
    kept = logging.StreamHandler(elsewhere)  # e.g. a test runner's capture
    root.addHandler(kept)
    try:
        configure_logging(ServiceSettings(service_name="log-svc"))
        configure_logging(ServiceSettings(service_name="log-svc"))  # again: still one line on stdout
        logging.getLogger("some.library").warning("kept line")
        assert kept in root.handlers
    finally:
        root.removeHandler(kept)
    assert _events(capsys.readouterr().out) == ["kept line"]
    assert elsewhere.getvalue() == "kept line\n"


def _calls(statement: ast.stmt) -> set[str]:
    return {
        node.func.id
        for node in ast.walk(statement)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }


def _bootstraps_first(module: ast.Module, function: str) -> bool:
    """Whether `function` calls `bootstrap` before doing anything but building its settings (the
    orchestrator's `main` does it through `build`)."""
    body = next(
        node.body
        for node in module.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == function
    )
    for statement in body:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # the docstring
        calls = _calls(statement)
        if "bootstrap" in calls:
            return True
        if function == "main" and "build" in calls:
            return _bootstraps_first(module, "build")
        targets = (
            [t.id for t in statement.targets if isinstance(t, ast.Name)]
            if isinstance(statement, ast.Assign)
            else []
        )
        if targets != ["settings"]:
            return False
    return False


@pytest.mark.parametrize("service", SERVICES)
def test_every_service_bootstraps_before_anything_else(service: str) -> None:
    # Each is started in a process of its own by the launcher; starting them all here would load
    # every model. That lines logged after bootstrap are JSON is checked on a real one below.
    module = ast.parse((ROOT / "services" / service / "server.py").read_text())
    assert _bootstraps_first(module, "main")


def _without_llm_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    """No LLM_* variable and no provider key from the machine running the tests."""
    for name in list(os.environ):
        if name.upper().startswith("LLM_") or name.upper().endswith("_API_KEY"):
            monkeypatch.delenv(name)


async def test_llm_clients_ready_names_only_the_provider_of_offline_clients(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without_llm_configuration(monkeypatch)
    monkeypatch.setenv("DEEPSEEK_API_KEY", "ds-test")
    monkeypatch.setenv("LLM_SCORING_PROVIDER", "deepseek")
    with capture_logs() as logs:
        clients = build_llm_clients(LLMSettings(), tracer_provider=TracerProvider())
    await clients.aclose()
    (ready,) = [e for e in logs if e["event"] == "llm_clients_ready"]
    # An offline client calls no model: the configured model's name would only mislead.
    assert ready["clients"] == {
        "extraction": "local",
        "scoring": "deepseek:kimi-k2-0905-preview",
        "generation": "local",
    }


# -- in a process of its own -----------------------------------------------------------------------------
def _clean_env(*prefixes: str) -> dict[str, str]:
    """This environment without the variables a service would read its settings or keys from."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.upper().startswith(prefixes) and not name.upper().endswith("_API_KEY")
    }


async def _run(args: list[str], env: dict[str, str], *, rpc: str | None = None) -> tuple[list[str], str]:
    """Start `python args...`, wait until it serves, call `rpc` (a unary method, no request), stop it
    with SIGTERM; its stdout lines and its stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *args,
        cwd=ROOT,
        env={**env, "PYTHONPATH": str(ROOT)},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    lines: list[str] = []
    port: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def read_stdout(stream: asyncio.StreamReader) -> None:
        async for raw in stream:
            line = raw.decode().rstrip("\n")
            lines.append(line)
            if '"grpc.server.started"' in line and not port.done():
                port.set_result(json.loads(line)["port"])

    reading = asyncio.gather(read_stdout(process.stdout), process.stderr.read())
    try:
        exited = asyncio.ensure_future(process.wait())
        await asyncio.wait([port, exited], timeout=60, return_when=asyncio.FIRST_COMPLETED)
        assert port.done(), f"no grpc.server.started; stdout: {lines}"
        if rpc is not None:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port.result()}") as channel:
                call = channel.unary_unary(rpc, request_serializer=None, response_deserializer=None)
                await call(b"")
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(exited, timeout=60) == 0
        _, err = await asyncio.wait_for(reading, timeout=10)
        return lines, err.decode()
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


def _records(lines: list[str]) -> list[dict[str, Any]]:
    """Every line parsed: each must be one JSON object; no event may appear twice."""
    not_json = [line for line in lines if not line.startswith("{")]
    assert not not_json, f"lines that are not JSON: {not_json}"
    records = [json.loads(line) for line in lines]
    assert all(isinstance(record, dict) for record in records)
    twice = [event for event, n in Counter(r["event"] for r in records).items() if n > 1]
    assert not twice, f"logged more than once: {twice}"
    return records


async def test_every_line_a_starting_service_writes_is_one_json_object_once() -> None:
    env = {**_clean_env("SERVICE_"), "SERVICE_SERVICE_NAME": "startup-probe", "SERVICE_HOST": "127.0.0.1"}
    lines, err = await _run([str(PROBE)], env, rpc="/test.v1.Slow/Log")

    records = _records(lines)
    events = [r["event"] for r in records]
    # Before the server started, in order, each once: the start-up line (structlog), and the stdlib
    # records of the root logger and of a library logger with a handler of its own.
    before = events[: events.index("grpc.server.started")]
    assert before == ["probe.model_export_root_line", "probe.model_load_library_line", "probe.warm_up.done"]
    assert {"probe.serving_root_line", "probe.serving_library_line", "probe.serving_line"} <= set(events)
    assert all(r["service"] == "startup-probe" for r in records)
    # Only the line logged at import, before there were settings to configure logging from, is
    # the stdlib's own (on stderr); nothing after it is written there a second time.
    assert err.splitlines() == ["WARNING:root:probe.import_time_root_line"]


async def test_a_service_writes_its_start_up_lines_in_json() -> None:
    # The scoring service: it loads no embedding or spaCy model, and logs before it serves.
    env = {**_clean_env("SCORING_", "LLM_"), "SCORING_HOST": "127.0.0.1", "SCORING_PORT": "0"}
    lines, err = await _run(["-m", "services.scoring"], env)

    records = _records(lines)
    ready = next(r for r in records if r["event"] == "llm_clients_ready")
    assert ready["service"] == "scoring"
    assert ready["clients"] == {"extraction": "local", "scoring": "local", "generation": "local"}
    assert [r["event"] for r in records].index("llm_clients_ready") < [r["event"] for r in records].index(
        "grpc.server.started"
    )
    assert err == ""
