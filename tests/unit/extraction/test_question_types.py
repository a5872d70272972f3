"""The offline extractor reads the question service's own questions: a critical-incident question
that asks why something went as it did types the answer's bare clauses as attributions, one that asks
what should happen differently as lessons, and one that asks for a time that turned out differently
neither."""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.models import ConceptBrief, ExtractionResult
from services.question.templates import critical_incident
from tests.unit.extraction.support import extract

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


def _type_of(result: ExtractionResult, label: str) -> str | None:
    return next((c.node_type for c in result.concepts if c.label == label), None)


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
    assert _type_of(result, BARE_LABEL) == expected, (template, result.concepts)


@pytest.mark.parametrize(
    "template", [t for t in critical_incident.FAMILIES["contrast_incident"].node if "differently" in t]
)
async def test_a_time_that_turned_out_differently_asks_for_no_lesson(
    offline_engine: ExtractionEngine, template: str
) -> None:
    result = await _answer(offline_engine, _render(template))
    assert _type_of(result, BARE_LABEL) != "learning", result.concepts
    assert any(
        c.node_type == "learning" for c in (await _answer(offline_engine, "What did you learn?")).concepts
    )
