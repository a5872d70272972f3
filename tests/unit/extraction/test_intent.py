"""Respondent intent on the labelled phrasings of tests/data/extraction/intents.yaml (accuracy floor)
and on the precedence rules between intents."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import yaml

from services.extraction.intent import IntentClassifier
from services.extraction.models import Intent
from services.extraction.preprocess import Preprocessor
from tests.unit.extraction.conftest import DATA_DIR

ACCURACY_FLOOR = 0.90


def _labelled() -> list[dict[str, Any]]:
    data = yaml.safe_load((DATA_DIR / "intents.yaml").read_text(encoding="utf-8"))
    defaults = data["defaults"]
    return [{**defaults, **item} for item in data["items"]]


def test_the_labelled_list_is_large_and_covers_every_intent() -> None:
    items = _labelled()
    counts = Counter(item["intent"] for item in items)
    assert len(items) >= 60
    assert set(counts) == {i.value for i in Intent}
    assert min(counts.values()) >= 10


def test_accuracy_on_the_labelled_phrasings(preprocessor: Preprocessor) -> None:
    classifier = preprocessor.intents
    items = _labelled()
    misses = []
    for item in items:
        result = classifier.classify(item["text"], question=item["question"], topic=item["topic"])
        if result.intent.value != item["intent"]:
            misses.append(f"{item['text']!r}: expected {item['intent']}, got {result.intent.value}")
    accuracy = 1 - len(misses) / len(items)
    assert accuracy >= ACCURACY_FLOOR, "\n".join(misses)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I have to go, but the battery is great and the sound is clear and rich.", Intent.STOP_REQUEST),
        ("What do you mean?", Intent.CLARIFICATION_REQUEST),
        ("I'd rather not say.", Intent.SKIP_REQUEST),
        # a substantive answer that ends with a question is still an answer
        (
            "I love the battery, it lasts a week and the case charges wirelessly overnight, "
            "but what do you mean by value exactly?",
            Intent.ANSWER,
        ),
    ],
)
def test_precedence(text: str, expected: Intent) -> None:
    assert IntentClassifier().classify(text, question="What do you like about them?").intent is expected


def test_asking_what_the_question_is_for_is_a_clarification_request() -> None:
    result = IntentClassifier().classify(
        "Strictly speaking, why do you ask? What are you trying to find out?",
        question="Why is price important?",
    )
    assert result.intent is Intent.CLARIFICATION_REQUEST


@pytest.mark.parametrize("text", ["?", " ?? ", "?!", "...?"])
def test_a_question_mark_alone_is_a_clarification_request(text: str) -> None:
    result = IntentClassifier().classify(text, question="Why does the secure fit matter to you?")
    assert result.intent is Intent.CLARIFICATION_REQUEST


def test_confidence_and_rationale_are_reported() -> None:
    result = IntentClassifier().classify("Can we stop the interview here?")
    assert result.intent is Intent.STOP_REQUEST
    assert 0.8 <= result.confidence <= 1.0
    assert result.rationale


@pytest.mark.parametrize(
    "text",
    [
        "Um, nothing else comes to mind, really.",
        "Nothing springs to mind.",
        "Hard to say, no idea honestly.",
        "Pretty much, yes.",  # to a summary: a confirmation
        "To be precise, pretty much, yes.",
        "Oh, well, yes, that's about right.",
        "Again, I'd mention the station café.",  # refers to the respondent: not a change of subject
        "Well, not really, sort of.",
    ],
)
def test_nothing_to_tell_is_an_answer_not_off_topic(text: str) -> None:
    # no word in common with the question, no word referring back: the overlap rule alone says off-topic
    result = IntentClassifier().classify(text, question="What did the nurse do at that point?")
    assert result.intent is Intent.ANSWER, result


def test_a_comparison_in_words_of_its_own_is_an_answer() -> None:
    # no word in common with the triad question and none referring back, but it compares: an answer
    question = "Pick any three video streaming services you know: which two belong together, and why?"
    classifier = IntentClassifier()
    for text in (
        "Some have no adverts, whereas others have constant adverts.",
        "Some have lots of original shows, while others have mostly old licensed films.",
    ):
        assert classifier.classify(text, question=question).intent is Intent.ANSWER, text
    assert classifier.classify("The weather has been terrible lately.", question=question).intent is (
        Intent.OFF_TOPIC
    )


def test_off_topic_uses_the_question() -> None:
    classifier = IntentClassifier()
    text = "The weather has been terrible lately."
    assert (
        classifier.classify(text, question="What do you like about your headphones?").intent
        is Intent.OFF_TOPIC
    )
    assert (
        classifier.classify(text, question="How does the weather affect your commute?").intent
        is Intent.ANSWER
    )
