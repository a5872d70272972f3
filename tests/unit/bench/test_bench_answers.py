"""The benchmark's answers: every index names labels of its own, and `FreshAnswers` hands each
scenario indices no earlier one got, so that no scenario finds its labels in the services'
embedding caches (a turn in known words skips its encodings and reads cheaper than a new
interview's)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench.answers import CAPACITY, FEATURES, QUALIFIERS, ROUND, FreshAnswers, answer
from bench.auto_llm import extraction_reply
from bench.run_bench import Plan
from services.extraction.models import ExtractionRequest
from services.extraction.prompts import system_prompt, user_prompt
from services.graph_store.settings import GraphStoreSettings
from shared.methodology import MethodologyRegistry

CONFIG = Path(__file__).resolve().parents[3] / "config"


@pytest.fixture(scope="module")
def labels_by_index() -> list[list[str]]:
    """Per index, the concept labels the benchmark's fake provider extracts from its answer."""
    methodology = MethodologyRegistry(CONFIG).get("means_end_chain")
    system = system_prompt(methodology)
    out = []
    for index in range(CAPACITY):
        text = answer(1, index)
        request = ExtractionRequest(session_id="s", utterance_id="u", text=text, methodology=methodology.name)
        reply = extraction_reply(system, user_prompt(request, []))
        out.append([c["label"] for c in reply["concepts"]])
    return out


def test_every_index_names_labels_no_other_index_names(labels_by_index: list[list[str]]) -> None:
    seen: dict[str, int] = {}
    for index, labels in enumerate(labels_by_index):
        assert len(labels) == 3, (index, labels)  # feature, effect, feeling
        for label in labels:
            assert label not in seen, f"index {index} repeats {label!r} of index {seen.get(label)}"
            seen[label] = index


def test_a_rounds_labels_stay_below_the_graph_stores_merge_threshold(
    labels_by_index: list[list[str]], embedder: Any
) -> None:
    # A 50-turn interview answers one round: labels of one rung (one node type) that the graph
    # store's dedup merged would add fewer nodes than the answers state.
    threshold = GraphStoreSettings().surface_similarity_threshold
    for start in range(0, CAPACITY, ROUND):
        for rung in range(3):
            texts = [labels[rung] for labels in labels_by_index[start : start + ROUND]]
            vectors = np.asarray(embedder.encode(texts))
            similarity = vectors @ vectors.T
            np.fill_diagonal(similarity, 0.0)
            a, b = np.unravel_index(int(similarity.argmax()), similarity.shape)
            assert similarity[a, b] < threshold, (start // ROUND, texts[a], texts[b], float(similarity[a, b]))


def test_the_words_depend_on_the_index_only() -> None:
    assert answer(3, 10) == answer(1, 12)
    plain, qualified = answer(1, 0), answer(1, ROUND)
    assert FEATURES[0] in plain and FEATURES[0] in qualified
    assert QUALIFIERS[0] not in plain and qualified.count(QUALIFIERS[0]) == 3  # one per rung


def test_an_index_outside_the_lists_is_refused() -> None:
    with pytest.raises(ValueError, match="outside"):
        answer(1, CAPACITY)
    with pytest.raises(ValueError, match="outside"):
        answer(0, 0)


def test_fresh_answers_never_hand_out_an_index_twice() -> None:
    fresh = FreshAnswers()
    taken: list[range] = []
    for turns, align in ((6, False), (3, False), (20, False), (50, True), (4, False), (50, True)):
        offset = fresh.take(turns, align=align)
        taken.append(range(offset, offset + turns))
        if align:
            assert offset % ROUND == 0  # a whole interview in one round
    indices = [i for block in taken for i in block]
    assert len(indices) == len(set(indices))
    # Every answer it hands out carries a qualifier: all of one length, whichever round.
    assert min(indices) >= ROUND


def test_fresh_answers_refuse_to_run_out_silently() -> None:
    fresh = FreshAnswers()
    fresh.take(CAPACITY - ROUND)
    with pytest.raises(ValueError, match="out of fresh answers"):
        fresh.take(1)
    with pytest.raises(ValueError, match="turns"):
        FreshAnswers().take(0)


@pytest.mark.parametrize("plan", [Plan(), Plan.quick()], ids=["full", "quick"])
def test_a_databases_scenarios_fit_in_the_word_lists(plan: Plan) -> None:
    assert plan.fresh_indices() <= CAPACITY - ROUND
