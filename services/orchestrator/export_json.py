"""The JSON session export: what a researcher needs, sized to fit one gRPC message.

Schema. Messages are written as `MessageToDict` writes them (proto field names, enums by name,
int64 as strings, default values left out) unless said otherwise:

- ``session``: the Session, whole.
- ``transcript``: every utterance, whole.
- ``graph``: the surface graph, whole: ``nodes`` and ``edges`` with their provenance and quotes,
  and ``state`` (the final GraphState, per-node degrees included).
- ``canonical_graph``: ``slots``, ``mappings``, ``edges``, ``state`` and ``comparison``, whole.
- ``turns``: one record per completed turn, in order. A record starts with ``turn_number``,
  ``question`` (the question the respondent answered), ``answer`` (their text) and
  ``answer_utterance_id``, from the transcript, so that it reads on its own. Then come the stored
  TurnResult's fields as they are: extracted (concepts and relationships with their quotes),
  graph_state, canonical_graph, graph_comparison, saturation, strategy_selected, focus_node_id,
  focus_label, rubric, next_question, should_continue, termination_reason, intent, phase,
  latency_ms, stage_timings, usage; except these, which are trimmed or rewritten:

  ===========================  ====================================================================
  TurnResult field             in the record
  ===========================  ====================================================================
  score_decomposition          ``selected_candidate``: the selected candidate with its whole
                               decomposition (every weight's contribution); the others are
                               dropped. Absent when nothing was scored (a rephrased question).
  node_signals                 ``focus_node_signals``: the focus node's only (absent without one).
  strategy_alternatives        the best TOP_ALTERNATIVES, each with the ``node_label`` of its node.
  nodes_added, nodes_mentioned,
  edges_added                  ids into ``graph``, where the nodes and edges are whole; what the
                               answer said about them (labels, types, quotes) is in ``extracted``.
  graph_state.node_degrees     dropped (recomputable from ``graph.edges`` and their created_turn).
  session_id (record and       dropped (the document's session).
  graph_state)
  extracted utterance ids      dropped where they are the answer's (all of them, normally).
  ===========================  ====================================================================

  Signal values (``signals``, ``focus_node_signals``, the selected candidate's ``raw_value``) are
  plain JSON values: ``{"llm.response_depth": "moderate"}`` rather than the SignalValue oneof.
  ``omitted`` counts, per trimmed list, the entries left out, so a reader knows what is missing.

Layout: the document's sections and the graph's parts one key per line, every list one element
per line, each element compact (`jq .` indents it). Indenting inside the elements, as the export
did before, adds half again to the size.

Why: message size. A stored TurnResult carries the full decomposition of 50 candidates and the
signals of every node of the graph: 80-480 KB of protobuf a turn, about twice that as indented
JSON, growing with the graph. The export of a 50-60-turn session was 7-11 MB (over the 4 MB a
gRPC client receives by default: RESOURCE_EXHAUSTED) and of a 200-turn session 65-145 MB (over the
server's own 16 MB send limit, so nobody could fetch it). Those are scorer diagnostics for
debugging; they stay whole in the stored TurnResults and in each SubmitTurn/StreamTurn reply.

Measured (`len(to_json(...).encode())`): a record is 8-10 KB whatever the graph size. A real
offline interview (the in-process suite, 54 turns, 53 nodes) exports 0.50 MB, was 7.9 MB. The
synthetic 200-turn sessions of tests/unit/orchestrator/long_session.py, shaped like that
interview's turns: growing by 3 nodes and 2 edges a turn (the bench's growth, 600 nodes) 3.1 MB,
was 115 MB; by 2 and 1, 2.6 MB (was 85 MB); by 4 and 3 (800 nodes), 3.6 MB. Turns take about
1.9 MB of it; the rest is the graph, kept whole, which is what grows beyond that.
tests/unit/orchestrator/test_export_json.py keeps the 3-node session under 4 MB.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb

# Ranked alternatives a turn record keeps: the selected one and the four runners-up. The scoring
# service returns 10 by default, and every candidate with alternatives_limit=0.
TOP_ALTERNATIVES = 5
# TurnResult fields a record writes itself instead of as proto JSON.
_REWRITTEN = (
    "session_id",
    "score_decomposition",
    "node_signals",
    "strategy_alternatives",
    "nodes_added",
    "nodes_mentioned",
    "edges_added",
    "signals",
)

JsonScalar = bool | int | float | str | None


def _dict(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True)


def _value(value: common_pb2.SignalValue) -> JsonScalar:
    """A signal value as a plain JSON value (proto JSON nests it in its oneof, and writes an int64
    as a string)."""
    kind = value.WhichOneof("kind")
    if kind is None:
        return None
    plain: JsonScalar = getattr(value, kind)
    if isinstance(plain, float) and not math.isfinite(plain):
        # JSON has no NaN or infinity (JSON.parse rejects them): the strings proto JSON writes.
        return "NaN" if math.isnan(plain) else ("Infinity" if plain > 0 else "-Infinity")
    return plain


def _signals(signals: Mapping[str, common_pb2.SignalValue]) -> dict[str, JsonScalar]:
    return {name: _value(v) for name, v in sorted(signals.items())}


def _candidate(candidate: common_pb2.ScoredCandidate) -> dict[str, Any]:
    out = _dict(candidate)
    # MessageToDict leaves out nothing from a repeated field, so the lists line up.
    for item, contribution in zip(out.get("contributions", []), candidate.contributions, strict=True):
        if contribution.HasField("raw_value"):
            item["raw_value"] = _value(contribution.raw_value)
    return out


def _selected_candidate(turn: pb.TurnResult) -> common_pb2.ScoredCandidate | None:
    """The candidate the turn went with: the one flagged selected, else the one matching the
    selected strategy and focus, else none (nothing was scored)."""
    flagged = next((c for c in turn.score_decomposition if c.selected), None)
    if flagged is not None:
        return flagged
    return next(
        (
            c
            for c in turn.score_decomposition
            if c.strategy == turn.strategy_selected and c.node_id == turn.focus_node_id
        ),
        None,
    )


def turn_record(
    turn: pb.TurnResult, question: str = "", answer: pb.Utterance | None = None
) -> dict[str, Any]:
    """The export record of one turn: the TurnResult without its bulky diagnostics (see the module
    docstring), with the question it answered and the answer (its transcript utterance)."""
    light = pb.TurnResult()
    light.CopyFrom(turn)
    for name in _REWRITTEN:
        light.ClearField(name)
    light.graph_state.ClearField("session_id")
    light.graph_state.ClearField("node_degrees")
    answer_id = answer.utterance_id if answer is not None else ""
    if answer_id:
        # Everything extracted in a turn comes from its answer: saying so once is enough.
        extracted: list[common_pb2.ExtractedConcept | common_pb2.ExtractedRelationship] = [
            *light.extracted.concepts,
            *light.extracted.relationships,
        ]
        for item in extracted:
            if item.source_utterance_id == answer_id:
                item.ClearField("source_utterance_id")
            if item.quote.utterance_id == answer_id:
                item.quote.ClearField("utterance_id")

    labels = {c.node_id: c.node_label for c in turn.score_decomposition if c.node_id}
    alternatives = []
    for alternative in turn.strategy_alternatives[:TOP_ALTERNATIVES]:
        entry = _dict(alternative)
        if alternative.node_id in labels:
            entry["node_label"] = labels[alternative.node_id]
        alternatives.append(entry)
    selected = _selected_candidate(turn)
    focus = next(
        (n for n in turn.node_signals if turn.focus_node_id and n.node_id == turn.focus_node_id), None
    )

    # The conversation first, then what was learned, then the decisions.
    record: dict[str, Any] = {
        "turn_number": turn.turn_number,
        "question": question,
        "answer": answer.text if answer is not None else "",
        "answer_utterance_id": answer_id,
    }
    record.update(_dict(light))
    record["nodes_added"] = [n.id for n in turn.nodes_added]
    record["nodes_mentioned"] = [n.id for n in turn.nodes_mentioned]
    record["edges_added"] = [e.id for e in turn.edges_added]
    record["signals"] = _signals(turn.signals)
    record["strategy_alternatives"] = alternatives
    if selected is not None:
        record["selected_candidate"] = _candidate(selected)
    if focus is not None:
        record["focus_node_signals"] = _signals(focus.signals)
    record["omitted"] = {
        "score_decomposition": len(turn.score_decomposition) - (selected is not None),
        "node_signals": len(turn.node_signals) - (focus is not None),
        "strategy_alternatives": len(turn.strategy_alternatives) - len(alternatives),
        "graph_state.node_degrees": len(turn.graph_state.node_degrees),
    }
    return record


def _dumps(value: Any, depth: int = 0) -> str:
    """The layout of the module docstring: the document and its sections one key per line (depth
    0 and 1), their lists one element per line (down to depth 2), each element compact."""
    pad = "  " * (depth + 1)
    if isinstance(value, dict) and value and depth < 2:
        items = [
            f"{pad}{json.dumps(k, ensure_ascii=False)}: {_dumps(v, depth + 1)}" for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + "  " * depth + "}"
    if isinstance(value, list) and value and depth < 3:
        items = [f"{pad}{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}" for v in value]
        return "[\n" + ",\n".join(items) + "\n" + "  " * depth + "]"
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def to_json(
    session: pb.GetSessionResponse, graph: pb.GetSessionGraphResponse, turns: Iterable[pb.TurnResult]
) -> str:
    """The JSON document: session, transcript, surface and canonical graphs whole, and a record per
    turn (see the module docstring). `turns` may be a generator: each TurnResult is turned into its
    record and let go before the next is read, so the full messages are never all held at once."""
    questions: dict[int, str] = {}
    answers: dict[int, pb.Utterance] = {}
    for u in session.transcript:
        if u.speaker == common_pb2.SPEAKER_INTERVIEWER:
            questions[u.turn_number] = u.text
        elif u.speaker == common_pb2.SPEAKER_RESPONDENT:
            answers[u.turn_number] = u
    document = {
        "session": _dict(session.session),
        "transcript": [_dict(u) for u in session.transcript],
        "graph": {
            "nodes": [_dict(n) for n in graph.nodes],
            "edges": [_dict(e) for e in graph.edges],
            "state": _dict(graph.graph_state),
        },
        "canonical_graph": {
            "slots": [_dict(s) for s in graph.slots],
            "mappings": [_dict(m) for m in graph.mappings],
            "edges": [_dict(e) for e in graph.canonical_edges],
            "state": _dict(graph.canonical_state),
            "comparison": _dict(graph.comparison),
        },
        # The question of turn n was asked at the end of turn n - 1 (turn 0: the opening question).
        "turns": [
            turn_record(t, questions.get(t.turn_number - 1, ""), answers.get(t.turn_number)) for t in turns
        ],
    }
    return _dumps(document) + "\n"
