"""Means-end chain (laddering): overrides of the generic families in the method's own voice."""

# One template per line, so each reads (and greps) as the sentence it is.
# ruff: noqa: E501

from __future__ import annotations

from services.question.templates.base import Templates

FAMILIES: dict[str, Templates] = {}

OVERRIDES: dict[str, Templates] = {
    "explore": Templates(
        topic=(
            "When you choose {topic}, what else do you notice or look for?",
            "What makes the {topic} you like different from the ones you'd reject?",
            "When you compare {kind} options side by side, what do you pay attention to?",
            "What features of {topic} make you pick one over another?",
            "Thinking of {topic} you'd never choose, what puts you off?",
            "What else comes to mind when you think about {topic}?",
        ),
    ),
    "ladder_up": Templates(
        node=(
            "Why {is} {focus} important to you?",
            "What {does} {focus} give you?",
            "What {does} {focus} do for you, personally?",
            "And why does that matter to you: what {does} {focus} help you achieve?",
            "You mentioned {focus}. Why is that important to you?",
            "What is it about {focus} that matters to you?",
        ),
    ),
    "validate": Templates(
        node=(
            "Thinking about {focus}: if I've understood you, {chain}. How well does that match how you see it?",
            "So {focus} {is} important because of where that leads for you. How would you put that in your own words?",
            "How strongly {does} {focus} drive your choice of {topic}, and why?",
            "What would you correct in how I've understood why {focus} {is} important to you?",
        ),
    ),
    "closing": Templates(
        summary=(
            "Before we finish, what else about {topic} is important to you that you haven't had the chance to say?",
            "We've talked about {summary}. Before we wrap up, what else matters to you when choosing {topic}?",
            "As we come to the end, what is the one reason for choosing {topic} you'd most want me to remember?",
        ),
    ),
}
