"""Digressions: an aside the respondent announces and that has nothing to do with the interview.

Talkative respondents wander off: "… so I felt safe going home. That reminds me, I really must
repaint the garden fence before winter." The fence is no part of the topic, but its clause reads like
any other, and the question's type made it an attribution or a learning that the interviewer then
asked about. A later sentence of an answer is a digression when the respondent opens it as an aside
("that reminds me", "anyway", "by the way", "funnily enough", "oh yes" after "where was I?", the
rest of a sentence that begins "sorry, I'm rambling") *and* none of its content words occurs in the
question, the topic, the rest of the answer, the recent conversation or the graph's node labels.
Both are needed: an aside that comes back to the topic ("Anyway, the nurse came back with the
letter") shares a word with it, and an unannounced new item is what interviews are for. The first
sentence of an answer is never one (nothing came before it to digress from).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from spacy.tokens import Doc

# An aside announced at the start of a sentence (after "oh", "and", "but", "well", "so").
_OPENER = re.compile(
    r"^\W*(?:(?:oh|and|but|well|so)[,\s]+)*(?:that reminds me|anyway|anyhow|by the way|incidentally|"
    r"(?:funnily|oddly|strangely) enough|on an? (?:side|different|unrelated) note|speaking of which|"
    r"(?:sorry,?\s+)?i'?m (?:just )?(?:rambling|waffling|going off on a tangent)|oh yes)\b[,.!]?",
    re.IGNORECASE,
)


def digression_spans(
    doc: Doc,
    context: Iterable[str],
    lemmas: Callable[[str], list[str]],
    ignore: frozenset[str],
) -> list[tuple[int, int]]:
    """Character ranges of the answer's digressions (see the module docstring). `context` holds the
    texts an aside must share a word with to stay (question, topic, conversation, node labels);
    `ignore` holds the lemmas that do not count as content (stop words and the like)."""
    sentences = [s for s in doc.sents if s.text.strip()]
    if len(sentences) < 2:
        return []

    # most answers announce no aside: the context is read only for one that does
    openers = {n: m for n, s in enumerate(sentences) if n > 0 and (m := _OPENER.match(s.text)) is not None}
    if not openers:
        return []

    def content(text: str) -> set[str]:
        return {w for w in lemmas(text) if w.isalpha() and len(w) > 2 and w not in ignore}

    told = content(" ".join(context))
    own = [content(s.text) for s in sentences]
    out: list[tuple[int, int]] = []
    for n, opener in openers.items():
        sentence = sentences[n]
        words = content(sentence.text[opener.end() :])
        rest = set().union(*(own[k] for k in range(len(sentences)) if k != n))
        if words and not words & (told | rest):
            out.append((sentence.start_char, sentence.end_char))
    return out
