"""English word forms for saying labels back: lemmas and word classes, the -ing form, the past.

Lemmas and word classes come from the spaCy lookup tables that ship with `spacy-lookups-data`
(loaded once per process by `WordForms.load`); the -ing and past forms are spelled by rule, with
the irregular pasts listed in `english.PAST_OF`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from services.question import english as en
from shared.lemmas import own_lemma
from shared.spacy_loading import import_spacy


@dataclass(frozen=True)
class WordForms:
    """Lemmas and word classes of English words (lower case)."""

    # word -> lemma; spaCy's lookup `Table` is keyed by string hashes, so it is asked, not iterated
    lemmas: Mapping[str, str] | Mapping[int, str] = field(default_factory=dict)
    verbs: frozenset[str] = frozenset()
    nouns: frozenset[str] = frozenset()
    adjectives: frozenset[str] = frozenset()

    @classmethod
    def load(cls) -> WordForms:
        """From spaCy's English lookup tables (about a second; do it once per process)."""
        import_spacy()  # without torch (`shared.spacy_loading`)
        from spacy.lookups import load_lookups  # heavy import: only when the tables are wanted

        lookups = load_lookups("en", ["lemma_lookup", "lemma_index"])
        index = lookups.get_table("lemma_index")
        return cls(
            lemmas=lookups.get_table("lemma_lookup"),
            verbs=frozenset(index["verb"]),
            nouns=frozenset(index["noun"]),
            adjectives=frozenset(index["adj"]),
        )

    def lemma(self, word: str) -> str:
        """The lookup lemma of `word` (the word itself when unknown)."""
        irregular = en.IRREGULAR_PAST.get(word)
        if irregular is not None:
            return irregular
        own = own_lemma(word)
        if own is not None:
            return own  # "evening" is no form of "even"
        found = self.lemmas.get(word)  # type: ignore[call-overload]  # a Table hashes str keys itself
        return str(found) if found else word

    def verb_lemma(self, word: str) -> str:
        """The lemma of `word` read as a verb: "well" is the verb itself, not a form of "good", and
        a word whose lemma is no verb is its own ("an" is no form of "a")."""
        lemma = self.lemma(word)
        return lemma if lemma in self.verbs or not self.verbs else word

    def is_verb_form(self, word: str) -> bool:
        """Whether `word` is a verb or an inflection of one."""
        return word in self.verbs or self.lemma(word) in self.verbs

    def is_noun_form(self, word: str) -> bool:
        """Whether `word` is a noun or an inflection of one ("slots")."""
        return word in self.nouns or self.lemma(word) in self.nouns


def gerund(verb: str) -> str:
    """The -ing form of a base-form verb ("have" -> "having", "get" -> "getting", "lie" -> "lying")."""
    if verb == "be":
        return "being"
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith(("ee", "oe", "ye")) or verb in {"see", "be"}:
        return verb + "ing"
    if verb.endswith("e") and len(verb) > 2:
        return verb[:-1] + "ing"
    return verb + verb[-1] + "ing" if _doubles(verb) else verb + "ing"


def past_tense(verb: str) -> str:
    """The simple past of a base-form verb ("arrive" -> "arrived", "stop" -> "stopped", "carry" ->
    "carried", "come" -> "came")."""
    irregular = en.PAST_OF.get(verb)
    if irregular is not None:
        return irregular
    if verb.endswith("e"):
        return verb + "d"
    if verb.endswith("y") and len(verb) > 2 and verb[-2] not in en.VOWELS:
        return verb[:-1] + "ied"
    return verb + verb[-1] + "ed" if _doubles(verb) else verb + "ed"


def _doubles(verb: str) -> bool:
    """Whether the final consonant doubles before -ing/-ed ("stop", "forget"; not "open", "visit")."""
    cvc = (
        len(verb) >= 3
        and verb[-1] not in en.VOWELS | {"w", "x", "y"}
        and verb[-2] in en.VOWELS
        and verb[-3] not in en.VOWELS
    )
    one_syllable = sum(1 for ch in verb if ch in en.VOWELS) == 1
    return cvc and (one_syllable or verb in en.DOUBLE)
