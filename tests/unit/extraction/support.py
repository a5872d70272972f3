"""One way for the offline-extractor tests to ask for an answer's graph."""

from __future__ import annotations

from services.extraction.engine import ExtractionEngine
from services.extraction.models import (
    ConceptBrief,
    ConversationTurn,
    ExistingNode,
    ExtractionRequest,
    ExtractionResult,
)

COFFEE = ConceptBrief(id="coffee", name="Morning coffee")


async def extract(
    engine: ExtractionEngine,
    text: str,
    question: str = "What happened next?",
    *,
    methodology: str = "jobs_to_be_done",
    concept: ConceptBrief = COFFEE,
    existing: tuple[ExistingNode, ...] = (),
    recent: tuple[ConversationTurn, ...] = (),
) -> ExtractionResult:
    """The engine's reading of `text`, the answer to `question`."""
    return await engine.extract(
        ExtractionRequest(
            session_id="s1",
            utterance_id="u1",
            text=text,
            question=question,
            recent_turns=recent,
            methodology=methodology,
            concept=concept,
            existing_nodes=existing,
        )
    )


def nodes(result: ExtractionResult) -> set[tuple[str, str]]:
    """(node type, label) of every concept found."""
    return {(c.node_type, c.label) for c in result.concepts}


def edges(result: ExtractionResult) -> set[tuple[str, str, str]]:
    """(source label, edge type, target label) of every relationship found."""
    return {(r.source_label, r.edge_type, r.target_label) for r in result.relationships}
