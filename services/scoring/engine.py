"""The stateless scoring logic: detect signals, rank candidates, score a response.

`ScoringEngine` holds only immutable configuration (methodology registry, detector registry,
rubric scorer, default mode) and per-methodology compiled weights; every call works from its
request alone. The orchestrator calls `score_response` concurrently with extraction and passes the
rubric into `select`; `select` computes it itself when it is missing and an LLM signal is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.scoring.context import DetectionContext
from services.scoring.models import SelectionMode, SignalInputs
from services.scoring.ranking import (
    CompiledStrategy,
    PhaseModifiers,
    Ranking,
    ScoredCandidate,
    compile_strategies,
    rank_joint,
    rank_two_stage,
)
from services.scoring.registry import DetectionPlan, DetectionResult, SignalRegistry
from services.scoring.rubric.models import RUBRIC_DIMENSIONS, Rubric, RubricScorer
from shared.errors import FieldViolation, InvalidArgumentError
from shared.methodology import MethodologyRegistry, phase_for
from shared.methodology_models import FocusMode, InterviewPhase, MethodologyConfig, NodeBinding

PHASE_SIGNAL = "meta.interview.phase"


@dataclass(frozen=True)
class Detection:
    """Detected signals, the rubric they used (None when no LLM signal was planned) and the phase."""

    signals: DetectionResult
    rubric: Rubric | None
    phase: InterviewPhase


@dataclass(frozen=True)
class Alternative:
    """A ranked (strategy, node, score) triple."""

    strategy: str
    node_id: str | None
    score: float
    rank: int


@dataclass(frozen=True)
class Selection:
    """The chosen strategy and focus, what travels with it, and the full ranking behind it."""

    strategy: str
    focus_node_id: str | None
    focus_label: str
    focus_mode: FocusMode
    generates_closing_question: bool
    node_binding: NodeBinding
    phase: InterviewPhase
    mode: SelectionMode
    detection: Detection
    ranking: Ranking

    @property
    def candidates(self) -> Sequence[ScoredCandidate]:
        """Every candidate, best first (stage 1 in two-stage mode)."""
        return self.ranking.candidates

    def alternatives(self, limit: int | None = None) -> list[Alternative]:
        """Ranked alternatives, best first (all when `limit` is None)."""
        items = self.ranking.candidates if limit is None else self.ranking.candidates[:limit]
        return [Alternative(c.strategy, c.node_id, c.final_score, c.rank) for c in items]


@dataclass(frozen=True)
class _Compiled:
    methodology: MethodologyConfig
    strategies: tuple[CompiledStrategy, ...]
    plan: DetectionPlan


class ScoringEngine:
    """Signal detection + ranking from request inputs only (see module docstring)."""

    def __init__(
        self,
        methodologies: MethodologyRegistry,
        registry: SignalRegistry,
        scorer: RubricScorer,
        *,
        default_mode: SelectionMode = SelectionMode.JOINT,
    ) -> None:
        self._methodologies = methodologies
        self._registry = registry
        self._scorer = scorer
        self.default_mode = default_mode
        self._compiled: dict[str, _Compiled] = {}

    # -- configuration ----------------------------------------------------------------------------
    def check_methodologies(self) -> list[str]:
        """Compile every methodology now (start-up check): unknown signals fail here, not mid-interview."""
        for name in self._methodologies.names():
            self._compile(name)
        return sorted(self._compiled)

    def has_methodology(self, name: str) -> bool:
        """Whether `name` is a known methodology."""
        return name in self._methodologies

    def _compile(self, name: str) -> _Compiled:
        compiled = self._compiled.get(name)
        if compiled is not None:
            return compiled
        methodology = self._methodologies.get(name)
        strategies = compile_strategies(methodology)
        names = set(methodology.all_signal_names()) | {PHASE_SIGNAL}
        for strategy in strategies:
            names |= strategy.signals  # a weight on an unlisted signal still gets its signal computed
        compiled = _Compiled(methodology, strategies, self._registry.plan(names))
        self._compiled[name] = compiled
        return compiled

    def validate(self, inputs: SignalInputs, *, field_prefix: str = "inputs") -> None:
        """Request-level checks that need the configuration; raises InvalidArgumentError."""
        violations = []
        if inputs.methodology not in self._methodologies:
            known = ", ".join(self._methodologies.names())
            violations.append(
                FieldViolation(
                    f"{field_prefix}.methodology",
                    f"unknown methodology {inputs.methodology!r}; known: {known}",
                )
            )
        if inputs.turn_number < 1:
            violations.append(FieldViolation(f"{field_prefix}.turn_number", "must be >= 1"))
        if inputs.max_turns < 1:
            violations.append(FieldViolation(f"{field_prefix}.max_turns", "must be >= 1"))
        if inputs.rubric is not None:
            missing = [d for d in RUBRIC_DIMENSIONS if d not in inputs.rubric.scores]
            if missing:
                violations.append(
                    FieldViolation(
                        f"{field_prefix}.rubric.scores", f"missing dimension(s): {', '.join(missing)}"
                    )
                )
        if violations:
            listed = "; ".join(f"{v.field}: {v.description}" for v in violations)
            raise InvalidArgumentError(f"invalid request: {listed}", violations)

    # -- operations -------------------------------------------------------------------------------
    async def score_response(self, question: str, answer: str, *, session_id: str | None = None) -> Rubric:
        """Only the rubric (one batched LLM call, or the offline lexical scorer)."""
        return await self._scorer.score(question, answer, session_id=session_id)

    async def detect(self, inputs: SignalInputs) -> Detection:
        """Detect the methodology's signals (plus dependencies and the phase) for this turn."""
        self.validate(inputs)
        compiled = self._compile(inputs.methodology)
        return await self._detect(compiled, inputs)

    async def _detect(self, compiled: _Compiled, inputs: SignalInputs) -> Detection:
        rubric = inputs.rubric
        if compiled.plan.needs_rubric and rubric is None:
            rubric = await self.score_response(
                inputs.question, inputs.answer, session_id=inputs.session_id or None
            )
        ctx = DetectionContext(inputs=inputs, methodology=compiled.methodology, rubric=rubric)
        result = self._registry.detect(compiled.plan, ctx)
        phase = phase_for(inputs.turn_number, inputs.max_turns)
        return Detection(result, rubric, phase)

    async def select(self, inputs: SignalInputs, mode: SelectionMode | None = None) -> Selection:
        """Detect, then rank (joint by default, two-stage on request) and return the selection."""
        self.validate(inputs)
        compiled = self._compile(inputs.methodology)
        detection = await self._detect(compiled, inputs)
        modifiers = PhaseModifiers.of(compiled.methodology.phases.get(detection.phase))
        used_mode = mode or self.default_mode
        rank = rank_joint if used_mode is SelectionMode.JOINT else rank_two_stage
        ranking = rank(
            compiled.strategies, detection.signals, inputs.tracker, modifiers, inputs.strategy_history
        )
        best = ranking.selected
        strategy = compiled.methodology.strategy(best.strategy)
        assert strategy is not None  # candidates come from the methodology's own strategies
        return Selection(
            strategy=best.strategy,
            focus_node_id=best.node_id,
            focus_label=best.node_label,
            focus_mode=strategy.focus_mode,
            generates_closing_question=strategy.generates_closing_question,
            node_binding=strategy.node_binding,
            phase=detection.phase,
            mode=used_mode,
            detection=detection,
            ranking=ranking,
        )
