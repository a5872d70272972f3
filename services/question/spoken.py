"""Saying a node label back to the respondent: in the second person and as a noun phrase.

Labels are the respondent's own words cut from their answers ("concentrate during my commute",
"don't have to remember to charge", "the delivery arrives on tuesday evening"). Dropped into a
question slot that expects a thing, they read badly ("Why is concentrate during my commute
important to you?"). The interviewer says them back as the respondent would hear them: "my" becomes
"your", and a clause becomes a gerund phrase — "concentrating during your commute", "not having to
remember to charge", "the delivery arriving on tuesday evening" — so every template reads as a
sentence. Noun phrases ("long battery life") are left alone, and names keep the capitals the label
carries ("Netflix recommends shows" -> "Netflix recommending shows").

Word classes and lemmas come from `wordforms.WordForms` (spaCy's lookup tables, loaded once per
process); without them only the pronouns change.
"""

from __future__ import annotations

from collections.abc import Mapping

from services.question import english as en
from services.question.clauses import ClauseReader, placed_at
from services.question.places import is_day
from services.question.wordforms import gerund, past_tense


class SpokenLabels(ClauseReader):
    """Turns labels into what the interviewer says back (see the module docstring)."""

    def say(
        self, label: str, *, thing: bool = False, feeling: bool = False, worry: bool = False
    ) -> tuple[str, bool]:
        """The label as spoken back, and whether it became a (grammatically singular) gerund phrase.

        `thing`: the node is a property of the topic (an attribute), so an opening past form that
        describes ("detailed sound", "padded ear cushions") is not read as a past doing. `feeling`:
        the node is how the respondent felt, so "calm" is the state "being calm", not the thing
        ("how did you feel at calm?"). `worry`: the node is what the respondent feared, so a clause
        of what might happen is the worry ("coffee would ruin my sleep" -> "the worry that coffee
        would ruin your sleep", not "what bigger goal is coffee would ruin your sleep part of?")."""
        written, names, words = _second_person(label)
        if not words:
            return label, False
        felt = _felt(words)
        if felt is not None:
            return _join(["being", *felt], names), True
        if worry and len(words) > 1 and (words[0] in en.MAY_HAPPEN or words[1] in en.MAY_HAPPEN):
            # "it might break", "might not taste as good" (its subject dropped: "it")
            subject = ["it"] if words[0] in en.MAY_HAPPEN else []
            return _join(["the", "worry", "that", *subject, *words], names), False
        if feeling and self._a_state(words):
            return _join(["being", *words], names), True
        if len(words) > 2 and words[:2] == ["sense", "of"]:
            return _join(["a", *words], names), False  # "a sense of accomplishment": "sense" is counted
        if words[0] in {"after", "before", "during"} and len(words) > 1:
            # "after my hip operation" -> "the time after your hip operation": a thing, not a doing
            # ("take me through during bed pressures" said nothing)
            return _join(["the", "time", *words], names), False
        if len(words) > 2 and words[0] == "on" and words[1] in {"a", "one"} and words[-1] in en.TIME_HEADS:
            # "on a quiet Tuesday morning" -> "that quiet Tuesday morning": a time, not the state
            # "being on a quiet Tuesday morning"
            return _join(["that", *words[2:]], names), False
        if len(words) > 2 and words[0] in en.ORDINAL_TIMES and words[1] == "time":
            # "first time I went home" -> "the first time you went home"
            return _join(["the", *words], names), False
        if len(words) == 1 and words[0] in en.DAY_PARTS:
            # "weekend" (a passive situation leaves only its time) -> "the weekend"
            return _join(["the", *words], names), False
        if (
            len(words) > 1
            and words[-1] in en.TIME_HEADS
            and words[0] in self._forms.adjectives
            and all(w in self._forms.adjectives or w in en.TIME_HEADS for w in words[1:-1])
        ):
            # "calm Tuesday" -> "that calm Tuesday": a day told as a setting ("what was the situation
            # around calm Tuesday?"); "Friday afternoon" reads as it is
            return _join(["that", *words], names), False
        named = _named_words(written, names)
        changed = self._as_noun_phrase(words, named=named, thing=thing)
        if changed is None:
            return _join(words, names), False
        return _join(self._without_progressive_be(changed), names), True

    def finite(self, label: str, *, feeling: bool = False) -> str | None:
        """The label as a clause of its own, when it has a subject and a verb ("the driver turns up
        with the crates", "nobody gave you a written list") or is a lone state ("you were anxious"),
        for "when …"; else None. `feeling`: as in `say`."""
        written, names, words = _second_person(label)
        forms = self._forms
        felt = _felt(words)
        if felt is not None:
            return _join(["you", "were", *felt], names)  # "when you were a bit annoyed"
        if feeling and self._a_state(words):
            return _join(["you", "were", *words], names)  # "when you were less stressed"
        if len(words) == 1 and words[0] in forms.adjectives and words[0] not in forms.nouns:
            return f"you were {words[0]}"  # "anxious": "when you were anxious", not "when being anxious"
        if _a_state_before_purpose(words):
            return _join(["you", "were", *words], names)  # "when you were fit to leave"
        if len(words) < 2 or words[0] in en.NOT_PERSONS | en.BE:
            return None  # "was told at the ward round" has no subject to say
        if _none_left(words):
            verb = "were" if words[-2].endswith("s") else "was"
            return _join(["there", verb, *words], names)  # "when there were no evening slots left"
        be = self._be_after_subject(words)
        if be is not None:
            # a subject of several words, names too: "when good slots were gone by sunday night",
            # "while January and the hospital was full"
            return _join(self._in_past(words, be), names)
        if written[0] in names.values():
            # "Dad waited five hours for transport": the name is the subject ("while Dad waited …")
            named = _named_words(written, names)
            if self._named_subject(words, named) is None:
                return None
            return _join(self._in_past(words, named), names)
        if words[0] in en.SUBJECTS:
            v = self._past_adverbs(words, 1)
            verb = words[v] if v < len(words) else ""
            if verb in en.BE or (self._forms.verbs and self._forms.is_verb_form(verb)):
                return _join(self._in_past(words, v), names)
            return None
        verb_at = self._subject_clause(words)
        ends_on_verb = verb_at == len(words) - 1  # "phone died": the phone is the subject
        # "queue at the station café took too long": the thing and where is the subject
        placed = verb_at is not None and placed_at(words, 0)
        if self._starts_with_verb(words) and not words[0].endswith("ing") and not (ends_on_verb or placed):
            return None  # "feels made for me" is a doing, "feels" no subject ("booking just fell" is)
        if verb_at is None:
            return None
        article = self._dropped_article(words)
        return _join([*article, *self._in_past(words, verb_at)], names)

    def _in_past(self, words: list[str], v: int) -> list[str]:
        """The clause with its verb (at `v`) in the past: the templates that say "when {clause}" ask
        about what happened ("what did you need when the delivery arrived", not "… arrives")."""
        verb = words[v]
        if verb in {"is", "am", "'s", "'m"}:
            past = "was"
        elif verb in {"are", "'re"}:
            past = "were"
        elif verb in en.NEGATED_DO:
            past = "didn't"
        elif verb in en.BE:
            past = verb  # "was", "were"
        elif verb.endswith("s") and (lemma := self._forms.verb_lemma(verb)) != verb:
            past = past_tense(lemma)  # "arrives" -> "arrived", "comes" -> "came"
        elif words[0] in en.SUBJECTS and verb in self._forms.verbs and self._forms.verb_lemma(verb) == verb:
            past = past_tense(verb)  # a base form is a present: "you feel left out" -> "you felt …"
        else:
            past = verb  # already past ("gave", "fell")
        return [*words[:v], past, *words[v + 1 :]]

    def with_article(self, spoken: str) -> str:
        """A role or a thing the respondent dealt with, said back with the article the label
        dropped: "the nurse", "the discharge team", "the app". Names (not in the word lists), family
        words used as names ("dad"), days ("Sunday evening", not "the Sunday evening") and phrases
        that start with a determiner or pronoun stay as they are; a relative is "your daughter"."""
        words = spoken.split()
        if not self._forms.nouns or not words or words[0].lower() in en.DETERMINERS | en.NO_ARTICLE:
            return spoken  # without the word lists no article is guessed
        if is_day(spoken):
            return spoken
        if len(words) == 1 and words[0] in en.RELATIVES:
            return f"your {spoken}"  # "your daughter", not "the daughter" (the label dropped "my")
        if len(words) == 1 and words[0] in self._forms.adjectives:
            return spoken  # "waterproof", "premium": a property, not "the waterproof"
        # the word lists are lower-case: a name ("Boots", "Dr Patel") is in none
        head = words[-1]
        return f"the {spoken}" if head in en.NEWER_NOUNS or self._forms.is_noun_form(head) else spoken

    def _as_noun_phrase(self, words: list[str], *, named: int = 0, thing: bool = False) -> list[str] | None:
        first, rest = words[0], words[1:]
        nxt = rest[0] if rest else ""
        if named:
            # a name opens a clause only as its subject ("Netflix recommends shows"); "Book Club
            # picks" is not the doing "booking club picks"
            return self._named_subject(words, named) or self._being(words)
        if first in en.NEGATED_DO and nxt and self._verb_here(nxt, rest[1:2]):
            return ["not", self._ing(nxt), *rest[1:]]
        if first in en.DO and nxt == "not" and len(rest) > 1:
            return ["not", self._ing(rest[1]), *rest[2:]]
        if (
            first in en.ADVERBS_BEFORE_VERB
            and nxt in self._forms.adjectives
            and (nxt not in self._forms.verbs or len(rest) == 1 or rest[1] in en.STATE_LINKS)
        ):
            # "always tired of the afternoon slump" -> "always being tired of …" (not "always tiring"),
            # "usually calm" -> "usually being calm"; "always call the carer" takes an object
            return [first, "being", *rest]
        if (first in en.ADVERBS_BEFORE_VERB or first == "never") and self._passive(
            nxt, rest[1] if len(rest) > 1 else ""
        ):
            return [first, "being", *rest]  # "never caught out": done to them, not "never catching out"
        if first in en.ADVERBS_BEFORE_VERB and nxt and self._forms.is_verb_form(nxt):
            # "never ask twice", "always call the carer" -> "always calling the carer"
            return [first, self._ing(nxt), *rest[1:]]
        if first == "never" and nxt and self._verb_here(nxt, rest[1:2]):
            return ["never", self._ing(nxt), *rest[1:]]
        if _none_left(words):
            return ["there", "being", *words]  # "no evening slots left": a state of things
        if first in en.CAN and nxt and self._verb_here(nxt, rest[1:2]):
            return ["being", "able", "to", *rest]
        if first in en.CANNOT and nxt:
            return ["not", "being", "able", "to", *rest]
        if first in en.BE and rest:
            return ["being", *rest]
        if first == "not" and nxt in self._forms.adjectives and not self._forms.is_verb_form(nxt):
            return ["not", "being", *rest]  # "not sure it was worth the price": a state, not a thing
        if self._passive(first, nxt):
            return ["being", *words]  # "discharged after …" was done to them: not "discharging after …"
        if _a_state_before_purpose(words):
            return ["being", *words]  # "fit to leave", "ready the night before": not "fitting to leave"
        if not rest and first in self._forms.adjectives and first not in self._forms.nouns:
            return ["being", first]  # "awake" -> "being awake", "healthy" -> "being healthy"
        if (
            nxt in en.STATE_LINKS - {"to"}
            and first in self._forms.adjectives
            and not self._forms.is_noun_form(first)
            and not self._forms.is_verb_form(first)
        ):
            # "responsible with money" -> "being responsible with money", "proud of my work"; "easy
            # to find something" has its subject elsewhere and stays
            return ["being", *words]
        if (first == "fed" and nxt == "up") or (
            nxt in en.FEELING_LINKS
            and first in self._forms.adjectives
            and (first.endswith("ed") or first in en.STATES_OF)
        ):
            # "tired of the afternoon slump", "fed up with the taste": a state, not the doings
            # "tiring of …", "feeding up with …"
            return ["being", *words]
        if (
            first in en.STATE_PREPOSITIONS | en.STATIVE_PARTICIPLES
            or (first == "back" and nxt in en.BACK_TO)
            or (first == "home" and nxt in en.HOME_BY)
        ) and rest:
            # "at my kitchen table" -> "being at your kitchen table", "back home before noon" ->
            # "being back home before noon" (not the doing "backing")
            return ["being", *words]
        if first in en.SUBJECTS and nxt in en.CAN | en.CANNOT and len(rest) > 1:
            # "I can focus" -> "you being able to focus" (not "you canning focus")
            return [first, *(["not"] if nxt in en.CANNOT else []), "being", "able", "to", *rest[1:]]
        able = self._able(words)
        if able is not None:
            return able
        if first in en.SUBJECTS and nxt:
            # "nobody properly explained my tablets" -> "nobody properly explaining your tablets"
            v = self._past_adverbs(words, 1)
            if v < len(words) and (words[v] in en.BE or self._forms.is_verb_form(words[v])):
                # "she watched me …" -> "her watching you …": the doer of a doing is its object form
                doer = en.OBJECT_FORMS.get(first, first)
                return [doer, *words[1:v], self._ing(words[v]), *words[v + 1 :]]
        verb = self._subject_clause(words)
        # (a verb after the subject's own phrase, "queue at the station café | took", is the clause's)
        own_verb = verb is not None and (
            first.endswith("ing") or verb == len(words) - 1 or placed_at(words, 0)
        )
        if self._starts_with_verb(words, thing=thing) and not own_verb:
            # "booking just fell between two teams": a gerund with a verb of its own is a subject,
            # and so is a noun before a verb that ends the label ("phone died", not "phoning died")
            if self._forms.verb_lemma(first) == "keep" and nxt.endswith("ing") and nxt != "going":
                return ["keeping", "on", *rest]  # "kept asking the nurses" -> not "keeping asking …"
            return [self._ing(first), *self._second_doing(rest)]
        if verb is not None:
            # "driver turns up with the crates" -> "the driver turning up …": the label dropped it
            article = self._dropped_article(words)
            return [*article, *words[:verb], *self._ing_with_doing(words[verb:])]
        return self._being(words)

    def _able(self, words: list[str]) -> list[str] | None:
        """ "friends can actually understand me on voice chat" -> "your friends being able to
        actually understand you …", "the driver can never find the flat" -> "the driver never being
        able to find the flat" (a label with a subject and "can" was said back as it was)."""
        start = 1 if words[0] in en.DETERMINERS else 0
        if len(words) < start + 3 or words[start + 1] not in en.CAN | en.CANNOT:
            return None
        if not self._is_common_noun(words[start]):
            return None
        subject = words[: start + 1] if start else [*self._dropped_article(words), words[0]]
        rest = words[start + 2 :]
        negated = ["not"] if words[start + 1] in en.CANNOT else []
        if rest[0] in {"never", "not"} and len(rest) > 1:
            negated, rest = [rest[0]], rest[1:]
        return [*subject, *negated, "being", "able", "to", *rest]

    def _a_state(self, words: list[str]) -> bool:
        """Whether `words` are an adjective with at most its degree words ("calm", "less stressed",
        "really annoyed") and what it is about ("anxious about the slot", "relieved it takes five
        minutes"): how someone felt."""
        at = 0
        while at < len(words) - 1 and words[at] in en.DEGREE_WORDS:
            at += 1
        if not words or words[at] not in self._forms.adjectives:
            return False
        word = words[at]
        if word.endswith("ing") and word != "willing" and self._forms.verb_lemma(word) != word:
            # "standing on my own feet", "worrying about the slot": a doing the tables also list as
            # an adjective ("a standing order"), not "being standing on your own feet"
            return False
        if at == len(words) - 1:
            return True
        nxt = words[at + 1]
        return (
            (nxt in en.STATE_LINKS and at + 2 < len(words))  # "anxious about the slot"
            or nxt in en.SUBJECTS | {"that"}  # "relieved it takes five minutes"
            or (nxt in {"out", "up"} and at + 2 == len(words))  # "stressed out", "fed up"
        )

    def _ing_with_doing(self, words: list[str]) -> list[str]:
        """The verb opening `words` as a gerund; one that starts a doing takes it as "to …"
        ("started racing" -> "starting to race", not "starting racing")."""
        verb, rest = words[0], words[1:]
        lemma = self._forms.verb_lemma(verb)
        if lemma in {"start", "begin", "continue"} and rest and rest[0].endswith("ing"):
            doing = self._forms.verb_lemma(rest[0])
            if doing != rest[0]:
                return [self._ing(verb), "to", doing, *rest[1:]]
        return [self._ing(verb), *rest]

    def _dropped_article(self, words: list[str]) -> list[str]:
        """The article a subject's label dropped: "your" for a relative or the respondent's own body
        or energy ("your daughter picking you up", "your heart racing"), "the" for another role or
        thing, none for a name or a doing."""
        if not self._drops_article(words):
            return []
        return ["your"] if words[0] in en.RELATIVES | en.OWN_PARTS else ["the"]

    def _drops_article(self, words: list[str]) -> bool:
        """Whether the subject that opens `words` is a role or thing whose article the label dropped
        ("driver turns up" -> "the driver", "booking just fell" -> "the booking"); a doing with its
        own object ("making coffee at home was cheaper") takes none."""
        first = words[0]
        if first in en.DETERMINERS or not self._is_common_noun(first):
            return False
        doing = first.endswith("ing") and self._forms.is_verb_form(first)
        return not (doing and len(words) > 1 and words[1] not in en.MID_ADVERBS | en.BE)

    def _second_doing(self, rest: list[str]) -> list[str]:
        """ "(copying) last week's order and tweak it" -> "… and tweaking it": both doings alike.

        Not after "to" ("… to charge and pay" is an infinitive, whatever follows "and").
        """
        out = list(rest)
        for i, word in enumerate(out[:-1]):
            if word == "to":
                break
            verb, after = out[i + 1], out[i + 2] if i + 2 < len(out) else ""
            if word == "and" and i and self._both_adjectives(out[i - 1], verb):
                break  # "(tasting) flat and bitter": two states of one doing, not a second doing
            bare = i < 2 or (out[i - 2] not in en.DETERMINERS and not out[i - 2].endswith("'s"))
            if word == "and" and i and bare and self._both_things(out[i - 1], verb, after):
                break  # "(surviving) rain and sweat for years": two bare objects of one doing
            if word == "and" and verb in self._forms.verbs and (not after or after in en.AFTER_VERB):
                out[i + 1] = self._ing(verb)
                break
        return out

    def _without_progressive_be(self, words: list[str]) -> list[str]:
        """ "dad being going home" -> "dad going home": "was going" is already a doing."""
        forms = self._forms
        return [
            w
            for i, w in enumerate(words)
            if not (
                w == "being"
                and i + 1 < len(words)
                and words[i + 1].endswith("ing")
                and forms.is_verb_form(words[i + 1])
                # "was boring" may describe; "was going home", "was waiting for hours" are doings
                and (words[i + 1] not in forms.adjectives or i + 2 < len(words))
            )
        ]

    def _being(self, words: list[str]) -> list[str] | None:
        be = self._be_after_subject(words)
        return None if be is None else [*words[:be], "being", *words[be + 1 :]]

    def _ing(self, word: str) -> str:
        if word in en.BE:
            return "being"
        return gerund(self._forms.verb_lemma(word))

    def _named_subject(self, words: list[str], size: int) -> list[str] | None:
        """ "Netflix recommends shows" -> "Netflix recommending shows", "Dad waited five hours" ->
        "Dad waiting five hours"; other named phrases stay.

        `size` is the number of words of the name that opens the label.
        """
        if size >= len(words) - 1 or not self._forms.verbs:
            return None
        verb = words[size]
        if verb in en.BE or (
            (verb.endswith("s") or self._forms.verb_lemma(verb) != verb)
            and self._forms.is_verb_form(verb)
            and verb not in self._forms.nouns
        ):
            return [*words[:size], self._ing(verb), *words[size + 1 :]]
        return None


def _felt(words: list[str]) -> list[str] | None:
    """A lone word of what made someone feel a way, with its degree words, said as how they felt
    ("a bit annoying" -> "a bit annoyed"): the label lost what was annoying, and "you were
    annoying" says something else. None for any other label."""
    if not words or words[-1] not in en.FELT or any(w not in en.DEGREE_WORDS for w in words[:-1]):
        return None
    return [*words[:-1], en.FELT[words[-1]]]


def _named_words(written: list[str], names: Mapping[str, str]) -> int:
    """How many of the label's first words (as written) are a name ("Dad", "Book Club")."""
    count = 0
    while count < len(written) and written[count] in names.values():
        count += 1
    return count


def _a_state_before_purpose(words: list[str]) -> bool:
    """Whether `words` say a state by an adjective that is also a verb, with nothing, a purpose or a
    time after it ("fit to leave", "ready the night before"; not the doing "close the app")."""
    if not words or words[0] not in en.STATES_BEFORE_PURPOSE:
        return False
    rest = words[1:]
    timed = len(rest) > 1 and rest[0] in en.TIME_OPENERS and rest[1] in en.TIME_HEADS | en.TIME_UNITS
    return not rest or rest[0] in en.PURPOSE_LINKS or timed


def _none_left(words: list[str]) -> bool:
    """ "no evening slots left", "no beds anywhere": that nothing was there, said with "there"."""
    return len(words) > 2 and words[0] == "no" and words[-1] in en.NONE_LEFT


def in_second_person(label: str) -> str:
    """`label` with only its pronouns turned to the respondent ("the one I cancelled" -> "the one you
    cancelled", "my ideal service" -> "your ideal service"): a name as written, where the rest of
    `SpokenLabels.say` would read a name as a clause ("Netflix recommends shows")."""
    _, names, words = _second_person(label)
    return _join(words, names)


def _second_person(label: str) -> tuple[list[str], dict[str, str], list[str]]:
    """The label's words as written, its names (lower case -> as written) and its words in the
    second person, lower case ("I was" -> "you were")."""
    # split on spaces only: "disney+" and "week's" stay one word
    written = label.replace("’", "'").split()
    # names keep the capitals the label carries ("Netflix", "Dr Patel"); the rules read lower case
    names = {w.lower(): w for w in written if w != w.lower() and w.lower() not in en.PRONOUNS}
    words = [en.PRONOUNS.get(w, w) for w in (w.lower() for w in written)]
    for i in range(1, len(words)):
        words[i] = en.AGREEMENT.get((words[i - 1], words[i]), words[i])
    return written, names, words


def _join(words: list[str], names: Mapping[str, str]) -> str:
    return " ".join(names.get(w, w) for w in words)
