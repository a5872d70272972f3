"""Clause segmentation for the offline extractor: where an answer's clauses start and end, and
the framing words around an item ("for me …", "… is important to me"). Label shaping is in
`labels`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from spacy.tokens import Doc, Span, Token

from services.extraction.local.labelwords import CLAUSE_OPENERS, HEDGE_VERBS

_BREAK_AFTER_COMMA = frozenset({"and", "or", "then", "plus", "which", "who", "where", "when", "while"})
SUBJECTS = frozenset({"i", "we", "they", "it", "he", "she", "you", "that", "this"})


@dataclass(frozen=True)
class Clause:
    """Token range [start, end) of one clause (connectives and edge punctuation excluded)."""

    index: int
    start: int
    end: int

    def contains(self, i: int) -> bool:
        """Whether token `i` lies in the clause."""
        return self.start <= i < self.end


def clauses(doc: Doc, markers: list[Span]) -> list[Clause]:
    """Split at sentences, connectives, semicolons, ", and"/", which", and "and I"-type joins."""
    cut_before: set[int] = set()
    skip: set[int] = set()
    for span in markers:
        cut_before.add(span.start)
        skip.update(range(span.start, span.end))
    for tok in doc:
        nxt = doc[tok.i + 1] if tok.i + 1 < len(doc) else None
        if tok.is_sent_start:
            cut_before.add(tok.i)
        if tok.text in {";", ":", "—", "–", "(", ")"}:
            cut_before.add(tok.i)
        if (
            tok.text == ","
            and nxt is not None
            and (nxt.lower_ in _BREAK_AFTER_COMMA or (nxt.lower_ in SUBJECTS and _verb_follows(doc, nxt.i)))
        ):
            cut_before.add(tok.i)
        if tok.lower_ == "and" and nxt is not None and nxt.lower_ in SUBJECTS and _verb_follows(doc, nxt.i):
            cut_before.add(tok.i)
        if (
            tok.pos_ == "ADJ"
            and tok.i > 0
            and doc[tok.i - 1].lower_ in {"so", "too"}
            and nxt is not None
            and nxt.lower_ in _PERSONS
            and _verb_follows(doc, nxt.i)
        ):
            # "he was so exhausted | he fell that night": the result is a clause of its own
            cut_before.add(nxt.i)
    cut_before.update(_after_time_clauses(doc))
    bounds = sorted(cut_before | {len(doc)})
    out: list[Clause] = []
    for a, b in pairwise(bounds):
        start, end = a, b
        while start < end and (
            start in skip
            or doc[start].is_punct
            or doc[start].is_space
            or doc[start].lower_ in {"and", "or", "then"}
        ):
            start += 1
        while end > start and (doc[end - 1].is_punct or doc[end - 1].is_space):
            end -= 1
        start = _after_hedge(doc, start, end)
        if start < end:
            out.append(Clause(len(out), start, end))
    return out


def noun_subject_opens(toks: Sequence[Token]) -> bool:
    """Whether `toks` open with a noun phrase that is the subject of a verb behind it: "my dad was
    going home", "the queue at the station café was long", "waiting at the café took ages", "dad was
    being discharged". A bare noun needs its verb right behind it; further off, it is more likely an
    object ("noticed dad in the corridor when …")."""
    if len(toks) < 2:
        return False
    first = toks[0]
    if first.lower_ in CLAUSE_OPENERS or (first.lower_.endswith("ing") and first.pos_ in {"VERB", "NOUN"}):
        return any(t.pos_ in {"VERB", "AUX"} for t in toks[1:7])
    return first.pos_ in {"NOUN", "PROPN"} and toks[1].pos_ in {"VERB", "AUX"}


def _after_hedge(doc: Doc, start: int, end: int) -> int:
    """Where the clause starts once a respondent's opening hedge is left out: "I think | dad was
    being discharged", "I guess that | we gave up". The hedge frames what follows and names no item;
    left in, its verb took the subject as an object ("think dad"). A hedge before anything but a
    clause of its own stays ("I think about it a lot")."""
    if end - start < 4 or doc[start].lower_ not in {"i", "we"} or doc[start + 1].lower_ not in HEDGE_VERBS:
        return start
    first = start + 2
    if doc[first].lower_ == "that" and first + 2 < end:
        first += 1
    rest = doc[first:end]
    pronoun = doc[first].lower_ in _PERSONS and _verb_follows(doc, first) and first + 1 < end
    return first if pronoun or noun_subject_opens(list(rest)) else start


# Words that open a clause saying when ("when I went home", "the next time I went in").
_WHEN = frozenset({"when", "whenever", "once", "after", "before"})
_ORDINAL_TIMES = frozenset({"next", "first", "last", "second", "third", "other", "one", "every"})
# Words after which a subject opens a complement, not the main clause ("when I realised that | it …").
_COMPLEMENTISERS = frozenset({"that", "what", "how", "if", "whether", "why", "where"})


def _time_opener_end(doc: Doc, i: int) -> int | None:
    """The end of a time opener starting at token `i` ("when", "the next time", "every time")."""
    if doc[i].lower_ in _WHEN:
        return i + 1
    j = i + 1 if doc[i].lower_ == "the" else i
    if j + 1 < len(doc) and doc[j].lower_ in _ORDINAL_TIMES and doc[j + 1].lower_ == "time":
        return j + 2
    return None


def _after_time_clauses(doc: Doc) -> set[int]:
    """Where the main clause starts after a time clause told without a comma: "The next time I went
    home | it was a calm Tuesday", "When I got home | I felt relieved". Read as one clause, the time
    became part of the item ("went home it was a calm Tuesday")."""
    cuts: set[int] = set()
    for tok in doc:
        starts_clause = tok.is_sent_start or (tok.i > 0 and doc[tok.i - 1].text == ",")
        end = _time_opener_end(doc, tok.i) if starts_clause else None
        if end is None or end >= len(doc) or doc[end].lower_ not in SUBJECTS or not _verb_follows(doc, end):
            continue
        k = end + 2
        while k < len(doc) and not doc[k].is_punct and not doc[k].is_sent_start:
            if (
                doc[k].lower_ in SUBJECTS
                and doc[k - 1].lower_ not in _COMPLEMENTISERS
                and _verb_follows(doc, k)
            ):
                cuts.add(k)
                break
            k += 1
    return cuts


# Past forms of "be", "have" and "do": "the next time I was discharged", "the next time we had a visit".
_PAST_AUX = frozenset({"was", "were", "had", "did"})


def narrated_time(doc: Doc, start: int, end: int) -> bool:
    """Whether the words `start`-`end` ("next time") open a time clause of a story told in the
    past: "the next time I went home" says when, where "next time I would ask" draws a lesson.
    Only "next time": "the first time I went home" is a setting however it is told."""
    if [t.lower_ for t in doc[start:end]][-2:] != ["next", "time"]:
        return False
    if end + 1 >= len(doc) or doc[end].lower_ not in SUBJECTS:
        return False
    verb, lemma = doc[end + 1].lower_, doc[end + 1].lemma_.lower()
    if verb in _PAST_AUX:
        return True
    present = verb in {lemma, lemma + "s", lemma + "es"} or verb.endswith("ing")
    return doc[end + 1].pos_ == "VERB" and not present


# Subjects that stand for a person ("so tired | I fell asleep").
_PERSONS = frozenset({"i", "we", "he", "she", "they"})


def _verb_follows(doc: Doc, i: int) -> bool:
    j = i + 1
    while j < len(doc) and doc[j].pos_ == "ADV":
        j += 1
    return j < len(doc) and doc[j].pos_ in {"VERB", "AUX"}


# Framing words around an item that are not part of it: "for me [being organised] matters",
# "I care about [getting things done]", "[feeling calm] is important to me".
_LEAD_FRAMES: tuple[tuple[str, ...], ...] = (
    ("well",),
    ("for", "me"),
    ("to", "me"),
    ("personally",),
    ("i", "really", "care", "about"),
    ("i", "care", "about"),
    ("i", "value"),
    ("what", "i", "care", "about", "is"),
    ("what", "matters", "to", "me", "is"),
    ("what", "matters", "is"),
)
# Asides that frame what follows ("Looking back, it happened because …"): dropped even when they
# are all that is left of a clause, which then names nothing.
_ASIDES: tuple[tuple[str, ...], ...] = (
    ("looking", "back"),
    ("thinking", "back"),
    ("in", "hindsight"),
    ("with", "hindsight"),
)
_TRAIL_FRAMES: tuple[tuple[str, ...], ...] = (
    # longest first: "is what matters to me" before "matters to me" leaves nothing dangling
    ("is", "what", "matters", "to", "me"),
    ("is", "what", "really", "matters"),
    ("is", "what", "matters", "most"),
    ("is", "what", "matters"),
    ("really", "matters", "to", "me"),
    ("matters", "to", "me"),
    ("matters", "a", "lot"),
    ("matters",),
    ("is", "really", "important", "to", "me"),
    ("is", "important", "to", "me"),
    ("'s", "important", "to", "me"),
    ("is", "important"),
    ("means", "a", "lot", "to", "me"),
)


def strip_frames(doc: Doc, tokens: list[int], *, lead: bool = True) -> list[int]:
    """`tokens` without leading (unless `lead` is False) and trailing framing phrases (punctuation in
    between is dropped too)."""
    words = [doc[i].lower_.replace("’", "'") for i in tokens]
    changed = True
    while changed and tokens:
        changed = False
        while tokens and (doc[tokens[0]].is_punct or doc[tokens[-1]].is_punct):
            if doc[tokens[0]].is_punct:
                tokens, words = tokens[1:], words[1:]
            else:
                tokens, words = tokens[:-1], words[:-1]
        for frame in _LEAD_FRAMES if lead else ():
            if len(words) > len(frame) and tuple(words[: len(frame)]) == frame:
                tokens, words, changed = tokens[len(frame) :], words[len(frame) :], True
                break
        for frame in _ASIDES if lead else ():
            if tuple(words[: len(frame)]) == frame:
                tokens, words, changed = tokens[len(frame) :], words[len(frame) :], True
                break
        for frame in _TRAIL_FRAMES:
            if len(words) > len(frame) and tuple(words[-len(frame) :]) == frame:
                tokens, words, changed = tokens[: -len(frame)], words[: -len(frame)], True
                break
    return tokens
