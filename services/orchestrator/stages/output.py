"""Stages 8-10: question generation (LLM #2, streamable), response saving, scoring persistence."""

from __future__ import annotations

import time
from collections.abc import Iterable

import grpc.aio

from services.orchestrator.contracts import (
    DEPTH_HISTORY_MAX,
    STRATEGY_HISTORY_MAX,
    ContextLoadingOutput,
    ContinuationOutput,
    ExtractionOutput,
    FocusRecord,
    GraphUpdateOutput,
    PendingSlotDiscovery,
    QuestionGenerationOutput,
    ResponseSavingOutput,
    RubricOutput,
    ScoringPersistenceOutput,
    SessionState,
    SlotDiscoveryOutput,
    SrlOutput,
    StageName,
    StateComputationOutput,
    StrategySelectionOutput,
    UsageRecord,
)
from services.orchestrator.pipeline import PipelineContext, Stage
from services.orchestrator.repository import utc_now, utterance_id
from services.orchestrator.stages.common import StageDeps, known_labels, node_labels
from services.orchestrator.stages.graph import discovery_request
from services.orchestrator.tracking import newest_labels, oldest_labels_of
from shared.channels import effective_timeout, error_from_rpc
from shared.errors import DependencyDeadlineError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2
from shared.gen.interview.question.v1 import question_pb2
from shared.gen.interview.slots.v1 import slots_pb2
from shared.signal_catalog import SIGNAL_CATALOG

RATIONALE_SIGNALS = 5
SUMMARY_LABELS = 12


class QuestionGenerationStage(Stage):
    """Stage 8: the follow-up question, a rephrased question, or the closing message."""

    name = StageName.QUESTION_GENERATION
    costly = True  # an LLM call

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> QuestionGenerationOutput:
        loaded = ctx.get(ContextLoadingOutput)
        decision = ctx.get(ContinuationOutput)
        deps = self._d.deps
        if decision.next_action == "rephrase":
            rephrased: question_pb2.RephraseQuestionResponse = await deps(
                deps.question.RephraseQuestion,
                question_pb2.RephraseQuestionRequest(
                    session_id=loaded.session_id,
                    methodology=loaded.methodology,
                    question=loaded.previous_question,
                    respondent_text=ctx.turn.text,
                    concept=loaded.concept,
                    attempt=loaded.state.rephrasings + 1,
                ),
                service="question",
            )
            return QuestionGenerationOutput(
                question=rephrased.question, kind="rephrase", usage=rephrased.usage
            )
        summary = await self._summary(ctx)
        recent = [
            *loaded.recent_turns,
            common_pb2.ConversationTurn(
                speaker=common_pb2.SPEAKER_RESPONDENT, text=ctx.turn.text, turn_number=ctx.turn.turn_number
            ),
        ][-self._d.settings.recent_turns :]
        if decision.next_action == "closing":
            closing: question_pb2.GenerateClosingMessageResponse = await deps(
                deps.question.GenerateClosingMessage,
                question_pb2.GenerateClosingMessageRequest(
                    session_id=loaded.session_id,
                    methodology=loaded.methodology,
                    concept=loaded.concept,
                    recent_turns=recent,
                    termination_reason=decision.termination_reason,  # type: ignore[arg-type]
                    graph_summary=summary,
                ),
                service="question",
            )
            return QuestionGenerationOutput(question=closing.message, kind="closing", usage=closing.usage)
        request = self._follow_up_request(ctx, recent, summary)
        if ctx.emit is None:
            unary: question_pb2.GenerateFollowUpQuestionResponse = await deps(
                deps.question.GenerateFollowUpQuestion, request, service="question"
            )
            return QuestionGenerationOutput(question=unary.question, kind="follow_up", usage=unary.usage)
        final = await self._stream(ctx, request)
        return QuestionGenerationOutput(question=final.question, kind="follow_up", usage=final.usage)

    def _follow_up_request(
        self,
        ctx: PipelineContext,
        recent: list[common_pb2.ConversationTurn],
        summary: question_pb2.GraphSummary,
    ) -> question_pb2.GenerateFollowUpQuestionRequest:
        loaded = ctx.get(ContextLoadingOutput)
        selected = ctx.get(StrategySelectionOutput)
        srl = ctx.get(SrlOutput)
        selection = selected.selection
        return question_pb2.GenerateFollowUpQuestionRequest(
            session_id=loaded.session_id,
            turn_number=ctx.turn.turn_number,
            methodology=loaded.methodology,
            concept=loaded.concept,
            strategy=selection.strategy,
            focus=question_pb2.FocusNode(
                node_id=selection.focus_node_id,
                label=selected.focus_label,
                node_type=selected.focus_node_type,
            ),
            focus_mode=selection.focus_mode,
            recent_turns=recent,
            graph_summary=summary,
            rationale=rationale(selection.decomposition),
            previous_questions=loaded.previous_questions,
            phase=selection.phase,
            respondent_intent=srl.intent,  # type: ignore[arg-type]
        )

    async def _stream(
        self, ctx: PipelineContext, request: question_pb2.GenerateFollowUpQuestionRequest
    ) -> question_pb2.GenerateFollowUpQuestionResponse:
        """Relay question deltas to the client as they arrive; return the final sanitised question."""
        timeout = effective_timeout(self._d.deps.timeout_s)
        if timeout is not None and timeout <= 0:
            raise DependencyDeadlineError("question")
        final = question_pb2.GenerateFollowUpQuestionResponse()
        try:
            stream = self._d.deps.question.StreamFollowUpQuestion(
                question_pb2.StreamFollowUpQuestionRequest(request=request), timeout=timeout
            )
            async for event in stream:
                if event.HasField("delta"):
                    await ctx.send(orchestrator_pb2.StreamTurnResponse(question_delta=event.delta))
                elif event.HasField("final"):
                    final = event.final
        except grpc.aio.AioRpcError as exc:
            raise error_from_rpc(exc, "question") from exc
        return final

    async def _summary(self, ctx: PipelineContext) -> question_pb2.GraphSummary:
        """Graph metrics, salient labels (newest first), the longest chain's labels and the
        lowest-level nodes' labels (oldest first)."""
        loaded = ctx.get(ContextLoadingOutput)
        state = ctx.get(StateComputationOutput).graph_state
        tracker = ctx.get(StrategySelectionOutput).tracker
        methodology = self._d.methodologies.get(loaded.methodology)
        path = list(state.depth.longest_chain_path)
        known = known_labels(loaded, ctx.get(GraphUpdateOutput))
        # The graph store names the chain's nodes; a state without the labels (a checkpoint from an
        # older graph store) is looked up.
        chain = list(state.depth.longest_chain_labels)
        if path and len(chain) != len(path):
            labels = await node_labels(self._d, loaded.session_id, path, known)
            chain = [labels[i][0] for i in path if i in labels]
        return question_pb2.GraphSummary(
            graph_state=state,
            # every surface node behind a slot is named: the respondent said them apart
            node_labels=newest_labels(tracker, SUMMARY_LABELS, known),
            longest_chain_labels=chain,
            element_labels=oldest_labels_of(tracker, methodology.lowest_level_types, SUMMARY_LABELS, known),
        )


def rationale(decomposition: Iterable[common_pb2.ScoredCandidate]) -> list[question_pb2.SignalRationale]:
    """The selected candidate's top contributions, with what each signal means."""
    selected = next((c for c in decomposition if c.selected), None)
    if selected is None:
        return []
    top = sorted(selected.contributions, key=lambda c: abs(c.contribution), reverse=True)
    out: list[question_pb2.SignalRationale] = []
    for item in top:
        if item.contribution == 0:
            continue
        spec = SIGNAL_CATALOG.get(item.signal_name)
        out.append(
            question_pb2.SignalRationale(
                signal_name=item.weight_key or item.signal_name,
                value=item.raw_value,
                contribution=item.contribution,
                description=spec.description if spec else "",
            )
        )
        if len(out) == RATIONALE_SIGNALS:
            break
    return out


class ResponseSavingStage(Stage):
    """Stage 9: the interviewer's next utterance. Its row is written in stage 10's transaction (one
    commit fewer on the critical path, and the question never shows in the transcript of a turn
    that is not completed); its id is deterministic (session, turn, speaker)."""

    name = StageName.RESPONSE_SAVING

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> ResponseSavingOutput:
        question = ctx.get(QuestionGenerationOutput).question
        ident = utterance_id(ctx.turn.session_id, ctx.turn.turn_number, common_pb2.SPEAKER_INTERVIEWER)
        return ResponseSavingOutput(system_utterance_id=ident, question_text=question)


class ScoringPersistenceStage(Stage):
    """Stage 10: histories, counters, tracker, usage and the result, committed atomically."""

    name = StageName.SCORING_PERSISTENCE
    # Its output is the stored turn result: committed with the turn, nothing to resume after it.
    checkpointed = False
    completes_turn = True

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> ScoringPersistenceOutput:
        loaded = ctx.get(ContextLoadingOutput)
        selected = ctx.get(StrategySelectionOutput)
        decision = ctx.get(ContinuationOutput)
        question = ctx.get(QuestionGenerationOutput)
        result = build_result(ctx)
        new_state = next_session_state(loaded.state, ctx, result)
        status = "active" if decision.should_continue else "completed"
        values: dict[str, object] = {
            "state": new_state.model_dump(mode="json"),
            # The tracker's stored form is built once per turn, here.
            "node_tracker_state": selected.tracker.to_dict(),
            "phase": int(selected.selection.phase),
            "current_question": question.question,
            "status": status,
            "termination_reason": int(decision.termination_reason),
        }
        if status == "completed":
            values["ended_at"] = utc_now()
        await self._d.repo.complete_turn(
            ctx.turn.session_id,
            ctx.turn.turn_number,
            result.SerializeToString(),
            values,
            question=ctx.get(ResponseSavingOutput).question_text,
        )
        return ScoringPersistenceOutput(result=result)


def _usages(ctx: PipelineContext) -> list[tuple[str, common_pb2.LlmUsage]]:
    usages = [
        ("extraction", ctx.get(ExtractionOutput).response.usage),
        ("scoring", ctx.get(RubricOutput).rubric.usage),
        ("generation", ctx.get(QuestionGenerationOutput).usage),
    ]
    slots = ctx.get(SlotDiscoveryOutput)
    # A replayed discovery (a retry after a crash) was already paid for and counted.
    if slots.response is not None and not slots.response.replayed:
        usages.append(("scoring", slots.response.usage))
    # A deferred discovery ran in the background after its turn: counted when a turn completes it
    # (a replay of the background run carries that run's usage; each pending turn completes once).
    usages.extend(("scoring", response.usage) for response in slots.caught_up)
    return usages


def deferred_request(ctx: PipelineContext) -> slots_pb2.DiscoverSlotsRequest | None:
    """This turn's DiscoverSlots request when slot discovery is deferred (sent in the background)."""
    loaded = ctx.get(ContextLoadingOutput)
    if loaded.slot_mode != "deferred":
        return None
    return discovery_request(loaded, ctx.get(GraphUpdateOutput), ctx.turn.turn_number)


def usage_summary(records: dict[str, UsageRecord]) -> orchestrator_pb2.UsageSummary:
    """Totals and per-client sums as the public API reports them."""
    total = common_pb2.LlmUsage(client="total")
    by_client = []
    for name in sorted(records):
        r = records[name]
        item = common_pb2.LlmUsage(
            client=name,
            provider=r.provider,
            model=r.model,
            input_tokens=r.input_tokens,
            output_tokens=r.output_tokens,
            cost_usd=r.cost_usd,
            latency_ms=r.latency_ms,
            calls=r.calls,
        )
        by_client.append(item)
        total.input_tokens += r.input_tokens
        total.output_tokens += r.output_tokens
        total.cost_usd += r.cost_usd
        total.latency_ms += r.latency_ms
        total.calls += r.calls
    return orchestrator_pb2.UsageSummary(total=total, by_client=by_client)


def turn_usage(ctx: PipelineContext) -> dict[str, UsageRecord]:
    """This turn's usage per logical client."""
    records: dict[str, UsageRecord] = {}
    for client, usage in _usages(ctx):
        records[client] = records.get(client, UsageRecord(client=client)).add(usage)
    return records


def build_result(ctx: PipelineContext) -> orchestrator_pb2.TurnResult:
    """The seed's TurnResult with every observability field."""
    loaded = ctx.get(ContextLoadingOutput)
    extraction = ctx.get(ExtractionOutput).response
    update = ctx.get(GraphUpdateOutput).response
    state = ctx.get(StateComputationOutput)
    selected = ctx.get(StrategySelectionOutput)
    selection = selected.selection
    decision = ctx.get(ContinuationOutput)
    srl = ctx.get(SrlOutput)
    saturation = state.saturation
    result = orchestrator_pb2.TurnResult(
        session_id=loaded.session_id,
        turn_number=ctx.turn.turn_number,
        extracted=orchestrator_pb2.ExtractionSummary(
            concepts=extraction.concepts,
            relationships=extraction.relationships,
            skipped=extraction.skipped,
            skip_reason=extraction.skip_reason,
            warnings=[*extraction.warnings, *update.warnings],
        ),
        nodes_added=_without_embeddings(update.nodes_created),
        nodes_mentioned=_without_embeddings([m.node for m in update.nodes_mentioned]),
        edges_added=update.edges_created,
        graph_state=state.graph_state,
        saturation=orchestrator_pb2.SaturationMetrics(
            consecutive_low_info=saturation.consecutive_low_info,
            consecutive_shallow=saturation.consecutive_shallow,
            consecutive_depth_plateau=saturation.consecutive_depth_plateau,
            prev_max_depth=saturation.prev_max_depth,
            new_info=state.new_info,
            surface_velocity_peak=saturation.surface_velocity_peak,
            is_saturated=decision.termination_reason
            in {
                common_pb2.TERMINATION_REASON_GRAPH_SATURATED,
                common_pb2.TERMINATION_REASON_QUALITY_DEGRADED,
                common_pb2.TERMINATION_REASON_DEPTH_PLATEAU,
                common_pb2.TERMINATION_REASON_ALL_NODES_EXHAUSTED,
                common_pb2.TERMINATION_REASON_SATURATED,
            },
        ),
        signals=dict(selection.signals),
        node_signals=selection.node_signals,
        strategy_selected=selection.strategy,
        focus_node_id=selection.focus_node_id,
        focus_label=selected.focus_label,
        strategy_alternatives=selection.alternatives,
        score_decomposition=selection.decomposition,
        rubric=ctx.get(RubricOutput).rubric,
        next_question=ctx.get(QuestionGenerationOutput).question,
        should_continue=decision.should_continue,
        termination_reason=decision.termination_reason,  # type: ignore[arg-type]
        intent=srl.intent,  # type: ignore[arg-type]
        phase=selection.phase,
        latency_ms=int((time.time() - ctx.started_at) * 1000),
        stage_timings=ctx.timings,
        usage=usage_summary(turn_usage(ctx)),
    )
    if state.canonical_state is not None:
        result.canonical_graph.CopyFrom(state.canonical_state)
    if state.comparison is not None:
        result.graph_comparison.CopyFrom(state.comparison)
    return result


def _without_embeddings(nodes: Iterable[common_pb2.Node]) -> list[common_pb2.Node]:
    out = []
    for node in nodes:
        copy = common_pb2.Node()
        copy.CopyFrom(node)
        del copy.embedding[:]
        out.append(copy)
    return out


def next_session_state(
    previous: SessionState, ctx: PipelineContext, result: orchestrator_pb2.TurnResult
) -> SessionState:
    """The session state after this turn (histories bounded as the seed's deques)."""
    state = ctx.get(StateComputationOutput)
    rubric = ctx.get(RubricOutput)
    usage = dict(previous.usage)
    for client, record in turn_usage(ctx).items():
        base = usage.get(client, UsageRecord(client=client))
        usage[client] = UsageRecord(
            client=client,
            provider=record.provider or base.provider,
            model=record.model or base.model,
            input_tokens=base.input_tokens + record.input_tokens,
            output_tokens=base.output_tokens + record.output_tokens,
            cost_usd=base.cost_usd + record.cost_usd,
            latency_ms=base.latency_ms + record.latency_ms,
            calls=base.calls + record.calls,
        )
    focus = FocusRecord(
        turn=ctx.turn.turn_number,
        node_id=result.focus_node_id,
        label=result.focus_label,
        strategy=result.strategy_selected,
    )
    request = deferred_request(ctx)
    return SessionState(
        # Every earlier pending discovery was completed by this turn's slot-discovery stage.
        pending_slots=[]
        if request is None
        else [PendingSlotDiscovery(turn=ctx.turn.turn_number, request=request)],
        strategy_history=[*previous.strategy_history, result.strategy_selected][-STRATEGY_HISTORY_MAX:],
        focus_history=[*previous.focus_history, focus],
        response_depth_history=[*previous.response_depth_history, rubric.depth_score][-DEPTH_HISTORY_MAX:],
        saturation=state.saturation,
        usage=usage,
        rephrasings=previous.rephrasings + 1 if ctx.get(QuestionGenerationOutput).kind == "rephrase" else 0,
    )
