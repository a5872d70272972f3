"""Per-node state across turns (the seed's `NodeStateTracker`; its `NodeState` is in `shared.node_state`),
pure and synchronous.

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
from dataclasses import dataclass
from typing import Any

from shared.node_state import RESPONSE_DEPTHS, NodeState, NodeTrackerStateError, merge_into

NODE_TRACKER_SCHEMA_VERSION = 1
"""Version of the `to_dict` layout; `from_dict` rejects anything newer."""

Resolver = Callable[[str], str]


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
            merge_into(self.states[new], state)
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
