"""Builders and a row counter shared by the graph_store tests."""

from __future__ import annotations

import uuid

from sqlalchemy import func, select

from services.graph_store.domain import ConceptInput, ExtractionInput, QuoteHint, RelationshipInput
from services.graph_store.models import AppliedUtteranceRow, EdgeMentionRow, EdgeRow, NodeMentionRow, NodeRow
from shared.db import create_engine

METHODOLOGY = "means_end_chain"
TABLES: dict[str, type[NodeRow | EdgeRow | NodeMentionRow | EdgeMentionRow | AppliedUtteranceRow]] = {
    "nodes": NodeRow,
    "edges": EdgeRow,
    "node_mentions": NodeMentionRow,
    "edge_mentions": EdgeMentionRow,
    "applied_utterances": AppliedUtteranceRow,
}


def concept(
    label: str, node_type: str = "attribute", *, quote: str = "", start: int = -1, end: int = -1, **kw: object
) -> ConceptInput:
    """An extracted concept (quote optional)."""
    hint = QuoteHint(text=quote, start=start, end=end) if quote else None
    return ConceptInput(label=label, node_type=node_type, quote=hint, **kw)


def rel(source: str, target: str, edge_type: str = "leads_to", *, quote: str = "") -> RelationshipInput:
    """An extracted relationship between two labels."""
    return RelationshipInput(
        source_label=source,
        target_label=target,
        edge_type=edge_type,
        quote=QuoteHint(text=quote) if quote else None,
    )


def extraction(
    session_id: str,
    text: str,
    concepts: list[ConceptInput],
    relationships: list[RelationshipInput] | None = None,
    *,
    turn: int = 1,
    utterance_id: str | None = None,
) -> ExtractionInput:
    """An `ExtractionInput` for the means-end-chain methodology."""
    return ExtractionInput(
        session_id=session_id,
        utterance_id=utterance_id or f"u-{uuid.uuid4().hex[:12]}",
        turn_number=turn,
        methodology=METHODOLOGY,
        utterance_text=text,
        concepts=concepts,
        relationships=relationships or [],
    )


def new_session() -> str:
    """A fresh session id."""
    return f"s-{uuid.uuid4().hex[:12]}"


async def row_counts(url: str, session_id: str | None = None) -> dict[str, int]:
    """Rows per graph_store table (optionally of one session), read straight from the database."""
    engine = create_engine(url, schema="graph")
    try:
        async with engine.connect() as conn:
            out = {}
            for name, model in TABLES.items():
                stmt = select(func.count()).select_from(model)
                if session_id is not None:
                    stmt = stmt.where(model.session_id == session_id)
                out[name] = int((await conn.execute(stmt)).scalar_one())
            return out
    finally:
        await engine.dispose()
