"""What the turn's early intake sends to Preprocess about the interview's topic."""

from __future__ import annotations

from services.orchestrator.stages.intake import MAX_TOPIC_CHARS, topic_words


def test_the_topic_is_the_concepts_name_and_vocabulary() -> None:
    concept = {"name": "Video Streaming Services", "vocabulary": ["Netflix", " ", "Disney+"]}
    assert topic_words(concept) == "Video Streaming Services; Netflix; Disney+"
    assert topic_words({"name": "Coffee"}) == "Coffee"
    assert topic_words({}) == ""


def test_a_long_vocabulary_is_cut_to_whole_terms_within_the_limit() -> None:
    vocabulary = [f"term number {i}" for i in range(200)]
    topic = topic_words({"name": "Coffee", "vocabulary": vocabulary})
    assert len(topic) <= MAX_TOPIC_CHARS
    terms = topic.split("; ")
    assert terms[0] == "Coffee" and terms[1:] == vocabulary[: len(terms) - 1]
    assert len(terms) > 20  # as many as fit, not just the name
