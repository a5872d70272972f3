"""Session exports: json (see services/orchestrator/export_json.py for what it holds and why),
markdown (a readable report), csv (one row per turn), graphml and mermaid (the surface graph)."""

from __future__ import annotations

import asyncio
import csv
import io
import re
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from services.orchestrator.export_json import to_json
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.sessions import SessionService
from shared.errors import InvalidArgumentError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.validation import Violations

_SPEAKERS = {common_pb2.SPEAKER_INTERVIEWER: "Interviewer", common_pb2.SPEAKER_RESPONDENT: "Respondent"}


def _name(enum_value: int, enum: Any) -> str:
    try:
        return str(enum.Name(enum_value))
    except ValueError:
        return str(enum_value)


class Exporter:
    """Builds export documents from the session, its transcript, turn results and graphs."""

    def __init__(self, sessions: SessionService, repo: OrchestratorRepository) -> None:
        self._sessions = sessions
        self._repo = repo

    async def export(self, session_id: str, fmt: int) -> tuple[str, str, str]:
        """(content, MIME type, file name) of the session in format `fmt`."""
        v = Violations()
        v.require_id(session_id, "session_id")
        v.check(
            fmt in pb.ExportFormat.values() and fmt != pb.EXPORT_FORMAT_UNSPECIFIED,
            "format",
            "must be one of JSON, MARKDOWN, CSV, GRAPHML, MERMAID",
        )
        v.raise_if_any()
        session = await self._sessions.get(session_id)
        graph = await self._sessions.graph(session_id)
        stored = await self._repo.turn_results(session_id)
        # The documents are built on a worker thread: a long session's takes a few hundred
        # milliseconds of parsing and formatting, which on the event loop would stall every other
        # session's turn for as long.
        return await asyncio.to_thread(_document, session_id, fmt, session, graph, stored)


def _document(
    session_id: str,
    fmt: int,
    session: pb.GetSessionResponse,
    graph: pb.GetSessionGraphResponse,
    stored: Sequence[bytes],
) -> tuple[str, str, str]:
    """(content, MIME type, file name) of one export format, from the session's reads."""
    base = f"session-{session_id}"
    if fmt == pb.EXPORT_FORMAT_JSON:
        # Parsed one at a time: a stored TurnResult is up to ~0.5 MB of diagnostics that the
        # JSON record trims, so the full messages are never all held at once.
        parsed = (pb.TurnResult.FromString(raw) for raw in stored)
        return to_json(session, graph, parsed), "application/json", f"{base}.json"
    turns = [pb.TurnResult.FromString(raw) for raw in stored]
    if fmt == pb.EXPORT_FORMAT_MARKDOWN:
        return to_markdown(session, graph, turns), "text/markdown", f"{base}.md"
    if fmt == pb.EXPORT_FORMAT_CSV:
        return to_csv(session, turns), "text/csv", f"{base}.csv"
    if fmt == pb.EXPORT_FORMAT_GRAPHML:
        return to_graphml(graph), "application/graphml+xml", f"{base}.graphml"
    if fmt == pb.EXPORT_FORMAT_MERMAID:
        return to_mermaid(graph), "text/vnd.mermaid", f"{base}.mmd"
    raise InvalidArgumentError.for_field("format", "unsupported format")


def to_markdown(
    session: pb.GetSessionResponse, graph: pb.GetSessionGraphResponse, turns: Sequence[pb.TurnResult]
) -> str:
    """A readable report: overview, transcript, what was learned, and the strategy timeline."""
    s = session.session
    labels = {n.id: n.label for n in graph.nodes}
    lines = [
        f"# Interview report: {s.concept_name}",
        "",
        f"- Session: `{s.session_id}`",
        f"- Methodology: {s.methodology}",
        f"- Status: {_name(s.status, pb.SessionStatus)}; turns: {s.turn_count} of {s.max_turns}",
        f"- Termination: {_name(s.termination_reason, common_pb2.TerminationReason)}",
        f"- Graph: {graph.graph_state.node_count} nodes, {graph.graph_state.edge_count} edges, "
        f"longest chain {graph.graph_state.depth.max_depth}",
        f"- LLM usage: {s.usage.total.input_tokens} in / {s.usage.total.output_tokens} out tokens, "
        f"${s.usage.total.cost_usd:.4f}",
        "",
        "## Transcript",
        "",
    ]
    for u in session.transcript:
        # An answer whose turn never completed: kept, but nothing below comes from it.
        note = " *(not processed: its turn did not complete)*" if u.unprocessed else ""
        lines.append(f"**{_SPEAKERS.get(u.speaker, 'Unknown')} ({u.turn_number}):** {u.text}{note}")
        lines.append("")
    lines += ["## Concepts", ""]
    by_type: dict[str, list[common_pb2.Node]] = {}
    for node in graph.nodes:
        by_type.setdefault(node.node_type, []).append(node)
    for node_type in sorted(by_type):
        lines.append(f"### {node_type}")
        for node in by_type[node_type]:
            quote = f' — "{node.quotes[0].text}"' if node.quotes else ""
            lines.append(f"- {node.label}{quote}")
        lines.append("")
    lines += ["## Relationships", ""]
    for edge in graph.edges:
        lines.append(
            f"- {labels.get(edge.source_node_id, edge.source_node_id)} —{edge.edge_type}→ "
            f"{labels.get(edge.target_node_id, edge.target_node_id)}"
        )
    depth = graph.graph_state.depth
    chain = [labels.get(i, i) for i in depth.longest_chain_path]
    if chain:
        # each arrow named like the relationships above when the graph store sent the edge types
        kinds = list(depth.longest_chain_edge_types)
        arrows = [f" —{k}→ " for k in kinds] if len(kinds) == len(chain) - 1 else [" → "] * (len(chain) - 1)
        lines += [
            "",
            "Longest chain: " + chain[0] + "".join(a + c for a, c in zip(arrows, chain[1:], strict=True)),
        ]
    lines += [
        "",
        "## Strategy timeline",
        "",
        "| turn | strategy | focus | phase | new nodes | intent |",
        "|---|---|---|---|---|---|",
    ]
    for t in turns:
        lines.append(
            f"| {t.turn_number} | {t.strategy_selected} | {t.focus_label or '—'} | "
            f"{_name(t.phase, common_pb2.InterviewPhase).removeprefix('INTERVIEW_PHASE_').lower()} | "
            f"{len(t.nodes_added)} | "
            f"{_name(t.intent, common_pb2.RespondentIntent).removeprefix('RESPONDENT_INTENT_').lower()} |"
        )
    return "\n".join(lines) + "\n"


CSV_COLUMNS = [
    "turn",
    "answer",
    "next_question",
    "strategy",
    "focus",
    "phase",
    "intent",
    "nodes_added",
    "edges_added",
    "node_count",
    "edge_count",
    "max_depth",
    "response_depth",
    "should_continue",
    "termination_reason",
    "latency_ms",
    "cost_usd",
]


def to_csv(session: pb.GetSessionResponse, turns: Sequence[pb.TurnResult]) -> str:
    """One row per completed turn."""
    answers = {
        u.turn_number: u.text for u in session.transcript if u.speaker == common_pb2.SPEAKER_RESPONDENT
    }
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for t in turns:
        depth = next((r.score for r in t.rubric.scores if r.name == "response_depth"), 0)
        writer.writerow(
            [
                t.turn_number,
                answers.get(t.turn_number, ""),
                t.next_question,
                t.strategy_selected,
                t.focus_label,
                _name(t.phase, common_pb2.InterviewPhase),
                _name(t.intent, common_pb2.RespondentIntent),
                len(t.nodes_added),
                len(t.edges_added),
                t.graph_state.node_count,
                t.graph_state.edge_count,
                t.graph_state.depth.max_depth,
                depth,
                t.should_continue,
                _name(t.termination_reason, common_pb2.TerminationReason),
                t.latency_ms,
                f"{t.usage.total.cost_usd:.6f}",
            ]
        )
    return out.getvalue()


def to_graphml(graph: pb.GetSessionGraphResponse) -> str:
    """The surface graph as GraphML (node label/type, edge type)."""
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
        '  <key id="label" for="node" attr.name="label" attr.type="string"/>',
        '  <key id="node_type" for="node" attr.name="node_type" attr.type="string"/>',
        '  <key id="created_turn" for="node" attr.name="created_turn" attr.type="int"/>',
        '  <key id="edge_type" for="edge" attr.name="edge_type" attr.type="string"/>',
        '  <graph id="surface" edgedefault="directed">',
    ]
    for n in graph.nodes:
        lines += [
            f"    <node id={quoteattr(n.id)}>",
            f'      <data key="label">{escape(n.label)}</data>',
            f'      <data key="node_type">{escape(n.node_type)}</data>',
            f'      <data key="created_turn">{n.created_turn}</data>',
            "    </node>",
        ]
    for e in graph.edges:
        lines += [
            f"    <edge id={quoteattr(e.id)} source={quoteattr(e.source_node_id)} "
            f"target={quoteattr(e.target_node_id)}>",
            f'      <data key="edge_type">{escape(e.edge_type)}</data>',
            "    </edge>",
        ]
    lines += ["  </graph>", "</graphml>"]
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    return re.sub(r'["\[\]{}()<>|#;]', " ", text).strip() or "?"


def to_mermaid(graph: pb.GetSessionGraphResponse) -> str:
    """The surface graph as a Mermaid flowchart, nodes grouped by type."""
    ids = {n.id: f"n{i}" for i, n in enumerate(graph.nodes)}
    lines = ["flowchart LR"]
    by_type: dict[str, list[common_pb2.Node]] = {}
    for n in graph.nodes:
        by_type.setdefault(n.node_type, []).append(n)
    for node_type, nodes in sorted(by_type.items()):
        lines.append(f"  subgraph {_mermaid_text(node_type).replace(' ', '_')}")
        lines += [f'    {ids[n.id]}["{_mermaid_text(n.label)}"]' for n in nodes]
        lines.append("  end")
    for e in graph.edges:
        if e.source_node_id in ids and e.target_node_id in ids:
            lines.append(
                f"  {ids[e.source_node_id]} -->|{_mermaid_text(e.edge_type)}| {ids[e.target_node_id]}"
            )
    return "\n".join(lines) + "\n"
