"""What a clause that only points back refers to ("that's important to me", "which is why …").

A connective's left side may say nothing of its own ("… and that was because the nurse phoned"):
its referent is the item said just before it in the answer, else the node the question was about.
"""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from services.extraction.local.candidates import Candidate
from services.extraction.local.linking import Endpoint
from services.extraction.models import DiscourseRelation
from services.extraction.wordclasses import INTERJECTIONS

_STOP = frozenset(STOP_WORDS)

# Words that may fill a clause that only points back ("that's really important to me", "I think it
# went that way", "which I put", "looking back, it happened"); interjections may too (`points_back`).
_BACK_POINTERS = frozenset({"that", "this", "it", "which", "what"})
_POINTER_FILLER = frozenset(
    {
        "important",
        "matter",
        "matters",
        "mattered",
        "think",
        "guess",
        "suppose",
        "happen",
        "happened",
        "go",
        "went",
        "way",
        "look",
        "looking",
        "back",
        "put",
        "really",
        "just",
        "honestly",
        "end",
        "ultimately",
        "course",
        "mean",
        "so",
        "also",
        "mainly",
        "mostly",
        "probably",
        "maybe",
        "why",
        "reason",
        "turn",
        "turned",
        "out",
        "said",
        "as",
        "me",
        "for",
        "to",
        "personally",
        "lesson",
        "took",
        "take",
        "main",
        "because",
        "simply",
        "came",
        "come",
        "down",
        "again",
    }
)


def points_back(text: str) -> bool:
    """Whether a clause only refers back ("that's important to me", "I think that was")."""
    words = [w for w in re.findall(r"[a-z']+", text.lower().replace("’", "'")) if w not in {"'s", "'d", "'m"}]
    words = [w.split("'")[0] for w in words]
    if not any(w in _BACK_POINTERS for w in words):
        return False
    # "Right, that was because …": an interjection before the pointer says nothing of its own
    return all(w in _BACK_POINTERS or w in _POINTER_FILLER or w in _STOP or w in INTERJECTIONS for w in words)


def antecedent(
    doc: Doc, cands: list[Candidate], rel: DiscourseRelation, anchor: Endpoint | None
) -> Candidate | Endpoint | None:
    """What a connective's back-pointing (or missing) left side refers to.

    The nearest candidate ending before the connective's left side (in the same answer), else the
    node the question was about; None when the left side says something of its own.
    """
    if rel.left is not None and not points_back(rel.left.text):
        return None
    return said_before(cands, rel.left.start if rel.left is not None else rel.marker_span.start, anchor)


def said_before(cands: list[Candidate], start: int, anchor: Endpoint | None) -> Candidate | Endpoint | None:
    """The candidate ending nearest before character `start` (an event before a thing), else the
    node the question was about."""
    before = [c for c in cands if c.char_end <= start and not c.from_noun] or [
        c for c in cands if c.char_end <= start
    ]
    if before:
        return max(before, key=lambda c: c.char_end)
    return anchor
