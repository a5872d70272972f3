"""Strategy ranking: joint (D1) over every (strategy, node) pair, or two-stage (strategy, then node).

Scoring (SPEC): for each weight key of a strategy, the signal it names is looked up (node signals
for node-scoped keys, global signals otherwise — "node wins" is moot because a name is one scope
only); a missing signal is skipped; a bool contributes its weight when it matches (`.true`/`.false`,
bare = true), a number contributes weight × value (bare) or its weight when its bin matches
(`.low` ≤ 0.25, `.high` ≥ 0.75, `.mid` between), a category contributes its weight on equality.
`base` is the sum of the contributions in order; `final = base × phase multiplier + phase bonus`.

Repetition is charged to the repeated strategy only. Two signals are re-evaluated per candidate:

* `temporal.strategy_repetition_count` — for the strategy used last turn it is the SPEC value
  (occurrences of that strategy in the last 5 / 5); for every other strategy it is 0, because
  choosing another strategy repeats nothing;
* `technique.node.strategy_repetition` — the node's consecutive-same-strategy band applies only when
  the candidate strategy is the node's last strategy; otherwise "none".

Without this, a `-0.3` weight on deepen would punish deepen because *explore* was repeated (the
reference's bug). `temporal.turns_since_strategy_change` stays turn-level: it describes how long the
interview has stayed put, which a methodology may use to reward *changing* strategy.

Tie-break (deterministic): higher final score first (compared after rounding to 1e-9, so float
noise cannot reorder equal scores), then the strategy's order in the methodology YAML, then the
node label, the node type and the turn it was created in, then the node id (the no-node candidate
sorts first). Labels, types and turns come before ids because ids are random UUIDs: two runs of the
same interview must make the same decisions, also between two nodes that share a label ("crashed" as
a push and as a hiring criterion, which surface deduplication keeps apart by type).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, overload

from services.scoring import formulas as f
from services.scoring.registry import DetectionResult, SignalScalar
from shared.methodology_models import MethodologyConfig, NodeBinding, PhaseConfig, StrategyConfig
from shared.node_state import NodeState
from shared.node_tracker import NodeStateTracker
from shared.signal_catalog import bin_continuous, is_node_scoped, resolve_weight_key

REPETITION_SIGNAL = "temporal.strategy_repetition_count"
NODE_REPETITION_SIGNAL = "technique.node.strategy_repetition"
_ROUND = 9


class SignalContribution(NamedTuple):
    """One matched weight: key as written, the signal it resolved to, raw value, weight, contribution.

    NamedTuples (not frozen dataclasses) because ranking creates one per matched weight per candidate
    (≈ 10⁵ at 2 000 nodes): tuple construction is several times cheaper.
    """

    weight_key: str
    signal_name: str
    raw_value: SignalScalar
    weight: float
    contribution: float
    node_scoped: bool


class ScoredCandidate(NamedTuple):
    """One (strategy, node) candidate with its full score decomposition (node None: no node)."""

    strategy: str
    node_id: str | None
    node_label: str
    contributions: tuple[SignalContribution, ...]
    base_score: float
    phase_multiplier: float
    phase_bonus: float
    final_score: float
    rank: int
    selected: bool


@dataclass(frozen=True, slots=True)
class CompiledWeight:
    """A parsed weight key."""

    key: str
    signal: str
    qualifier: str | None
    weight: float
    node_scoped: bool


@dataclass(frozen=True)
class CompiledStrategy:
    """A strategy with its weights parsed and partitioned into strategy- and node-scoped."""

    config: StrategyConfig
    index: int
    strategy_weights: tuple[CompiledWeight, ...]
    node_weights: tuple[CompiledWeight, ...]

    @property
    def name(self) -> str:
        """The strategy name."""
        return self.config.name

    @property
    def binds_node(self) -> bool:
        """Whether the strategy is ranked once per node (node_binding required)."""
        return self.config.node_binding is NodeBinding.REQUIRED

    def may_focus(self, state: NodeState) -> bool:
        """Whether the node is of a type the strategy may focus (any, when it names none)."""
        types = self.config.focus_node_types
        return not types or state.node_type in types

    @property
    def repeats_on_node(self) -> bool:
        """Whether a node weight reads the per-candidate `technique.node.strategy_repetition`."""
        return any(w.signal == NODE_REPETITION_SIGNAL for w in self.node_weights)

    @property
    def signals(self) -> set[str]:
        """Every signal its weights name."""
        return {w.signal for w in (*self.strategy_weights, *self.node_weights)}


@dataclass(frozen=True)
class PhaseModifiers:
    """The current phase's multipliers and bonuses (empty when the phase is not configured)."""

    multipliers: Mapping[str, float]
    bonuses: Mapping[str, float]

    @classmethod
    def of(cls, phase: PhaseConfig | None) -> PhaseModifiers:
        """From a methodology phase block (None → multiplier 1, bonus 0 for every strategy)."""
        if phase is None:
            return cls({}, {})
        return cls(dict(phase.signal_weights), dict(phase.phase_bonuses))


@dataclass(frozen=True)
class Ranking:
    """Ranked candidates (best first, exactly one selected) and, in two-stage mode, the node stage."""

    candidates: Sequence[ScoredCandidate]
    node_candidates: Sequence[ScoredCandidate] = ()

    @property
    def selected(self) -> ScoredCandidate:
        """The winning candidate (rank 1)."""
        return self.candidates[0]


def compile_strategies(methodology: MethodologyConfig) -> tuple[CompiledStrategy, ...]:
    """Parse every strategy's weight keys against the signal catalogue (YAML order kept)."""
    compiled = []
    for index, strategy in enumerate(methodology.strategies):
        global_w: list[CompiledWeight] = []
        node_w: list[CompiledWeight] = []
        for key, weight in strategy.signal_weights.items():
            signal, qualifier = resolve_weight_key(key)
            w = CompiledWeight(key, signal, qualifier, float(weight), is_node_scoped(key))
            (node_w if w.node_scoped else global_w).append(w)
        compiled.append(CompiledStrategy(strategy, index, tuple(global_w), tuple(node_w)))
    return tuple(compiled)


def evaluate_weight(weight: CompiledWeight, value: SignalScalar) -> float | None:
    """The contribution of `weight` for `value`, or None when it does not match."""
    q = weight.qualifier
    kind = type(value)
    if kind is bool:
        matched = value if q is None else value == (q == "true")
        return weight.weight if matched else None
    if kind is float or kind is int:  # exact type checks: this runs once per weight per candidate
        if q is None:
            return weight.weight * value  # type: ignore[operator]
        return weight.weight if bin_continuous(value) == q else None  # type: ignore[arg-type]
    if q is not None and value == q:
        return weight.weight
    return None


def _contributions(
    weights: Sequence[CompiledWeight],
    signals: Mapping[str, SignalScalar],
    overrides: Mapping[str, SignalScalar],
) -> list[SignalContribution]:
    out = []
    for w in weights:
        value = overrides.get(w.signal, signals.get(w.signal))
        if value is None:
            continue  # SPEC: a missing signal is skipped, not counted as false
        c = evaluate_weight(w, value)
        if c is not None:
            out.append(SignalContribution(w.key, w.signal, value, w.weight, c, w.node_scoped))
    return out


def strategy_overrides(
    strategy: str, global_signals: Mapping[str, SignalScalar], history: Sequence[str]
) -> dict[str, SignalScalar]:
    """Per-candidate `temporal.strategy_repetition_count`: the SPEC value for the last strategy, else 0."""
    if REPETITION_SIGNAL not in global_signals:
        return {}
    if history and history[-1] == strategy:
        return {REPETITION_SIGNAL: global_signals[REPETITION_SIGNAL]}
    return {REPETITION_SIGNAL: 0.0}


def node_overrides(
    strategy: str, state: NodeState | None, node_signals: Mapping[str, SignalScalar]
) -> dict[str, SignalScalar]:
    """Per-candidate `technique.node.strategy_repetition`: the band only for the node's last strategy."""
    if state is None or NODE_REPETITION_SIGNAL not in node_signals:
        return {}
    if state.last_strategy_used == strategy:
        return {NODE_REPETITION_SIGNAL: f.focus_streak_band(state.consecutive_same_strategy)}
    return {NODE_REPETITION_SIGNAL: "none"}


@dataclass
class _Draft:
    strategy: CompiledStrategy
    node_id: str | None
    node_label: str
    contributions: Sequence[SignalContribution]
    base: float
    multiplier: float
    bonus: float
    final: float
    # what tells two nodes with one label apart before their (random) ids: (node type, creation turn)
    tie: tuple[str, int] = ("", 0)


class RankedCandidates(Sequence[ScoredCandidate]):
    """The candidates best first, each made from its sorted draft when first read: a response
    carries the best 50 of ~750 at 150 nodes, and making the rest cost ~0.7 ms per turn."""

    def __init__(self, drafts: list[_Draft]) -> None:
        self._drafts = drafts
        self._made: list[ScoredCandidate | None] = [None] * len(drafts)

    def __len__(self) -> int:
        return len(self._drafts)

    @overload
    def __getitem__(self, index: int) -> ScoredCandidate: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[ScoredCandidate, ...]: ...

    def __getitem__(self, index: int | slice) -> ScoredCandidate | tuple[ScoredCandidate, ...]:
        if isinstance(index, slice):
            return tuple(self._make(i) for i in range(*index.indices(len(self._drafts))))
        if index < 0:
            index += len(self._drafts)
        if not 0 <= index < len(self._drafts):
            raise IndexError(index)
        return self._make(index)

    def _make(self, i: int) -> ScoredCandidate:
        made = self._made[i]
        if made is None:
            d = self._drafts[i]
            made = self._made[i] = ScoredCandidate(
                strategy=d.strategy.name,
                node_id=d.node_id,
                node_label=d.node_label,
                contributions=tuple(d.contributions),
                base_score=d.base,
                phase_multiplier=d.multiplier,
                phase_bonus=d.bonus,
                final_score=d.final,
                rank=i + 1,
                selected=i == 0,
            )
        return made


def _finalise(drafts: list[_Draft]) -> RankedCandidates:
    drafts.sort(
        key=lambda d: (
            -round(d.final, _ROUND),
            d.strategy.index,
            d.node_id is not None,
            d.node_label,
            d.tie,
            d.node_id or "",
        )
    )
    return RankedCandidates(drafts)


def _draft(
    strategy: CompiledStrategy,
    node_id: str | None,
    label: str,
    contributions: list[SignalContribution],
    modifiers: PhaseModifiers | None,
    state: NodeState | None = None,
) -> _Draft:
    base = _total(contributions)
    multiplier, bonus = _phase(strategy, modifiers)
    final = base * multiplier + bonus
    return _Draft(strategy, node_id, label, contributions, base, multiplier, bonus, final, _tie(state))


def _tie(state: NodeState | None) -> tuple[str, int]:
    return ("", 0) if state is None else (state.node_type, state.created_at_turn)


def _total(contributions: Sequence[SignalContribution], start: float = 0.0) -> float:
    """`start` plus the contributions, added one by one in order (so a partial total carried on
    gives exactly the full sum: floating-point addition is not associative)."""
    total = start
    for c in contributions:
        total += c.contribution
    return total


def _phase(strategy: CompiledStrategy, modifiers: PhaseModifiers | None) -> tuple[float, float]:
    """The strategy's phase multiplier and bonus (1 and 0 without modifiers)."""
    if modifiers is None:
        return 1.0, 0.0
    return modifiers.multipliers.get(strategy.name, 1.0), modifiers.bonuses.get(strategy.name, 0.0)


def rank_joint(
    strategies: Sequence[CompiledStrategy],
    detection: DetectionResult,
    tracker: NodeStateTracker,
    modifiers: PhaseModifiers,
    strategy_history: Sequence[str],
) -> Ranking:
    """Score every (strategy, node) pair; `node_binding: none` strategies (or no nodes) rank once.

    This runs for strategies × nodes candidates on every turn (≈ 750 at 150 nodes, with ~60 node
    weights per node), and most nodes share their values of a strategy's node signals (all the
    never-focused ones, for a start). A node's contributions depend on nothing else, so they are
    computed once per distinct values (with their types: True == 1 == 1.0 must not share an entry)
    and reused. The base score carries the strategy contributions' total on through the node
    contributions (`_total`), exactly the sum `_draft` makes."""
    drafts: list[_Draft] = []
    g = detection.global_signals
    node_signals = detection.node_signals
    states = tracker.states
    for strategy in strategies:
        s_contribs = _contributions(
            strategy.strategy_weights, g, strategy_overrides(strategy.name, g, strategy_history)
        )
        if not strategy.binds_node or not states:
            drafts.append(_draft(strategy, None, "", s_contribs, modifiers))
            continue
        focusable = [(key, state) for key, state in states.items() if strategy.may_focus(state)]
        multiplier, bonus = _phase(strategy, modifiers)
        s_base = _total(s_contribs)
        read = tuple(dict.fromkeys(w.signal for w in strategy.node_weights))
        position = {signal: i for i, signal in enumerate(read)}
        repeats = strategy.repeats_on_node
        scored: dict[tuple[object, ...], tuple[tuple[SignalContribution, ...], float, float]] = {}
        for key, state in focusable:
            n_signals = node_signals.get(key, _NO_SIGNALS)
            overrides = node_overrides(strategy.name, state, n_signals) if repeats else _NO_SIGNALS
            values = list(map(n_signals.get, read))
            for signal, value in overrides.items():
                if (i := position.get(signal)) is not None:
                    values[i] = value
            entry = (*values, *map(type, values))
            found = scored.get(entry)
            if found is None:
                n_contribs = _contributions(strategy.node_weights, n_signals, overrides)
                base = _total(n_contribs, s_base)
                found = scored[entry] = ((*s_contribs, *n_contribs), base, base * multiplier + bonus)
            contributions, base, final = found
            drafts.append(
                _Draft(strategy, key, state.label, contributions, base, multiplier, bonus, final, _tie(state))
            )
    return Ranking(_finalise(drafts))


_NO_SIGNALS: Mapping[str, SignalScalar] = {}


def rank_two_stage(
    strategies: Sequence[CompiledStrategy],
    detection: DetectionResult,
    tracker: NodeStateTracker,
    modifiers: PhaseModifiers,
    strategy_history: Sequence[str],
) -> Ranking:
    """Stage 1 ranks strategies on strategy-scoped weights (phase modifiers applied); stage 2 ranks
    the nodes for the winner when it binds a node, on its node-scoped weights alone (no modifiers:
    one strategy, so they cannot change the order). The winner's stage-1 candidate carries the node.
    """
    g = detection.global_signals
    states = tracker.states
    stage1 = _finalise(
        [
            _draft(
                s,
                None,
                "",
                _contributions(s.strategy_weights, g, strategy_overrides(s.name, g, strategy_history)),
                modifiers,
            )
            for s in strategies
            # a strategy with no node of its focus types to ask about is no candidate
            if not (s.binds_node and states and not any(map(s.may_focus, states.values())))
        ]
    )
    winner = stage1[0]
    best = next(s for s in strategies if s.name == winner.strategy)
    if not best.binds_node or not states:
        return Ranking(stage1)
    node_drafts = []
    for key, state in states.items():
        if not best.may_focus(state):
            continue
        n_signals = detection.node_signals.get(key, {})
        contribs = _contributions(best.node_weights, n_signals, node_overrides(best.name, state, n_signals))
        node_drafts.append(_draft(best, key, state.label, contribs, None, state))
    stage2 = _finalise(node_drafts)
    chosen = stage2[0]
    head = ScoredCandidate(
        strategy=winner.strategy,
        node_id=chosen.node_id,
        node_label=chosen.node_label,
        contributions=winner.contributions,
        base_score=winner.base_score,
        phase_multiplier=winner.phase_multiplier,
        phase_bonus=winner.phase_bonus,
        final_score=winner.final_score,
        rank=1,
        selected=True,
    )
    return Ranking((head, *stage1[1:]), stage2)
