"""The merge decision at the real threshold (0.60) with the real all-MiniLM-L6-v2 model.

The examples were measured with the model: "quick_recharge: Recharging the battery takes little
time" vs the slot "charging_speed: How quickly the battery recharges" ≈ 0.67 (merge), while
"battery_life: How long the battery lasts on one charge" ≈ 0.58 (a near miss: new slot). The test
re-measures them, so a model or text change that moves them across the threshold is reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from services.canonical_slots.domain import MatchKind
from services.canonical_slots.lemmas import Lemmatizer
from services.canonical_slots.merge import SlotIndex
from services.canonical_slots.vectors import slot_text

THRESHOLD = 0.60
EXISTING = ("charging_speed", "How quickly the battery recharges")
PARAPHRASE = ("quick_recharge", "Recharging the battery takes little time")
NEAR_MISS = ("battery_life", "How long the battery lasts on one charge")


def _vec(embedder: Any, name: str, description: str) -> np.ndarray:
    return embedder.encode([slot_text(name, description)])[0]


def _index(embedder: Any, lemmatizer: Lemmatizer) -> SlotIndex:
    index = SlotIndex(THRESHOLD)
    index.add("slot-1", "attribute", lemmatizer.name_key(EXISTING[0]), _vec(embedder, *EXISTING))
    return index


def test_measured_examples_straddle_the_threshold(embedder: Any) -> None:
    existing = _vec(embedder, *EXISTING)
    assert float(existing @ _vec(embedder, *PARAPHRASE)) >= THRESHOLD
    assert float(existing @ _vec(embedder, *NEAR_MISS)) < THRESHOLD


def test_paraphrase_merges_by_embedding(embedder: Any, lemmatizer: Lemmatizer) -> None:
    match = _index(embedder, lemmatizer).match(
        "attribute", lemmatizer.name_key(PARAPHRASE[0]), _vec(embedder, *PARAPHRASE)
    )
    assert match is not None
    assert match.slot_id == "slot-1" and match.kind is MatchKind.EMBEDDING_MATCH
    assert THRESHOLD <= match.similarity < 1.0


def test_near_miss_is_a_new_slot(embedder: Any, lemmatizer: Lemmatizer) -> None:
    index = _index(embedder, lemmatizer)
    assert index.match("attribute", lemmatizer.name_key(NEAR_MISS[0]), _vec(embedder, *NEAR_MISS)) is None


def test_lemmatised_name_wins_even_when_descriptions_differ(embedder: Any, lemmatizer: Lemmatizer) -> None:
    index = _index(embedder, lemmatizer)
    unrelated = _vec(embedder, "charging_speeds", "A completely different description about prices")
    match = index.match("attribute", lemmatizer.name_key("charging_speeds"), unrelated)
    assert match is not None and match.kind is MatchKind.NAME_MATCH and match.similarity == 1.0


def test_other_node_type_never_matches(embedder: Any, lemmatizer: Lemmatizer) -> None:
    index = _index(embedder, lemmatizer)
    assert index.match("terminal_value", lemmatizer.name_key(EXISTING[0]), _vec(embedder, *EXISTING)) is None


def test_best_of_several_slots_is_chosen(embedder: Any, lemmatizer: Lemmatizer) -> None:
    index = _index(embedder, lemmatizer)
    index.add("slot-2", "attribute", "price", _vec(embedder, "price", "What the product costs"))
    match = index.match("attribute", "cost", _vec(embedder, "cost", "How much the product costs"))
    assert match is not None and match.slot_id == "slot-2"
