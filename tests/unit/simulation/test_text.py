"""The synthetic respondent's sentence joining: an opener before a sentence lower-cases only a
function word, never "I" or a name, and is never the words the sentence already opens with."""

from __future__ import annotations

import random

import pytest

from simulation.personas import PersonaRegistry
from simulation.respondent.style import AnswerDraft, mood_at, render
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


def test_an_opener_is_not_said_twice(personas: PersonaRegistry) -> None:
    # the fixator opens with "Like I said," and its restatements start the same way: "Like I said,
    # like I said, they should tell the family"
    persona = personas.get("single_topic_fixator")
    assert "Like I said," in persona.speech_pattern.openers
    mood = mood_at(persona, 1)
    seen = set()
    for seed in range(200):
        draft = AnswerDraft()
        draft.add("Like I said, they should tell the family.", hedgeable=False)
        draft.note("fixation")  # the fixator coming back to its topic
        text = render(draft, persona, mood, random.Random(seed))
        seen.add(text.split(",")[0])
        assert "like i said, like i said" not in text.lower(), text
    assert {"Again", "Well"} <= seen  # the other openers still come


def test_only_an_answer_that_comes_back_to_something_opens_with_like_i_said(
    personas: PersonaRegistry,
) -> None:
    # "Like I said, I ordered a good thermos flask" about something never said before
    persona = personas.get("single_topic_fixator")
    mood = mood_at(persona, 1)
    openings = set()
    for seed in range(200):
        draft = AnswerDraft()
        draft.add("I ordered a good thermos flask.", hedgeable=False)
        openings.add(render(draft, persona, mood, random.Random(seed)).split(" ")[0])
    assert "Well," in openings
    assert not openings & {"Like", "Again,"}
