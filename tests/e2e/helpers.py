"""Client-side helpers of the end-to-end tests: drive interviews, read back and compare state."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2_grpc
from tests.integration.answers import ANSWERS

ROOT = Path(__file__).resolve().parents[2]
CONCEPTS_DIR = ROOT / "config" / "concepts"
TURN_DEADLINE_S = 60.0


def concept_methodologies() -> dict[str, str]:
    """concept id → methodology, read from config/concepts/*.yaml (what the deployment should serve)."""
    found: dict[str, str] = {}
    for path in sorted(CONCEPTS_DIR.glob("*.yaml")):
        document = yaml.safe_load(path.read_text())
        found[str(document["id"])] = str(document["methodology"])
    return found


def answers_for(concept: str) -> list[str]:
    """The scripted cooperative answers of a concept (tests/integration/answers.py)."""
    assert concept in ANSWERS, (
        f"no scripted answers for concept {concept!r}: add them to tests/integration/answers.py"
    )
    return ANSWERS[concept]


async def submit(
    stub: orchestrator_pb2_grpc.InterviewServiceStub, session_id: str, turn: int, text: str
) -> pb.TurnResult:
    """One SubmitTurn."""
    response: pb.SubmitTurnResponse = await stub.SubmitTurn(
        pb.SubmitTurnRequest(session_id=session_id, turn_number=turn, text=text), timeout=TURN_DEADLINE_S
    )
    return response.result


async def get_session(
    stub: orchestrator_pb2_grpc.InterviewServiceStub, session_id: str
) -> pb.GetSessionResponse:
    """GetSession."""
    response: pb.GetSessionResponse = await stub.GetSession(pb.GetSessionRequest(session_id=session_id))
    return response


async def run_interview(
    stub: orchestrator_pb2_grpc.InterviewServiceStub, concept: str, max_turns: int
) -> tuple[pb.CreateSessionResponse, list[pb.TurnResult]]:
    """CreateSession, then SubmitTurn(turn_count + 1) with the scripted answers until should_continue
    is false. Fails if the interview does not end within max_turns."""
    created: pb.CreateSessionResponse = await stub.CreateSession(
        pb.CreateSessionRequest(concept_id=concept, max_turns=max_turns)
    )
    session_id = created.session.session_id
    answers = answers_for(concept)
    results: list[pb.TurnResult] = []
    for _ in range(max_turns):
        turn = (await get_session(stub, session_id)).session.turn_count + 1
        result = await submit(stub, session_id, turn, answers[(turn - 1) % len(answers)])
        results.append(result)
        if not result.should_continue:
            break
    assert results and not results[-1].should_continue, f"{concept}: still continuing after {max_turns} turns"
    return created, results


@dataclass(frozen=True)
class SessionSnapshot:
    """Id-free view of everything a session stored, for comparing a faulted run with a clean one."""

    turn_count: int
    # (turn, speaker, respondent text): the interviewer's wording varies between sessions (the offline
    # engine picks among phrasings per session), the respondent's must not.
    transcript: tuple[tuple[int, int, str], ...]
    nodes: tuple[tuple[str, str], ...]  # sorted (label, node_type)
    edges: tuple[tuple[str, str, str], ...]  # sorted (source label, target label, edge_type)
    slots: tuple[tuple[str, str, int, int], ...]  # sorted (slot_name, node_type, status, support_count)
    mapping_count: int
    canonical_edges: tuple[tuple[str, str, str, int], ...]
    strategies: tuple[str, ...]
    focus_turns: tuple[int, ...]


async def snapshot(stub: orchestrator_pb2_grpc.InterviewServiceStub, session_id: str) -> SessionSnapshot:
    """Read a session and its graphs back through the public API (and check them for duplicates)."""
    got = await get_session(stub, session_id)
    graph: pb.GetSessionGraphResponse = await stub.GetSessionGraph(
        pb.GetSessionGraphRequest(session_id=session_id)
    )
    assert_no_duplicates(got, graph)
    labels = {n.id: n.label for n in graph.nodes}
    slot_names = {s.id: s.slot_name for s in graph.slots}
    return SessionSnapshot(
        turn_count=got.session.turn_count,
        transcript=tuple(
            (u.turn_number, u.speaker, u.text if u.speaker == common_pb2.SPEAKER_RESPONDENT else "")
            for u in got.transcript
        ),
        nodes=tuple(sorted((n.label, n.node_type) for n in graph.nodes)),
        edges=tuple(
            sorted((labels[e.source_node_id], labels[e.target_node_id], e.edge_type) for e in graph.edges)
        ),
        slots=tuple(sorted((s.slot_name, s.node_type, s.status, s.support_count) for s in graph.slots)),
        mapping_count=len(graph.mappings),
        canonical_edges=tuple(
            sorted(
                (slot_names[e.source_slot_id], slot_names[e.target_slot_id], e.edge_type, e.support_count)
                for e in graph.canonical_edges
            )
        ),
        strategies=tuple(got.session.strategy_history),
        focus_turns=tuple(f.turn for f in got.session.focus_history),
    )


def _duplicates(items: Sequence[Hashable]) -> list[Hashable]:
    return [item for item, count in Counter(items).items() if count > 1]


def assert_no_duplicates(session: pb.GetSessionResponse, graph: pb.GetSessionGraphResponse) -> None:
    """No utterance, node, edge, slot, mapping or provenance entry is stored twice."""
    transcript = session.transcript
    respondent = common_pb2.SPEAKER_RESPONDENT
    per_turn = Counter((u.turn_number, u.speaker) for u in transcript)
    assert not [key for key, n in per_turn.items() if n > 1], f"duplicate utterances: {per_turn}"
    assert len(transcript) == 2 * session.session.turn_count + 1, [
        (u.turn_number, u.speaker) for u in transcript
    ]
    utterance_ids = {u.utterance_id for u in transcript if u.speaker == respondent}
    assert not _duplicates([n.id for n in graph.nodes]), "duplicate node ids"
    assert not _duplicates([(n.label, n.node_type) for n in graph.nodes]), "duplicate node labels"
    assert not _duplicates([e.id for e in graph.edges]), "duplicate edge ids"
    assert not _duplicates([(e.source_node_id, e.target_node_id, e.edge_type) for e in graph.edges]), (
        "duplicate edges"
    )
    for node in graph.nodes:
        assert not _duplicates(list(node.source_utterance_ids)), f"{node.label}: provenance repeated"
        # Provenance points at stored utterances only (not at one from an abandoned attempt).
        assert set(node.source_utterance_ids) <= utterance_ids, f"{node.label}: unknown utterance"
        quotes = [(q.utterance_id, q.start, q.end) for q in node.quotes]
        assert not _duplicates(quotes), f"{node.label}: quote repeated"
    assert not _duplicates([s.id for s in graph.slots]), "duplicate slot ids"
    assert not _duplicates([(s.slot_name, s.node_type) for s in graph.slots]), "duplicate slots"
    assert not _duplicates([m.surface_node_id for m in graph.mappings]), "a node mapped twice"
    assert not _duplicates(
        [(e.source_slot_id, e.target_slot_id, e.edge_type) for e in graph.canonical_edges]
    ), "duplicate canonical edges"
