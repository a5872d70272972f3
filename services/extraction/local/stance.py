"""Stance (-1/0/+1) of an item from polarity words in its clause, with negation."""

from __future__ import annotations

from spacy.tokens import Doc

_POSITIVE = frozenset(
    {
        "love",
        "like",
        "great",
        "good",
        "best",
        "enjoy",
        "happy",
        "relieved",
        "easy",
        "helpful",
        "comfortable",
        "nice",
        "perfect",
        "safe",
        "reassured",
        "calm",
        "confident",
        "proud",
        "better",
        "fresh",
        "treat",
        "alive",
        "clear",
        "deep",
        "quick",
        "worth",
    }
)
_NEGATIVE = frozenset(
    {
        "hate",
        "annoying",
        "annoyed",
        "bad",
        "terrible",
        "worst",
        "problem",
        "frustrating",
        "frustrated",
        "difficult",
        "hard",
        "wrong",
        "missing",
        "broke",
        "broken",
        "late",
        "worry",
        "afraid",
        "anxious",
        "stressed",
        "sore",
        "bulky",
        "expensive",
        "burnt",
        "slow",
        "cancelled",
        "dislike",
        "awful",
        "poor",
        "angry",
        "upset",
        "scared",
        "worried",
        "endless",
        "flat",
        "hassle",
        "trouble",
        "issue",
        "fuss",
        "delay",
    }
)
_NEGATORS = frozenset({"not", "n't", "never", "no", "nobody", "without"})


def stance_of(doc: Doc, start: int, end: int) -> int:
    """-1/0/+1 from polarity words in tokens [start, end), flipped by a preceding negator."""
    score = 0
    for i in range(start, end):
        lemma = doc[i].lemma_.lower()
        low = doc[i].lower_
        polarity = (
            1
            if (low in _POSITIVE or lemma in _POSITIVE)
            else -1
            if (low in _NEGATIVE or lemma in _NEGATIVE)
            else 0
        )
        if polarity and _negated(doc, i, start):
            polarity = -polarity
        score += polarity
    return (score > 0) - (score < 0)


def denies_friction(doc: Doc, start: int, end: int) -> bool:
    """Whether the negative words of tokens [start, end) are all negated ("no problems", "wasn't
    late"): words of praise do not count ("the good slots are gone" still names a friction)."""
    negated = plain = False
    for i in range(start, end):
        if doc[i].lower_ not in _NEGATIVE and doc[i].lemma_.lower() not in _NEGATIVE:
            continue
        if _negated(doc, i, 0):
            negated = True
        else:
            plain = True
    return negated and not plain


def _negated(doc: Doc, i: int, first: int) -> bool:
    """Whether a negator stands in the three tokens before token `i` (none before `first`)."""
    return any(doc[j].lower_ in _NEGATORS for j in range(max(first, i - 3), i))
