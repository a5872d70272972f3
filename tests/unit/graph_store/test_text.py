"""Label normalisation and quote location (`services.graph_store.text`)."""

from __future__ import annotations

import pytest

from services.graph_store.text import locate_quote, normalise_label

UTTERANCE = "Honestly, the  Battery lasts ages — I don’t have to charge it every day, so I feel relaxed."


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Saves  Money. ", "saves money"),
        ("“Peace of mind”", "peace of mind"),
        ("don’t worry", "don't worry"),
        ("Noise-Cancelling", "noise-cancelling"),
        ("...", ""),
    ],
)
def test_normalise_label(raw: str, expected: str) -> None:
    assert normalise_label(raw) == expected


def test_exact_quote_gets_its_offsets() -> None:
    found = locate_quote("I feel relaxed", UTTERANCE)
    assert found is not None
    assert UTTERANCE[found.start : found.end] == "I feel relaxed" == found.text
    assert found.start == UTTERANCE.index("I feel relaxed")


def test_case_and_whitespace_differences_are_tolerated_but_the_exact_substring_is_stored() -> None:
    found = locate_quote("the battery lasts AGES", UTTERANCE)
    assert found is not None
    assert found.text == "the  Battery lasts ages"  # the utterance's own spelling (two spaces, capital B)
    assert UTTERANCE[found.start : found.end] == found.text


def test_straight_apostrophe_matches_typographic_one() -> None:
    found = locate_quote("I don't have to charge it", UTTERANCE)
    assert found is not None
    assert found.text == "I don’t have to charge it"
    assert UTTERANCE[found.start : found.end] == found.text


def test_wrapping_quotation_marks_and_ellipses_are_ignored() -> None:
    found = locate_quote('"...so I feel relaxed."', UTTERANCE)
    assert found is not None
    assert found.text == "so I feel relaxed."


def test_a_quote_that_is_not_in_the_utterance_is_rejected() -> None:
    assert locate_quote("the battery is terrible", UTTERANCE) is None
    assert locate_quote("   ", UTTERANCE) is None


def test_correct_offset_hint_is_used_and_a_wrong_one_ignored() -> None:
    text = "cheap, cheap and cheap again"
    second = text.index("cheap", 1)
    hinted = locate_quote("cheap", text, second, second + 5)
    assert hinted is not None and hinted.start == second
    wrong = locate_quote("cheap", text, 2, 7)  # does not point at "cheap": searched instead
    assert wrong is not None and wrong.start == 0


def test_word_bounded_occurrence_is_preferred() -> None:
    text = "It is scary to drive a car at night"
    found = locate_quote("car", text)
    assert found is not None and found.start == text.index(" car ") + 1
