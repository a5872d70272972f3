"""A clause that says when ("the next time I went home", "when I got home") is not part of the item
the main clause names, and "the next time" of a story told in the past draws no lesson."""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.local.segment import clauses
from services.extraction.models import ConceptBrief
from services.extraction.nlp import NlpPipeline
from tests.unit.extraction.support import extract, nodes

_DISCHARGE = ConceptBrief(id="hospital_discharge_cit", name="Hospital discharge")
_ANOTHER = "Is there another occasion involving hospital discharge that went notably well or badly?"


async def _incident_nodes(
    engine: ExtractionEngine, answer: str, question: str = _ANOTHER
) -> set[tuple[str, str]]:
    """(type, label) of the items of `answer` to `question` in a critical-incident interview."""
    result = await extract(engine, answer, question, methodology="critical_incident", concept=_DISCHARGE)
    return nodes(result)


def _clause_texts(pipeline: NlpPipeline, text: str) -> list[str]:
    doc = pipeline.parse(text)
    return [doc[c.start : c.end].text for c in clauses(doc, [])]


@pytest.mark.parametrize(
    ("text", "main"),
    [
        ("The next time I went home it was a calm Tuesday.", "it was a calm Tuesday"),
        ("Honestly, the next time I went home it was a calm Tuesday.", "it was a calm Tuesday"),
        ("When I got home I felt relieved.", "I felt relieved"),
        ("Every time I rang they put me on hold.", "they put me on hold"),
    ],
)
def test_the_main_clause_after_a_time_clause_is_a_clause_of_its_own(
    pipeline: NlpPipeline, text: str, main: str
) -> None:
    assert _clause_texts(pipeline, text)[-1] == main, _clause_texts(pipeline, text)


@pytest.mark.parametrize(
    "text",
    [
        # what was realised is a complement of the time clause, not the main clause
        "When I realised that it was the wrong dose",
        # no subject of its own after the time clause
        "When I got home that evening",
        # a clause that opens with a subject is not a time clause
        "I went home when it was a calm Tuesday.",
    ],
)
def test_no_cut_where_no_main_clause_follows_a_time_clause(pipeline: NlpPipeline, text: str) -> None:
    assert len(_clause_texts(pipeline, text)) == 1, _clause_texts(pipeline, text)


async def test_the_setting_after_the_next_time_is_the_setting_alone(offline_engine: ExtractionEngine) -> None:
    # "went home it was a calm Tuesday" was the setting, said back as "going home it was a calm
    # Tuesday"; and with a comma, "next time I went home" became a lesson
    for answer in (
        "The next time I went home it was a calm Tuesday, which meant the ward nurse went through all my "
        "tablets with me.",
        "The next time I went home, it was a calm Tuesday, which meant the ward nurse went through all my "
        "tablets with me.",
    ):
        found = await _incident_nodes(offline_engine, answer)
        assert ("situation", "calm Tuesday") in found, found
        assert not any(t == "learning" or "went home" in label for t, label in found), found


async def test_the_next_time_i_was_discharged_is_a_time_too(offline_engine: ExtractionEngine) -> None:
    found = await _incident_nodes(
        offline_engine, "The next time I was discharged, the ward nurse went through all my tablets with me."
    )
    assert not any(t == "learning" for t, _ in found), found


@pytest.mark.parametrize(
    "answer",
    [
        "Next time I would ask for the list in writing.",
        "The next time I go in I will ask for the list in writing.",
        "Next time he goes in he should ask for the list in writing.",
    ],
)
async def test_next_time_of_what_is_still_to_come_is_a_lesson(
    offline_engine: ExtractionEngine, answer: str
) -> None:
    found = await _incident_nodes(offline_engine, answer, "What would you do differently?")
    assert ("learning", "ask for the list in writing") in found, found


async def test_the_first_time_told_in_the_past_is_a_setting_with_its_first(
    offline_engine: ExtractionEngine,
) -> None:
    # only "next time" may be a lesson: "the first time I went home" is where a story starts; and
    # "first" was dropped as a sequence opener ("time I went home", said back as "timing you went home")
    found = await _incident_nodes(
        offline_engine, "The first time I went home, the ward nurse went through all my tablets with me."
    )
    assert ("situation", "first time I went home") in found, found
