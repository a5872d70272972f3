"""Corrections to the lookup lemmas that both the extraction and the question service apply."""

from __future__ import annotations

import pytest

from shared.lemmas import own_lemma


@pytest.mark.parametrize(
    ("word", "lemma"), [("evening", "evening"), ("evenings", "evening"), ("matters", "matter")]
)
def test_a_noun_the_table_misreads_is_its_own_lemma(word: str, lemma: str) -> None:
    assert own_lemma(word) == lemma


@pytest.mark.parametrize("word", ["even", "morning", "meetings", "s"])
def test_other_words_are_left_to_the_table(word: str) -> None:
    assert own_lemma(word) is None
