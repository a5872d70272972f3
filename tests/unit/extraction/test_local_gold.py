"""The offline extractor on the hand-written gold answers (tests/data/extraction/gold_*.yaml).

Floors are set a little below what `python scripts/eval_extraction.py` measures, so that a
regression shows up; see the script for the per-item misses.
"""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.evaluation import Counts, GoldSet, evaluate_set, load_gold
from services.extraction.models import ConceptBrief, ExtractionRequest, ExtractionResult
from shared.methodology import ConceptRegistry
from tests.unit.extraction.conftest import DATA_DIR

MIN_ITEMS = {
    "means_end_chain": 8,
    "jobs_to_be_done": 8,
    "critical_incident": 8,
    "customer_journey_mapping": 4,
    "repertory_grid": 4,
}
# methodology -> (node precision, node recall, edge precision, edge recall)
FLOORS = {
    "means_end_chain": (0.80, 0.85, 0.75, 0.75),
    "jobs_to_be_done": (0.75, 0.90, 0.65, 0.85),
    "critical_incident": (0.75, 0.90, 0.55, 0.75),
    "customer_journey_mapping": (0.70, 0.85, 0.60, 0.65),
    "repertory_grid": (0.80, 0.85, 0.35, 0.75),
}
OVERALL_FLOOR = (0.80, 0.90, 0.60, 0.80)
HELDOUT_FLOOR = (0.75, 0.80)  # nodes only: the held-out items are few


def _offline_only(result: ExtractionResult) -> None:
    assert result.extractor == "local" and result.usage.calls == 0


async def _score(
    engine: ExtractionEngine, concepts: ConceptRegistry, gold: GoldSet, split: str | None
) -> Counts:
    return await evaluate_set(engine, concepts, gold, split, check=_offline_only)


def _floors_met(counts: Counts, floors: tuple[float, ...]) -> list[str]:
    values = (counts.node_precision, counts.node_recall, counts.edge_precision, counts.edge_recall)
    names = ("node precision", "node recall", "edge precision", "edge recall")
    return [f"{n} {v:.2f} < {f:.2f}" for n, v, f in zip(names, values, floors, strict=False) if v < f]


@pytest.mark.parametrize("methodology", sorted(FLOORS))
async def test_gold_floor_per_methodology(
    offline_engine: ExtractionEngine, concepts: ConceptRegistry, methodology: str
) -> None:
    gold = load_gold(DATA_DIR / f"gold_{methodology}.yaml")
    assert gold.methodology == methodology
    assert len(gold.items) >= MIN_ITEMS[methodology]
    counts = await _score(offline_engine, concepts, gold, None)
    problems = _floors_met(counts, FLOORS[methodology])
    assert not problems, "; ".join(problems) + "\n" + "\n".join(counts.misses)


async def test_gold_floor_overall_and_held_out(
    offline_engine: ExtractionEngine, concepts: ConceptRegistry
) -> None:
    overall, heldout = Counts(), Counts()
    for methodology in FLOORS:
        gold = load_gold(DATA_DIR / f"gold_{methodology}.yaml")
        overall.add(await _score(offline_engine, concepts, gold, None))
        heldout.add(await _score(offline_engine, concepts, gold, "heldout"))
    assert not _floors_met(overall, OVERALL_FLOOR)
    assert heldout.node_gold >= 15
    assert not _floors_met(heldout, HELDOUT_FLOOR), "\n".join(heldout.misses)


async def test_a_cooperative_laddering_answer_becomes_a_chain(
    offline_engine: ExtractionEngine, concepts: ConceptRegistry
) -> None:
    concept = concepts.get("headphones_mec")
    text = (
        "I always pick headphones with a long battery life, because I don't have to charge them every day, "
        "so I can relax on long trips. Feeling relaxed gives me peace of mind."
    )
    result = await offline_engine.extract(
        ExtractionRequest(
            session_id="s1",
            utterance_id="u7",
            text=text,
            question="What do you look for in headphones?",
            methodology="means_end_chain",
            concept=ConceptBrief(
                name=concept.name, objective=concept.objective, vocabulary=concept.vocabulary
            ),
        )
    )
    types = {c.label: c.node_type for c in result.concepts}
    assert types == {
        "long battery life": "attribute",
        "don't have to charge them every day": "functional_consequence",
        "relax on long trips": "psychosocial_consequence",
        "feeling relaxed": "psychosocial_consequence",
        "peace of mind": "terminal_value",
    }
    edges = {(r.source_label, r.edge_type, r.target_label) for r in result.relationships}
    assert ("long battery life", "leads_to", "don't have to charge them every day") in edges
    assert ("don't have to charge them every day", "leads_to", "relax on long trips") in edges
    assert ("feeling relaxed", "leads_to", "peace of mind") in edges
    for c in result.concepts:  # verbatim evidence, with the utterance id (traceability)
        assert text[c.quote.start : c.quote.end] == c.quote.text
        assert c.source_utterance_id == "u7" == c.quote.utterance_id
    for r in result.relationships:
        assert text[r.quote.start : r.quote.end] == r.quote.text and r.source_utterance_id == "u7"
