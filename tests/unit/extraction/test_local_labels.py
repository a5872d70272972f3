"""Labels of the offline extractor read as whole phrases: the interviewer says them back."""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.models import ConceptBrief, ExtractionRequest


async def _labels(engine: ExtractionEngine, text: str, methodology: str = "jobs_to_be_done") -> set[str]:
    request = ExtractionRequest(
        session_id="s1",
        utterance_id="u1",
        text=text,
        question="What happened next?",
        methodology=methodology,
        concept=ConceptBrief(id="coffee", name="Morning coffee"),
    )
    result = await engine.extract(request)
    return {c.label for c in result.concepts}


@pytest.mark.parametrize(
    ("text", "whole", "cut"),
    [
        # a time phrase keeps its closing word ("the week" alone says nothing)
        (
            "I bought a hand grinder the week after, and then I gave up instant for good.",
            "bought a hand grinder the week after",
            "bought a hand grinder the week",
        ),
        # a number belongs to the noun phrase it counts, even when that phrase is an item of its own
        (
            "As I said, I compared three capsule machines online.",
            "compared three capsule machines online",
            "compared three",
        ),
    ],
)
async def test_an_event_label_is_not_cut_inside_a_phrase(
    offline_engine: ExtractionEngine, text: str, whole: str, cut: str
) -> None:
    labels = await _labels(offline_engine, text)
    assert whole in labels and cut not in labels, labels


async def test_after_that_starts_a_clause_still_ends_the_label(offline_engine: ExtractionEngine) -> None:
    # "after I started" is a clause of its own: the event stops before it
    labels = await _labels(offline_engine, "I bought a grinder the week after I started the new job.")
    assert not any("started" in label and "grinder" in label for label in labels), labels


async def test_a_time_phrase_cut_off_from_its_clause_is_dropped(offline_engine: ExtractionEngine) -> None:
    # "phoned me the day | before he came home": "the day" alone would be said back as if it meant something
    labels = await _labels(
        offline_engine,
        "The discharge nurse phoned me the day before he came home, so she went through his care plan.",
        methodology="critical_incident",
    )
    assert any(label.startswith("phoned") for label in labels), labels
    assert not any(label.endswith(("the day", "a day")) for label in labels), labels


async def test_a_hedge_before_the_clause_is_not_part_of_the_label(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(
        offline_engine,
        "Hmm, I don't know, I guess I try to get a delivery slot for Tuesday, and then I check out.",
        methodology="customer_journey_mapping",
    )
    assert not any(label.startswith(("guess", "think", "suppose")) for label in labels), labels
    assert any(label.startswith("try to get a delivery") for label in labels), labels


async def test_an_adverb_left_before_a_cut_off_clause_is_dropped(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(
        offline_engine,
        "I can focus even when the carriage is noisy, which means I arrive calm instead of frazzled.",
        methodology="means_end_chain",
    )
    assert "focus" in labels and not any(label.endswith(" even") for label in labels), labels


async def test_the_object_of_a_second_verb_stays(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(
        offline_engine,
        "I copy last week's order and tweak it, which meant I feel relieved.",
        methodology="customer_journey_mapping",
    )
    assert "copy last week's order and tweak it" in labels, labels
