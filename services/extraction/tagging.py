"""A small lexical part-of-speech tagger for the blank English pipeline.

No trained spaCy pipeline can be installed everywhere, so without one we tag tokens from closed
word classes plus the WordNet word lists that ship with `spacy-lookups-data` (`lemma_index`:
which lemmas can be nouns, verbs, adjectives, adverbs), and resolve ambiguous words from their
left context. It is deliberately simple: the Matcher rules downstream only need to tell noun
phrases from predicates, not a full treebank tag set.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from spacy.tokens import Doc, Token

from services.extraction.wordclasses import (
    ADPOSITIONS,
    AUXILIARIES,
    CAUSATIVES,
    COMMON_ADVERBS,
    CONJUNCTIONS,
    DETERMINERS,
    HAVE_DO,
    INTERJECTIONS,
    LINKING,
    OBJECT_PRONOUNS,
    OTHER_PRONOUNS,
    PARTICLES,
    POSSESSIVES,
    RELATION_VERBS,
    SUBJECT_PRONOUNS,
    SUBORDINATORS,
    VERB_FORMS_ONLY,
)

_VERB_CONTEXT_TAGS = frozenset({"AUX", "PART"})
_PARTICLES = frozenset({"up", "down", "out", "off", "back", "over", "away", "through"})
# Prepositions that also open a clause ("before the driver leaves").
_CLAUSE_OPENERS = frozenset({"before", "after", "until", "till", "since", "as", "like", "once"})


@dataclass(frozen=True)
class PosLexicon:
    """Which open-class parts of speech each lemma can take (WordNet lists from spacy-lookups-data)."""

    nouns: frozenset[str]
    verbs: frozenset[str]
    adjectives: frozenset[str]
    adverbs: frozenset[str]

    @classmethod
    def from_index(cls, index: Mapping[str, object]) -> PosLexicon:
        """Build from the `lemma_index` table (`{"noun": [...], "verb": [...], ...}`)."""

        def words(key: str) -> frozenset[str]:
            raw = index.get(key) or []
            return frozenset(str(w).lower() for w in raw)  # type: ignore[attr-defined]

        return cls(words("noun"), words("verb"), words("adj"), words("adv"))

    def candidates(self, lemma: str, lower: str) -> set[str]:
        """Open-class tags the word can take (checked on its lemma and its surface form)."""
        out: set[str] = set()
        for form in (lemma, lower):
            if form in self.nouns:
                out.add("NOUN")
            if form in self.verbs:
                out.add("VERB")
            if form in self.adjectives:
                out.add("ADJ")
            if form in self.adverbs:
                out.add("ADV")
        return out


def _closed_class(lower: str, token: Token) -> str | None:
    if token.is_space:
        return "SPACE"
    if token.is_punct or (not token.is_alpha and not token.like_num and not any(c.isalnum() for c in lower)):
        return "PUNCT"
    if token.like_num:
        return "NUM"
    if lower in SUBJECT_PRONOUNS or lower in OBJECT_PRONOUNS or lower in OTHER_PRONOUNS:
        return "PRON"
    if lower in POSSESSIVES:
        return "DET" if lower == "her" else "PRON"
    if lower in DETERMINERS:
        return "DET"
    if lower in AUXILIARIES:
        return "AUX"
    if lower in ADPOSITIONS:
        return "ADP"
    if lower in CONJUNCTIONS:
        return "CCONJ"
    if lower in SUBORDINATORS:
        return "SCONJ"
    if lower in PARTICLES:
        return "PART"
    if lower in INTERJECTIONS:
        return "INTJ"
    return None


# Words of amount or degree that follow a verb, not a noun: "(the pods) cost | too much".
_AMOUNT_WORDS = frozenset(
    {"too", "so", "much", "less", "more", "nothing", "almost", "nearly", "twice", "way"}
)


def _prev_content(tags: list[str], i: int) -> int:
    """Index of the nearest token left of `i` that is not an adverb (or -1)."""
    j = i - 1
    while j >= 0 and tags[j] == "ADV":
        j -= 1
    return j


def _in_verb_context(doc: Doc, tags: list[str], lemmas: list[str], i: int) -> bool:
    j = _prev_content(tags, i)
    if j < 0:
        return False
    low = doc[j].lower_
    if tags[j] in _VERB_CONTEXT_TAGS and low != "'s":
        return True
    if low in SUBJECT_PRONOUNS or (low in {"that", "this", "which", "who"} and tags[j] == "PRON"):
        return True
    # Bare infinitive after a causative + object pronoun: "lets me focus", "helps us relax".
    return low in OBJECT_PRONOUNS | {"you", "it", "people"} and j >= 1 and lemmas[j - 1] in CAUSATIVES


def _resolve(
    doc: Doc, tags: list[str], lemmas: list[str], i: int, cands: set[str], lexicon: PosLexicon
) -> str:
    tok = doc[i]
    low = tok.lower_
    j = _prev_content(tags, i)
    prev_tag = tags[i - 1] if i > 0 else ""
    prev_low = doc[i - 1].lower_ if i > 0 else ""
    if "VERB" in cands and i + 1 < len(doc) and doc[i + 1].lower_ in {"me", "him", "us", "them"}:
        return "VERB"  # an object pronoun follows: "relaxed gives me", "the nurse rang him"
    if "VERB" in cands and i + 1 < len(doc) and doc[i + 1].lower_ in _PARTICLES and prev_tag != "DET":
        return "VERB"  # phrasal verb: "sat down", "ended up", "picked me up" is handled by context
    if (
        "VERB" in cands
        and low == lemmas[i]
        and i + 1 < len(doc)
        and doc[i + 1].lower_ in _AMOUNT_WORDS
        and prev_tag == "NOUN"
        and prev_low.endswith("s")
        and lemmas[i - 1] != prev_low
        and not _after_preposition(doc, tags, i)
    ):
        return "VERB"  # a plural subject, then an amount: "the pods cost too much", "the kids need a lot"
    if "VERB" in cands and _in_verb_context(doc, tags, lemmas, i):
        if "ADJ" in cands and j >= 0 and lemmas[j] in LINKING and not low.endswith("ing"):
            return "ADJ"
        return "VERB"
    if j >= 0 and lemmas[j] in LINKING and "ADJ" in cands and tags[j] in {"VERB", "AUX"}:
        return "ADJ"
    if prev_tag in {"DET", "ADJ", "NUM"} or prev_low in POSSESSIVES or prev_tag == "ADP":
        if "ADJ" in cands and i + 1 < len(doc) and _nounish(doc, lemmas, i + 1):
            return "ADJ"
        if "NOUN" in cands:
            return "NOUN"
        if "ADJ" in cands:
            return "ADJ"
    next_is_aux = i + 1 < len(doc) and doc[i + 1].lower_ in AUXILIARIES | HAVE_DO | {
        "of",
        "on",
        "in",
        "at",
        "with",
    }
    next_can_be_verb = (
        i + 1 < len(doc)
        and doc[i + 1].lower_ not in COMMON_ADVERBS  # "the evening feels | well spent"
        and "VERB" in lexicon.candidates(lemmas[i + 1], doc[i + 1].lower_)
    )
    if (
        "VERB" in cands
        and not next_is_aux
        and not next_can_be_verb  # "the ear cushions mean …": the plural noun is the subject
        and prev_tag in {"NOUN", "PROPN"}
        and low.endswith("s")
        and not low.endswith("ss")
        and lemmas[i] != low
        and (low in VERB_FORMS_ONLY or not _after_preposition(doc, tags, i))
        # "ear hooks | that keep them in place": a relative pronoun describes a noun
        and not (i + 1 < len(doc) and doc[i + 1].lower_ in {"that", "which", "who"})
        and not _ends_complement(doc, tags, lemmas, i)
    ):
        return "VERB"  # third person singular after a noun subject: "the battery lasts"
    if (
        "VERB" in cands
        and lemmas[i] != low
        and not low.endswith("s")
        and low not in lexicon.nouns
        and prev_tag in {"NOUN", "PROPN", "PRON"}
    ):
        return "VERB"  # an inflected verb form after its subject: "the machine broke", "she took"
    if "VERB" in cands and low.endswith("ed") and prev_tag in {"NOUN", "PROPN", "PRON"}:
        return "VERB"
    if "VERB" in cands and low.endswith("ing") and prev_tag not in {"NOUN", "PROPN"}:
        return "VERB"
    if "ADJ" in cands and (low.endswith(("er", "est")) and lemmas[i] != low):
        return "ADJ"  # comparatives and superlatives: "taste better", "the cheapest"
    if "ADJ" in cands and ("NOUN" not in cands or _nounish(doc, lemmas, i + 1)):
        return "ADJ"
    if "NOUN" in cands:
        return "NOUN"
    if "VERB" in cands:
        return "VERB"
    if "ADV" in cands:
        return "ADV"
    return "NOUN"


def _ends_complement(doc: Doc, tags: list[str], lemmas: list[str], i: int) -> bool:
    """Whether token `i` ends a sentence as the last word of a bare noun phrase after "be": "what I
    look for is comfortable ear cushions." names a thing; a clause there would start with its own
    determiner ("the thing is the battery lasts")."""
    if i + 1 < len(doc) and not doc[i + 1].is_punct:
        return False
    k = i - 1
    while k >= 0 and tags[k] in {"NOUN", "ADJ", "PROPN"}:
        k -= 1
    return k >= 0 and k < i - 1 and lemmas[k] == "be"


def _after_preposition(doc: Doc, tags: list[str], i: int) -> bool:
    """Whether the noun phrase before `i` follows a preposition ("go for soft ear | cushions", "the
    comfort of the ear | pads"): its last noun is no subject, so an -s word after it is a plural.
    A word that also opens a clause ("before the driver | leaves") does not count."""
    j = i - 1
    while j >= 0 and tags[j] in {"NOUN", "PROPN", "ADJ", "DET", "NUM"}:
        j -= 1
    return j >= 0 and tags[j] == "ADP" and doc[j].lower_ not in _CLAUSE_OPENERS


def _starts_noun_phrase(doc: Doc, lemmas: list[str], lexicon: PosLexicon, i: int) -> bool:
    """Whether token `i` can begin the noun phrase of a determiner (not a verb like "gives")."""
    if not _nounish(doc, lemmas, i):
        return False
    low = doc[i].lower_
    cands = lexicon.candidates(lemmas[i], low)
    third_person_verb = "VERB" in cands and low.endswith("s") and lemmas[i] != low
    past_verb = cands == {"VERB"} or ("VERB" in cands and low.endswith("ed"))
    return not (third_person_verb or past_verb)


def _nounish(doc: Doc, lemmas: list[str], i: int) -> bool:
    if i >= len(doc):
        return False
    tok = doc[i]
    return tok.is_alpha and _closed_class(tok.lower_, tok) is None


def _relation_subject_end(
    doc: Doc, tags: list[str], lemmas: list[str], i: int, cands: set[str]
) -> int | None:
    """Where the noun phrase before token `i` ends, when `i` is a verb relating it to the one after
    its preposition ("sound quality | conflicts with | a low price"); None for a noun ("the results
    in")."""
    prep = RELATION_VERBS.get(lemmas[i])
    if prep is None or "VERB" not in cands or i + 1 >= len(doc) or doc[i + 1].lower_ != prep:
        return None
    j = _prev_content(tags, i)
    subject = j >= 0 and tags[j] in {"NOUN", "PROPN", "ADJ", "VERB"} and doc[j].lower_ not in POSSESSIVES
    return j if subject else None


def tag_doc(doc: Doc, lexicon: PosLexicon) -> None:
    """Assign coarse universal POS tags (`token.pos_`) in place, left to right."""
    tags: list[str] = []
    lemmas = [t.lemma_ for t in doc]
    for i, tok in enumerate(doc):
        low = tok.lower_
        closed = _closed_class(low, tok)
        if closed == "PART" and low in {"'s", "’s"}:
            # "it's" → AUX; "Anna's" → possessive PART
            closed = (
                "AUX"
                if i > 0 and doc[i - 1].lower_ in SUBJECT_PRONOUNS | {"that", "there", "what", "this"}
                else "PART"
            )
        if closed == "ADP" and low == "to":
            closed = "PART"
        if closed is not None and low in {"that", "this"}:
            relative = low == "that" and i > 0 and tags[i - 1] in {"NOUN", "PROPN"}
            closed = "DET" if not relative and _starts_noun_phrase(doc, lemmas, lexicon, i + 1) else "PRON"
        if low == "so" and i + 1 < len(doc):
            nxt_cands = lexicon.candidates(lemmas[i + 1], doc[i + 1].lower_)
            if _closed_class(doc[i + 1].lower_, doc[i + 1]) is None and nxt_cands & {"ADJ", "ADV"}:
                closed = "ADV"  # intensifier: "so good", "so much"
            elif doc[i + 1].lower_ in {"much", "many", "far", "long", "well"}:
                closed = "ADV"
        if closed == "INTJ" and low in {"like", "well", "right", "no"} and i > 0 and not doc[i - 1].is_punct:
            closed = None  # "I like", "works well", "no sugar": open-class use mid-sentence
        if low in HAVE_DO:
            nxt = i + 1
            while nxt < len(doc) and doc[nxt].lower_ in {"not", "n't", "never", "really", "always", "just"}:
                nxt += 1
            follows_verb = nxt < len(doc) and "VERB" in lexicon.candidates(lemmas[nxt], doc[nxt].lower_)
            closed = "AUX" if follows_verb and doc[nxt].lower_ not in POSSESSIVES | DETERMINERS else "VERB"
        if closed is None:
            cands = lexicon.candidates(lemmas[i], low)
            if not cands:
                closed = "PROPN" if tok.is_title and i > 0 and not doc[i - 1].is_sent_end else "NOUN"
                if not tok.is_alpha:
                    closed = "X" if not any(c.isalpha() for c in low) else "NOUN"
            elif (j := _relation_subject_end(doc, tags, lemmas, i, cands)) is not None:
                closed = "VERB"
                # the subject's last word was read as a modifier of the verb, taken for a noun
                # ("sound | quality | conflicts"): a noun when it can be one
                if tags[j] == "ADJ" and "NOUN" in lexicon.candidates(lemmas[j], doc[j].lower_):
                    tags[j] = "NOUN"
            elif len(cands) == 1:
                closed = next(iter(cands))
                if closed == "ADV" and low in COMMON_ADVERBS:
                    closed = "ADV"
            else:
                closed = "ADV" if low in COMMON_ADVERBS else _resolve(doc, tags, lemmas, i, cands, lexicon)
        tags.append(closed)
    for tok, tag in zip(doc, tags, strict=True):
        tok.pos_ = tag
