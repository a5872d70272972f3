"""The interactive interview: connect, pick a concept, then answer questions until the end."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import grpc

from cli.actions import ExportWriteError, export_to_file, graph_lines
from cli.connection import Client, wait_until_serving
from cli.errors import describe, parse_rpc_error
from cli.progress import Spinner, StageTracker
from cli.render import (
    Style,
    concept_lines,
    format_for_path,
    known_extensions,
    note_line,
    offline_notice,
    pick_concept,
    termination_line,
)
from cli.turns import Answer, StreamEndedError, next_answer, run_streamed_turn, same_text
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb

HELP = """Commands:
  /graph         show the knowledge graph built so far
  /export FILE   export the session; the format follows the extension
                 (.json, .md, .csv, .graphml, .mmd)
  /help          this help
  /quit          end the interview now
Anything else is your answer. An empty line re-prompts (or retries a failed answer)."""


@dataclass(frozen=True)
class InteractiveOptions:
    """What the user chose on the command line."""

    concept_id: str | None = None
    max_turns: int = 0
    methodology: str = ""
    wait_s: float = 60.0
    any_local_llm_key: bool = False
    color: bool = False
    echo_input: bool = False  # stdin is not a terminal: echo what was read so the transcript reads well


class Interview:
    """One interactive session; `run()` returns the exit code."""

    def __init__(
        self,
        client: Client,
        options: InteractiveOptions,
        *,
        read_line: Callable[[str], str] = input,
        out: TextIO = sys.stdout,
        err: TextIO = sys.stderr,
    ) -> None:
        self._client = client
        self._options = options
        self._read = read_line
        self._out = out
        self._err = err
        self._tty = out.isatty()
        self._style = Style(options.color and self._tty)
        self._session_id = ""
        self._turn_count = 0
        self._retry: Answer | None = None  # an answer whose turn failed and may be resent as is
        self._offline_known = False
        self._exit: int | None = None

    # -- input and output -----------------------------------------------------------------------
    def _input(self, prompt: str) -> str:
        line = self._read(prompt)
        if self._options.echo_input:
            self._say(line)
        return line

    def _say(self, text: str = "") -> None:
        self._out.write(text + "\n")
        self._out.flush()

    def _error(self, exc: grpc.RpcError) -> None:
        self._out.flush()
        self._err.write(f"error: {describe(parse_rpc_error(exc), self._client.target)}\n")
        self._err.flush()

    def _notice_offline(self, usage: pb.UsageSummary | None, final: bool) -> None:
        """Say once whether the offline engine runs (decided by the first usage naming a provider)."""
        if self._offline_known:
            return
        has_provider = usage is not None and any(u.provider for u in usage.by_client)
        if not has_provider and not final and self._options.any_local_llm_key:
            return  # undecided: the first turn's usage will tell
        self._offline_known = True
        notice = offline_notice(usage, self._options.any_local_llm_key)
        if notice:
            self._say(self._style.dim(notice))

    # -- phases ---------------------------------------------------------------------------------
    def run(self) -> int:
        """Connect, start the session, and run the question/answer loop."""
        try:
            self._wait_for_service()
            concept_id = self._options.concept_id or self._choose_concept()
            if concept_id is None:
                return 0
            self._start(concept_id)
            return self._loop()
        except KeyboardInterrupt:
            self._say()
            self._leave_open()
            return 130

    def _wait_for_service(self) -> None:
        shown = False

        def on_wait(elapsed: float) -> None:
            nonlocal shown
            if self._tty:
                self._out.write(f"\rWaiting for the service at {self._client.target} … {elapsed:.0f}s")
                self._out.flush()
            elif not shown:
                self._say(f"Waiting for the service at {self._client.target} to report SERVING …")
            shown = True

        try:
            wait_until_serving(self._client, self._options.wait_s, on_wait)
        finally:
            if shown and self._tty:
                self._out.write("\r\x1b[2K")  # erase the progress line (an error follows on stderr)
                self._out.flush()
        self._say(f"Connected to {self._client.target}.")

    def _choose_concept(self) -> str | None:
        concepts = self._client.list_concepts()
        if not concepts:
            raise SystemExit("error: the service lists no concepts")
        self._say("Concepts:")
        for line in concept_lines(concepts):
            self._say(line)
        while True:
            try:
                choice = self._input("Concept (number or id): ").strip()
            except EOFError:
                self._say()
                return None
            if not choice:
                continue
            concept = pick_concept(concepts, choice)
            if concept is not None:
                return str(concept.id)
            self._say(f"No concept {choice!r}; type a number from 1 to {len(concepts)} or an id.")

    def _start(self, concept_id: str) -> None:
        reply = self._client.create_session(
            concept_id, max_turns=self._options.max_turns, methodology=self._options.methodology
        )
        session = reply.session
        self._session_id = session.session_id
        self._turn_count = session.turn_count
        self._notice_offline(session.usage if session.HasField("usage") else None, final=False)
        self._say(
            f"Session {session.session_id} · {session.concept_name} · {session.methodology} · "
            f"up to {session.max_turns} turns. /help lists the commands."
        )
        self._say()
        self._say(self._style.bold(reply.opening_question))

    def _loop(self) -> int:
        while self._exit is None:
            try:
                line = self._input("> ")
            except EOFError:
                self._say()
                self._leave_open()
                return 0
            text = line.strip()
            if text.startswith("/"):
                self._command(text)
            elif text:
                self._turn(next_answer(text, self._turn_count))
            elif self._retry is not None:
                self._turn(self._retry)  # same text, same turn, same request id
        return self._exit

    def _leave_open(self) -> None:
        if self._session_id:
            self._say(
                f"Session {self._session_id} is still open; continue with "
                f'`python -m cli answer {self._session_id} "..."`.'
            )

    # -- commands -------------------------------------------------------------------------------
    def _command(self, text: str) -> None:
        try:
            words = shlex.split(text)
        except ValueError as exc:
            self._say(f"Cannot parse the command: {exc}.")
            return
        name, args = words[0].lower(), words[1:]
        try:
            if name in ("/quit", "/exit"):
                self._quit()
            elif name == "/help":
                self._say(HELP)
            elif name == "/graph":
                for line in graph_lines(self._client, self._session_id):
                    self._say(line)
            elif name == "/export":
                self._export(args)
            else:
                self._say(f"Unknown command {name}; /help lists the commands.")
        except grpc.RpcError as exc:
            self._error(exc)

    def _export(self, args: list[str]) -> None:
        if len(args) != 1:
            self._say("Usage: /export FILE (e.g. /export interview.json)")
            return
        path = Path(args[0]).expanduser()
        format_name = format_for_path(path.name)
        if format_name is None:
            self._say(f"Cannot tell the format of {path.name}; use one of {known_extensions()}.")
            return
        try:
            size = export_to_file(self._client, self._session_id, format_name, path)
        except ExportWriteError as exc:
            self._say(str(exc))
            return
        self._say(f"Exported {format_name} to {path} ({size} bytes).")

    def _quit(self) -> None:
        try:
            reply = self._client.end_session(self._session_id)
        except grpc.RpcError as exc:
            self._error(exc)
            self._leave_open()
            self._exit = 1
            return
        self._say(self._style.bold(reply.closing_message))
        self._say(termination_line(reply.session.termination_reason))
        self._exit = 0

    # -- turns ----------------------------------------------------------------------------------
    def _turn(self, answer: Answer) -> None:
        tracker = StageTracker()
        spinner = Spinner(self._out, self._tty, tracker)
        streamed: list[str] = []

        def on_delta(delta: str) -> None:
            if not streamed:
                spinner.stop()
                self._out.write("\n\x1b[1m" if self._style.color else "\n")
            streamed.append(delta)
            self._out.write(delta)
            self._out.flush()

        spinner.start()
        try:
            result = run_streamed_turn(self._client, self._session_id, answer, tracker.update, on_delta)
        except grpc.RpcError as exc:
            spinner.stop()
            self._end_streamed_line(streamed)
            self._turn_failed(answer, exc)
            return
        except (KeyboardInterrupt, StreamEndedError) as exc:
            spinner.stop()
            self._end_streamed_line(streamed)
            reason = "interrupted" if isinstance(exc, KeyboardInterrupt) else str(exc)
            self._say(f"The turn was {reason}; press Enter to resend the same answer.")
            self._retry = answer
            return
        finally:
            spinner.stop()
        self._end_streamed_line(streamed)
        self._turn_done(result, "".join(streamed))

    def _end_streamed_line(self, streamed: list[str]) -> None:
        if streamed:
            self._out.write("\x1b[0m\n" if self._style.color else "\n")
            self._out.flush()

    def _turn_done(self, result: pb.TurnResult, streamed: str) -> None:
        self._retry = None
        self._turn_count = result.turn_number
        self._notice_offline(result.usage if result.HasField("usage") else None, final=True)
        if not streamed:
            self._say()
        if not same_text(streamed, result.next_question):
            self._say(self._style.bold(result.next_question))
        self._say(self._style.dim(f"  {note_line(result)}"))
        if not result.should_continue:
            self._say(termination_line(result.termination_reason))
            self._exit = 0

    def _turn_failed(self, answer: Answer, exc: grpc.RpcError) -> None:
        self._error(exc)
        failure = parse_rpc_error(exc)
        if failure.code == grpc.StatusCode.FAILED_PRECONDITION:
            if failure.metadata.get("status") == "completed":
                self._say("The session has ended.")
                self._exit = 1
            elif failure.expected_turn is not None:
                self._resync()
            elif "turn_number" in failure.metadata and self._retry is not None:
                self._say("Press Enter to resend your earlier answer to that turn.")
            return
        if failure.code == grpc.StatusCode.NOT_FOUND:
            self._exit = 1
            return
        if failure.retryable:
            self._retry = answer
            self._say("Press Enter to retry the same answer, type a new one, or /quit.")

    def _resync(self) -> None:
        """The session moved on elsewhere: adopt its turn count and show its current question."""
        self._retry = None
        try:
            session = self._client.get_session(self._session_id).session
        except grpc.RpcError as exc:
            self._error(exc)
            return
        self._turn_count = session.turn_count
        if session.status == pb.SESSION_STATUS_COMPLETED:
            self._say(termination_line(session.termination_reason))
            self._exit = 0
            return
        self._say(f"Resynchronised at turn {self._turn_count + 1}; the current question is:")
        self._say(self._style.bold(session.current_question))
