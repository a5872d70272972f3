"""Run one simulated interview through the public API and collect its record.

CreateSession → (respondent answers, SubmitTurn) until `should_continue` is false →
GetSession → GetSessionGraph. The runner never reads internal services: everything in the
record comes from InterviewService responses plus what the respondent says it revealed.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime

import structlog

from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.llm.base import LLMUsage
from simulation.client import InterviewClient
from simulation.convert import graph_snapshot, session_summary, turn_record
from simulation.records import RunMeta, RunRecord, Usage
from simulation.respondent import Respondent
from simulation.scenarios import Scenario

log = structlog.get_logger(__name__)


@dataclass(frozen=True)
class RunSpec:
    """What to run: a concept's scenario answered by a persona, with a seed."""

    scenario: Scenario
    persona: str
    seed: int
    max_turns: int = 0  # 0 = the concept's own max_turns
    turn_cap: int = 200  # a runner-side safety net: EndSession after this many turns


# The namespace of the simulator's session keys (a fixed UUID, derived from a name to stay readable).
_KEY_NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "interview-simulation/session-key")


def session_key(spec: RunSpec, engine: str) -> str:
    """The CreateSession request id of a run: a function of the run spec alone.

    The orchestrator derives the session id from it, and the offline interviewer varies its
    phrasing by session id; with the seeded respondent, the same spec on a fresh store therefore
    gives the same interview word for word (a random session id made every rerun differ).
    """
    parts = (spec.scenario.id, spec.persona, spec.seed, engine, spec.max_turns, spec.turn_cap)
    return str(uuid.uuid5(_KEY_NAMESPACE, "|".join(str(p) for p in parts)))


def _usage(u: LLMUsage) -> Usage:
    return Usage(
        input_tokens=u.input_tokens, output_tokens=u.output_tokens, cost_usd=u.cost_usd, calls=u.calls
    )


async def run_interview(client: InterviewClient, respondent: Respondent, spec: RunSpec) -> RunRecord:
    """Conduct one interview end to end and return its record (metrics not yet computed)."""
    scenario = spec.scenario
    started = datetime.now(UTC)
    metadata = {
        "simulation": "true",
        "persona": spec.persona,
        "scenario": scenario.id,
        "seed": str(spec.seed),
        "engine": respondent.engine,
    }
    key = session_key(spec, respondent.engine)
    created = await client.create_session(
        scenario.concept_id, max_turns=spec.max_turns, metadata=metadata, request_id=key
    )
    reproducible = created.session.turn_count == 0 and created.session.status == pb.SESSION_STATUS_ACTIVE
    if not reproducible:
        # This store already holds the run (an earlier run of the same spec): the key returned
        # that session. Interview afresh under a random key; the record says it is not the
        # reproducible one.
        log.warning(
            "simulation_rerun_on_same_store",
            session_id=created.session.session_id,
            scenario=scenario.id,
            persona=spec.persona,
            seed=spec.seed,
        )
        created = await client.create_session(
            scenario.concept_id, max_turns=spec.max_turns, metadata=metadata
        )
    session_id = created.session.session_id
    question = created.opening_question
    meta = RunMeta(
        run_id=f"{scenario.id}__{spec.persona}__s{spec.seed}__{uuid.uuid4().hex[:6]}",
        concept_id=scenario.concept_id,
        methodology=created.session.methodology or scenario.methodology,
        persona=spec.persona,
        scenario_id=scenario.id,
        seed=spec.seed,
        engine=respondent.engine,
        target=client.target,
        max_turns=created.session.max_turns,
        reproducible=reproducible,
        started_at=started,
    )
    turns = []
    closing = ""
    turn = 1
    while True:
        answer = await respondent.answer(question, turn)
        result = await client.submit_turn(session_id, turn, answer)
        record = turn_record(question, answer, result)
        said = respondent.log[-1] if respondent.log else None
        if said is not None and said.turn == turn:
            record = record.model_copy(
                update={
                    "respondent_kind": said.kind,
                    "focus_element": said.focus_element,
                    "revealed_elements": said.revealed_elements,
                    "revealed_links": said.revealed_links,
                    "mentioned_elements": said.mentioned_elements,
                    "behaviours": said.behaviours,
                    "nothing_left": said.nothing_left,
                }
            )
        turns.append(record)
        log.debug("simulation_turn", session_id=session_id, turn=turn, strategy=record.strategy)
        if not result.should_continue:
            closing = result.next_question
            break
        if turn >= spec.turn_cap:
            ended = await client.end_session(session_id)
            closing = ended.closing_message
            break
        question = result.next_question
        turn += 1
    session = session_summary(await client.get_session(session_id))
    graph = graph_snapshot(await client.get_graph(session_id))
    elements, links = respondent.revealed()
    meta = meta.model_copy(update={"finished_at": datetime.now(UTC)})
    return RunRecord(
        meta=meta,
        opening_question=created.opening_question,
        closing_message=closing,
        turns=turns,
        graph=graph,
        session=session,
        respondent_usage=_usage(respondent.usage),
        revealed_elements=sorted(elements),
        revealed_links=sorted(links),
    )
