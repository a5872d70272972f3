"""Stages 6-7: strategy selection (scoring service) and the continuation decision."""

from __future__ import annotations

import contextlib
import json

from services.orchestrator.contracts import (
    ContextLoadingOutput,
    ContinuationOutput,
    GraphUpdateOutput,
    RubricOutput,
    SrlOutput,
    StageName,
    StateComputationOutput,
    StrategySelectionOutput,
)
from services.orchestrator.pipeline import PipelineContext, Stage
from services.orchestrator.rules import FocusedNode, decide
from services.orchestrator.stages.common import StageDeps, known_labels, node_labels
from services.orchestrator.stages.graph import resolve_slots
from services.orchestrator.tracking import (
    first_surface_id,
    resolved_copy,
    surface_ids,
    to_proto,
    tracked_focus,
)
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.scoring.v1 import scoring_pb2
from shared.methodology import phase_for
from shared.methodology_models import FocusMode, InterviewPhase, MethodologyConfig
from shared.node_state import depth_label_for_score
from shared.node_tracker import NodeStateTracker, UnknownNodeError

INTENT = common_pb2.RespondentIntent
# Intents after which the next question leaves the previous focus (a clarification request only
# once rewording it stopped helping; see `rephrases`).
MOVE_OFF_INTENTS = frozenset(
    {INTENT.RESPONDENT_INTENT_SKIP_REQUEST, INTENT.RESPONDENT_INTENT_CLARIFICATION_REQUEST}
)
PHASES = {
    InterviewPhase.EARLY: common_pb2.INTERVIEW_PHASE_EARLY,
    InterviewPhase.MID: common_pb2.INTERVIEW_PHASE_MID,
    InterviewPhase.LATE: common_pb2.INTERVIEW_PHASE_LATE,
}
FOCUS_MODES = {
    FocusMode.RECENT_NODE: common_pb2.FOCUS_MODE_RECENT_NODE,
    FocusMode.SUMMARY: common_pb2.FOCUS_MODE_SUMMARY,
    FocusMode.TOPIC: common_pb2.FOCUS_MODE_TOPIC,
}
SELECTION_MODES = {
    "joint": scoring_pb2.SELECTION_MODE_JOINT,
    "two_stage": scoring_pb2.SELECTION_MODE_TWO_STAGE,
}


class StrategySelectionStage(Stage):
    """Stage 6: signals over every pool and the joint (strategy, node) ranking; tracker focus update."""

    name = StageName.STRATEGY_SELECTION

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> StrategySelectionOutput:
        loaded = ctx.get(ContextLoadingOutput)
        update = ctx.get(GraphUpdateOutput)
        srl = ctx.get(SrlOutput)
        rubric = ctx.get(RubricOutput)
        state = ctx.get(StateComputationOutput)
        methodology = self._d.methodologies.get(loaded.methodology)
        turn = ctx.turn.turn_number
        tracker = await self._tracker(loaded, update, state)
        if rephrases(loaded, srl, self._d.settings.max_rephrasings):
            selection = self._repeat_previous(loaded, tracker, methodology, turn)
        else:
            _attribute_depth(tracker, srl.intent, rubric.depth_score, turn)
            selection = await self._select(loaded, tracker, rubric, state, ctx.turn.text)
            if srl.intent in MOVE_OFF_INTENTS:
                selection = _move_off(selection, tracker.previous_focus, methodology)
            _focus(tracker, selection, turn)
        label, node_type = await self._label(loaded, update, tracker, selection.focus_node_id)
        return StrategySelectionOutput(
            selection=selection, focus_label=label, focus_node_type=node_type, tracker=tracker
        )

    async def restore(self, ctx: PipelineContext, stored: str) -> StrategySelectionOutput:
        """The checkpoint, with the tracker rebuilt: the graph update's, updated as `run` did with
        the stored selection (no call to the scoring service)."""
        data = json.loads(stored)
        if "tracker" in data:  # a checkpoint written with it
            return StrategySelectionOutput.model_validate(data)
        out = StrategySelectionOutput.model_validate({**data, "tracker": {}})
        srl = ctx.get(SrlOutput)
        turn = ctx.turn.turn_number
        tracker = await self._tracker(
            ctx.get(ContextLoadingOutput), ctx.get(GraphUpdateOutput), ctx.get(StateComputationOutput)
        )
        if not rephrases(ctx.get(ContextLoadingOutput), srl, self._d.settings.max_rephrasings):
            _attribute_depth(tracker, srl.intent, ctx.get(RubricOutput).depth_score, turn)
            _focus(tracker, out.selection, turn)
        return out.model_copy(update={"tracker": tracker})

    async def _tracker(
        self, loaded: ContextLoadingOutput, update: GraphUpdateOutput, state: StateComputationOutput
    ) -> NodeStateTracker:
        """The tracker after stage 4, keyed by canonical slot where a mapping exists."""
        if state.slot_ids is not None:  # resolved by state computation
            return resolved_copy(update.tracker, state.slot_ids)
        if not loaded.canonical_enabled or not update.tracker.states:
            return resolved_copy(update.tracker)
        # A state computation checkpointed before it resolved the tracker's nodes.
        slot_ids = await resolve_slots(self._d, loaded.session_id, surface_ids(update.tracker))
        return resolved_copy(update.tracker, slot_ids)

    async def _select(
        self,
        loaded: ContextLoadingOutput,
        tracker: NodeStateTracker,
        rubric: RubricOutput,
        state: StateComputationOutput,
        answer: str,
    ) -> scoring_pb2.SelectStrategyResponse:
        history = loaded.state.strategy_history
        inputs = scoring_pb2.SignalInputs(
            session_id=loaded.session_id,
            methodology=loaded.methodology,
            turn_number=loaded.turn_number,
            max_turns=loaded.max_turns,
            graph_state=state.graph_state,
            node_tracker=to_proto(tracker),
            answer=answer,
            question=loaded.previous_question,
            strategy_history=history,
            response_depth_history=loaded.state.response_depth_history,
            velocity=scoring_pb2.VelocityInputs(
                surface_delta=state.surface_delta,
                surface_peak=state.saturation.surface_velocity_peak,
                canonical_delta=state.canonical_delta,
            ),
            rubric=rubric.rubric,
            canonical_enabled=loaded.canonical_enabled,
        )
        if state.canonical_state is not None:
            inputs.canonical_state.CopyFrom(state.canonical_state)
        request = scoring_pb2.SelectStrategyRequest(
            inputs=inputs,
            mode=SELECTION_MODES[self._d.settings.selection_mode],
        )
        response: scoring_pb2.SelectStrategyResponse = await self._d.deps(
            self._d.deps.scoring.SelectStrategy, request, service="scoring"
        )
        return response

    def _repeat_previous(
        self,
        loaded: ContextLoadingOutput,
        tracker: NodeStateTracker,
        methodology: MethodologyConfig,
        turn: int,
    ) -> scoring_pb2.SelectStrategyResponse:
        """A clarification request keeps the previous strategy and focus (the question is rephrased)."""
        strategy = loaded.state.strategy_history[-1] if loaded.state.strategy_history else ""
        config = methodology.strategy(strategy)
        return scoring_pb2.SelectStrategyResponse(
            strategy=strategy,
            focus_node_id=tracker.previous_focus or "",
            focus_mode=FOCUS_MODES[config.focus_mode] if config else common_pb2.FOCUS_MODE_RECENT_NODE,
            phase=PHASES[phase_for(turn, loaded.max_turns)],
        )

    async def _label(
        self, loaded: ContextLoadingOutput, update: GraphUpdateOutput, tracker: NodeStateTracker, key: str
    ) -> tuple[str, str]:
        """The focus node's label and type: from the nodes the turn already holds, else looked up
        by id over the whole graph (the tracker's own label is the last resort)."""
        if not key:
            return "", ""
        surface = first_surface_id(tracker, key)
        labels = await node_labels(self._d, loaded.session_id, [surface], known_labels(loaded, update))
        if surface in labels:
            return labels[surface]
        state = tracker.states.get(key)
        return (state.label, state.node_type) if state else ("", "")


def rephrases(loaded: ContextLoadingOutput, srl: SrlOutput, max_rephrasings: int) -> bool:
    """Whether the turn answers with a rewording of the last question: the respondent asked what it
    means, and it has been reworded fewer than `max_rephrasings` times in a row. After that the
    interview moves on, as after a skip request: other words for it did not help."""
    return (
        srl.intent == INTENT.RESPONDENT_INTENT_CLARIFICATION_REQUEST
        and loaded.state.rephrasings < max_rephrasings
    )


def _attribute_depth(tracker: NodeStateTracker, intent: int, depth_score: int, turn: int) -> None:
    """The answer's depth belongs to the node the answered question was about (not after a skip or
    a question the respondent did not understand: nothing was answered)."""
    if intent in MOVE_OFF_INTENTS:
        return
    # UnknownNodeError: the previous focus left the graph (graph deleted): nothing to attribute.
    with contextlib.suppress(UnknownNodeError):
        tracker.append_response_signal(None, depth_label_for_score(depth_score), turn_number=turn)


def _focus(tracker: NodeStateTracker, selection: scoring_pb2.SelectStrategyResponse, turn: int) -> None:
    """Record the selected focus (none when the node left the graph)."""
    try:
        tracker.update_focus(selection.focus_node_id or None, turn, selection.strategy)
    except UnknownNodeError:
        tracker.update_focus(None, turn, selection.strategy)


def _move_off(
    selection: scoring_pb2.SelectStrategyResponse, previous_focus: str | None, methodology: MethodologyConfig
) -> scoring_pb2.SelectStrategyResponse:
    """After a skip request, take the best candidate that does not focus the skipped node."""
    if not previous_focus or selection.focus_node_id != previous_focus:
        return selection
    for candidate in selection.decomposition:
        if candidate.node_id and candidate.node_id == previous_focus:
            continue
        chosen = scoring_pb2.SelectStrategyResponse()
        chosen.CopyFrom(selection)
        chosen.strategy = candidate.strategy
        chosen.focus_node_id = candidate.node_id
        config = methodology.strategy(candidate.strategy)
        if config is not None:
            chosen.focus_mode = FOCUS_MODES[config.focus_mode]
            chosen.generates_closing_question = config.generates_closing_question
        for item in chosen.decomposition:
            item.selected = item.strategy == candidate.strategy and item.node_id == candidate.node_id
        return chosen
    return selection


class ContinuationStage(Stage):
    """Stage 7: the respondent's stop, hard stops and saturation rules; what to say next."""

    name = StageName.CONTINUATION

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> ContinuationOutput:
        loaded = ctx.get(ContextLoadingOutput)
        srl = ctx.get(SrlOutput)
        state = ctx.get(StateComputationOutput)
        selected = ctx.get(StrategySelectionOutput)
        decision = decide(
            turn_number=loaded.turn_number,
            max_turns=loaded.max_turns,
            phase=selected.selection.phase,
            closing_selected=selected.selection.generates_closing_question,
            stop_requested=srl.intent == INTENT.RESPONDENT_INTENT_STOP_REQUEST,
            saturation=state.saturation,
            nodes=[FocusedNode(count, since) for count, since in tracked_focus(selected.tracker)],
            rules=self._d.rules,
        )
        if not decision.should_continue:
            action = "closing"
        elif rephrases(loaded, srl, self._d.settings.max_rephrasings):
            action = "rephrase"
        else:
            action = "follow_up"
        return ContinuationOutput(
            should_continue=decision.should_continue,
            termination_reason=decision.reason,
            turns_remaining=max(0, loaded.max_turns - loaded.turn_number),
            next_action=action,
        )
