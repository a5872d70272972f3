"""Where the verb of a label is: the word-class reading behind `spoken.SpokenLabels`.

A label is the respondent's words cut from an answer: a noun phrase ("long battery life"), a doing
("check out in the app"), or a clause with a subject of its own ("the delivery arrives on tuesday",
"queue at the station café took too long"). Saying it back as a noun phrase needs to know which,
and where the verb is; these readings use the word tables of `wordforms.WordForms` only.
"""

from __future__ import annotations

from services.question import english as en
from services.question.wordforms import WordForms


class ClauseReader:
    """Reads where a label's subject ends and its verb is (the base of `SpokenLabels`)."""

    def __init__(self, forms: WordForms | None = None) -> None:
        self._forms = forms or WordForms()

    def _passive(self, first: str, nxt: str) -> bool:
        """Whether a label opens with a passive participle: one that is passive wherever it opens
        ("given a leaflet"), or a verb of what is done to someone without an object after it."""
        if not nxt or not self._forms.verbs:
            return False
        if first in en.PASSIVE_PARTICIPLES:
            return True
        lemma = self._forms.verb_lemma(first)
        past = first.endswith("ed") or (lemma != first and not first.endswith(("ing", "s")))
        return past and lemma in en.DONE_TO and nxt in en.NO_OBJECT_AFTER

    def _past_adverbs(self, words: list[str], i: int) -> int:
        """The index after the adverbs that start at `i` ("just", "properly", "never")."""
        forms = self._forms
        while i < len(words) - 1 and (
            words[i] in en.MID_ADVERBS
            or (
                words[i].endswith("ly")
                and not forms.is_noun_form(words[i])
                and not forms.is_verb_form(words[i])
            )
        ):
            i += 1
        return i

    def _is_common_noun(self, word: str) -> bool:
        return word not in en.NO_ARTICLE and (word in en.NEWER_NOUNS or self._forms.is_noun_form(word))

    def _describes(self, word: str) -> bool:
        """An adjective or a past participle ("made", "designed") after a linking verb."""
        if word in self._forms.adjectives:
            return True
        return word != self._forms.verb_lemma(word) and (word.endswith("ed") or word in en.PARTICIPLES)

    def _both_things(self, first: str, second: str, after: str) -> bool:
        # a second verb takes its own object ("and tweak it") or ends the label ("and pay"); a noun
        # joined to a noun goes on with a preposition ("rain and sweat for years")
        forms = self._forms
        return forms.is_noun_form(first) and forms.is_noun_form(second) and after in en.STATE_LINKS

    def _both_adjectives(self, first: str, second: str) -> bool:
        adjectives = self._forms.adjectives
        return first in adjectives and second in adjectives

    def _be_after_subject(self, words: list[str]) -> int | None:
        """Where "was"/"is" follows a longer subject ("january and the hospital was full"), if so."""
        forms = self._forms
        if not forms.verbs:
            return None
        for i, word in enumerate(words[:6]):
            if word in en.BE and word not in {"be", "'s"}:
                return i if 1 < i < len(words) - 1 else None
            if word in en.SUBJECTS or (not forms.is_noun_form(word) and forms.is_verb_form(word)):
                return None  # "what i needed was time": a clause inside the subject
        return None

    def _verb_here(self, word: str, following: list[str]) -> bool:
        forms = self._forms
        if not forms.verbs:
            return True  # "don't X" / "can X": X is a verb whatever the tables say
        return forms.is_verb_form(word) or bool(following)

    def _starts_with_verb(self, words: list[str], *, thing: bool = False) -> bool:
        forms = self._forms
        if not forms.verbs:
            return False
        first = words[0]
        nxt = words[1] if len(words) > 1 else ""
        lemma = forms.verb_lemma(first)
        if lemma not in forms.verbs and first not in forms.verbs:
            return False
        if not nxt:
            # a lone word is a thing ("work", "need") unless it is a past form ("explained")
            return lemma != first and not first.endswith("s")
        if nxt == "for" and first in en.THINGS_FOR:
            return False  # "room for a whole litre" is a thing, not the doing "rooming for …"
        if nxt in _RELATIVE_PRONOUNS and forms.is_noun_form(first):
            return False  # "cushions that press on my glasses": a thing a clause describes
        if first in en.COMPOUND_ING and forms.is_noun_form(nxt) and nxt not in en.DURATIONS:
            # "vending machine (break)", "charging case": a thing named by its use, no doing
            # ("waiting hours for the letter" is one)
            return False
        if first.endswith("s") and lemma != first:
            # "respects my time" is a doing, "slots gone by tuesday" a thing; "feels made for me"
            # a state of the doing's kind
            return nxt in en.AFTER_VERB or (lemma in en.COPULAR and self._describes(nxt))
        if thing and first.endswith("ed") and first in forms.adjectives and forms.is_noun_form(nxt):
            return False  # "detailed sound" as a property, not the doing "detailing sound"
        if first.endswith("ed") or lemma != first:
            return True  # "waited six hours", "saw a colleague's machine", "gave up instant"
        if lemma in en.LEAD_VERBS and nxt != "of":
            return True
        if first in forms.nouns or first in forms.adjectives:
            # "control of your day", "long battery life" are things; "check out in the app",
            # "book a delivery slot", "feel calm" are doings
            return nxt in en.AFTER_VERB or (first in en.COPULAR and nxt in forms.adjectives)
        return bool(nxt) or first.endswith("ed")

    def _subject_clause(self, words: list[str]) -> int | None:
        """Where the verb is in "the delivery arrives on tuesday", "driver turns up with the crates",
        "pharmacy had a huge backlog", "booking just fell between two teams" (subject, verb, more)."""
        forms = self._forms
        if not forms.verbs:
            return None
        start = 1 if words[0] in en.DETERMINERS else 0
        if words[0].endswith("ing") and forms.is_verb_form(words[0]):
            later = self._verb_after_gerund(words)
            if later is not None:
                return later  # "waiting at the café took too long": a doing as the subject
        if self._is_common_noun(words[start]) and placed_at(words, start):
            later = self._verb_after_gerund(words[start:])
            if later is not None:
                return start + later  # "queue at the station café | took | too long": a thing and where
        if (
            len(words) > start + 3
            and forms.is_noun_form(words[start + 1])
            and words[start + 2] in en.MID_ADVERBS
        ):
            start += 1  # a subject of two nouns before an adverb: "hospital transport never turned up"
        elif (
            len(words) > start + 3
            and forms.is_noun_form(words[start])
            and forms.is_noun_form(words[start + 1])
            and (not forms.is_verb_form(words[start + 1]) or words[start + 3] in en.OBJECT_PRONOUNS)
            and forms.verb_lemma(words[start + 2]) != words[start + 2]
        ):
            # "ward pharmacist came to my bed", "discharge nurse phoned me": a subject of two nouns
            # (the second may be a verb too when a person follows the past form as its object)
            start += 1
        if (
            len(words) > start + 2
            and words[start] in forms.adjectives
            and not forms.is_noun_form(words[start])
            and forms.is_noun_form(words[start + 1])
        ):
            start += 1  # "long queues at the station": an adjective is no subject, "queues" no verb
        v = self._past_adverbs(words, start + 1)
        if len(words) == v + 1 and v == start + 1 and self._is_common_noun(words[start]):
            # "energy crashed", "the phone died": a noun and a verb that takes no object
            verb = words[v]
            lemma = forms.verb_lemma(verb)
            return v if lemma != verb and lemma in en.NO_OBJECT_VERBS and not verb.endswith("ing") else None
        if len(words) == v + 1 and v > start + 1 and words[v].endswith("ed"):
            # "the family really helped": a verb at the end, after an adverb, ends a clause
            ends = forms.is_verb_form(words[v]) and words[v] not in forms.adjectives
            return v if ends else None
        if len(words) < v + 2:
            return None
        verb, after = words[v], words[v + 1]
        if after in _RELATIVE_PRONOUNS and forms.is_noun_form(verb):
            return None  # "ear hooks | that keep them in place": a noun the clause after it describes
        if verb in en.BE:
            return v
        if verb.endswith(("ed", "s")) and forms.verb_lemma(verb) in en.COPULAR and after in forms.adjectives:
            return v  # "instant tasted flat and bitter", "the nurse seemed rushed"
        if after.endswith("ing") and forms.is_verb_form(after) and verb.endswith("ed"):
            return v  # "heart started racing": a verb before a doing of its own
        if verb in en.STATIVE_PARTICIPLES or not forms.is_verb_form(verb) or after not in en.AFTER_VERB:
            return None  # "a pharmacist based on the ward" is a thing, not the doing "basing"
        if verb.endswith(("ed", "s")):
            return v
        # an irregular past ("had", "fell", "took"); a participle ("slots gone by tuesday") describes
        past = forms.verb_lemma(verb) != verb and not verb.endswith("en") and verb not in en.PARTICIPLE_ONLY
        return v if past else None

    def _verb_after_gerund(self, words: list[str]) -> int | None:
        """Where a gerund subject's past verb is, after the subject's own words and before more
        ("waiting at the café | took | too long"), if there is one."""
        forms = self._forms
        for i in range(2, len(words) - 1):
            word = words[i]
            if word in en.BE and word not in {"be", "being"}:
                return i
            irregular = forms.verb_lemma(word) != word and not word.endswith(("en", "ing", "s"))
            regular = word.endswith("ed") and forms.is_verb_form(word) and word not in forms.adjectives
            # (the words are in the second person already: "my"/"me" are "your"/"you" here)
            after_object = words[i - 1] not in _OPEN_BEFORE_OBJECT
            if after_object and word not in en.PARTICIPLE_ONLY and (irregular or regular):
                return i
        return None


# Words after which an object has not yet come ("waiting at the | café"): no verb follows them.
_OPEN_BEFORE_OBJECT = en.DETERMINERS | en.STATE_LINKS


# Words that open a relative clause after the noun it describes ("hooks | that keep them in place").
_RELATIVE_PRONOUNS = frozenset({"that", "which", "who"})


def placed_at(words: list[str], start: int) -> bool:
    """Whether the word at `start` is followed by a phrase of place or part and more ("queue | at the
    station café …", "trip | to the big supermarket …"); "need | to feel …" is followed by a doing."""
    if len(words) <= start + 3 or words[start + 1] not in en.STATE_LINKS:
        return False
    return words[start + 1] != "to" or words[start + 2] in en.DETERMINERS
