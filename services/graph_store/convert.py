"""Protobuf ⇄ domain conversion for `interview.graph.v1` (no logic beyond field mapping)."""

from __future__ import annotations

from shared.embeddings import from_bytes
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2
from shared.timestamps import to_timestamp

from .domain import (
    ApplyResult,
    ApplyWarning,
    ConceptInput,
    Edge,
    ExtractionInput,
    GraphState,
    MatchKind,
    Node,
    NodeMention,
    QuoteHint,
    RelationshipInput,
    ScoredNode,
)

_MATCH_KIND = {
    MatchKind.EXACT: graph_pb2.MATCH_KIND_EXACT,
    MatchKind.EMBEDDING: graph_pb2.MATCH_KIND_EMBEDDING,
}


# -- requests -------------------------------------------------------------------------------------
def _quote_hint(msg: common_pb2.Quote, present: bool) -> QuoteHint | None:
    if not present or not msg.text:
        return None
    # proto3 has no "unset" for ints: 0..0 means no offsets were given (start < end is required anyway)
    return QuoteHint(text=msg.text, start=msg.start, end=msg.end, utterance_id=msg.utterance_id)


def extraction_input(req: graph_pb2.ApplyExtractionRequest) -> ExtractionInput:
    """The domain input of an `ApplyExtractionRequest`."""
    return ExtractionInput(
        session_id=req.session_id,
        utterance_id=req.utterance_id,
        turn_number=req.turn_number,
        methodology=req.methodology,
        utterance_text=req.utterance_text,
        concepts=[
            ConceptInput(
                label=c.label,
                node_type=c.node_type,
                confidence=c.confidence,
                stance=c.stance,
                properties=dict(c.properties),
                quote=_quote_hint(c.quote, c.HasField("quote")),
                source_utterance_id=c.source_utterance_id,
            )
            for c in req.concepts
        ],
        relationships=[
            RelationshipInput(
                source_label=r.source_label,
                target_label=r.target_label,
                edge_type=r.edge_type,
                confidence=r.confidence,
                quote=_quote_hint(r.quote, r.HasField("quote")),
                source_utterance_id=r.source_utterance_id,
            )
            for r in req.relationships
        ],
    )


# -- responses ------------------------------------------------------------------------------------
def node(n: Node, *, with_embedding: bool = False) -> common_pb2.Node:
    """A domain node as `interview.common.v1.Node` (embedding only when asked and stored)."""
    return common_pb2.Node(
        id=n.id,
        session_id=n.session_id,
        label=n.label,
        node_type=n.node_type,
        confidence=n.confidence,
        stance=n.stance,
        properties=n.properties,
        source_utterance_ids=n.source_utterance_ids,
        quotes=[
            common_pb2.Quote(text=q.text, start=q.start, end=q.end, utterance_id=q.utterance_id)
            for q in n.quotes
        ],
        recorded_at=to_timestamp(n.recorded_at),
        created_turn=n.created_turn,
        superseded_by=n.superseded_by or "",
        embedding=from_bytes(n.embedding).tolist() if with_embedding and n.embedding else [],
        level=n.level,
        is_terminal=n.is_terminal,
    )


def edge(e: Edge) -> common_pb2.Edge:
    """A domain edge as `interview.common.v1.Edge`."""
    return common_pb2.Edge(
        id=e.id,
        session_id=e.session_id,
        source_node_id=e.source_node_id,
        target_node_id=e.target_node_id,
        edge_type=e.edge_type,
        confidence=e.confidence,
        source_utterance_ids=e.source_utterance_ids,
        quotes=[
            common_pb2.Quote(text=q.text, start=q.start, end=q.end, utterance_id=q.utterance_id)
            for q in e.quotes
        ],
        recorded_at=to_timestamp(e.recorded_at),
        created_turn=e.created_turn,
        properties=e.properties,
    )


def graph_state(s: GraphState) -> common_pb2.GraphState:
    """Graph metrics as `interview.common.v1.GraphState`."""
    return common_pb2.GraphState(
        session_id=s.session_id,
        node_count=s.node_count,
        edge_count=s.edge_count,
        nodes_by_type=s.nodes_by_type,
        edges_by_type=s.edges_by_type,
        orphan_count=s.orphan_count,
        depth=common_pb2.DepthMetrics(
            max_depth=s.depth.max_depth,
            max_depth_normalized=s.depth.max_depth_normalized,
            avg_depth=s.depth.avg_depth,
            longest_chain_path=s.depth.longest_chain_path,
            longest_chain_labels=s.depth.longest_chain_labels,
            longest_chain_node_types=s.depth.longest_chain_node_types,
            longest_chain_edge_types=s.depth.longest_chain_edge_types,
        ),
        chain_completion=common_pb2.ChainCompletion(
            ratio=s.chain_completion.ratio,
            has_complete=s.chain_completion.has_complete,
            complete_chain_count=s.chain_completion.complete_chain_count,
        ),
        node_degrees=[
            common_pb2.NodeDegree(node_id=d.node_id, in_degree=d.in_degree, out_degree=d.out_degree)
            for d in s.node_degrees
        ],
    )


def warning_text(w: ApplyWarning) -> str:
    """One warning as the response's string form: `<field>: <code>: <message>`."""
    return f"{w.field}: {w.code.value}: {w.message}"


def _mention(m: NodeMention) -> graph_pb2.NodeMention:
    return graph_pb2.NodeMention(
        node=node(m.node),
        extracted_label=m.extracted_label,
        match_kind=_MATCH_KIND[m.kind],
        similarity=m.similarity,
    )


def apply_response(r: ApplyResult) -> graph_pb2.ApplyExtractionResponse:
    """The `ApplyExtractionResponse` of a result (created nodes carry their embeddings)."""
    return graph_pb2.ApplyExtractionResponse(
        nodes_created=[node(n, with_embedding=True) for n in r.nodes_created],
        nodes_mentioned=[_mention(m) for m in r.nodes_mentioned],
        edges_created=[edge(e) for e in r.edges_created],
        edges_reinforced=[edge(e) for e in r.edges_reinforced],
        warnings=[warning_text(w) for w in r.warnings],
        replayed=r.replayed,
        graph_state=graph_state(r.graph_state),
    )


def scored_node(s: ScoredNode) -> graph_pb2.ScoredNode:
    """A search hit."""
    return graph_pb2.ScoredNode(node=node(s.node), similarity=s.similarity)
