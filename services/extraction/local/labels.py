"""Label shaping for the offline extractor: which words of a candidate's span make its label.

The span a cue or rule finds is trimmed at both ends (articles, auxiliaries, hedges, dangling
prepositions) and cut to `MAX_LABEL_WORDS`, without breaking the phrases that carry its meaning: a
time phrase ("the week after"), a phrasal verb ("turned up"), an object the verb needs ("made for
me", "take care of myself"), a relative clause (kept whole or left out). A closing noun phrase that
runs a word past the cap is kept whole, up to the length every extraction's checks allow.
"""

from __future__ import annotations

from spacy.tokens import Doc

from services.extraction.checking import MAX_LABEL_WORDS as _CHECKED_MAX_WORDS
from services.extraction.local.labelwords import (
    AFTER_VERBS,
    HEDGE_VERBS,
    IN_VERBS,
    IRREGULAR_PARTICIPLES,
    LEAD_DROP,
    LEAD_DROP_POS,
    MAX_LABEL_WORDS,
    NEEDS_OF,
    OBJECT_GOES_ON,
    OF_VERB_NOUNS,
    PARTICLES,
    PASSIVE_AUX,
    PERSON_PRONOUNS,
    PHRASE_GOES_ON,
    POSSESSIVES,
    RELATIVES,
    SUBORDINATORS,
    TIME_ADVERBS,
    TIME_NOUNS,
    TIME_OPENERS,
    TIMES_OF_DAY,
    TRAIL_DROP,
    TRAIL_DROP_POS,
    WANTING,
    WORDS_GO_ON,
)
from services.extraction.local.segment import SUBJECTS as _SUBJECTS
from services.extraction.local.segment import noun_subject_opens


def shape_label(doc: Doc, indices: list[int]) -> tuple[str, list[int]] | None:
    """A short lower-case label from tokens `indices` (sorted), edges trimmed; None if empty.

    Returns the label and the token indices it kept (for the quote span).
    """
    idx = sorted(set(indices))
    while idx and (
        ((doc[idx[0]].pos_ in LEAD_DROP_POS or doc[idx[0]].lower_ in LEAD_DROP) and not _keep_lead(doc, idx))
        # "(I) guess I try to get a slot", "(I) think my dad was going home": a hedge before a
        # clause of its own is not part of it
        or _hedge_before_clause(doc, idx)
        # "(that's) about standing on my own feet", "about not being wasteful": the doing is the item
        or (len(idx) > 1 and doc[idx[0]].lower_ == "about" and _doing_at(doc, idx, 1))
    ):
        idx.pop(0)
    untrimmed = len(idx)
    idx = _trim_trailing(doc, idx)
    if len(idx) < untrimmed:
        # "(it was the) discharge nurse who was dealing (with it)": a relative clause that lost its
        # end goes whole
        idx = _before_relative(doc, idx, 1)
    if _word_count(doc, idx) > MAX_LABEL_WORDS and doc[idx[0]].lower_ in PASSIVE_AUX:
        # a label too long anyway gives up its passive "was" first ("(being) discharged after his
        # heart failure got worse" rather than "… heart failure got")
        idx.pop(0)
    if (
        _word_count(doc, idx) > MAX_LABEL_WORDS
        and len(idx) > 4
        and doc[idx[0]].lower_ in WANTING
        and doc[idx[1]].lower_ == "to"
        and doc[idx[2]].lower_ == "be"
    ):
        # "(need to) be able to plan the week ahead": a label too long anyway gives up the wanting
        # its type already says before the end of what is wanted
        idx = idx[2:]
    if _word_count(doc, idx) > MAX_LABEL_WORDS and not _object_overflows(doc, idx):
        whole = list(idx)
        while _word_count(doc, idx) > MAX_LABEL_WORDS:
            idx.pop()
        idx = _trim_trailing(doc, idx)
        # cut mid-phrase ("want a proper …"): end on the last noun, verb or number instead
        while (
            len(idx) > 2
            and doc[idx[-1]].pos_ in {"ADJ", "DET", "PRON", "ADP", "ADV"}
            and not _particle_of_verb(doc, idx)
        ):
            idx.pop()
        # the phrase the cut broke goes whole ("had palpitations in the middle | of a shift",
        # "rushed through my medication in two | minutes"): end before its preposition or article
        cut = next((i for i in whole if idx and i > idx[-1]), None)
        time_cut = cut is not None and doc[cut].lemma_.lower() in TIME_NOUNS
        if time_cut:
            # "read reviews of a few machines one | evening": the time phrase the cut broke goes
            while len(idx) > 2 and (
                doc[idx[-1]].pos_ in {"NUM", "DET"} or doc[idx[-1]].lower_ in TIME_OPENERS
            ):
                idx.pop()
            idx = _trim_trailing(doc, idx)
        # ("gave me a written list | of the doses" keeps its list: "of" binds only a word of place or
        # part, "the middle | of a shift")
        broke = (
            cut is not None
            and not time_cut
            and (doc[cut].pos_ in PHRASE_GOES_ON or doc[cut].lower_ in WORDS_GO_ON)
        )
        if broke and cut is not None and doc[cut].lower_ == "of" and doc[idx[-1]].lower_ not in NEEDS_OF:
            broke = False
        if broke:
            opener = max((n for n in range(2, len(idx)) if doc[idx[n]].pos_ in {"ADP", "DET"}), default=None)
            if opener is not None:
                idx = idx[:opener]
        # a relative clause the cut broke goes whole ("feel like a grown-up who looks | after
        # herself"): the label ends on the noun it describes
        idx = _trim_trailing(doc, _before_relative(doc, idx, 2))
        if cut is not None and doc[cut].pos_ in OBJECT_GOES_ON:
            # so does a clause of time or reason whose object the cut took ("starts on sunday night
            # when i plan | the meals"); one that ended before the cut stays ("… when it rained |
            # and then …")
            idx = _trim_trailing(doc, _before_subordinate(doc, idx))
    if not idx or not any(sum(ch.isalpha() for ch in doc[i].text) > 1 for i in idx):
        return None
    return _text(doc, idx), idx


def _doing_at(doc: Doc, idx: list[int], n: int) -> bool:
    """Whether the label's words from the `n`th on open a doing, negated or not ("standing …",
    "not being wasteful")."""
    if n < len(idx) and doc[idx[n]].lower_ in {"not", "never"}:
        n += 1
    return n < len(idx) and doc[idx[n]].lower_.endswith("ing")


def _text(doc: Doc, idx: list[int]) -> str:
    parts: list[str] = []
    for n, i in enumerate(idx):
        tok = doc[i]
        joined = n > 0 and idx[n - 1] == i - 1 and not doc[i - 1].whitespace_
        parts.append(("" if joined or n == 0 else " ") + tok.text.lower())
    return "".join(parts).replace("’", "'").strip()


def _object_overflows(doc: Doc, idx: list[int]) -> bool:
    """Whether the words past the cap are only the end of the noun phrase that closes the label
    ("showed me how to use the new | inhalers"): a word or two more reads better than a cut object."""
    if len(_text(doc, idx).split()) > _CHECKED_MAX_WORDS:
        return False  # no further than the checks of every extraction let a label run
    n = 0
    while _word_count(doc, idx[: n + 1]) <= MAX_LABEL_WORDS:
        n += 1
    rest = idx[n:]
    if len(rest) == 1 and rest[0] - 1 in idx and _manner_after_object(doc, rest[0]):
        return True  # "a treat to make it | slowly": the verb's object and how it is done
    if rest and len(rest) <= 2 and all(doc[i].pos_ in {"ADV", "ADJ"} for i in rest):
        # "the queue at the station café took too | long": how much is what went wrong
        degree = next((i for i in (rest[0], rest[0] - 1) if doc[i].lower_ in {"too", "so"}), None)
        if degree is not None and degree - 1 in idx and doc[degree - 1].pos_ == "VERB":
            return True
    return (
        bool(rest)
        and all(doc[i].pos_ in OBJECT_GOES_ON for i in rest)
        and doc[rest[-1]].pos_ in {"NOUN", "PROPN"}
        # "read reviews of a few machines one | evening": a time phrase says when, not what; "how I
        # spend my | time" names what is spent ("your" for a respondent quoting someone)
        and (
            doc[rest[-1]].lemma_.lower() not in TIME_NOUNS
            or doc[rest[-1] - 1].lower_ in POSSESSIVES | {"your"}
        )
    )


def _manner_after_object(doc: Doc, i: int) -> bool:
    """Whether token `i` is an adverb of manner ("slowly") right after a verb's object ("make it")."""
    tok = doc[i]
    return (
        tok.pos_ == "ADV"
        and tok.lower_.endswith("ly")
        and len(tok.text) > 4
        and doc[i - 1].pos_ in {"PRON", "NOUN", "PROPN"}
        and i - 2 >= 0
        and doc[i - 2].pos_ in {"VERB", "DET", "PRON", "ADJ"}
    )


def _before_subordinate(doc: Doc, idx: list[int]) -> list[int]:
    """`idx` up to its first conjunction of a clause of time or reason, from its third word on."""
    opens = next((n for n in range(2, len(idx)) if doc[idx[n]].lower_ in SUBORDINATORS), None)
    return idx if opens is None else idx[:opens]


def _before_relative(doc: Doc, idx: list[int], first: int) -> list[int]:
    """`idx` up to its first relative pronoun at position `first` or later (all of it if none)."""
    relative = next((n for n in range(first, len(idx)) if doc[idx[n]].lower_ in RELATIVES), None)
    return idx if relative is None else idx[:relative]


def _hedge_before_clause(doc: Doc, idx: list[int]) -> bool:
    if len(idx) < 3 or doc[idx[0]].lower_ not in HEDGE_VERBS:
        return False
    if doc[idx[1]].lower_ in _SUBJECTS:
        return True
    # a subject of the respondent's own ("my dad", "the nurse", "dad") with its verb behind
    return noun_subject_opens([doc[i] for i in idx[1:8]])


def _word_count(doc: Doc, idx: list[int]) -> int:
    """Words as written: "don't" (do + n't) is one word."""
    return sum(1 for n, i in enumerate(idx) if n == 0 or idx[n - 1] != i - 1 or doc[i - 1].whitespace_)


def _keep_lead(doc: Doc, idx: list[int]) -> bool:
    # "no way to add items", "don't have to charge": a leading negation carries the meaning
    first = doc[idx[0]].lower_
    if first in {"do", "does", "did"} and len(idx) > 1 and doc[idx[1]].lower_ in {"not", "n't"}:
        return True
    if first in PASSIVE_AUX and len(idx) > 2 and _passive_participle(doc, idx[1]):
        return True  # "(I) was told at the ward round": without "was", "told" reads as the telling
    if first in POSSESSIVES | {"your", "its"} and len(idx) > 1:
        return doc[idx[1]].lower_ == "own"  # "their own series": without "their", "own" dangles
    if first in PERSON_PRONOUNS and len(idx) > 2 and doc[idx[1]].pos_ == "VERB":
        return True  # "she watched me use the inhaler": someone else's doing keeps its doer
    if first == "first" and len(idx) > 2 and doc[idx[1]].lower_ == "time":
        return True  # "(the) first time I went home": without "first", "time I went home"
    if first == "being" and len(idx) == 2 and doc[idx[1]].pos_ == "ADJ":
        return True  # "being independent" is a way to be; "independent" alone is said as a thing
    if first == "being" and len(idx) == 3 and doc[idx[1]].pos_ == "ADV" and doc[idx[2]].pos_ == "ADJ":
        return True  # so is "being well organised"
    return first in {"no", "not", "never", "nobody", "nothing"} and len(idx) > 1


def _passive_participle(doc: Doc, i: int) -> bool:
    word = doc[i].lower_
    return doc[i].pos_ in {"VERB", "ADJ"} and (word.endswith("ed") or word in IRREGULAR_PARTICIPLES)


def _trim_trailing(doc: Doc, idx: list[int]) -> list[int]:
    idx = list(idx)
    while idx and (
        doc[idx[-1]].pos_ in TRAIL_DROP_POS or doc[idx[-1]].lower_ in TRAIL_DROP or _trailing_hedge(doc, idx)
    ):
        if (
            doc[idx[-1]].lower_ in {"not", "n't"}
            or doc[idx[-1]].like_num
            # "at 3am" (tokenised "3", "am"): the time of day, not the verb "am"
            or (doc[idx[-1]].lower_ in {"am", "pm"} and idx[-1] > 0 and doc[idx[-1] - 1].like_num)
            or _ends_time_phrase(doc, idx)
            or _object_of_second_verb(doc, idx)
            or _object_me(doc, idx)
            or _object_of_verb(doc, idx)
            or _reflexive_object(doc, idx)
            or _particle_of_verb(doc, idx)
            or _counted_time(doc, idx)
            or _amount_of_verb(doc, idx)
        ):
            break
        idx.pop()
    return idx


def _object_of_verb(doc: Doc, idx: list[int]) -> bool:
    # "forget I'm even wearing them", "don't have to charge it": the pronoun the verb acts on
    # completes it (without it "wearing" dangles)
    return (
        len(idx) > 1
        and doc[idx[-1]].lower_ in {"them", "it", "him", "her", "us"}
        and idx[-2] == idx[-1] - 1
        and doc[idx[-2]].pos_ == "VERB"
    )


def _object_me(doc: Doc, idx: list[int]) -> bool:
    # "it feels made for me", "nobody told me", "it works for me": the respondent as the object of a
    # verb or participle completes it (without it "feels made" dangles); "easier for me" drops it
    if len(idx) < 2 or doc[idx[-1]].lower_ != "me" or idx[-2] != idx[-1] - 1:
        return False
    head = idx[-2]
    if doc[head].lower_ in {"for", "to"}:
        if len(idx) < 3 or idx[-3] != head - 1:
            return False
        head = idx[-3]
    word = doc[head].lower_
    if doc[head].pos_ == "VERB":
        return True
    return doc[head].pos_ == "ADJ" and (word in IRREGULAR_PARTICIPLES or word.endswith("ed"))


def after_is_particle(doc: Doc, i: int) -> bool:
    """Whether "after" at `i` belongs to the verb before it ("looks after herself", "feel looked
    after") rather than opening a time clause ("phoned me | after he came home"). The lemma decides:
    the tagger reads "looked" as a noun."""
    return i > 0 and doc[i].lower_ == "after" and doc[i - 1].lemma_.lower() in AFTER_VERBS


def _particle_of_verb(doc: Doc, idx: list[int]) -> bool:
    # "transport never turned up", "picked him up", "feel looked after": the particle is part of the
    # verb (without it "never turned" says something else); "waited for" or "went to" lost their
    # object instead
    if len(idx) < 2 or idx[-2] != idx[-1] - 1:
        return False
    before = idx[-2]
    if doc[idx[-1]].lower_ == "after":
        return after_is_particle(doc, idx[-1])
    if doc[idx[-1]].lower_ == "of":
        # "(not being) taken advantage of", "taken care of", "got rid of": the noun and its "of" are
        # one verb
        return doc[before].lower_ in OF_VERB_NOUNS
    if doc[idx[-1]].lower_ == "in":
        return _in_of_verb(doc, idx)
    if doc[idx[-1]].lower_ not in PARTICLES:
        return False
    if doc[before].pos_ == "PRON" and len(idx) > 2 and idx[-3] == before - 1:
        before = idx[-3]  # "picked him up", "set it up"
    return doc[before].pos_ == "VERB"


def _in_of_verb(doc: Doc, idx: list[int]) -> bool:
    # "lets traffic noise in", "helps me fit in", "plugged it in": a closing "in" with no object,
    # right after a verb that takes it (or after that verb's short object)
    for back in range(2, min(len(idx), 5) + 1):
        tok = doc[idx[-back]]
        if idx[-back] != idx[-1] - back + 1:
            return False
        if tok.lemma_.lower() in IN_VERBS:
            return True
        if tok.pos_ not in {"NOUN", "PROPN", "PRON", "DET", "ADJ"}:
            return False
    return False


def _counted_time(doc: Doc, idx: list[int]) -> bool:
    # "after ten days", "for two hours": a counted stretch of time ("(these) days" alone is filler)
    return (
        len(idx) > 1
        and idx[-2] == idx[-1] - 1
        and doc[idx[-2]].like_num
        and doc[idx[-1]].lemma_.lower() in TIME_NOUNS
    )


def _reflexive_object(doc: Doc, idx: list[int]) -> bool:
    # "take care of myself", "looks after herself": the reflexive is what the preposition takes
    # (without it "take care of" dangles); "I did it myself" only stresses who did it
    return (
        len(idx) > 2
        and doc[idx[-1]].lower_.endswith(("self", "selves"))
        and idx[-2] == idx[-1] - 1
        and doc[idx[-2]].pos_ == "ADP"
    )


def _trailing_hedge(doc: Doc, idx: list[int]) -> bool:
    # "the delivery arrives on tuesday evening, sort (of)": a hedge after the item, "of" already cut
    i = idx[-1]
    return (
        doc[i].lower_ in {"sort", "kind"}
        and i + 1 < len(doc)
        and doc[i + 1].lower_ == "of"
        and (i + 2 == len(doc) or doc[i + 2].is_punct)
    )


def _amount_of_verb(doc: Doc, idx: list[int]) -> bool:
    # "spending too much", "worked so much": the amount is what went wrong (bare "spending" is not)
    return (
        len(idx) > 2
        and doc[idx[-1]].lower_ in {"much", "many"}
        and doc[idx[-2]].lower_ in {"too", "so"}
        and doc[idx[-3]].pos_ == "VERB"
    )


def _object_of_second_verb(doc: Doc, idx: list[int]) -> bool:
    # "copy last week's order and tweak it": without "it", "and tweak" dangles (a word between
    # "and" and "it" is a verb, whatever the lookup tagger says)
    return (
        len(idx) > 2
        and doc[idx[-1]].lower_ in {"it", "them"}
        and doc[idx[-2]].is_alpha
        and doc[idx[-3]].lower_ == "and"
    )


def _ends_time_phrase(doc: Doc, idx: list[int]) -> bool:
    return len(idx) > 1 and idx[-2] == idx[-1] - 1 and is_time_adverb(doc, idx[-1])


def is_time_adverb(doc: Doc, i: int) -> bool:
    """Whether token `i` closes a time phrase ("the week after", "a year ago"): a label keeps it,
    where "after" or "before" would otherwise start a new clause ("after I got home")."""
    nxt = doc[i + 1] if i + 1 < len(doc) else None
    return (
        doc[i].lower_ in TIME_ADVERBS
        and i > 0
        and doc[i - 1].lemma_.lower() in TIME_NOUNS
        and (nxt is None or nxt.is_punct or nxt.pos_ == "CCONJ")
    )


def opens_time_phrase(doc: Doc, i: int) -> bool:
    """Whether token `i` opens a phrase of time with no clause in it ("energy that lasts | until
    morning", "before the next shift"): a label keeps it, where "until I got home" would end it."""
    if doc[i].lower_ not in {"until", "till", "before", "after"}:
        return False
    j = i + 1
    while j < len(doc) and j - i <= 3 and doc[j].pos_ in {"DET", "NUM", "ADJ"}:
        j += 1
    if j >= len(doc):
        return False
    word = doc[j]
    ends = j + 1 >= len(doc) or doc[j + 1].is_punct or doc[j + 1].pos_ == "CCONJ"
    timed = word.lower_ in TIME_NOUNS or word.lemma_.lower() in TIME_NOUNS or word.lower_ in TIMES_OF_DAY
    return timed and ends
