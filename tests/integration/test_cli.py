"""`python -m cli` against the real suite (all six services in-process on port 0).

The client runs as a subprocess with its stdin piped (and once under a pseudo-terminal); what it
prints is checked against what the orchestrator itself reports afterwards (GetSession,
GetSessionGraph), never against text the client produced on its own.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import pty
import re
import struct
import sys
import termios
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import grpc.aio
import pytest
import pytest_asyncio

from shared.embeddings import Embedder
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.integration.answers import ANSWERS as SCRIPTED
from tests.integration.suite import running_suite

ROOT = Path(__file__).resolve().parents[2]
CONCEPT = "headphones_mec"
LLM_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "KIMI_API_KEY", "DEEPSEEK_API_KEY")
ANSWERS = SCRIPTED[CONCEPT]
NOTE = re.compile(r"^  (?P<strategy>\S+) · (?P<focus>.+) · (?P<phase>early|mid|late)$")
PROCESS_LIMIT_S = 240  # a hung client fails the test instead of hanging the run


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def target(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> AsyncIterator[str]:
    """One suite (SQLite, offline engine) for the module: the client is under test, not storage."""
    async with running_suite(None, tmp_path_factory.mktemp("suite"), embedder=embedder) as suite:
        yield suite.target


@pytest_asyncio.fixture(loop_scope="session")
async def api(target: str) -> AsyncIterator[orchestrator_pb2_grpc.InterviewServiceStub]:
    async with grpc.aio.insecure_channel(target) as channel:
        yield orchestrator_pb2_grpc.InterviewServiceStub(channel)


def client_env() -> dict[str, str]:
    """The environment of a fresh clone: no LLM keys, no client settings, no NO_COLOR."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in LLM_KEYS and k != "NO_COLOR" and not k.startswith("INTERVIEW_")
    }
    env["PYTHONIOENCODING"] = "utf-8"
    return env


async def run_cli(*args: str, stdin: str = "") -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli",
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=ROOT,
        env=client_env(),
    )
    out, err = await asyncio.wait_for(proc.communicate(stdin.encode()), PROCESS_LIMIT_S)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def session_id_from(out: str) -> str:
    found = re.search(r"^Session (\S+) · ", out, re.MULTILINE)
    assert found, out
    return found.group(1)


def interviewer_lines(transcript: Sequence[pb.Utterance]) -> list[str]:
    return [u.text for u in transcript if u.speaker == common_pb2.SPEAKER_INTERVIEWER]


def reason_word(reason: int) -> str:
    return common_pb2.TerminationReason.Name(reason).removeprefix("TERMINATION_REASON_").lower()


async def test_interactive_interview_with_graph_export_and_quit(
    target: str, api: orchestrator_pb2_grpc.InterviewServiceStub, tmp_path: Path
) -> None:
    concepts = (await api.ListConcepts(pb.ListConceptsRequest())).concepts
    number = next(i for i, c in enumerate(concepts, start=1) if c.id == CONCEPT)
    export = tmp_path / "interview.json"
    script = [
        *("", "no-such-concept", str(number)),  # empty and unknown choices re-prompt
        *(ANSWERS[0], "", ANSWERS[1]),  # the empty line re-prompts
        *("/graph", f"/export {export}", "/export notes.txt", "/bogus", "/help", "/quit"),
        "this line is never read",
    ]
    stdin = "\n".join(script)
    code, out, err = await run_cli("--target", target, stdin=stdin + "\n")

    assert code == 0, err
    assert "Traceback" not in err
    lines = out.splitlines()
    assert f"Connected to {target}." in lines
    assert sum("Offline mode" in line for line in lines) == 1
    assert "No concept 'no-such-concept'" in out

    sid = session_id_from(out)
    got = await api.GetSession(pb.GetSessionRequest(session_id=sid))
    session = got.session
    assert session.concept_id == CONCEPT
    assert session.turn_count == 2  # the empty line re-prompted instead of submitting
    assert session.status == pb.SESSION_STATUS_COMPLETED
    assert session.termination_reason == common_pb2.TERMINATION_REASON_ENDED_BY_CLIENT

    questions = interviewer_lines(got.transcript)
    opening, follow_ups, closing = questions[0], questions[1:3], questions[-1]
    assert opening in lines  # the opening question is shown on its own line
    for question in follow_ups:
        assert question in out  # streamed, so possibly not on a line of its own
    assert closing in out
    assert f"({reason_word(session.termination_reason)})" in lines[-1]

    notes = [m for m in map(NOTE.match, lines) if m]
    assert [m["strategy"] for m in notes] == [f.strategy for f in session.focus_history]

    graph = await api.GetSessionGraph(pb.GetSessionGraphRequest(session_id=sid))
    assert f"Graph: {len(graph.nodes)} nodes, {len(graph.edges)} edges" in lines
    for node in graph.nodes:
        assert f"{node.label} [{node.node_type}]" in out
    if graph.edges:
        assert any(f"({e.edge_type})→ " in out for e in graph.edges)

    document = json.loads(export.read_text())
    assert document["session"]["session_id"] == sid
    assert "Cannot tell the format of notes.txt" in out
    assert "Unknown command /bogus" in out
    assert "/export FILE" in out  # the help
    assert "this line is never read" not in out


async def test_interview_ends_by_itself_at_max_turns(
    target: str, api: orchestrator_pb2_grpc.InterviewServiceStub
) -> None:
    stdin = "\n".join([*ANSWERS, "an answer after the end is never sent"]) + "\n"
    code, out, err = await run_cli("--target", target, "--concept", CONCEPT, "--max-turns", "2", stdin=stdin)

    assert code == 0, err
    got = await api.GetSession(pb.GetSessionRequest(session_id=session_id_from(out)))
    assert got.session.turn_count == 2
    assert got.session.status == pb.SESSION_STATUS_COMPLETED
    reason = reason_word(got.session.termination_reason)
    assert out.rstrip().splitlines()[-1].endswith(f"({reason}).")
    assert interviewer_lines(got.transcript)[-1] in out  # the closing message


async def test_subcommands_start_answer_export_and_list(
    target: str, api: orchestrator_pb2_grpc.InterviewServiceStub, tmp_path: Path
) -> None:
    code, out, err = await run_cli("start", CONCEPT, "--target", target)
    assert code == 0, err
    sid, opening = out.splitlines()[:2]
    got = await api.GetSession(pb.GetSessionRequest(session_id=sid))
    assert interviewer_lines(got.transcript) == [opening]

    code, out, err = await run_cli("--target", target, "answer", sid, ANSWERS[0])
    assert code == 0, err
    got = await api.GetSession(pb.GetSessionRequest(session_id=sid))
    assert got.session.turn_count == 1
    question, note = out.splitlines()[:2]
    assert question == got.session.current_question
    match = NOTE.match(note)
    assert match and match["strategy"] == got.session.focus_history[0].strategy

    code, out, err = await run_cli("--target", target, "answer", sid, ANSWERS[1], "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["session_id"], result["turn_number"]) == (sid, 2)

    report = tmp_path / "report.md"
    code, out, err = await run_cli(
        "--target", target, "export", sid, "--format", "markdown", "-o", str(report)
    )
    assert code == 0, err
    assert f"`{sid}`" in report.read_text()
    code, out, err = await run_cli("--target", target, "export", sid, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["session"]["turn_count"] == 2

    code, out, err = await run_cli(
        "--target", target, "sessions", "list", "--status", "active", "--page-size", "500"
    )
    assert code == 0, err
    assert out.splitlines()[0].split()[:4] == ["SESSION", "CONCEPT", "METHODOLOGY", "STATUS"]
    row = next(line for line in out.splitlines() if line.startswith(sid))
    assert row.split()[1:5] == [CONCEPT, got.session.methodology, "active", f"2/{got.session.max_turns}"]


async def test_subcommand_errors_exit_1_with_one_readable_line(target: str) -> None:
    code, out, err = await run_cli("--target", target, "answer", "no-such-session", "hello")
    assert code == 1 and out == ""
    assert err.startswith("error: NOT_FOUND: ") and err.count("\n") == 1

    code, out, err = await run_cli("--target", target, "start", CONCEPT)
    sid = out.splitlines()[0]
    code, out, err = await run_cli("--target", target, "answer", sid, "   ")
    assert code == 1
    assert err.startswith("error: INVALID_ARGUMENT: ") and "text: must not be empty" in err
    assert "Traceback" not in err


class PtyReader:
    """Collects a child's terminal output on a thread (the test waits for text to appear)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # EIO once the child has exited
                return
            if not chunk:
                return
            self.buffer += chunk

    @property
    def text(self) -> str:
        return self.buffer.decode("utf-8", "replace")

    async def wait_for(self, pattern: str) -> None:
        for _ in range(PROCESS_LIMIT_S * 20):
            if re.search(pattern, self.text, re.DOTALL):
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{pattern!r} never appeared in:\n{self.text}")


async def test_interactive_under_a_terminal_shows_progress_and_dim_notes(
    target: str, api: orchestrator_pb2_grpc.InterviewServiceStub
) -> None:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli",
        "--target",
        target,
        "--concept",
        CONCEPT,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=ROOT,
        env=client_env(),
        start_new_session=True,
    )
    os.close(slave)
    reader = PtyReader(master)
    try:
        await reader.wait_for(r"^.*> ")
        os.write(master, (ANSWERS[0] + "\n").encode())
        await reader.wait_for(r"\x1b\[2m  \S+ · .+\x1b\[0m\r?\n.*> ")  # the dim note, then a prompt
        os.write(master, b"/quit\n")
        assert await asyncio.wait_for(proc.wait(), PROCESS_LIMIT_S) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        os.close(master)
    text = reader.text
    assert "\r\x1b[2K" in text  # the progress line was drawn and erased
    assert re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] \S", text)
    got = await api.GetSession(pb.GetSessionRequest(session_id=session_id_from(text.replace("\r", ""))))
    strategy = got.session.focus_history[0].strategy
    assert re.search(rf"\x1b\[2m  {re.escape(strategy)} · .+ · (early|mid|late)\x1b\[0m", text)
