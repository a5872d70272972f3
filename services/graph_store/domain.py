"""Typed domain models of the surface graph: what the servicer converts protobuf to and from.

Inputs (`ExtractionInput` with its concepts and relationships) are validated in
`services.graph_store.validation`; outputs (`Node`, `Edge`, `ApplyResult`, `GraphState`, ...)
are what the store returns. `ApplyResult` is also the idempotency record: it is stored as JSON
when an utterance is applied and returned unchanged on a repeat.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    # Embeddings are bytes; base64 keeps the stored JSON result valid and lossless.
    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")


class QuoteHint(_Model):
    """A quote as the extractor gave it; offsets are a hint (< 0: not given) and are re-checked."""

    text: str = ""
    start: int = -1
    end: int = -1
    utterance_id: str = ""


class ConceptInput(_Model):
    """One extracted concept (a candidate node)."""

    label: str
    node_type: str
    confidence: float = 1.0
    stance: int = 0
    properties: dict[str, str] = Field(default_factory=dict)
    quote: QuoteHint | None = None
    source_utterance_id: str = ""


class RelationshipInput(_Model):
    """One extracted relationship; endpoints are labels (of this batch or of earlier turns)."""

    source_label: str
    target_label: str
    edge_type: str
    confidence: float = 1.0
    properties: dict[str, str] = Field(default_factory=dict)
    quote: QuoteHint | None = None
    source_utterance_id: str = ""


class ExtractionInput(_Model):
    """Everything `apply_extraction` needs; `utterance_id` is the idempotency key."""

    session_id: str
    utterance_id: str
    turn_number: int
    methodology: str
    utterance_text: str
    concepts: list[ConceptInput] = Field(default_factory=list)
    relationships: list[RelationshipInput] = Field(default_factory=list)


class Quote(_Model):
    """Verbatim evidence: `utterance_text[start:end] == text` in utterance `utterance_id`."""

    utterance_id: str
    text: str
    start: int
    end: int


class Node(_Model):
    """A surface-graph node with its provenance."""

    id: str
    session_id: str
    label: str
    node_type: str
    confidence: float
    stance: int
    properties: dict[str, str] = Field(default_factory=dict)
    recorded_at: datetime
    created_turn: int
    level: int = 0
    is_terminal: bool = False
    superseded_by: str | None = None
    source_utterance_ids: list[str] = Field(default_factory=list)
    quotes: list[Quote] = Field(default_factory=list)
    embedding: bytes = b""


class Edge(_Model):
    """A directed, typed surface-graph edge with its provenance."""

    id: str
    session_id: str
    source_node_id: str
    target_node_id: str
    edge_type: str
    confidence: float
    properties: dict[str, str] = Field(default_factory=dict)
    recorded_at: datetime
    created_turn: int
    source_utterance_ids: list[str] = Field(default_factory=list)
    quotes: list[Quote] = Field(default_factory=list)


class WarningCode(StrEnum):
    """Why part of an extraction was not applied (the rest still is)."""

    QUOTE_NOT_FOUND = "quote_not_found"
    UNKNOWN_EDGE_TYPE = "unknown_edge_type"
    CONNECTION_NOT_PERMITTED = "connection_not_permitted"
    SELF_LOOP = "self_loop"
    UNRESOLVED_ENDPOINT = "unresolved_endpoint"


class ApplyWarning(_Model):
    """One rejected item or quote; `field` is the input path, e.g. `relationships[1].quote`."""

    code: WarningCode
    field: str
    message: str


class MatchKind(StrEnum):
    """How a concept matched an existing node."""

    EXACT = "exact"
    EMBEDDING = "embedding"


class NodeMention(_Model):
    """A concept that re-mentioned a node from an earlier utterance (provenance grew; no yield)."""

    node: Node
    extracted_label: str
    kind: MatchKind
    similarity: float


class NodeDegree(_Model):
    """Edges into and out of one node (for node-level signals)."""

    node_id: str
    in_degree: int
    out_degree: int


class DepthMetrics(_Model):
    """Longest-chain metrics; depths count nodes, not edges."""

    max_depth: int = 0
    max_depth_normalized: float = 0.0
    avg_depth: float = 0.0
    longest_chain_path: list[str] = Field(default_factory=list)
    longest_chain_labels: list[str] = Field(default_factory=list)
    longest_chain_node_types: list[str] = Field(default_factory=list)
    longest_chain_edge_types: list[str] = Field(default_factory=list)


class ChainCompletion(_Model):
    """Share of level-1 nodes from which a terminal-type node is reachable."""

    level1_count: int = 0
    complete_chain_count: int = 0
    ratio: float = 0.0
    has_complete: bool = False


class GraphState(_Model):
    """Aggregated metrics of one session's surface graph."""

    session_id: str
    node_count: int = 0
    edge_count: int = 0
    nodes_by_type: dict[str, int] = Field(default_factory=dict)
    edges_by_type: dict[str, int] = Field(default_factory=dict)
    orphan_count: int = 0
    depth: DepthMetrics = Field(default_factory=DepthMetrics)
    chain_completion: ChainCompletion = Field(default_factory=ChainCompletion)
    node_degrees: list[NodeDegree] = Field(default_factory=list)


class ApplyResult(_Model):
    """Outcome of one `apply_extraction`.

    `nodes_created` is the turn's yield; `nodes_mentioned` are nodes from earlier utterances that
    this one mentioned again (provenance grew, no yield). Likewise for edges. `graph_state` is the
    graph right after this update. A repeat of the utterance returns the stored result with
    `replayed` set.
    """

    session_id: str
    utterance_id: str
    turn_number: int
    nodes_created: list[Node] = Field(default_factory=list)
    nodes_mentioned: list[NodeMention] = Field(default_factory=list)
    edges_created: list[Edge] = Field(default_factory=list)
    edges_reinforced: list[Edge] = Field(default_factory=list)
    warnings: list[ApplyWarning] = Field(default_factory=list)
    graph_state: GraphState
    replayed: bool = False


class Page(_Model):
    """A page of a listing; `next_page_token` is empty on the last page."""

    next_page_token: str = ""
    total_size: int = 0


class NodePage(Page):
    """A page of nodes."""

    nodes: list[Node] = Field(default_factory=list)


class EdgePage(Page):
    """A page of edges."""

    edges: list[Edge] = Field(default_factory=list)


class ScoredNode(_Model):
    """A search hit: a node and its cosine similarity to the query text."""

    node: Node
    similarity: float


class DeleteResult(_Model):
    """What `delete_session_graph` removed."""

    nodes_deleted: int = 0
    edges_deleted: int = 0
