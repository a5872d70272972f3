"""What an interviewer's question asks for: its kind, and which node types it hints at.

The offline respondent decides what to reveal from this (see `offline.py`):

=========  ====================================================  ==============================
kind       examples                                              reaction
=========  ====================================================  ==============================
closing    "Before we finish, what else ...?"                    thanks (+ one last item)
validate   "If I've understood you, ... How well does that       confirm, restating the chain
           match?" / "So far you've talked about ..."
incident   "Think of one particular time when ..."               open a new incident/timeline
timeline   "What happened next?" / "When did you first ..."      next step of the timeline
specific   "What do you mean by X?" / "Who was involved?"        detail of X, or a side element
explore    "What else do you look for?" / "Of A, B and C,        open a new chain (a triad:
           which two are alike, and why not the third?"          both poles of a construct)
ladder     "Why is X important to you?" / "What does X give      the next level of X's chain
           you?" / "Imagine X weren't there ..."
=========  ====================================================  ==============================

Patterns are tried in the order of the table; a question matching none is a ladder question
when it names something already said, otherwise an explore question. Type hints come from
per-methodology keyword tables (e.g. "worried" → `anxiety` in jobs-to-be-done) and steer which
linked element is revealed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from simulation.respondent.type_hints import rx as _rx
from simulation.respondent.type_hints import type_hints


class QuestionKind(StrEnum):
    """What a question asks the respondent to do."""

    CLOSING = "closing"
    VALIDATE = "validate"
    INCIDENT = "incident"
    TIMELINE = "timeline"
    RATE = "rate"
    SPECIFIC = "specific"
    EXPLORE = "explore"
    LADDER = "ladder"


# Methods whose scenarios place elements on constructs (a rating question is read as such only there).
RATING_METHODS = frozenset({"repertory_grid"})

# Words of a triad ("of A, B and C, which two are alike, and why not the third?"): it asks for a new
# construct, both poles of it, whichever elements it names and whatever "why" it ends with; read as a
# ladder of the element named, it got "that's just what matters to me" (43 of 80 triads that named an
# element, 2026-12-02).
_TRIAD_WORDS = (
    r"two of (?:them|these|those) (?:are )?alike",
    r"which two\b",
    r"\bthe third\b",
    r"odd one out",
    r"stands apart",
    r"belong together",
)
_TRIAD = _rx(*_TRIAD_WORDS)

# Words of a rating question ("where would each option fall on …"); outside RATING_METHODS they ask
# for specifics.
_RATING_WORDS = (
    r"where would each",
    r"where each",
    r"\brated each",
    r"which option sits",
    r"what puts an option",
)

_KIND_PATTERNS: tuple[tuple[QuestionKind, re.Pattern[str]], ...] = (
    (
        QuestionKind.CLOSING,
        _rx(
            r"before we (?:finish|wrap|close)",
            r"as we come to the end",
            r"\bwrap(?:ping)? up\b",
            r"that'?s all my questions",
            r"anything else (?:you'?d|you would) like to (?:add|say)",
            r"what else would you like to (?:add|say)",
        ),
    ),
    (
        QuestionKind.VALIDATE,
        _rx(
            r"if i'?ve understood",
            r"to check i'?ve got",
            r"how well does",
            r"what would you correct",
            r"read .{0,40}back",
            r"\bsum (?:it )?up\b",
            # "how would you put that in your own words?"; not "what is the opposite of X, in your
            # own words?", which asks for a pole
            r"put (?:that|it|this) in your own words",
            r"how accurate",
            r"here'?s what i'?ve heard",
            r"putting it together",
            r"if i put it together",
            r"so far you'?ve",
            r"play(?:ed)? back",
            r"does that (?:capture|match|sound right)",
            r"is that right",
            r"finish the sentence",
            r"how close is that",
            r"have i (?:missed|not yet understood)",
            r"what (?:have i|part of .{0,60} have i) missed",
            r"how well do these",
        ),
    ),
    (
        QuestionKind.INCIDENT,
        _rx(
            r"particular (?:time|occasion)",
            r"specific (?:time|occasion)",
            r"one (?:time|occasion)\b",
            # "what did the nurse say or do that stood out?" asks about this incident, not another
            r"(?<!say or do that )(?<!say that )(?<!do that )\bstood out\b",
            r"opposite way",
            r"the other way",
            r"contrasting occasion",
            r"turned out very differently",
            r"remember (?:well|clearly)",
            r"a time (?:when|with|that|it)\b",
            r"another (?:incident|occasion|time)",
        ),
    ),
    (
        QuestionKind.TIMELINE,
        _rx(
            r"what happened (?:next|right (?:before|after)|then|after|first)",
            r"what came (?:next|just before|before)",
            r"happened next",
            r"\bfirst (?:start|thought|got you thinking|came up)",
            r"when did you (?:first|start)",
            r"after that",
            r"how did it (?:all )?start",
            r"very beginning",
            r"what finally made you decide",
            r"first time you used",
            r"take me back",
            r"what did you do (?:first|next)",
            r"what prompted",
            r"what was the next",
            r"where did (?:things|your experience) go",
            r"how long after",
            r"what happened the first time",
            r"went through",
            r"\bthe next step\b",
        ),
    ),
    (
        # where the elements fall on a construct (a repertory grid's ratings)
        QuestionKind.RATE,
        _rx(*_RATING_WORDS, r"\brate each", r"how would you rate", r"on a scale"),
    ),
    (
        QuestionKind.SPECIFIC,
        _rx(
            r"what do you mean",
            r"mean(?:t)? exactly",
            r"what you mean",
            r"an example",
            r"look like in practice",
            r"\bdescribe\b(?!.*\bopposite\b)",  # "describe the very opposite of X" asks for a pole
            r"exactly when",
            r"where and when",
            r"who was (?:there|involved)",
            r"step by step",
            r"moment by moment",
            r"what exactly did",
            r"actually (?:say|said|do|did)",
            r"led up to",
            r"going on (?:just )?before",
            r"situation around",
            r"how would you know",
            r"cost you",
            r"where were you",
            r"specific day",
            r"in more detail",
            r"what did you (?:see|hear)",
            r"who or what did you deal",
            r"which channel",
            r"concrete example",
            r"what specific features",
            *_RATING_WORDS,
            r"could you say a bit more",
            r"tell me more",
        ),
    ),
    (
        QuestionKind.EXPLORE,
        _rx(
            r"\bwhat else\b",
            r"\bbesides\b",
            r"\bapart from\b",
            r"\bother things\b",
            r"\balongside\b",
            r"setting .{1,60} aside",
            r"compare .{0,30}options",
            r"side by side",
            r"different from the ones",
            r"make you pick",
            r"puts you off",
            r"what comes to mind",
            r"which .{0,40}(?:do you know|have you used)",
            r"other examples",
            r"another example",
            r"what other",
            *_TRIAD_WORDS,
            r"what features",
            r"notice or look for",
            r"what did you pay attention",
            r"what made you pick",
            r"what did you notice",
            r"ideal",
        ),
    ),
)

_LADDER_HINT = _rx(
    r"\bwhy\b",
    r"what (?:does|do|did|would) .{0,80}(?:give|do for|make possible|mean)",
    r"matters? to you",
    r"important to you",
    r"help you achieve",
    r"make a difference",
    r"as a result",
    r"affect(?:ed)? you",
    r"turn(?:ed)? out",
    r"trying to get done",
    r"make possible",
    r"how did .{0,60}feel",
    r"what did you need",
    r"expect",
    r"prefer",
    r"let you do",
    r"going wrong",
    r"worried",
    r"almost stopped",
    r"give up",
    r"concerns?",
    r"\bmiss\b",
    r"\bwithout\b",
    r"\bimagine\b",
    r"weren'?t there",
    r"compare with",
    r"different from what you had",
    r"what would change",
    r"opposite",
    r"\bfeel\b",
    r"what made you",
)


# How the things a question names bear on each other.
_RELATES = _rx(
    r"how do (?:these|they|those) (?:connect|relate|fit together|go together|link)",
    r"connect(?:ed)? (?:to|with) each other",
    r"how (?:are|is) .{0,80} (?:connected|related|linked)",
)


# An occasion asked for as the opposite of one told (the interviewer's contrasting incident).
_CONTRASTS = _rx(
    r"opposite way",
    r"the other way",
    r"turned out very differently",
    r"contrasting (?:occasion|time|incident)",
    r"a time unlike",
)


@dataclass(frozen=True)
class QuestionReading:
    """The classification of one question."""

    kind: QuestionKind
    type_hints: tuple[str, ...]
    probes: bool  # the question asks why/what-for about something (counts as a probe of the focus)
    # the question asks how the things it names bear on each other ("how do these connect for you?")
    relates: bool = False
    # the question asks for something opposite to what was told ("a time that went the other way")
    contrasts: bool = False


def classify(question: str, methodology: str, *, names_something: bool) -> QuestionReading:
    """Read `question`; `names_something` says whether it mentions an item already revealed."""
    text = " ".join(question.replace("’", "'").split())
    kind = next(
        (
            k
            for k, rx in _KIND_PATTERNS
            if rx.search(text) and (k is not QuestionKind.RATE or methodology in RATING_METHODS)
        ),
        None,
    )
    ladderish = bool(_LADDER_HINT.search(text))
    if (
        kind is QuestionKind.EXPLORE
        and ladderish
        and names_something
        and not _TRIAD.search(text)
        and not re.search(
            r"\bwhat else\b|\bbesides\b|\bapart from\b|\balongside\b|\bwhat other\b|\bsetting\b",
            text,
            re.IGNORECASE,
        )
    ):
        kind = QuestionKind.LADDER  # "what made you pick X?" asks about X, not for something new
    if kind is None:
        kind = QuestionKind.LADDER if (ladderish or names_something) else QuestionKind.EXPLORE
    return QuestionReading(
        kind=kind,
        type_hints=type_hints(text, methodology),
        probes=kind is QuestionKind.LADDER or ladderish,
        relates=bool(_RELATES.search(text)),
        contrasts=bool(_CONTRASTS.search(text)),
    )
