"""Lemma keys drive the first merge step; they must unify grammatical variants only."""

from __future__ import annotations

import pytest

from services.canonical_slots.lemmas import Lemmatizer, snake_case


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Running Shoes", "running_shoes"),
        ("  fast--charging!! ", "fast_charging"),
        ("Müsli Bar", "müsli_bar"),
        ("!!", ""),
        ("a" * 80, "a" * 64),
    ],
)
def test_snake_case(text: str, expected: str) -> None:
    assert snake_case(text) == expected


def test_name_key_unifies_plural_and_spacing(lemmatizer: Lemmatizer) -> None:
    assert lemmatizer.name_key("running_shoes") == lemmatizer.name_key("Running shoe")
    assert lemmatizer.name_key("batteries") == lemmatizer.name_key("battery")


def test_name_key_keeps_different_words_apart(lemmatizer: Lemmatizer) -> None:
    assert lemmatizer.name_key("running_shoes") != lemmatizer.name_key("trail_shoes")
    assert lemmatizer.name_key("battery_life") != lemmatizer.name_key("social_life")


def test_head_is_last_content_lemma(lemmatizer: Lemmatizer) -> None:
    assert lemmatizer.head("a long battery life") == "life"
    assert lemmatizer.head("the batteries") == "battery"
    assert lemmatizer.content_lemmas("it is") == ("it", "be")  # only stop words: keep them
