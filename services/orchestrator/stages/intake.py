"""Stages 1-3: context loading, utterance saving, preprocessing, extraction and the rubric."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from opentelemetry import trace

from services.orchestrator.contracts import (
    ContextLoadingOutput,
    ExtractionOutput,
    RubricOutput,
    SessionState,
    SrlOutput,
    StageName,
    UtteranceSavingOutput,
)
from services.orchestrator.models import SessionRow
from services.orchestrator.pipeline import ContractError, PipelineContext, Stage
from services.orchestrator.repository import Utterance, utterance_id
from services.orchestrator.stages.common import StageDeps, depth_score
from services.orchestrator.tracking import load_tracker, tracked_surface_ids
from shared.errors import FailedPreconditionError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.extraction.v1 import extraction_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.gen.interview.scoring.v1 import scoring_pb2

RESPONDENT = common_pb2.SPEAKER_RESPONDENT
INTERVIEWER = common_pb2.SPEAKER_INTERVIEWER
# Intents after which the answer carries no content to extract.
NO_EXTRACTION_INTENTS = {common_pb2.RESPONDENT_INTENT_CLARIFICATION_REQUEST}
# Up to this many existing nodes go to extraction as-is; beyond, the most relevant by embedding.
EXISTING_NODE_LIMIT = 80
NODE_LOOKUP_SPAN = "turn.node_lookup"
PREPROCESS_SPAN = "turn.preprocess"

_tracer = trace.get_tracer("interview.orchestrator.stages")


async def existing_nodes(
    d: StageDeps, session_id: str, text: str, *, known_count: int = 0
) -> list[extraction_pb2.ExistingNode]:
    """All existing nodes when few, else the most relevant to the answer by embedding.

    `known_count` (the nodes the session's tracker holds) only picks the first call: a graph
    already known to be large goes straight to the search, which is right for a graph of any size.
    Labels and types are all extraction needs, so the nodes come without their provenance."""
    basic = graph_pb2.NODE_VIEW_BASIC
    if known_count <= EXISTING_NODE_LIMIT:
        listing: graph_pb2.ListNodesResponse = await d.deps(
            d.deps.graph.ListNodes,
            graph_pb2.ListNodesRequest(session_id=session_id, page_size=EXISTING_NODE_LIMIT, view=basic),
            service="graph_store",
        )
        if listing.total_size <= EXISTING_NODE_LIMIT:
            return [_existing(n) for n in listing.nodes]
    found: graph_pb2.SearchNodesResponse = await d.deps(
        d.deps.graph.SearchNodes,
        graph_pb2.SearchNodesRequest(
            session_id=session_id, query=text, limit=EXISTING_NODE_LIMIT, view=basic
        ),
        service="graph_store",
    )
    return [_existing(r.node) for r in found.results]


def start_node_lookup(
    d: StageDeps, session: SessionRow, text: str
) -> asyncio.Task[list[extraction_pb2.ExistingNode]]:
    """`existing_nodes` for the turn's answer as a task (context loading collects it)."""
    known = len(tracked_surface_ids(session.node_tracker_state))

    async def lookup() -> list[extraction_pb2.ExistingNode]:
        # Its own span in the turn's trace: started before any stage, the graph store call would
        # otherwise hang directly under the turn with nothing saying why it ran.
        with _tracer.start_as_current_span(NODE_LOOKUP_SPAN) as span:
            span.set_attribute("session.id", session.id)
            return await existing_nodes(d, session.id, text, known_count=known)

    return asyncio.create_task(lookup())


@dataclass
class EarlyIntake:
    """What the turn's first stages read or ask for that depends only on the session and the
    answer: started by `TurnService` as soon as the session is read, so it runs while the turn is
    recorded (a database write) instead of after it; context loading and preprocessing collect it.
    """

    node_lookup: asyncio.Task[list[extraction_pb2.ExistingNode]]
    utterances: asyncio.Task[list[Utterance]]
    preprocess: asyncio.Task[extraction_pb2.PreprocessResponse]

    async def settle(self) -> None:
        """Cancel what went unused (its stage was restored from a checkpoint, or the turn failed
        first) and collect every outcome, so no failure goes unretrieved."""
        tasks = (self.node_lookup, self.utterances, self.preprocess)
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def start_intake(d: StageDeps, session: SessionRow, text: str) -> EarlyIntake:
    """Start the node lookup, the transcript read and the preprocessing call of a turn."""

    async def preprocess() -> extraction_pb2.PreprocessResponse:
        # A span of its own for the same reason as the node lookup's.
        with _tracer.start_as_current_span(PREPROCESS_SPAN) as span:
            span.set_attribute("session.id", session.id)
            request = extraction_pb2.PreprocessRequest(
                text=text,
                question=session.current_question,
                enable_srl=d.settings.enable_srl,
                topic=topic_words(session.concept),
            )
            response: extraction_pb2.PreprocessResponse = await d.deps(
                d.deps.extraction.Preprocess, request, service="extraction"
            )
            return response

    return EarlyIntake(
        node_lookup=start_node_lookup(d, session, text),
        utterances=asyncio.create_task(d.repo.list_utterances(session.id)),
        preprocess=asyncio.create_task(preprocess()),
    )


# Preprocess rejects a topic longer than its text limit (5000 by default); a long vocabulary is a
# hint worth its first terms, never a failed turn.
MAX_TOPIC_CHARS = 500


def topic_words(concept: Mapping[str, Any]) -> str:
    """The concept's name and vocabulary (as many terms as fit `MAX_TOPIC_CHARS`): what an on-topic
    answer may mention."""
    terms = [str(concept.get("name") or ""), *(str(t) for t in concept.get("vocabulary") or [])]
    out = ""
    for term in (t.strip() for t in terms):
        joined = f"{out}; {term}" if out else term
        if term and len(joined) <= MAX_TOPIC_CHARS:
            out = joined
    return out


def _intake(ctx: PipelineContext) -> EarlyIntake:
    """The turn's early intake (`TurnService` starts it before it records the turn)."""
    if ctx.turn.early is None:
        raise ContractError("the turn's early intake was not started")
    return ctx.turn.early


def _existing(node: common_pb2.Node) -> extraction_pb2.ExistingNode:
    return extraction_pb2.ExistingNode(node_id=node.id, label=node.label, node_type=node.node_type)


class ContextLoadingStage(Stage):
    """Stage 1: load the session, its state, tracker and recent conversation from storage."""

    name = StageName.CONTEXT_LOADING

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> ContextLoadingOutput:
        session = ctx.turn.session or await self._d.repo.get_session(ctx.turn.session_id)
        if session.turn_count + 1 != ctx.turn.turn_number:
            raise FailedPreconditionError(
                f"expected turn_number {session.turn_count + 1}",
                metadata={"expected_turn_number": str(session.turn_count + 1)},
            )
        # Loaded while the node lookup and the preprocessing are under way in other processes,
        # rather than on the critical path after the graph update (~0.7 ms at 150 nodes).
        tracker = load_tracker(session.node_tracker_state)
        # The transcript and the nodes extraction will be shown were read and looked up while the
        # turn was recorded: they depend only on the session and the answer, and the lookup was
        # otherwise a round trip between the preprocessing and the extraction call.
        early = _intake(ctx)
        utterances, known = await early.utterances, await early.node_lookup
        # Earlier turns only: the read runs beside the write that stores this turn's answer (a
        # resumed turn's is stored already), and every consumer adds the answer itself.
        utterances = [u for u in utterances if u.turn_number < ctx.turn.turn_number]
        questions = [u for u in utterances if u.speaker == INTERVIEWER]
        recent = [
            common_pb2.ConversationTurn(
                speaker=u.speaker,
                text=u.text,
                turn_number=u.turn_number,
                utterance_id=u.id,
            )
            for u in utterances[-self._d.settings.recent_turns :]
        ]
        concept = common_pb2.Concept(**session.concept)
        return ContextLoadingOutput(
            session_id=session.id,
            methodology=session.methodology,
            concept=concept,
            turn_number=ctx.turn.turn_number,
            max_turns=session.max_turns,
            previous_question=session.current_question,
            recent_turns=recent,
            previous_questions=[q.text for q in questions],
            state=SessionState.model_validate(session.state or {}),
            tracker=tracker,
            canonical_enabled=session.canonical_enabled and self._d.settings.enable_canonical_slots,
            slot_mode=self._d.settings.canonical_slots_mode,
            existing_nodes=known,
        )

    async def restore(self, ctx: PipelineContext, stored: str) -> ContextLoadingOutput:
        """The checkpoint, with the tracker of the session row (which only the turn's completion
        changes, so a resumed turn reads the one its first attempt read)."""
        data = json.loads(stored)
        if "tracker" not in data:
            session = ctx.turn.session or await self._d.repo.get_session(ctx.turn.session_id)
            data["tracker"] = session.node_tracker_state or {}
        return ContextLoadingOutput.model_validate(data)


class UtteranceSavingStage(Stage):
    """Stage 2: the answer as an utterance. `begin_turn` stored it with the turn row (one commit
    fewer per turn); its id is deterministic (session, turn, speaker)."""

    name = StageName.UTTERANCE_SAVING

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> UtteranceSavingOutput:
        ident = utterance_id(ctx.turn.session_id, ctx.turn.turn_number, RESPONDENT)
        return UtteranceSavingOutput(
            turn_number=ctx.turn.turn_number, user_utterance_id=ident, text=ctx.turn.text
        )


class SrlStage(Stage):
    """Stage 2.5: linguistic preprocessing and the respondent's intent (extraction service)."""

    name = StageName.SRL

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> SrlOutput:
        # Started with the turn: the question being answered comes from the session row read under
        # the turn's lock (the same text context loading reports as previous_question).
        response = await _intake(ctx).preprocess
        intent = response.intent.intent or common_pb2.RESPONDENT_INTENT_ANSWER
        return SrlOutput(preprocess=response, intent=intent, intent_confidence=response.intent.confidence)


class ExtractionStage(Stage):
    """Stage 3: concepts and relationships of the answer (extraction service; LLM #1)."""

    name = StageName.EXTRACTION
    costly = True  # an LLM call

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> ExtractionOutput:
        loaded = ctx.get(ContextLoadingOutput)
        saved = ctx.get(UtteranceSavingOutput)
        srl = ctx.get(SrlOutput)
        if srl.intent in NO_EXTRACTION_INTENTS:
            return ExtractionOutput(
                response=extraction_pb2.ExtractResponse(skipped=True, skip_reason="clarification request"),
                skipped_for_intent=True,
            )
        existing = loaded.existing_nodes
        if existing is None:  # a checkpoint written before context loading looked them up
            existing = await existing_nodes(self._d, loaded.session_id, ctx.turn.text)
        request = extraction_pb2.ExtractRequest(
            session_id=loaded.session_id,
            utterance_id=saved.user_utterance_id,
            text=ctx.turn.text,
            question=loaded.previous_question,
            recent_turns=loaded.recent_turns,
            methodology=loaded.methodology,
            concept=loaded.concept,
            existing_nodes=existing,
            srl=srl.preprocess,
        )
        response: extraction_pb2.ExtractResponse = await self._d.deps(
            self._d.deps.extraction.Extract, request, service="extraction"
        )
        return ExtractionOutput(response=response)


class RubricStage(Stage):
    """The rubric call (LLM #1'), concurrent with extraction: it needs only question and answer."""

    name = StageName.RUBRIC
    costly = True  # an LLM call

    def __init__(self, d: StageDeps) -> None:
        self._d = d

    async def run(self, ctx: PipelineContext) -> RubricOutput:
        loaded = ctx.get(ContextLoadingOutput)
        request = scoring_pb2.ScoreResponseRequest(
            session_id=loaded.session_id, question=loaded.previous_question, answer=ctx.turn.text
        )
        response: scoring_pb2.ScoreResponseResponse = await self._d.deps(
            self._d.deps.scoring.ScoreResponse, request, service="scoring"
        )
        return RubricOutput(rubric=response.rubric, depth_score=depth_score(list(response.rubric.scores)))
