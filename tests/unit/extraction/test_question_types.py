"""The offline extractor reads the question service's own questions: a critical-incident question
that asks why something went as it did types the answer's bare clauses as attributions, one that asks
what should happen differently as lessons, and one that asks for a time that turned out differently
neither."""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.models import ConceptBrief, ExtractionResult
from services.question.templates import critical_incident
from tests.unit.extraction.support import extract, nodes

DISCHARGE = ConceptBrief(id="hospital_discharge_cit", name="Hospital discharge")
# No cue of the lexicon types it: only the question can.
BARE_ANSWER = "The ward team planned it together."
BARE_LABEL = "ward team planned it together"


def _render(template: str) -> str:
    return template.format(
        focus="the discharge call", clause="the nurse phoned you", topic="hospital discharge", **{"is": "is"}
    )


async def _answer(engine: ExtractionEngine, question: str) -> ExtractionResult:
    return await extract(engine, BARE_ANSWER, question, methodology="critical_incident", concept=DISCHARGE)


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        (t, "learning" if "differently" in t else "attribution")
        for t in critical_incident.FAMILIES["attribution"].node
        if t.startswith("Why") or "differently" in t
    ],
)
async def test_a_why_or_next_time_question_types_a_bare_clause(
    offline_engine: ExtractionEngine, template: str, expected: str
) -> None:
    result = await _answer(offline_engine, _render(template))
    assert (expected, BARE_LABEL) in nodes(result), (template, nodes(result))


@pytest.mark.parametrize(
    "template", [t for t in critical_incident.FAMILIES["contrast_incident"].node if "differently" in t]
)
async def test_a_time_that_turned_out_differently_asks_for_no_lesson(
    offline_engine: ExtractionEngine, template: str
) -> None:
    result = await _answer(offline_engine, _render(template))
    assert ("learning", BARE_LABEL) not in nodes(result), nodes(result)
    assert ("learning", BARE_LABEL) in nodes(await _answer(offline_engine, "What did you learn?"))
