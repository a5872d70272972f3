"""The JSON export of a long session fits one gRPC message and keeps the researcher's record.

A 200-turn session (the longest max_turns allows) whose graph grows by 3 nodes and 2 edges a turn
(the bench's growth, 600 nodes at the end) exported 100+ MB when every TurnResult went in whole.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

import pytest

from services.orchestrator.export_json import TOP_ALTERNATIVES, to_json, turn_record
from services.orchestrator.exporter import Exporter, to_csv, to_markdown
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.sessions import SessionService
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from tests.unit.orchestrator.long_session import CANDIDATES, LongSession, answer_text, node_id, question_text

GRPC_DEFAULT_MAX_RECEIVE = 4 * 1024 * 1024
Session = tuple[pb.GetSessionResponse, pb.GetSessionGraphResponse, list[pb.TurnResult]]


@pytest.fixture(scope="module")
def long_session() -> Session:
    """A maximal session: 200 turns, 600 nodes, every TurnResult as big as the pipeline makes it."""
    return LongSession(turns=200, nodes_per_turn=3, edges_per_turn=2).build()


@pytest.fixture(scope="module")
def exported(long_session: Session) -> str:
    """Its JSON export."""
    return to_json(*long_session)


def test_a_maximal_session_exports_under_the_default_grpc_receive_limit(
    long_session: Session, exported: str
) -> None:
    _, _, turns = long_session
    # The stored results themselves are far beyond any message limit: the export must trim.
    assert sum(t.ByteSize() for t in turns) > 8 * GRPC_DEFAULT_MAX_RECEIVE
    size = len(exported.encode())
    assert size < GRPC_DEFAULT_MAX_RECEIVE, f"{size / 1e6:.2f} MB"
    # The reply message adds only the content type and file name to the content.
    reply = pb.ExportSessionResponse(content=exported, content_type="application/json", filename="s.json")
    assert reply.ByteSize() < GRPC_DEFAULT_MAX_RECEIVE


def test_a_turn_record_does_not_grow_with_the_graph(long_session: Session) -> None:
    session, _, turns = long_session
    answers = {u.turn_number: u for u in session.transcript if u.speaker == common_pb2.SPEAKER_RESPONDENT}

    def size(turn: pb.TurnResult) -> int:
        return len(json.dumps(turn_record(turn, "q", answers[turn.turn_number])))

    # Turn 10 sees 30 nodes, turn 200 sees 600: the full result grew twentyfold in its node signals.
    assert turns[199].ByteSize() > 3 * turns[9].ByteSize()
    assert size(turns[199]) < 1.2 * size(turns[9])
    assert size(turns[199]) < 16_000


def test_the_document_keeps_the_graph_transcript_and_sections_whole(
    long_session: Session, exported: str
) -> None:
    session, graph, turns = long_session
    document = json.loads(exported)
    assert list(document) == ["session", "transcript", "graph", "canonical_graph", "turns"]
    assert document["session"]["turn_count"] == 200
    assert [u["text"] for u in document["transcript"]] == [u.text for u in session.transcript]
    assert len(document["graph"]["nodes"]) == len(graph.nodes) == 600
    assert len(document["graph"]["edges"]) == len(graph.edges) == 400
    node = document["graph"]["nodes"][0]
    assert node["quotes"] and node["source_utterance_ids"]  # provenance stays
    assert len(document["graph"]["state"]["node_degrees"]) == 600  # once, for the final graph
    assert len(document["canonical_graph"]["slots"]) == len(graph.slots)
    assert [t["turn_number"] for t in document["turns"]] == [t.turn_number for t in turns]


def test_each_record_keeps_the_researchers_fields(long_session: Session, exported: str) -> None:
    _, graph, turns = long_session
    records = json.loads(exported)["turns"]
    graph_nodes = {n.id for n in graph.nodes}
    graph_edges = {e.id for e in graph.edges}
    for turn, record in zip(turns, records, strict=True):
        n = turn.turn_number
        assert record["question"] == question_text(n - 1)
        assert record["answer"] == answer_text(n)
        assert record["next_question"] == turn.next_question
        assert record["strategy_selected"] == turn.strategy_selected
        assert record["focus_node_id"] == turn.focus_node_id
        assert record["focus_label"] == turn.focus_label
        assert record["phase"] == "INTERVIEW_PHASE_MID"
        assert record["intent"] == "RESPONDENT_INTENT_ANSWER"
        assert record.get("should_continue", False) == turn.should_continue  # proto JSON omits false
        assert record["graph_state"]["node_count"] == turn.graph_state.node_count
        assert record["graph_state"]["depth"]["longest_chain_labels"]
        assert len(record["extracted"]["concepts"]) == len(turn.extracted.concepts)
        assert record["extracted"]["concepts"][0]["quote"]["text"] == turn.extracted.concepts[0].quote.text
        assert len(record["rubric"]["scores"]) == 6
        assert len(record["stage_timings"]) == len(turn.stage_timings)
        assert record["usage"]["total"]["cost_usd"] == pytest.approx(0.02)
        assert record["saturation"]["new_info"] == 7
        # Nodes and edges by id, each found whole in the graph.
        assert record["nodes_added"] == [x.id for x in turn.nodes_added]
        assert set(record["nodes_added"]) | set(record["nodes_mentioned"]) <= graph_nodes
        assert set(record["edges_added"]) <= graph_edges
    last = records[-1]
    assert last["termination_reason"] == "TERMINATION_REASON_MAX_TURNS"
    assert not last.get("should_continue")


def test_diagnostics_are_trimmed_to_the_selected_candidate_and_focus_node(
    long_session: Session, exported: str
) -> None:
    _, _, turns = long_session
    records = json.loads(exported)["turns"]
    turn, record = turns[149], records[149]
    assert {"score_decomposition", "node_signals", "session_id"}.isdisjoint(record)
    assert "node_degrees" not in record["graph_state"]

    # The top alternatives, best first, with the label of their node.
    alternatives = record["strategy_alternatives"]
    assert len(alternatives) == TOP_ALTERNATIVES
    assert [(a["strategy"], a["node_id"], a["rank"]) for a in alternatives] == [
        (a.strategy, a.node_id, a.rank) for a in turn.strategy_alternatives[:TOP_ALTERNATIVES]
    ]
    assert alternatives[0]["strategy"] == record["strategy_selected"]
    assert alternatives[0]["score"] == pytest.approx(turn.strategy_alternatives[0].score)
    labels = {c.node_id: c.node_label for c in turn.score_decomposition}
    assert [a["node_label"] for a in alternatives] == [labels[a["node_id"]] for a in alternatives]

    # The selected candidate, whole: why this strategy on this node won.
    selected = record["selected_candidate"]
    assert selected["selected"] and selected["rank"] == 1
    assert (selected["strategy"], selected["node_id"]) == (turn.strategy_selected, turn.focus_node_id)
    assert selected["final_score"] == pytest.approx(turn.score_decomposition[0].final_score)
    assert [c["weight_key"] for c in selected["contributions"]] == [
        c.weight_key for c in turn.score_decomposition[0].contributions
    ]
    assert selected["contributions"][0]["raw_value"] == "moderate"  # a plain value, not the oneof

    # The focus node's signals only, as plain values; the global signals likewise.
    focus = next(n for n in turn.node_signals if n.node_id == turn.focus_node_id)
    assert record["focus_node_signals"] == {k: v.double_value for k, v in focus.signals.items()}
    assert record["signals"]["graph.max_depth"] == pytest.approx(0.058823529411764705)
    assert record["omitted"] == {
        "score_decomposition": CANDIDATES - 1,
        "node_signals": len(turn.node_signals) - 1,
        "strategy_alternatives": len(turn.strategy_alternatives) - TOP_ALTERNATIVES,
        "graph_state.node_degrees": len(turn.graph_state.node_degrees),
    }
    # What was extracted came from this turn's answer, named once for the record.
    assert record["answer_utterance_id"].endswith(":150:r")
    concept = record["extracted"]["concepts"][0]
    assert "source_utterance_id" not in concept and "utterance_id" not in concept["quote"]


def test_a_turn_without_scoring_or_focus_has_no_selected_candidate() -> None:
    turn = pb.TurnResult(
        turn_number=3,
        strategy_selected="clarify",
        next_question="Could you say that again?",
        node_signals=[common_pb2.NodeSignals(node_id=node_id(1))],
        signals={"meta.turn": common_pb2.SignalValue(int_value=3)},
    )
    record = turn_record(turn)
    assert record["question"] == "" and record["answer"] == ""
    assert "selected_candidate" not in record and "focus_node_signals" not in record
    assert record["signals"] == {"meta.turn": 3}  # an int, where proto JSON writes "3"
    assert record["omitted"]["node_signals"] == 1


def test_the_selected_candidate_is_found_without_the_flag() -> None:
    """Results whose decomposition has no candidate flagged: the one matching strategy and focus."""
    focus = node_id(2)
    turn = pb.TurnResult(
        strategy_selected="deepen",
        focus_node_id=focus,
        score_decomposition=[
            common_pb2.ScoredCandidate(strategy="deepen", node_id=node_id(1), rank=1),
            common_pb2.ScoredCandidate(strategy="deepen", node_id=focus, rank=2),
        ],
    )
    assert turn_record(turn)["selected_candidate"]["rank"] == 2


def test_the_other_formats_stay_small(long_session: Session) -> None:
    session, graph, turns = long_session
    markdown = to_markdown(session, graph, turns)
    csv = to_csv(session, turns)
    assert len(markdown.encode()) < 1_000_000
    assert len(csv.encode()) < 1_000_000
    assert csv.count("\n") == 201  # the header and a row per turn


class _Sessions:
    def __init__(self, session: pb.GetSessionResponse, graph: pb.GetSessionGraphResponse) -> None:
        self.session, self.graph_reply = session, graph

    async def get(self, session_id: str) -> pb.GetSessionResponse:
        return self.session

    async def graph(self, session_id: str) -> pb.GetSessionGraphResponse:
        return self.graph_reply


class _Repo:
    def __init__(self, stored: Sequence[bytes]) -> None:
        self.stored = stored

    async def turn_results(self, session_id: str) -> Sequence[bytes]:
        return self.stored


async def test_the_exporter_trims_the_stored_turn_results(long_session: Session) -> None:
    session, graph, turns = long_session
    stored = [t.SerializeToString() for t in turns]
    exporter = Exporter(
        cast(SessionService, _Sessions(session, graph)), cast(OrchestratorRepository, _Repo(stored))
    )
    content, content_type, filename = await exporter.export(
        "4cb18f39f6914f9384950c8cb62503c8", pb.EXPORT_FORMAT_JSON
    )
    assert content_type == "application/json" and filename.endswith(".json")
    assert len(content.encode()) < GRPC_DEFAULT_MAX_RECEIVE
    document: dict[str, Any] = json.loads(content)
    assert [t["strategy_selected"] for t in document["turns"]] == [t.strategy_selected for t in turns]


def test_non_finite_signal_values_stay_valid_json() -> None:
    turn = pb.TurnResult(
        signals={
            "a": common_pb2.SignalValue(double_value=float("nan")),
            "b": common_pb2.SignalValue(double_value=float("-inf")),
            "c": common_pb2.SignalValue(bool_value=False),
            "d": common_pb2.SignalValue(),
        }
    )
    session = pb.GetSessionResponse(session=pb.Session(session_id="s"))
    document = json.loads(to_json(session, pb.GetSessionGraphResponse(), [turn]), parse_constant=_reject)
    assert document["turns"][0]["signals"] == {"a": "NaN", "b": "-Infinity", "c": False, "d": None}


def _reject(constant: str) -> None:
    raise AssertionError(f"{constant} is not JSON")
