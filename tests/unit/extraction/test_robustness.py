"""Any answer text: preprocessing and offline extraction never fail, and every span and quote they
return is the utterance's own text at its offsets."""

from __future__ import annotations

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services.extraction.engine import ExtractionEngine
from services.extraction.models import (
    ConceptBrief,
    ExtractedConcept,
    ExtractedRelationship,
    ExtractionRequest,
)

WORDS = [
    "I",
    "like",
    "the",
    "battery",
    "because",
    "it",
    "lets",
    "me",
    "focus",
    "so",
    "that",
    "which",
    "means",
    "feel",
    "calm",
    "but",
    "although",
    "price",
    "Disney+",
    "don't",
    "Then",
    "peace",
    "of",
    "mind",
    "—",
    ",",
    ".",
    "?",
    "!",
    "’s",
    "😀",
    "e.g.",
    "3.5",
    "well-being",
    "  ",
    "\n",
]
sentences = st.lists(st.sampled_from(WORDS), min_size=1, max_size=40).map(" ".join)
texts = sentences | st.text(min_size=1, max_size=120)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    text=texts,
    methodology=st.sampled_from(
        [
            "means_end_chain",
            "jobs_to_be_done",
            "critical_incident",
            "customer_journey_mapping",
            "repertory_grid",
        ]
    ),
)
def test_spans_and_quotes_are_verbatim(offline_engine: ExtractionEngine, text: str, methodology: str) -> None:
    pre = offline_engine.preprocess(text)
    for rel in pre.discourse_relations:
        for span in (rel.left, rel.right, rel.marker_span):
            if span is not None:
                assert text[span.start : span.end] == span.text
    for frame in pre.frames:
        assert text[frame.predicate.start : frame.predicate.end] == frame.predicate.text
    request = ExtractionRequest(
        session_id="s",
        utterance_id="u",
        text=text,
        methodology=methodology,
        concept=ConceptBrief(name="topic", vocabulary=("battery", "Disney+")),
    )
    result = asyncio.run(offline_engine.extract(request))
    items: tuple[ExtractedConcept | ExtractedRelationship, ...] = (*result.concepts, *result.relationships)
    for item in items:
        assert text[item.quote.start : item.quote.end] == item.quote.text
        assert item.quote.text.strip()
        assert item.source_utterance_id == "u"
