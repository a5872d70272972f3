"""Corrections to spaCy's English lookup lemmas, for every service that reads the lookup table.

The table (`spacy-lookups-data`) reads some nouns as forms of another word: "evening" as "even",
"matter" as "matt", "wedding" as "wed". Read that way, a cue does not match them, the extractor's
tagger takes "the evening" for an adjective, and the question service says "evening" as the -ing
form of a verb. These words are their own lemma.
"""

from __future__ import annotations

OWN_LEMMAS = frozenset({"evening", "matter", "wedding", "ceiling", "clothing", "bedding"})


def own_lemma(low: str) -> str | None:
    """The lemma of lower-case `low` when it is one of `OWN_LEMMAS` or its plural, else None."""
    if low in OWN_LEMMAS:
        return low
    if low.endswith("s") and low[:-1] in OWN_LEMMAS:
        return low[:-1]
    return None
