"""The synthetic respondent's sentence joining: an opener before a sentence lower-cases only a
function word, never "I" or a name."""

from __future__ import annotations

import pytest

from simulation.text import decapitalise


@pytest.mark.parametrize(
    ("text", "joined"),
    [
        ("Nobody chased the transport booking.", "nobody chased the transport booking."),
        (
            "Everyone assumed someone else had explained it.",
            "everyone assumed someone else had explained it.",
        ),
        ("The delivery arrives on Tuesday.", "the delivery arrives on Tuesday."),
        ("I was told at the ward round.", "I was told at the ward round."),
        ("Netflix has the best shows.", "Netflix has the best shows."),
    ],
)
def test_after_an_opener_only_a_function_word_is_lower_cased(text: str, joined: str) -> None:
    assert decapitalise(text) == joined
