"""Critical incident technique: one concrete incident at a time, reconstructed in order."""

# One template per line, so each reads (and greps) as the sentence it is.
# ruff: noqa: E501

from __future__ import annotations

from services.question.templates.base import Templates

FAMILIES: dict[str, Templates] = {
    # The generic "top" family's questions in an account's words: its top is an explanation or a
    # lesson, not what a ladder "all leads to" (`fit.fitting_family` sends an upward or event
    # question about one here). No keywords: never chosen by name.
    "account_top": Templates(
        node=(
            "Looking back, would you say it came down to {focus}, or was there more to it?",
            "So what stays with you from all this is {focus}. Is that right, or would you put it differently?",
            "If I've understood you, {focus} {is} what made the difference in the end. How well does that match how you see it?",
            "Would you say {focus} {is} the main thing you take from what happened, or is something else behind it?",
        ),
    ),
    "incident": Templates(
        node=(
            "Could you tell me about a specific occasion when {focus} went especially well or badly?",
            "Think of one particular time involving {focus} that stood out. What happened?",
            "When was the last time {focus} really made a difference, and what happened?",
        ),
        topic=(
            "Think of one particular time with {topic} that stood out as especially good or especially bad. "
            "What happened?",
            "Could you tell me about a specific occasion involving {topic} that went notably well or badly?",
            "What is one moment with {topic} that you still remember clearly, and what happened?",
            "Think back to a particular time when {topic} really made a difference, for better or worse. "
            "What happened?",
        ),
        # Once an account was told: another occasion, not "one particular time" as if none had been.
        again=(
            "Apart from what you've told me so far, think of another time with {topic} that stood out as especially good or especially bad. "
            "What happened?",
            "Is there another occasion involving {topic} that went notably well or badly, and what happened then?",
            "Besides the times you've described, what is another moment with {topic} that you still remember clearly, and what happened?",
            "Thinking of another occasion when {topic} really made a difference, for better or worse, what happened?",
        ),
        keywords=("incident", "occasion", "particular time", "specific time", "stood out"),
    ),
    "contrast_incident": Templates(
        node=(
            "Compared with {focus}, what is a time that went the opposite way, and what happened?",
            "Thinking of a time unlike {focus}, one that turned out very differently, what happened then?",
        ),
        topic=(
            "Could you tell me about a time with {topic} that went the opposite way?",
            "Thinking of a time with {topic} that turned out very differently, what happened then?",
            "What is a contrasting occasion with {topic}, one that went the other way, and what happened?",
            "What is a time with {topic} that went the other way, and what made the difference?",
        ),
        keywords=("second incident", "opposite character", "contrasting", "went well", "went badly"),
    ),
    "scene": Templates(
        node=(
            "What led up to {focus}?",
            "Where and when did {focus} happen?",
            "Who was involved in {focus}, and what were their roles?",
            "What was going on just before {focus}?",
            "What was the situation around {focus}?",
        ),
        keywords=("circumstance", "led up", "where and when", "scene", "situation", "who was involved"),
    ),
    "actions": Templates(
        node=(
            "What exactly did you do during {focus}, step by step?",
            "In {focus}, what did the others involved actually do or say?",
            "Could you take me through {focus} moment by moment: what was done first, and what next?",
            "What did you do at the moment of {focus}, and how did others respond?",
            "During {focus}, what was actually said?",
        ),
        keywords=("step by step", "what was done", "actions", "did or said", "trace"),
    ),
    "outcome": Templates(
        node=(
            "What happened as a result of {focus}?",
            "How did {focus} affect you, straight away and later on?",
            "What difference did {focus} make for the others involved?",
            "How could you tell what effect {focus} had?",
            "How did {focus} turn out in the end?",
        ),
        keywords=("result", "outcome", "consequence", "effect", "how they could tell"),
    ),
    "attribution": Templates(
        node=(
            "Why do you think {focus} turned out the way it did?",
            "Why do you think {clause}?",
            "In your view, what made {focus} work, or not work?",
            "Looking back, what would you want to happen differently with {focus} next time?",
            "What do you think made the difference in {focus}?",
            "What did you take away from {focus}?",
        ),
        keywords=("why they think", "attribution", "turned out", "learn", "differently next time"),
    ),
}

OVERRIDES: dict[str, Templates] = {
    "validate": Templates(
        node=(
            "Here is how I understood what happened around {focus}: {chain}. How accurate and complete is that account?",
            "What would you correct or add to my understanding of {focus}?",
            "Before we move on, what part of {focus} have I not yet understood correctly?",
            "If you retold {focus} in three or four steps, what would they be?",
        ),
    ),
    "closing": Templates(
        summary=(
            "Before we finish, what other incident or detail about {topic} do you think matters?",
            "We've talked about {summary}. Before we wrap up, what else do you think made the difference?",
            "As we come to the end, what is the one thing from these experiences you'd most want me to remember?",
        ),
    ),
}
