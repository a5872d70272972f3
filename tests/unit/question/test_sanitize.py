"""The sanitiser turns raw model output into exactly one short, open question (table-driven)."""

from __future__ import annotations

import pytest

from services.question.sanitize import sanitize_message, sanitize_question

CASES: list[tuple[str, str, str]] = [
    (
        "label + quotes",
        'Selected question: "Why is creamy texture important to you?"',
        "Why is creamy texture important to you?",
    ),
    (
        "markdown label",
        "**Question:** Why is *creamy texture* important to you?",
        "Why is creamy texture important to you?",
    ),
    (
        "numbered list: best (open) one",
        "1. Do you like it?\n2. Why does that matter to you?\n3. What else?",
        "Why does that matter to you?",
    ),
    (
        "bulleted list: open beats closed",
        "- Do you like oat milk?\n- What does oat milk give you?",
        "What does oat milk give you?",
    ),
    (
        "list: first of equally good",
        "1) What does it give you?\n2) Why is it important to you?",
        "What does it give you?",
    ),
    (
        "leaked reasoning lines",
        "Strategy: deepen\nBecause the respondent mentioned texture, I will ladder up.\n"
        "Why is texture important to you?",
        "Why is texture important to you?",
    ),
    (
        "inline reasoning after the question",
        "Why is it important to you? Strategy: deepen because depth is low.",
        "Why is it important to you?",
    ),
    (
        "parenthetical reasoning",
        "What happens next? (Rationale: walk the journey forward)",
        "What happens next?",
    ),
    (
        "two questions: the first",
        "Why is that important? And how does it make you feel?",
        "Why is that important?",
    ),
    (
        "short lead-in kept",
        "You mentioned the price. Why does it matter to you?",
        "You mentioned the price. Why does it matter to you?",
    ),
    (
        "imperative becomes a question",
        "Tell me more about the price.",
        "Could you tell me more about the price?",
    ),
    ("statement gets a question mark", "What you look for first", "What you look for first?"),
    (
        "leading form rewritten",
        "Don't you think that oat milk is healthier?",
        "To what extent do you feel that oat milk is healthier?",
    ),
    (
        "tag question rewritten",
        "Oat milk is better, right?",
        "To what extent do you feel that oat milk is better?",
    ),
    ("code fence", "```\nQuestion: What do you do first?\n```", "What do you do first?"),
    ("question mark outside quotes", '"What would you miss without it"?', "What would you miss without it?"),
    (
        "here is ...",
        "Here's the follow-up question: How does that compare with dairy milk?",
        "How does that compare with dairy milk?",
    ),
    ("blockquote", "> Why do you choose it?", "Why do you choose it?"),
    (
        "Q: prefix",
        "Q: Which of these matters most to you, and why?",
        "Which of these matters most to you, and why?",
    ),
    ("interviewer label, single quotes", "Interviewer: 'How did you feel?'", "How did you feel?"),
    (
        "reasoning paragraph then labelled question",
        "Reasoning: they are engaged.\n\nFinal question: What happened after that?",
        "What happened after that?",
    ),
    ("I'd ask:", "I'd ask: What else comes to mind?", "What else comes to mind?"),
    ("unbalanced inner quote", 'So: "What do you do first?" maybe', "What do you do first?"),
    ("heading", "## Next question\nWhat did you do next?", "What did you do next?"),
    (
        "play-back lead-in is not a label",
        "Here's what I've heard so far: price and taste. How close is that to how you see it?",
        "Here's what I've heard so far: price and taste. How close is that to how you see it?",
    ),
]


@pytest.mark.parametrize(("raw", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_sanitize_question(raw: str, expected: str) -> None:
    assert sanitize_question(raw) == expected


@pytest.mark.parametrize(
    "raw", ["", "   ", "Strategy: deepen", "Rationale: the respondent is tired.", "?", "1.\n2.", "Why?"]
)
def test_nothing_usable_gives_none(raw: str) -> None:
    assert sanitize_question(raw) is None


@pytest.mark.parametrize(
    "raw",
    [
        "What " + "very " * 120 + "long question is this?",
        "Sure. "
        + "You said a lot of things about many topics and I want to be thorough here " * 6
        + "and why?",
    ],
)
def test_length_cap_keeps_one_question(raw: str) -> None:
    text = sanitize_question(raw, max_chars=120)
    assert text is not None
    assert len(text) <= 120
    assert text.endswith("?")
    assert text.count("?") == 1


def test_long_lead_in_is_dropped_before_the_question_is_cut() -> None:
    lead = "This lead-in goes on about many things you said earlier, " * 3 + "and then some more."
    text = sanitize_question(f"{lead} Why does it matter to you?", max_chars=60)
    assert text == "Why does it matter to you?"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "Closing message: Thank you so much for your time! You told me texture matters. "
            "Is there anything else?\n"
            "Strategy: close",
            "Thank you so much for your time! You told me texture matters.",
        ),
        ("**Thanks** for talking with me today.", "Thanks for talking with me today."),
    ],
)
def test_sanitize_message(raw: str, expected: str) -> None:
    assert sanitize_message(raw) == expected


def test_sanitize_message_caps_at_a_sentence_boundary() -> None:
    raw = " ".join(f"Sentence number {i} says something about what you told me." for i in range(40))
    text = sanitize_message(raw, max_chars=200)
    assert text is not None
    assert len(text) <= 200
    assert text.endswith(".")


def test_sanitize_message_empty_is_none() -> None:
    assert sanitize_message("Reasoning: none") is None
