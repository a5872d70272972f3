"""Pure rendering: the strategy note, termination lines, export formats, concepts, sessions, stages."""

from __future__ import annotations

import pytest

from cli.progress import StageTracker, status_line
from cli.render import (
    Style,
    format_for_path,
    note_line,
    offline_notice,
    pick_concept,
    sessions_table,
    termination_line,
)
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb


def test_note_names_strategy_focus_and_phase() -> None:
    result = pb.TurnResult(
        strategy_selected="deepen",
        focus_node_id="n1",
        focus_label="battery life",
        phase=common_pb2.INTERVIEW_PHASE_MID,
    )
    assert note_line(result) == "deepen · battery life · mid"


def test_note_without_focus_node_names_the_topic() -> None:
    result = pb.TurnResult(strategy_selected="broaden", phase=common_pb2.INTERVIEW_PHASE_EARLY)
    assert note_line(result) == "broaden · the topic · early"


def test_note_falls_back_to_node_id_and_dashes() -> None:
    assert note_line(pb.TurnResult(focus_node_id="n7")) == "— · n7 · —"


def test_dim_style_only_with_colour() -> None:
    assert Style(color=True).dim("x") == "\x1b[2mx\x1b[0m"
    assert Style(color=False).dim("x") == "x"


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        (
            common_pb2.TERMINATION_REASON_MAX_TURNS,
            "Interview ended: the maximum number of turns was reached (max_turns).",
        ),
        (
            common_pb2.TERMINATION_REASON_ENDED_BY_CLIENT,
            "Interview ended: the session was ended by the client (ended_by_client).",
        ),
        (common_pb2.TERMINATION_REASON_UNSPECIFIED, "Interview ended."),
    ],
)
def test_termination_line(reason: int, expected: str) -> None:
    assert termination_line(reason) == expected


@pytest.mark.parametrize(
    ("filename", "expected"),
    [
        ("out.json", "json"),
        ("REPORT.MD", "markdown"),
        ("turns.csv", "csv"),
        ("g.graphml", "graphml"),
        ("g.mmd", "mermaid"),
        ("notes.txt", None),
        ("json", None),
    ],
)
def test_export_format_follows_the_extension(filename: str, expected: str | None) -> None:
    assert format_for_path(filename) == expected


def test_concept_is_picked_by_number_or_id() -> None:
    concepts = [common_pb2.Concept(id="a_mec", name="A"), common_pb2.Concept(id="b_jtbd", name="B")]
    by_number, by_id = pick_concept(concepts, "2"), pick_concept(concepts, " a_mec ")
    assert by_number is not None and by_number.id == "b_jtbd"
    assert by_id is not None and by_id.id == "a_mec"
    assert pick_concept(concepts, "3") is None
    assert pick_concept(concepts, "0") is None
    assert pick_concept(concepts, "nope") is None


def _usage(*providers: str) -> pb.UsageSummary:
    return pb.UsageSummary(
        by_client=[common_pb2.LlmUsage(client="generation", provider=p) for p in providers]
    )


def test_offline_notice_prefers_the_reported_provider_over_the_environment() -> None:
    assert offline_notice(_usage("local"), any_local_key=True) is not None
    assert offline_notice(_usage("anthropic"), any_local_key=False) is None
    assert offline_notice(_usage("local", "openai"), any_local_key=False) is None


def test_offline_notice_falls_back_to_the_environment() -> None:
    notice = offline_notice(None, any_local_key=False)
    assert notice is not None and "\n" not in notice
    assert offline_notice(_usage(), any_local_key=True) is None


def test_sessions_table_aligns_columns() -> None:
    sessions = [
        pb.Session(
            session_id="s1",
            concept_id="headphones_mec",
            methodology="means_end_chain",
            status=pb.SESSION_STATUS_ACTIVE,
            turn_count=3,
            max_turns=20,
            phase=common_pb2.INTERVIEW_PHASE_EARLY,
        ),
        pb.Session(
            session_id="session-two",
            concept_id="x",
            methodology="jtbd",
            status=pb.SESSION_STATUS_COMPLETED,
            turn_count=12,
            max_turns=12,
            phase=common_pb2.INTERVIEW_PHASE_LATE,
        ),
    ]
    sessions[1].update_time.FromSeconds(86400)
    header, first, second = sessions_table(sessions)
    assert header.split() == [
        "SESSION",
        "CONCEPT",
        "METHODOLOGY",
        "STATUS",
        "TURNS",
        "PHASE",
        "UPDATED",
        "(UTC)",
    ]
    assert first.split() == ["s1", "headphones_mec", "means_end_chain", "active", "3/20", "early", "—"]
    assert second.split() == ["session-two", "x", "jtbd", "completed", "12/12", "late", "1970-01-02", "00:00"]
    # Every column starts at the same offset in every row.
    assert header.index("CONCEPT") == first.index("headphones_mec") == second.index("x ")


def test_stage_tracker_shows_concurrent_stages_then_the_last_one() -> None:
    tracker = StageTracker()
    assert tracker.label() == ""
    tracker.update("srl", pb.STAGE_STATUS_STARTED)
    tracker.update("rubric", pb.STAGE_STATUS_STARTED)
    assert tracker.label() == "srl, rubric"
    tracker.update("srl", pb.STAGE_STATUS_COMPLETED)
    assert tracker.label() == "rubric"
    tracker.update("rubric", pb.STAGE_STATUS_COMPLETED)
    assert tracker.label() == "rubric"
    tracker.update("graph_update", pb.STAGE_STATUS_REUSED)
    assert tracker.label() == "graph_update"


def test_status_line_shows_stage_and_elapsed() -> None:
    assert status_line(0, "extraction", 1.25) == "⠋ extraction · 1.2s"
    assert status_line(11, "", 0.0) == "⠙ thinking · 0.0s"
