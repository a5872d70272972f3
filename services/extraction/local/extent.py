"""Where a cue's label starts and ends in its clause: the words after or before the cue, the doer a
doing keeps, and the relative clause a chosen noun keeps (`services.extraction.local.candidates`
makes the labels)."""

from __future__ import annotations

from spacy.tokens import Doc, Span, Token

from services.extraction.local.cues import CueMatch, CueMode
from services.extraction.local.labels import after_is_particle, is_time_adverb, opens_time_phrase
from services.extraction.local.labelwords import MAX_LABEL_WORDS, PERSON_PRONOUNS, POSSESSIVES, TIME_NOUNS
from services.extraction.local.segment import Clause

# Cue modes whose label is a noun phrase (the cue itself, or a phrase after it).
NOMINAL_MODES = frozenset({CueMode.PHRASE, CueMode.NOUNS, CueMode.CHUNK_AFTER})
# Words that end an `after` label: a clause of time, condition or reason begins.
_STOP_AFTER = frozenset(
    {
        "without",
        "when",
        "while",
        "if",
        "until",
        "before",
        "after",
        "because",
        "since",
        "whenever",
        "unless",
        "although",
        "though",
        "instead",
    }
)


def after_end(doc: Doc, clause: Clause, m: CueMatch, matches: list[CueMatch]) -> int:
    """Where an `after` label stops: punctuation, a subordinator, a new predicate, or the next cue."""

    def content_between(a: int, b: int) -> bool:
        return any(doc[i].pos_ in {"NOUN", "PROPN", "VERB"} for i in range(a, b))

    # the next cue of another type ends the label, unless only function words or modifiers precede
    # it ("nobody explained …", "learned to check …", "compared three capsule machines" keep going;
    # "bought a machine to impress" stops): a number or adjective belongs to the phrase it precedes
    next_cue = min(
        (
            o.start
            for o in matches
            if o.start >= m.end
            and o.cue.mode is not CueMode.NOUNS
            and o.cue.node_type != m.cue.node_type
            and content_between(m.end, o.start)
            # "saw a colleague's | capsule machine": a possessor belongs to the phrase it owns
            and doc[o.start - 1].lower_.replace("’", "'") != "'s"
        ),
        default=clause.end,
    )
    end = m.end
    limit = min(clause.end, next_cue)
    if next_cue < clause.end:
        # "feeling relaxed | gives me | peace of mind": the verb leading into the next cue is not ours
        while limit > m.end and doc[limit - 1].pos_ in {"VERB", "AUX", "PRON", "PART", "ADP", "DET"}:
            limit -= 1
        if any(doc[k].lower_ in {"before", "after"} for k in range(limit, next_cue)):
            # "phoned me the day | before he came home": the time phrase goes with its clause
            limit = _without_dangling_time(doc, m.end, limit)
    while end < limit:
        tok = doc[end]
        if tok.is_punct or (
            tok.lower_ in _STOP_AFTER
            and not is_time_adverb(doc, end)
            and not (end > m.end and opens_time_phrase(doc, end))
            and not (end > m.end and after_is_particle(doc, end))
        ):
            # "phoned me the day | before he came home": the time phrase belongs to the clause cut off
            end = _without_dangling_time(doc, m.end, end) if tok.lower_ in {"before", "after"} else end
            break
        nxt = doc[end + 1] if end + 1 < clause.end else None
        if tok.pos_ == "CCONJ" and nxt is not None and _new_clause_after(doc, end + 1, clause.end):
            break  # "... and ended up back in hospital", "... and the ward was short-staffed"
        end += 1
    return end


def verb_like(tok: Token) -> bool:
    """A verb, or a verb's -ing form the lookup tagger read as an adjective ("dad going home")."""
    word = tok.lower_
    return tok.pos_ in {"VERB", "AUX"} or (word.endswith("ing") and tok.lemma_.lower() != word)


def cue_subject(
    doc: Doc, clause: Clause, m: CueMatch, matches: list[CueMatch], chunks: list[Span], participants: bool
) -> list[int]:
    """The subject a kept cue needs, when it stands right before the cue: the noun phrase a
    "was/were …" cue describes, or who did what a verb cue names.

    "all the good slots | were gone by sunday night": without its subject the state reads as a doing
    ("gone by sunday night" said back as "going by sunday night"); "my wife | lost half a day's
    pay" without its doer reads as the respondent's own doing. `participants`: whether the
    methodology joins a doing to its doer by an edge (so a doer that is an item of its own may stay
    in the doing's label too).
    """
    if not m.kept or m.kept[0] != m.start:
        return []
    cue = doc[m.start]
    if cue.lemma_.lower() != "be" and (cue.pos_ == "VERB" or cue.lemma_.lower() != cue.lower_):
        # "my wife | lost half a day's pay": someone else's doing keeps its doer, else it is said
        # back as the respondent's own ("how did losing half a day's pay affect you?"). A doer that
        # is an item of its own stays one where no participant edge would join the two ("instant
        # coffee | tasted burnt" links the solution to its firing criterion)
        if m.start > clause.start and doc[m.start - 1].lower_ in PERSON_PRONOUNS:
            return [m.start - 1]  # "she | watched me use the inhaler": her doing, not the respondent's
        start = m.start
        while start > clause.start and m.start - start < 3 and _in_doer(doc[start - 1]):
            start -= 1
        if not _is_doer(doc, start, m.start):
            return []
        own = any(o is not m and o.start < m.start and start < o.end for o in matches)
        return [] if own and not participants else list(range(start, m.start))
    if cue.lemma_.lower() != "be":
        return []
    chunk = next((c for c in chunks if c.end == m.start and c.start >= clause.start), None)
    if chunk is None or doc[chunk.end - 1].pos_ not in {"NOUN", "PROPN"}:
        return []
    if any(o is not m and o.start < chunk.end and chunk.start < o.end for o in matches):
        return []  # "YouTube is mostly …": a subject that is an item of its own stays one
    return list(range(chunk.start, chunk.end))


# a doer may be the interviewer's word said back ("your daughter") as well as the respondent's own
_POSSESSIVES = POSSESSIVES | {"your"}


# What opens a relative clause after a noun phrase ("earbuds | that weigh almost nothing").
_RELATIVE_OPENERS = frozenset({"that", "which", "who"})
# What ends one: a new clause or a reason joined to the chosen thing, not part of it.
_RELATIVE_STOPS = frozenset({"and", "but", "because", "so", "since", "as", "when", "while", "or"})


def predicate_cue_starts(matches: list[CueMatch]) -> frozenset[int]:
    """Where cues that are not noun phrases begin (a noun cue may lie inside a relative clause)."""
    return frozenset(o.start for o in matches if o.cue.mode not in NOMINAL_MODES)


def relative_end(
    doc: Doc, chunk: Span, clause: Clause, cue_starts: frozenset[int], *, subject_only: bool = False
) -> int:
    """Where a chosen noun phrase ends, with the relative clause that describes it when one follows.

    "I go for earbuds | that weigh almost nothing": "earbuds" alone names nothing the respondent
    chose; the clause is the attribute. A relative clause too long for a label is left out whole
    rather than cut ("a case | which …" stays "case"), and a predicate's cue ends it ("earbuds that
    never fall out | matter to me"). `subject_only`: only a clause whose subject is the noun ("that never
    fall out", not "that I get"), for a noun found without a cue.
    """
    if chunk.end + 1 >= clause.end or doc[chunk.end].lower_ not in _RELATIVE_OPENERS:
        return chunk.end
    if subject_only and doc[chunk.end + 1].pos_ not in {"VERB", "AUX", "ADV", "PART"}:
        return chunk.end
    end = chunk.end + 1
    while (
        end < clause.end
        and end not in cue_starts
        and not doc[end].is_punct
        and doc[end].lower_ not in _RELATIVE_STOPS
    ):
        end += 1
    if end - chunk.start > MAX_LABEL_WORDS + 1 or not any(
        doc[i].pos_ in {"VERB", "AUX"} for i in range(chunk.end + 1, end)
    ):
        return chunk.end
    return end


def _in_doer(tok: Token) -> bool:
    return tok.pos_ in {"DET", "ADJ", "NOUN", "PROPN"} or tok.lower_ in _POSSESSIVES


def _is_doer(doc: Doc, start: int, end: int) -> bool:
    """Whether tokens [start, end) are a short noun phrase naming someone or something other than
    the respondent ("my wife", "the ward pharmacist"): not "I", "it", nor a clause of its own."""
    if not 1 <= end - start <= 3 or doc[end - 1].pos_ not in {"NOUN", "PROPN"}:
        return False
    return all(_in_doer(doc[i]) for i in range(start, end))


def _new_clause_after(doc: Doc, start: int, end: int) -> bool:
    """Whether doc[start:end], right after "and"/"but", starts a clause of its own.

    A verb opens one ("and ended up back in hospital"); so does a determiner or pronoun with a verb
    after it ("and the ward was short-staffed"). Without a verb it is the second half of a noun
    phrase ("between the school run and my train").
    """
    first = doc[start]
    if first.pos_ in {"VERB", "AUX"}:
        return True
    if first.pos_ not in {"DET", "PRON"}:
        return False
    return any(doc[i].pos_ in {"VERB", "AUX"} for i in range(start + 1, end))


def starts_time(doc: Doc, i: int) -> bool:
    """Whether tokens i, i+1 are a count or determiner and a time noun ("one evening", "that day")."""
    return doc[i].pos_ in {"DET", "NUM"} and doc[i + 1].lemma_.lower() in TIME_NOUNS


def _without_dangling_time(doc: Doc, start: int, end: int) -> int:
    """`end` moved back over a time phrase ("the day", "a week") that ends just before it."""
    if end - 1 > start and doc[end - 1].lemma_.lower() in TIME_NOUNS and doc[end - 2].pos_ in {"DET", "NUM"}:
        return end - 2
    return end


def before_start(doc: Doc, clause: Clause, m: CueMatch, matches: list[CueMatch], chunks: list[Span]) -> int:
    """Where a `before` label starts: after an opening prepositional phrase or an earlier cue."""
    start = max(
        [clause.start]
        + [
            o.end
            for o in matches
            if clause.start <= o.start and o.end <= m.start and o.cue.mode not in NOMINAL_MODES
        ]
    )
    if start == clause.start and doc[start].pos_ == "ADP":
        chunk = next((c for c in chunks if start < c.start <= start + 2), None)
        if chunk is not None and chunk.end < m.start:
            start = (
                chunk.end
            )  # "At checkout the delivery fee doubled": the label starts at "the delivery fee"
    while start < m.start and doc[start].is_punct:
        start += 1
    return start
