"""The signal rationale of a follow-up prompt: which signals chose the strategy, and why.

The reference designed this section ("Active Signals" + "Why This Strategy Was Selected") but
never wired it. Here it is built from the top contributing signals of the selected candidate's
score decomposition, each with its value and its meaning (descriptions from
`shared.signal_catalog` unless the caller sent one), followed by plain-language reasons.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from services.question.delimiters import inline
from services.question.models import SignalReason, SignalScalar
from shared.methodology_models import InterviewPhase, StrategyConfig
from shared.signal_catalog import SIGNAL_CATALOG, SignalSpec, ValueType, bin_continuous

# (signal, bucket) -> what it tells the interviewer. Buckets: "true"/"false" for booleans,
# "low"/"mid"/"high" for continuous values, the category for categorical signals.
_MEANINGS: Mapping[tuple[str, str], str] = {
    ("graph.max_depth", "low"): "chains of reasoning are still short: the conversation is at surface level",
    ("graph.max_depth", "mid"): "some chains go beyond the surface but have not reached the deepest level",
    ("graph.max_depth", "high"): "at least one chain already reaches the deepest level of the method",
    ("graph.avg_depth", "low"): "most of what was said is still concrete, first-level material",
    (
        "graph.chain_completion.has_complete",
        "false",
    ): "no chain reaches an end-level concept (such as a value) yet",
    (
        "graph.chain_completion.has_complete",
        "true",
    ): "at least one chain already reaches an end-level concept",
    (
        "graph.chain_completion.ratio",
        "low",
    ): "few starting points have been followed to the end of their chain",
    (
        "graph.chain_completion.ratio",
        "high",
    ): "most starting points have been followed to the end of their chain",
    ("graph.node.exhausted", "true"): "the focus concept looks exhausted",
    ("graph.node.exhausted", "false"): "the focus concept still has room to explore",
    ("graph.node.exhaustion_score", "low"): "the focus concept is still fresh",
    ("graph.node.exhaustion_score", "high"): "the focus concept has been probed a lot without new material",
    (
        "graph.node.yield_stagnation",
        "true",
    ): "questions on the focus concept have stopped producing anything new",
    (
        "graph.node.is_orphan",
        "true",
    ): "the focus concept is not yet linked to anything else the respondent said",
    ("graph.node.has_outgoing", "false"): "nothing has been linked beyond the focus concept yet",
    ("graph.node.has_outgoing", "true"): "the focus concept already leads on to something else",
    ("graph.node.is_current_focus", "true"): "the last question was about this concept",
    ("graph.node.recency_score", "high"): "the focus concept came up very recently",
    ("graph.node.recency_score", "low"): "the focus concept has not been discussed for a while",
    ("graph.node.novelty", "high"): "the focus concept is unlike anything else the respondent has said",
    ("llm.response_depth", "surface"): "the last answer was only a word or two: invite more",
    ("llm.response_depth", "shallow"): "the last answer was a bare statement: probe the reasons behind it",
    ("llm.response_depth", "moderate"): "the last answer gave some explanation to build on",
    ("llm.response_depth", "deep"): "the last answer was rich in reasons and examples",
    ("llm.specificity", "low"): "the last answer was abstract: a concrete example would help",
    ("llm.specificity", "high"): "the last answer was concrete and specific",
    ("llm.certainty", "low"): "the respondent hedged or sounded unsure: clarify what they mean",
    ("llm.certainty", "high"): "the respondent sounded sure of what they said",
    ("llm.valence", "low"): "the tone was negative: explore what lies behind it with care",
    ("llm.valence", "high"): "the tone was positive",
    ("llm.engagement", "low"): "engagement is low: keep the next question easy and inviting",
    ("llm.engagement", "high"): "the respondent is engaged and volunteering detail",
    ("llm.intellectual_engagement", "low"): "the answer stated facts without reasons",
    ("llm.intellectual_engagement", "high"): "the respondent is reasoning about motives and trade-offs",
    (
        "llm.global_response_trend",
        "fatigued",
    ): "answers have been short for a while: the respondent may be tiring",
    ("llm.global_response_trend", "shallowing"): "answers are getting shorter",
    ("llm.global_response_trend", "deepening"): "answers are getting richer",
    ("temporal.strategy_repetition_count", "high"): "the last strategy has dominated recent turns",
    ("temporal.turns_since_strategy_change", "high"): "the same strategy has run for several turns",
    ("meta.conversation.saturation", "high"): "new answers add little that is new",
    ("meta.conversation.saturation", "low"): "answers are still producing new material",
    ("meta.canonical.saturation", "high"): "what is new mostly restates themes already covered",
    ("meta.node.opportunity", "fresh"): "the focus concept is fresh and open for exploration",
    (
        "meta.node.opportunity",
        "probe_deeper",
    ): "rich answers about the focus concept have not yet been captured",
    ("meta.node.opportunity", "exhausted"): "the focus concept is exhausted",
    ("meta.interview.phase", "early"): "the interview is in its opening, exploratory phase",
    ("meta.interview.phase", "mid"): "the interview is in its middle phase, building depth",
    ("meta.interview.phase", "late"): "the interview is in its late phase: validate and wrap up",
    (
        "technique.node.strategy_repetition",
        "high",
    ): "this strategy has been used on the focus concept many times",
}


@dataclass(frozen=True)
class RationaleSections:
    """The two prompt sections (empty strings when the request carried no rationale)."""

    active_signals: str
    why_selected: str


def render_value(value: SignalScalar | None) -> str:
    """A signal value as the prompt shows it."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


class RationaleBuilder:
    """Builds the rationale sections from a candidate's top contributing signals."""

    def __init__(self, catalog: Mapping[str, SignalSpec] = SIGNAL_CATALOG, *, top_n: int = 5) -> None:
        self._catalog = catalog
        self._top_n = top_n

    def resolve(self, name: str) -> tuple[str, str | None]:
        """(catalogued signal, qualifier) for a signal name or weight key; unknown names map to themselves."""
        best: str | None = None
        for known in self._catalog:
            if (name == known or name.startswith(known + ".")) and (best is None or len(known) > len(best)):
                best = known
        if best is None:
            return name, None
        return best, (name[len(best) + 1 :] or None)

    def description(self, reason: SignalReason) -> str:
        """The caller's description, else the catalogue's, else empty."""
        if reason.description.strip():
            return reason.description.strip()
        spec = self._catalog.get(self.resolve(reason.signal_name)[0])
        return spec.description if spec else ""

    def bucket(self, reason: SignalReason) -> str | None:
        """The value bucket used to look up a plain-language meaning."""
        signal, qualifier = self.resolve(reason.signal_name)
        value = reason.value
        spec = self._catalog.get(signal)
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, str):
            return value
        if isinstance(value, float | int) and spec is not None and spec.value_type is ValueType.FLOAT:
            return bin_continuous(float(value))
        return qualifier

    def top(self, reasons: Sequence[SignalReason]) -> list[SignalReason]:
        """The strongest contributors by absolute contribution (zero contributions only as a last resort)."""
        ranked = sorted(reasons, key=lambda r: abs(r.contribution), reverse=True)
        nonzero = [r for r in ranked if r.contribution != 0.0]
        return (nonzero or ranked)[: self._top_n]

    def build(
        self,
        reasons: Sequence[SignalReason],
        strategy: StrategyConfig,
        phase: InterviewPhase | None = None,
    ) -> RationaleSections:
        """The "Active Signals" and "Why This Strategy Was Selected" sections."""
        top = self.top(reasons)
        signal_lines: list[str] = []
        why_lines: list[str] = []
        for reason in top:
            signal, _ = self.resolve(reason.signal_name)
            line = (
                f"- {inline(reason.signal_name)}: {inline(render_value(reason.value))} "
                f"(contribution {reason.contribution:+.2f})"
            )
            desc = self.description(reason)
            if desc:
                line += f'\n  -> "{inline(desc)}"'
            signal_lines.append(line)
            why_lines.append(self._reason_line(reason, signal))
        if phase is not None:
            why_lines.append(f"- Interview phase: {phase.value}")
        description = strategy.description.strip() or "(no description)"
        why_lines.append(f'- Strategy: {strategy.name} - "{description}"')
        active = "## Active Signals:\n" + "\n".join(signal_lines) if signal_lines else ""
        why = "## Why This Strategy Was Selected:\n" + "\n".join(why_lines)
        return RationaleSections(active_signals=active, why_selected=why)

    def _reason_line(self, reason: SignalReason, signal: str) -> str:
        bucket = self.bucket(reason)
        meaning = _MEANINGS.get((signal, bucket)) if bucket else None
        if meaning is None:
            meaning = f"{signal} is {render_value(reason.value)}"
        meaning = inline(meaning)
        if reason.contribution < 0:
            return f"- Counted against this strategy: {meaning} ({reason.contribution:+.2f})"
        return f"- {meaning[0].upper()}{meaning[1:]} ({reason.contribution:+.2f})"


__all__ = ["RationaleBuilder", "RationaleSections", "render_value"]
