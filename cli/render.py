"""Pure text rendering: the strategy note, termination reasons, concept list, sessions table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb

_TERMINATION_TEXT: dict[int, str] = {
    common_pb2.TERMINATION_REASON_MAX_TURNS: "the maximum number of turns was reached",
    common_pb2.TERMINATION_REASON_CLOSING_STRATEGY: "the interviewer chose to close",
    common_pb2.TERMINATION_REASON_GRAPH_SATURATED: "recent answers added nothing new (saturated)",
    common_pb2.TERMINATION_REASON_QUALITY_DEGRADED: "answers stayed shallow for several turns",
    common_pb2.TERMINATION_REASON_DEPTH_PLATEAU: "the reasoning chains stopped getting deeper",
    common_pb2.TERMINATION_REASON_ALL_NODES_EXHAUSTED: "every topic raised has been explored",
    common_pb2.TERMINATION_REASON_SATURATED: "the interview is saturated",
    common_pb2.TERMINATION_REASON_RESPONDENT_STOP: "you asked to stop",
    common_pb2.TERMINATION_REASON_ENDED_BY_CLIENT: "the session was ended by the client",
}

EXPORT_FORMATS: dict[str, pb.ExportFormat] = {
    "json": pb.EXPORT_FORMAT_JSON,
    "markdown": pb.EXPORT_FORMAT_MARKDOWN,
    "csv": pb.EXPORT_FORMAT_CSV,
    "graphml": pb.EXPORT_FORMAT_GRAPHML,
    "mermaid": pb.EXPORT_FORMAT_MERMAID,
}
_EXTENSIONS = {
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".csv": "csv",
    ".graphml": "graphml",
    ".mmd": "mermaid",
    ".mermaid": "mermaid",
}
SESSION_STATUSES: dict[str, pb.SessionStatus] = {
    "active": pb.SESSION_STATUS_ACTIVE,
    "paused": pb.SESSION_STATUS_PAUSED,
    "completed": pb.SESSION_STATUS_COMPLETED,
}


@dataclass(frozen=True)
class Style:
    """ANSI styling, or none (not a terminal, or NO_COLOR)."""

    color: bool

    def dim(self, text: str) -> str:
        """Faint text (notes)."""
        return f"\x1b[2m{text}\x1b[0m" if self.color else text

    def bold(self, text: str) -> str:
        """Bold text (questions)."""
        return f"\x1b[1m{text}\x1b[0m" if self.color else text


def enum_word(prefix: str, name: str) -> str:
    """`INTERVIEW_PHASE_EARLY` → `early` (the enum prefix dropped, lower case)."""
    return name.removeprefix(prefix).lower() or "unspecified"


def phase_word(phase: int) -> str:
    """The phase as a word (early, mid, late)."""
    if phase == common_pb2.INTERVIEW_PHASE_UNSPECIFIED:
        return "—"
    return enum_word("INTERVIEW_PHASE_", common_pb2.InterviewPhase.Name(phase))


def note_line(result: pb.TurnResult) -> str:
    """`strategy · focus · phase` of a turn (the focus may be the topic as a whole)."""
    strategy = result.strategy_selected or "—"
    focus = result.focus_label or result.focus_node_id or "the topic"
    return f"{strategy} · {focus} · {phase_word(result.phase)}"


def termination_text(reason: int) -> str:
    """Why an interview ended, in words."""
    return _TERMINATION_TEXT.get(reason, "the interview ended")


def termination_line(reason: int) -> str:
    """`Interview ended: <why> (REASON).`"""
    if reason == common_pb2.TERMINATION_REASON_UNSPECIFIED:
        return "Interview ended."
    name = common_pb2.TerminationReason.Name(reason)
    return f"Interview ended: {termination_text(reason)} ({enum_word('TERMINATION_REASON_', name)})."


def format_for_path(filename: str) -> str | None:
    """The export format a file name asks for by its extension, or None."""
    lower = filename.lower()
    for ext, name in _EXTENSIONS.items():
        if lower.endswith(ext):
            return name
    return None


def known_extensions() -> str:
    """The extensions /export understands, for messages."""
    return ", ".join(_EXTENSIONS)


def concept_lines(concepts: Sequence[common_pb2.Concept]) -> list[str]:
    """A numbered list: `  1. id — name (methodology)`."""
    width = len(str(len(concepts)))
    return [f"  {i:>{width}}. {c.id} — {c.name} ({c.methodology})" for i, c in enumerate(concepts, start=1)]


def pick_concept(concepts: Sequence[common_pb2.Concept], choice: str) -> common_pb2.Concept | None:
    """The concept chosen by its number in the list or by its id."""
    choice = choice.strip()
    if choice.isdigit():
        index = int(choice) - 1
        return concepts[index] if 0 <= index < len(concepts) else None
    return next((c for c in concepts if c.id == choice), None)


def offline_notice(usage: pb.UsageSummary | None, any_local_key: bool) -> str | None:
    """The one-line offline notice, or None when an LLM provider is in use.

    The session's usage says which provider produced the opening question; when it carries no
    provider, fall back to the client's environment (a local server sees the same variables).
    """
    providers = {u.provider for u in usage.by_client if u.provider} if usage is not None else set()
    if providers:
        if providers == {"local"}:
            return "Offline mode: no LLM API key is configured, the service uses its rule-based engine."
        return None
    if any_local_key:
        return None
    return (
        "Offline mode: no LLM API key (ANTHROPIC/OPENAI/KIMI/DEEPSEEK_API_KEY) is set, "
        "so a local service uses its rule-based engine."
    )


def _timestamp(ts: object) -> str:
    seconds = getattr(ts, "seconds", 0)
    if not seconds:
        return "—"
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%d %H:%M")


def sessions_table(sessions: Sequence[pb.Session]) -> list[str]:
    """A fixed-width table of sessions (UTC times)."""
    header = ("SESSION", "CONCEPT", "METHODOLOGY", "STATUS", "TURNS", "PHASE", "UPDATED (UTC)")
    rows = [
        (
            s.session_id,
            s.concept_id,
            s.methodology,
            enum_word("SESSION_STATUS_", pb.SessionStatus.Name(s.status)),
            f"{s.turn_count}/{s.max_turns}",
            phase_word(s.phase),
            _timestamp(s.update_time),
        )
        for s in sessions
    ]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
