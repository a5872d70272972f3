"""The signal rationale: top contributors with values and meanings, and why the strategy won."""

from __future__ import annotations

from services.question.models import SignalReason
from services.question.rationale import RationaleBuilder, render_value
from shared.methodology import MethodologyRegistry
from shared.methodology_models import InterviewPhase
from shared.signal_catalog import SIGNAL_CATALOG


def _reasons() -> list[SignalReason]:
    return [
        SignalReason(signal_name="graph.node.exhaustion_score.low", value=0.1, contribution=1.0),
        SignalReason(signal_name="llm.response_depth.shallow", value="shallow", contribution=0.8),
        SignalReason(signal_name="temporal.strategy_repetition_count", value=0.8, contribution=-0.24),
        SignalReason(signal_name="llm.engagement.high", value=0.9, contribution=0.45),
        SignalReason(signal_name="graph.max_depth", value=0.2, contribution=0.14),
        SignalReason(signal_name="llm.certainty.low", value=0.1, contribution=0.05),
        SignalReason(signal_name="graph.node.is_orphan", value=True, contribution=0.0),
    ]


def test_top_contributors_by_absolute_contribution(methodologies: MethodologyRegistry) -> None:
    deepen = methodologies.get("means_end_chain").strategy("deepen")
    assert deepen is not None
    sections = RationaleBuilder(top_n=5).build(_reasons(), deepen, InterviewPhase.MID)
    lines = [ln for ln in sections.active_signals.splitlines() if ln.startswith("- ")]
    assert [ln.split(":")[0] for ln in lines] == [
        "- graph.node.exhaustion_score.low",
        "- llm.response_depth.shallow",
        "- llm.engagement.high",
        "- temporal.strategy_repetition_count",
        "- graph.max_depth",
    ]
    assert "llm.certainty" not in sections.active_signals  # sixth strongest: left out
    assert "- llm.response_depth.shallow: shallow (contribution +0.80)" in sections.active_signals
    assert "- graph.node.exhaustion_score.low: 0.10 (contribution +1.00)" in sections.active_signals


def test_descriptions_come_from_the_catalogue_unless_sent(methodologies: MethodologyRegistry) -> None:
    deepen = methodologies.get("means_end_chain").strategy("deepen")
    assert deepen is not None
    reasons = [
        SignalReason(signal_name="llm.response_depth.surface", value="surface", contribution=0.8),
        SignalReason(
            signal_name="llm.valence", value=0.2, contribution=0.3, description="Caller's own words."
        ),
    ]
    sections = RationaleBuilder().build(reasons, deepen)
    assert f'-> "{SIGNAL_CATALOG["llm.response_depth"].description}"' in sections.active_signals
    assert '-> "Caller\'s own words."' in sections.active_signals
    assert SIGNAL_CATALOG["llm.valence"].description not in sections.active_signals


def test_why_section_explains_in_plain_language(methodologies: MethodologyRegistry) -> None:
    deepen = methodologies.get("means_end_chain").strategy("deepen")
    assert deepen is not None
    why = RationaleBuilder(top_n=5).build(_reasons(), deepen, InterviewPhase.MID).why_selected
    assert why.startswith("## Why This Strategy Was Selected:")
    assert "- The focus concept is still fresh (+1.00)" in why
    assert "- The last answer was a bare statement: probe the reasons behind it (+0.80)" in why
    assert "- Counted against this strategy: the last strategy has dominated recent turns (-0.24)" in why
    assert "- Chains of reasoning are still short: the conversation is at surface level (+0.14)" in why
    assert "- Interview phase: mid" in why
    assert why.rstrip().endswith(f'- Strategy: deepen - "{deepen.description.strip()}"')


def test_unknown_signal_is_shown_not_dropped(methodologies: MethodologyRegistry) -> None:
    explore = methodologies.get("means_end_chain").strategy("explore")
    assert explore is not None
    reasons = [SignalReason(signal_name="custom.novel_signal", value=3, contribution=0.6)]
    sections = RationaleBuilder().build(reasons, explore)
    assert "- custom.novel_signal: 3 (contribution +0.60)" in sections.active_signals
    assert "- Custom.novel_signal is 3 (+0.60)" in sections.why_selected


def test_no_rationale_still_names_the_strategy(methodologies: MethodologyRegistry) -> None:
    explore = methodologies.get("means_end_chain").strategy("explore")
    assert explore is not None
    sections = RationaleBuilder().build([], explore)
    assert sections.active_signals == ""
    assert "- Strategy: explore" in sections.why_selected


def test_render_value() -> None:
    assert [render_value(v) for v in (True, False, 0.123, 4, "deep", None)] == [
        "true",
        "false",
        "0.12",
        "4",
        "deep",
        "n/a",
    ]
