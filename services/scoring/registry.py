"""The signal registry: every detector declares its name, pool, scope, value type, cost tier,
refresh trigger and dependencies; detection runs in dependency order.

Ordering: two passes — pass 1 holds every non-meta detector, pass 2 the meta pool (meta signals
combine the others, so a non-meta detector may not depend on a meta one). Within a pass the order
is a topological sort (Kahn) of the dependency graph with ties broken by registration order, so
the order is deterministic. A plan computes only the requested signals plus their transitive
dependencies; node-scoped detectors run once per tracked node.

A detector returns `None` when its value is undefined (e.g. the response trend with fewer than four
answers, canonical signals with canonical slots off); the signal is then absent, and a weight on it
contributes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

from shared.signal_catalog import SignalPool, SignalScope, ValueType, is_node_scoped

if TYPE_CHECKING:
    from services.scoring.context import DetectionContext
    from shared.node_state import NodeState

SignalScalar = bool | int | float | str
SignalMap = dict[str, SignalScalar]


class CostTier(StrEnum):
    """What computing a signal costs (the seed's FREE/LOW/MEDIUM/HIGH)."""

    FREE = "free"  # a field read or constant-time arithmetic
    LOW = "low"  # a pass over a short list
    MEDIUM = "medium"  # work proportional to the graph (e.g. label comparisons across nodes)
    HIGH = "high"  # an LLM call (the batched rubric)


class RefreshTrigger(StrEnum):
    """When a signal's value can change (the seed's PER_RESPONSE/PER_TURN/PER_SESSION)."""

    PER_RESPONSE = "per_response"  # depends on the answer text: always recomputed, never cached
    PER_TURN = "per_turn"  # depends on graph / tracker / history state at this turn
    PER_SESSION = "per_session"  # fixed for a session (e.g. derived only from the methodology)


# A global detector sees the context and everything detected so far; a node detector also gets the
# node's state and that node's values so far.
GlobalCompute = Callable[["DetectionContext", "DetectionResult"], SignalScalar | None]
NodeCompute = Callable[["DetectionContext", "NodeState", SignalMap, "DetectionResult"], SignalScalar | None]


class SignalRegistryError(ValueError):
    """The registry is inconsistent (duplicate, unknown dependency, cycle, meta ordering)."""


class UnknownSignalError(SignalRegistryError):
    """A requested signal has no detector."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = sorted(names)
        super().__init__(f"no detector for signal(s): {', '.join(self.names)}")


@dataclass(frozen=True)
class SignalDetector:
    """One signal's declaration and its computation.

    Global detectors get `(ctx, result so far)`; node detectors get
    `(ctx, node state, this node's values so far, result so far)`.
    """

    name: str
    pool: SignalPool
    scope: SignalScope
    value_type: ValueType
    cost: CostTier
    refresh: RefreshTrigger
    depends_on: tuple[str, ...] = ()
    compute_global: GlobalCompute | None = None
    compute_node: NodeCompute | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if not self.name.startswith(f"{self.pool.value}."):
            raise SignalRegistryError(f"{self.name}: name must start with its pool {self.pool.value!r}")
        if is_node_scoped(self.name) != (self.scope is SignalScope.NODE):
            raise SignalRegistryError(f"{self.name}: scope {self.scope.value} disagrees with its prefix")
        if (self.scope is SignalScope.NODE) != (self.compute_node is not None) or (
            self.compute_global is None
        ) == (self.compute_node is None):
            raise SignalRegistryError(f"{self.name}: needs exactly the compute function of its scope")


@dataclass(frozen=True)
class DetectionPlan:
    """The detectors to run, in order (pass 1 then pass 2)."""

    detectors: tuple[SignalDetector, ...]

    @property
    def names(self) -> frozenset[str]:
        """Every signal the plan computes."""
        return frozenset(d.name for d in self.detectors)

    @property
    def needs_rubric(self) -> bool:
        """Whether any planned detector reads the rubric (the HIGH-cost LLM pool)."""
        return any(d.pool is SignalPool.LLM for d in self.detectors)


@dataclass
class DetectionResult:
    """Signal values: global by name, and per tracked node (`node key -> name -> value`)."""

    global_signals: SignalMap = field(default_factory=dict)
    node_signals: dict[str, SignalMap] = field(default_factory=dict)


class SignalRegistry:
    """Holds detectors, validates the dependency graph and builds/executes detection plans."""

    def __init__(self, detectors: Iterable[SignalDetector] = ()) -> None:
        self._detectors: dict[str, SignalDetector] = {}
        self._plans: dict[frozenset[str], DetectionPlan] = {}
        for detector in detectors:
            self.register(detector)

    def register(self, detector: SignalDetector) -> None:
        """Add a detector; duplicate names are an error."""
        if detector.name in self._detectors:
            raise SignalRegistryError(f"duplicate detector {detector.name!r}")
        self._detectors[detector.name] = detector
        self._plans.clear()

    def names(self) -> list[str]:
        """Every registered signal name, in registration order."""
        return list(self._detectors)

    def get(self, name: str) -> SignalDetector:
        """The detector of `name` (`UnknownSignalError` when absent)."""
        try:
            return self._detectors[name]
        except KeyError:
            raise UnknownSignalError([name]) from None

    def __contains__(self, name: object) -> bool:
        return name in self._detectors

    def validate(self) -> None:
        """Check the whole graph: known dependencies, no cycles, no non-meta → meta dependency."""
        self.plan(self._detectors)

    def plan(self, names: Iterable[str]) -> DetectionPlan:
        """The ordered detectors computing `names` and their transitive dependencies (cached)."""
        wanted = frozenset(names)
        cached = self._plans.get(wanted)
        if cached is not None:
            return cached
        unknown = [n for n in wanted if n not in self._detectors]
        if unknown:
            raise UnknownSignalError(unknown)
        closure: set[str] = set()
        stack = list(wanted)
        while stack:
            name = stack.pop()
            if name in closure:
                continue
            closure.add(name)
            detector = self._detectors[name]
            for dep in detector.depends_on:
                if dep not in self._detectors:
                    raise SignalRegistryError(f"{name} depends on unknown signal {dep!r}")
                if detector.pool is not SignalPool.META and self._detectors[dep].pool is SignalPool.META:
                    raise SignalRegistryError(
                        f"{name} (pass 1) depends on meta signal {dep!r} (pass 2); meta signals come last"
                    )
                stack.append(dep)
        first = [d for d in self._detectors.values() if d.name in closure and d.pool is not SignalPool.META]
        second = [d for d in self._detectors.values() if d.name in closure and d.pool is SignalPool.META]
        ordered = tuple(_toposort(first)) + tuple(_toposort(second))
        plan = DetectionPlan(ordered)
        self._plans[wanted] = plan
        return plan

    def detect(self, plan: DetectionPlan, ctx: DetectionContext) -> DetectionResult:
        """Run `plan` against `ctx`; undefined values (None) are left out."""
        result = DetectionResult()
        states = list(ctx.tracker.states.values())
        for state in states:
            result.node_signals[state.node_id] = {}
        for detector in plan.detectors:
            if detector.compute_global is not None:
                value = detector.compute_global(ctx, result)
                if value is not None:
                    result.global_signals[detector.name] = value
                continue
            compute = detector.compute_node
            assert compute is not None  # guaranteed by SignalDetector.__post_init__
            for state in states:
                node_values = result.node_signals[state.node_id]
                value = compute(ctx, state, node_values, result)
                if value is not None:
                    node_values[detector.name] = value
        return result


def _toposort(detectors: list[SignalDetector]) -> list[SignalDetector]:
    """Kahn's algorithm over dependencies inside `detectors`; ties keep registration order."""
    names = {d.name for d in detectors}
    pending = {d.name: {dep for dep in d.depends_on if dep in names} for d in detectors}
    ordered: list[SignalDetector] = []
    remaining = list(detectors)
    while remaining:
        ready = [d for d in remaining if not pending[d.name]]
        if not ready:
            cycle = sorted(d.name for d in remaining)
            raise SignalRegistryError(f"dependency cycle among: {', '.join(cycle)}")
        for d in ready:
            ordered.append(d)
            for deps in pending.values():
                deps.discard(d.name)
        done = {d.name for d in ready}
        remaining = [d for d in remaining if d.name not in done]
    return ordered
