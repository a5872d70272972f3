"""Per-node state across turns (the seed's `NodeState` / `NodeStateTracker`), pure and synchronous.

The orchestrator owns and persists the tracker (`to_dict` → JSON column, `from_dict` at the start
of the next turn); the scoring service only reads it. Every mutation is deterministic and takes
the turn number where the seed does, so replaying the same calls gives the same state.

Turn flow (turn n):

1. `advance_to(n)` (also implied by any mutation that carries `turn_number=n`);
2. graph update: `register_node` for new nodes, `update_edge` / `update_edge_counts` for new edges,
   `record_yield(previous_focus, n, changes)` for what the answer produced (zero changes is a
   legitimate "no yield" record);
3. rubric: `append_response_signal(None, depth)` appends the answer's depth to the PREVIOUS focus
   (the node the answered question was about);
4. strategy selection reads the tracker; then `update_focus(selected_node, n, strategy)`
   (or `update_focus(None, n, strategy)` when the strategy has no node).

Counter semantics (documented because the seed left them implicit; the reference never advanced
its yield counter at all):

* the clock is the highest turn number seen; `turns_since_last_focus = clock − last_focus_turn`
  (`clock − created_at_turn` for a never-focused node), recomputed whenever the clock moves;
* `turns_since_last_yield` counts the answers ABOUT this node (recorded with `record_yield`) that
  produced nothing since its last yield — "questions about this concept have produced nothing new".
  A node nobody asked about does not stagnate by ageing. The orchestrator therefore calls
  `record_yield(previous_focus, n, changes)` every turn, with an empty summary when nothing new came;
* `current_focus_streak` counts consecutive selections of this node; it is 0 for every node that is
  not the current focus, and a yield resets it (the seed: "yield breaks the streak").

Canonical slots: with `resolve` (surface node id → slot id; it must return its input for ids it
does not know), every public method maps its node ids through the same `_key`, so register,
focus, yield, response signals and edge counts all land on the slot. A state registered under a
surface id before its slot mapping existed is moved (or merged) onto the slot the first time the
resolver maps it, so focus updates are never lost between surface and slot keys; `reconcile()`
re-keys everything at once after new mappings arrive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any

NODE_TRACKER_SCHEMA_VERSION = 1
"""Version of the `to_dict` layout; `from_dict` rejects anything newer."""

RESPONSE_DEPTHS: tuple[str, ...] = ("surface", "shallow", "moderate", "deep")
"""Categories of `llm.response_depth` (rubric 1 → surface, 2 → shallow, 3 → moderate, 4–5 → deep)."""

SHALLOW_DEPTHS = frozenset({"surface", "shallow"})
RECENT_RESPONSES = 3
"""How many of a node's latest answers the shallow share looks at (SPEC: last 3)."""

Resolver = Callable[[str], str]


def depth_label_for_score(score: int) -> str:
    """The `llm.response_depth` category of a rubric depth score 1–5 (SPEC mapping)."""
    if not 1 <= score <= 5:
        raise ValueError(f"rubric depth score must be 1-5, got {score}")
    return RESPONSE_DEPTHS[min(score, 4) - 1]


class NodeTrackerStateError(ValueError):
    """Persisted tracker data that cannot be loaded (unknown schema version, malformed fields)."""


class UnknownNodeError(KeyError):
    """A mutation named a node that was never registered (neither as surface id nor as slot)."""


@dataclass(frozen=True)
class GraphChangeSummary:
    """What one answer added to the graph, attributed to the node the question was about."""

    nodes_added: int = 0
    edges_added: int = 0
    nodes_modified: int = 0

    @property
    def is_yield(self) -> bool:
        """Whether anything changed (SPEC: re-mentioned nodes are not yield; pass them as 0)."""
        return self.nodes_added > 0 or self.edges_added > 0 or self.nodes_modified > 0


@dataclass(slots=True)
class NodeState:
    """Everything tracked about one node (or canonical slot): every field of the seed's NodeState.

    Extra fields beyond the seed: `surface_node_ids` (the surface nodes aggregated under this key,
    registration order), `last_response_turn` and `last_outcome_turn` (the last turn whose answer
    depth / yield outcome was recorded: they make `append_response_signal` and `record_yield`
    idempotent per turn).
    """

    node_id: str
    label: str
    created_at_turn: int
    depth: int = 0
    node_type: str = ""
    is_terminal: bool = False
    level: int = 0
    # engagement
    focus_count: int = 0
    last_focus_turn: int | None = None
    turns_since_last_focus: int = 0
    current_focus_streak: int = 0
    # yield
    last_yield_turn: int | None = None
    turns_since_last_yield: int = 0
    yield_count: int = 0
    yield_rate: float = 0.0
    last_outcome_turn: int | None = None
    # response quality
    all_response_depths: list[str] = field(default_factory=list)
    last_response_turn: int | None = None
    # relationships
    connected_node_ids: set[str] = field(default_factory=set)
    edge_count_outgoing: int = 0
    edge_count_incoming: int = 0
    # strategy usage
    strategy_usage_count: dict[str, int] = field(default_factory=dict)
    last_strategy_used: str | None = None
    consecutive_same_strategy: int = 0
    # canonical aggregation
    surface_node_ids: list[str] = field(default_factory=list)

    @property
    def is_orphan(self) -> bool:
        """True when the node has no edges at all."""
        return self.edge_count_incoming + self.edge_count_outgoing == 0

    @property
    def edge_count(self) -> int:
        """Incoming plus outgoing edges."""
        return self.edge_count_incoming + self.edge_count_outgoing

    @property
    def shallow_share(self) -> float:
        """Share of the last 3 answers about this node that were surface or shallow (0 with none)."""
        recent = self.all_response_depths[-RECENT_RESPONSES:]
        if not recent:
            return 0.0
        return sum(1 for d in recent if d in SHALLOW_DEPTHS) / len(recent)

    def refresh(self, clock: int) -> None:
        """Recompute the clock-derived `turns_since_last_focus`."""
        focus_base = self.last_focus_turn if self.last_focus_turn is not None else self.created_at_turn
        self.turns_since_last_focus = max(0, clock - focus_base)

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible form (sets become sorted lists)."""
        # Field by field, copying the containers: `dataclasses.asdict` deep-copies recursively and
        # was the orchestrator's largest single cost of serialising a 100-node tracker each stage.
        data = {name: getattr(self, name) for name in _NODE_STATE_FIELDS}
        data["all_response_depths"] = list(self.all_response_depths)
        data["connected_node_ids"] = sorted(self.connected_node_ids)
        data["strategy_usage_count"] = dict(self.strategy_usage_count)
        data["surface_node_ids"] = list(self.surface_node_ids)
        return data

    def copy(self) -> NodeState:
        """An independent copy (its containers copied too), without `from_dict`'s checks: the
        source is already valid, and a 150-node tracker copies in about half the time it loads."""
        state = NodeState(*_state_fields(self))
        state.all_response_depths = list(self.all_response_depths)
        state.connected_node_ids = set(self.connected_node_ids)
        state.strategy_usage_count = dict(self.strategy_usage_count)
        state.surface_node_ids = list(self.surface_node_ids)
        return state

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NodeState:
        """Inverse of `to_dict`; raises `NodeTrackerStateError` on missing or mistyped fields."""
        try:
            state = cls(
                node_id=str(data["node_id"]),
                label=str(data.get("label", "")),
                created_at_turn=int(data["created_at_turn"]),
                depth=int(data.get("depth", 0)),
                node_type=str(data.get("node_type", "")),
                is_terminal=bool(data.get("is_terminal", False)),
                level=int(data.get("level", 0)),
                focus_count=int(data.get("focus_count", 0)),
                last_focus_turn=_opt_int(data.get("last_focus_turn")),
                turns_since_last_focus=int(data.get("turns_since_last_focus", 0)),
                current_focus_streak=int(data.get("current_focus_streak", 0)),
                last_yield_turn=_opt_int(data.get("last_yield_turn")),
                turns_since_last_yield=int(data.get("turns_since_last_yield", 0)),
                yield_count=int(data.get("yield_count", 0)),
                yield_rate=float(data.get("yield_rate", 0.0)),
                last_outcome_turn=_opt_int(data.get("last_outcome_turn")),
                all_response_depths=[str(d) for d in data.get("all_response_depths", [])],
                last_response_turn=_opt_int(data.get("last_response_turn")),
                connected_node_ids={str(n) for n in data.get("connected_node_ids", [])},
                edge_count_outgoing=int(data.get("edge_count_outgoing", 0)),
                edge_count_incoming=int(data.get("edge_count_incoming", 0)),
                strategy_usage_count={
                    str(k): int(v) for k, v in data.get("strategy_usage_count", {}).items()
                },
                last_strategy_used=data.get("last_strategy_used") or None,
                consecutive_same_strategy=int(data.get("consecutive_same_strategy", 0)),
                surface_node_ids=[str(s) for s in data.get("surface_node_ids", [])],
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise NodeTrackerStateError(f"malformed node state {data.get('node_id')!r}: {exc!r}") from exc
        bad = [d for d in state.all_response_depths if d not in RESPONSE_DEPTHS]
        if bad:
            raise NodeTrackerStateError(f"node {state.node_id!r}: unknown response depths {bad}")
        return state


_NODE_STATE_FIELDS = tuple(f.name for f in fields(NodeState))
# Every field's value in declaration order (the positional arguments of the constructor).
_state_fields = attrgetter(*_NODE_STATE_FIELDS)


def _opt_int(value: Any) -> int | None:
    return None if value is None else int(value)


def _max_opt(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


class NodeStateTracker:
    """All node states of one session plus the previous focus; see the module docstring for semantics."""

    def __init__(self, resolve: Resolver | None = None) -> None:
        self.states: dict[str, NodeState] = {}
        self.previous_focus: str | None = None
        self.clock: int = 0
        self._resolve = resolve

    # -- keys -----------------------------------------------------------------------------------
    def set_resolver(self, resolve: Resolver | None) -> None:
        """Install (or remove) the surface → slot resolver; call `reconcile()` to re-key existing states."""
        self._resolve = resolve

    def key_for(self, node_id: str) -> str:
        """The tracking key of `node_id` without changing anything (slot id, or the id itself)."""
        return self._resolve(node_id) if self._resolve is not None else node_id

    def _key(self, node_id: str) -> str:
        """The tracking key of `node_id`, moving a state registered under the surface id onto its slot."""
        key = self.key_for(node_id)
        if key != node_id and node_id in self.states:
            self._move(node_id, key)
        return key

    def _move(self, old: str, new: str) -> None:
        state = self.states.pop(old)
        if new in self.states:
            _merge_into(self.states[new], state)
        else:
            state.node_id = new
            self.states[new] = state
        for other in self.states.values():
            if old in other.connected_node_ids:
                other.connected_node_ids.discard(old)
                if other.node_id != new:
                    other.connected_node_ids.add(new)
        if self.previous_focus == old:
            self.previous_focus = new
        self.states[new].refresh(self.clock)

    def reconcile(self) -> None:
        """Re-key every state through the resolver (after new slot mappings), merging where needed."""
        for key in list(self.states):
            state = self.states.get(key)
            if state is None:
                continue
            source = state.surface_node_ids[0] if state.surface_node_ids else key
            target = self.key_for(source)
            if target != key:
                self._move(key, target)

    def _previous_key(self) -> str | None:
        """The previous focus, re-keyed onto its slot if a mapping appeared since it was set."""
        if self.previous_focus is None:
            return None
        return self._key(self.previous_focus)

    def _require(self, node_id: str) -> tuple[str, NodeState]:
        key = self._key(node_id)
        state = self.states.get(key)
        if state is None:
            raise UnknownNodeError(f"node {node_id!r} (tracking key {key!r}) is not registered")
        return key, state

    # -- clock ----------------------------------------------------------------------------------
    def advance_to(self, turn_number: int) -> None:
        """Move the clock forward to `turn_number` (never backwards) and refresh every counter."""
        if turn_number < 0:
            raise ValueError(f"turn_number must not be negative, got {turn_number}")
        if turn_number <= self.clock:
            return
        self.clock = turn_number
        for state in self.states.values():
            state.refresh(turn_number)

    # -- mutations ------------------------------------------------------------------------------
    def register_node(
        self,
        node_id: str,
        turn_number: int,
        *,
        label: str,
        node_type: str = "",
        depth: int = 0,
        level: int = 0,
        is_terminal: bool = False,
    ) -> NodeState:
        """Track a node added to the graph (idempotent: an existing key is returned unchanged).

        With a resolver, a second surface node of an already tracked slot only adds its id to
        `surface_node_ids`.
        """
        self.advance_to(turn_number)
        key = self._key(node_id)
        state = self.states.get(key)
        if state is None:
            state = NodeState(
                node_id=key,
                label=label,
                created_at_turn=turn_number,
                depth=depth,
                node_type=node_type,
                is_terminal=is_terminal,
                level=level,
            )
            self.states[key] = state
            state.refresh(self.clock)
        if node_id not in state.surface_node_ids:
            state.surface_node_ids.append(node_id)
        return state

    def update_focus(self, node_id: str | None, turn_number: int, strategy: str) -> str | None:
        """Record that `node_id` (None: no node) was selected as focus at `turn_number`.

        Returns the tracking key. Idempotent for a repeated call with the same node and turn.
        Raises `UnknownNodeError` for an unregistered node instead of silently dropping the update.
        """
        self.advance_to(turn_number)
        previous_key = self._previous_key()
        if node_id is None:
            if previous_key is not None and previous_key in self.states:
                self.states[previous_key].current_focus_streak = 0
            self.previous_focus = None
            return None
        key, state = self._require(node_id)
        if state.last_focus_turn == turn_number and self.previous_focus == key:
            return key  # repeated call for the same turn (retry): nothing to add
        if self.previous_focus is not None and self.previous_focus != key:
            previous = self.states.get(self.previous_focus)
            if previous is not None:
                previous.current_focus_streak = 0
        state.current_focus_streak = state.current_focus_streak + 1 if self.previous_focus == key else 1
        state.focus_count += 1
        state.last_focus_turn = turn_number
        state.strategy_usage_count[strategy] = state.strategy_usage_count.get(strategy, 0) + 1
        if state.last_strategy_used == strategy:
            state.consecutive_same_strategy += 1
        else:
            state.consecutive_same_strategy = 1
        state.last_strategy_used = strategy
        state.yield_rate = state.yield_count / max(state.focus_count, 1)
        state.refresh(self.clock)
        self.previous_focus = key
        return key

    def record_yield(self, node_id: str, turn_number: int, changes: GraphChangeSummary) -> bool:
        """Record what this turn's answer about `node_id` produced; returns whether it was yield.

        An empty summary is an answer without yield (`turns_since_last_yield` + 1); any change resets
        the counter and the focus streak. Idempotent per (node, turn): only the first outcome
        recorded for a turn counts.
        """
        self.advance_to(turn_number)
        _key, state = self._require(node_id)
        if state.last_outcome_turn == turn_number:
            return state.last_yield_turn == turn_number
        state.last_outcome_turn = turn_number
        if not changes.is_yield:
            state.turns_since_last_yield += 1
            return False
        state.turns_since_last_yield = 0
        state.last_yield_turn = turn_number
        state.yield_count += 1
        state.yield_rate = state.yield_count / max(state.focus_count, 1)
        state.current_focus_streak = 0
        state.refresh(self.clock)
        return True

    def append_response_signal(
        self, focus_node_id: str | None, response_depth: str, *, turn_number: int | None = None
    ) -> str | None:
        """Append an answer's depth to the node the question was about (default: the previous focus).

        Returns the key appended to, or None when there is no previous focus (e.g. the opening
        turn). With `turn_number`, a repeated call for the same turn is ignored (idempotent).
        """
        if response_depth not in RESPONSE_DEPTHS:
            raise ValueError(f"response_depth must be one of {RESPONSE_DEPTHS}, got {response_depth!r}")
        if turn_number is not None:
            self.advance_to(turn_number)
        if focus_node_id is None:
            previous_key = self._previous_key()
            if previous_key is None:
                return None
            key, state = previous_key, self.states.get(previous_key)
            if state is None:
                raise UnknownNodeError(f"previous focus {key!r} is not registered")
        else:
            key, state = self._require(focus_node_id)
        if turn_number is not None:
            if state.last_response_turn == turn_number:
                return key
            state.last_response_turn = turn_number
        state.all_response_depths.append(response_depth)
        return key

    def update_edge_counts(
        self, node_id: str, outgoing_delta: int, incoming_delta: int, *, connected_node_id: str | None = None
    ) -> None:
        """Adjust a node's edge counts (never below 0) and optionally record a neighbour."""
        key, state = self._require(node_id)
        state.edge_count_outgoing = max(0, state.edge_count_outgoing + outgoing_delta)
        state.edge_count_incoming = max(0, state.edge_count_incoming + incoming_delta)
        if connected_node_id is not None:
            other = self._key(connected_node_id)
            if other != key:
                state.connected_node_ids.add(other)

    def update_edge(self, source_id: str, target_id: str) -> None:
        """Count one new directed edge: source +1 outgoing, target +1 incoming, both connected."""
        self.update_edge_counts(source_id, 1, 0, connected_node_id=target_id)
        self.update_edge_counts(target_id, 0, 1, connected_node_id=source_id)

    # -- queries --------------------------------------------------------------------------------
    def get_state(self, node_id: str) -> NodeState | None:
        """The state tracked for `node_id` (resolved), or None."""
        return self.states.get(self.key_for(node_id))

    def __len__(self) -> int:
        return len(self.states)

    def copy(self) -> NodeStateTracker:
        """An independent copy with the same resolver: a turn's stages each change their own copy,
        so the tracker an earlier stage handed on stays as it was."""
        tracker = NodeStateTracker(resolve=self._resolve)
        tracker.states = {key: state.copy() for key, state in self.states.items()}
        tracker.previous_focus = self.previous_focus
        tracker.clock = self.clock
        return tracker

    # -- persistence ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible snapshot: schema_version, clock, previous_focus, states (by key)."""
        return {
            "schema_version": NODE_TRACKER_SCHEMA_VERSION,
            "clock": self.clock,
            "previous_focus": self.previous_focus,
            "states": {key: state.to_dict() for key, state in self.states.items()},
        }

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any] | None, *, resolve: Resolver | None = None
    ) -> NodeStateTracker:
        """Rebuild a tracker; None (a NULL column) gives a fresh tracker.

        Raises `NodeTrackerStateError` for a missing or newer `schema_version` or malformed states.
        """
        tracker = cls(resolve=resolve)
        if data is None:
            return tracker
        version = data.get("schema_version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise NodeTrackerStateError(f"node tracker state has no integer schema_version (got {version!r})")
        if version > NODE_TRACKER_SCHEMA_VERSION:
            raise NodeTrackerStateError(
                f"node tracker schema_version {version} is newer than the supported "
                f"{NODE_TRACKER_SCHEMA_VERSION}; upgrade this service before loading it"
            )
        if version < 1:
            raise NodeTrackerStateError(f"node tracker schema_version {version} is invalid (must be >= 1)")
        states = data.get("states")
        states = {} if states is None else states
        if not isinstance(states, Mapping):
            raise NodeTrackerStateError("node tracker 'states' must be a mapping of key -> state")
        for key, raw in states.items():
            if not isinstance(raw, Mapping):
                raise NodeTrackerStateError(f"node state {key!r} must be a mapping")
            state = NodeState.from_dict({**raw, "node_id": raw.get("node_id", key)})
            tracker.states[str(key)] = state
        previous = data.get("previous_focus")
        tracker.previous_focus = str(previous) if previous else None
        clock = data.get("clock")
        tracker.clock = int(clock) if isinstance(clock, int) else _max_turn(tracker.states.values())
        return tracker

    @classmethod
    def from_states(
        cls,
        states: Iterable[NodeState],
        *,
        previous_focus: str | None,
        clock: int,
        resolve: Resolver | None = None,
    ) -> NodeStateTracker:
        """A tracker over given states (e.g. converted from protobuf), counters refreshed for `clock`."""
        tracker = cls(resolve=resolve)
        for state in states:
            tracker.states[state.node_id] = state
        tracker.previous_focus = previous_focus or None
        tracker.clock = max(clock, _max_turn(tracker.states.values()))
        for state in tracker.states.values():
            state.refresh(tracker.clock)
        return tracker


def _max_turn(states: Iterable[NodeState]) -> int:
    best = 0
    for s in states:
        best = max(best, s.created_at_turn, s.last_focus_turn or 0, s.last_yield_turn or 0)
    return best


def _merge_into(target: NodeState, other: NodeState) -> None:
    """Fold `other` (a surface-keyed state) into `target` (its slot's state)."""
    target_focus_later = (target.last_focus_turn or -1) >= (other.last_focus_turn or -1)
    target.created_at_turn = min(target.created_at_turn, other.created_at_turn)
    target.depth = max(target.depth, other.depth)
    target.is_terminal = target.is_terminal or other.is_terminal
    target.focus_count += other.focus_count
    target.last_focus_turn = _max_opt(target.last_focus_turn, other.last_focus_turn)
    target.current_focus_streak = max(target.current_focus_streak, other.current_focus_streak)
    target.last_yield_turn = _max_opt(target.last_yield_turn, other.last_yield_turn)
    target.turns_since_last_yield = min(target.turns_since_last_yield, other.turns_since_last_yield)
    target.last_outcome_turn = _max_opt(target.last_outcome_turn, other.last_outcome_turn)
    target.yield_count += other.yield_count
    target.yield_rate = target.yield_count / max(target.focus_count, 1)
    target.all_response_depths.extend(other.all_response_depths)
    target.last_response_turn = _max_opt(target.last_response_turn, other.last_response_turn)
    target.connected_node_ids |= other.connected_node_ids
    target.connected_node_ids.discard(target.node_id)
    target.connected_node_ids.discard(other.node_id)
    target.edge_count_outgoing += other.edge_count_outgoing
    target.edge_count_incoming += other.edge_count_incoming
    for name, count in other.strategy_usage_count.items():
        target.strategy_usage_count[name] = target.strategy_usage_count.get(name, 0) + count
    if not target_focus_later:
        target.last_strategy_used = other.last_strategy_used
        target.consecutive_same_strategy = other.consecutive_same_strategy
    for sid in other.surface_node_ids:
        if sid not in target.surface_node_ids:
            target.surface_node_ids.append(sid)
