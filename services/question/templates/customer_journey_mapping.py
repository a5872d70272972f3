"""Customer journey mapping: stages and touchpoints in order, emotions, pain points and needs."""

# One template per line, so each reads (and greps) as the sentence it is.
# ruff: noqa: E501

from __future__ import annotations

from services.question.templates.base import Templates

FAMILIES: dict[str, Templates] = {
    "journey_next": Templates(
        node=(
            "What happened right after {focus}?",
            "What came just before {focus}?",
            "Where did things go after {focus}?",
            "After {focus}, what was the next thing you did?",
        ),
        topic=(
            "And what happened after that?",
            "What did you do next?",
            "What came just before that, and how did it start?",
            "After that point, what was the next thing that happened?",
            "Where did your experience with {topic} go from there?",
            "Thinking about the whole experience with {topic}, what was the next step?",
        ),
        keywords=("next", "journey", "in time", "came before", "move the story"),
    ),
    # Walking on once every `journey_next` question was asked: what is still missing from the
    # journey. Before, the shared `explore` family came next and asked about "options" and "what
    # stands out", which is not a journey's question. No keywords: only reached as a fallback.
    "journey_gaps": Templates(
        topic=(
            "Which step of your experience with {topic} haven't we talked about yet?",
            "Once that was done, what was still left to do?",
            "What happened in between the steps you've described that we haven't covered?",
            "How did the whole experience end, and what happened once it was over?",
        ),
    ),
    "touchpoint": Templates(
        node=(
            "At {focus}, what exactly did you do?",
            "Who or what did you deal with at {focus}, and what were you told?",
            "What did you see or hear at {focus}?",
            "Could you describe {focus} in more detail: where were you, and what happened there?",
            "Which channel did you use at {focus}, and how did it go?",
        ),
        keywords=("touchpoint", "channel", "zoom", "stage", "dealt with"),
    ),
    "emotion": Templates(
        node=(
            "How did you feel at {focus}?",
            "What made you feel the way you did at {focus}?",
            "At the moment of {focus}, what was going through your mind?",
            "How did {focus} leave you feeling?",
            "Thinking just of {focus}, what feelings come back to you?",
        ),
        keywords=("feel", "emotion", "felt"),
    ),
    "pain_point": Templates(
        node=(
            "What was difficult or confusing about {focus}?",
            "What went wrong at {focus}, and what did you do about it?",
            "What did {focus} cost you in time, money or effort?",
            "What made {focus} slower or harder than you expected?",
            "How did you work around the problems at {focus}?",
        ),
        keywords=("pain", "difficult", "frustrat", "went wrong", "problem", "slow", "confusing"),
    ),
    "need": Templates(
        node=(
            "What did you need at {focus}?",
            "What would have made {focus} right for you?",
            "What were you expecting at {focus}?",
            "At {focus}, what would have made the biggest difference to you?",
            "Why does getting {focus} right matter to you?",
        ),
        keywords=("need", "expect", "would have made"),
    ),
    "moment_of_truth": Templates(
        node=(
            "Around {focus}, which moment made or broke your opinion, and why?",
            "What was the moment around {focus} that mattered most to you, and why that one?",
            "Looking at {focus}, when did you decide how you felt about the whole experience?",
            "Of everything around {focus}, what stuck with you most, and why?",
        ),
        keywords=("moment of truth", "made or broke", "mattered more"),
    ),
}

OVERRIDES: dict[str, Templates] = {
    "validate": Templates(
        summary=(
            "Let me play back your journey: {chain}. What is missing, or out of order?",
            "So far your journey includes {summary}. Which highs and lows have I missed?",
            "Looking at what you've described, {summary}, what would you correct or add?",
            "If you drew your journey as a line from start to finish, with {summary} on it, where would the highs "
            "and lows be?",
        ),
    ),
    "closing": Templates(
        summary=(
            "Before we finish, what else about your experience with {topic} matters to you that we haven't covered?",
            "We've gone through {summary}. Before we wrap up, what else about the experience should I know?",
            "As we come to the end, which moment of the whole experience would you most want me to remember?",
        ),
    ),
}
