"""Spelling of the -ing and past forms the offline engine says labels back with."""

from __future__ import annotations

import pytest

from services.question.wordforms import WordForms, gerund, past_tense


@pytest.mark.parametrize(
    ("verb", "ing"),
    [
        ("have", "having"),
        ("get", "getting"),
        ("lie", "lying"),
        ("see", "seeing"),
        ("wait", "waiting"),
        ("plan", "planning"),
        ("forget", "forgetting"),
        ("open", "opening"),
        ("be", "being"),
        ("fix", "fixing"),
    ],
)
def test_gerund(verb: str, ing: str) -> None:
    assert gerund(verb) == ing


@pytest.mark.parametrize(
    ("verb", "past"),
    [
        ("arrive", "arrived"),
        ("stop", "stopped"),
        ("carry", "carried"),
        ("play", "played"),
        ("visit", "visited"),
        ("forget", "forgot"),
        ("admit", "admitted"),
        ("come", "came"),
        ("turn", "turned"),
    ],
)
def test_past_tense(verb: str, past: str) -> None:
    assert past_tense(verb) == past


@pytest.mark.parametrize(
    ("word", "lemma"),
    [
        ("arrives", "arrive"),
        ("took", "take"),
        ("well", "well"),  # the verb itself, not a form of "good"
        ("an", "an"),  # the table maps it to "a", which is no verb: "scrolling for half aing hour"
        ("hours", "hours"),
    ],
)
def test_a_verb_lemma_is_a_verb_or_the_word_itself(word: str, lemma: str) -> None:
    assert WordForms.load().verb_lemma(word) == lemma
