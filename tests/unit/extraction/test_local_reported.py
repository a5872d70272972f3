"""What someone was told is the item, not the telling (offline extractor, critical incidents)."""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.models import ConceptBrief, ExtractionResult
from tests.unit.extraction.support import edges, extract, nodes

_DISCHARGE = ConceptBrief(id="discharge", name="Hospital discharge")


async def _extract(engine: ExtractionEngine, text: str) -> ExtractionResult:
    return await extract(engine, text, "What happened?", methodology="critical_incident", concept=_DISCHARGE)


@pytest.mark.parametrize("connective", ["and because of that", "which meant"])
async def test_a_reported_situation_leads_to_the_incident_and_involves_the_speaker(
    offline_engine: ExtractionEngine, connective: str
) -> None:
    # the clause before the connective was too long for a label and was cut to "at nine that i",
    # which named nothing: the situation, its link to the wait and the consultant's part were lost
    told = "The consultant said at nine that I was fit to leave"
    text = f"{told}, {connective} I waited six hours for the letter."
    result = await _extract(offline_engine, text)
    assert ("situation", "fit to leave") in nodes(result)
    found = edges(result)
    assert ("fit to leave", "leads_to", "waited six hours for the letter") in found
    assert ("fit to leave", "involves", "consultant") in found
