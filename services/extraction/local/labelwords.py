"""The word lists of label shaping (`services.extraction.local.labels`): which words a label drops at
either end, and which words carry a phrase on past where a label would otherwise stop."""

from __future__ import annotations

from services.extraction.wordclasses import POSSESSIVES as _POSSESSIVE_WORDS
from services.extraction.wordclasses import SUBJECT_PRONOUNS

LEAD_DROP_POS = frozenset({"DET", "AUX", "CCONJ", "SCONJ", "INTJ", "PUNCT", "SPACE", "PART"})
# Words a label does not start with: the speaker and others as doers, possessives (a label says
# the thing: "my commute" -> "commute"; `_keep_lead` keeps "their own"), and openers and hedges.
LEAD_DROP = (
    (SUBJECT_PRONOUNS - {"one"})
    | {"me", "us", "them"}
    | _POSSESSIVE_WORDS
    | frozenset(
        {
            *("that", "which", "who", "there", "this"),
            *("really", "just", "also", "mainly", "mostly", "probably", "usually", "basically", "actually"),
            *("honestly", "then", "first", "so", "well", "still", "even", "kind", "sort", "of", "like"),
            *("too", "very", "all", "quite", "pretty", "simply", "definitely", "maybe", "perhaps", "now"),
            # "Again, like I said, waiting six hours …": a respondent's restating lead-in
            *("again", "said"),
        }
    )
)
TRAIL_DROP = frozenset(
    {
        "really",
        "too",
        "again",
        "honestly",
        "anyway",
        "though",
        "actually",
        "basically",
        "now",
        "then",
        "there",
        "here",
        "lately",
        "either",
        "as",
        "well",
        "me",
        "for",
        "to",
        "at",
        "all",
        "of",
        "in",
        "on",
        "it",
        "them",
        "that",
        "so",
        "much",
        "very",
        "with",
        "by",
        "about",
        "from",
        "myself",
        "these",
        "days",
        # a label cut short must not end on a dangling possessive or comparison
        *_POSSESSIVE_WORDS,
        "rather",
        "than",
        # an adverb left at the end when the clause it led into was cut off ("focus even | when …")
        "even",
        "just",
        "still",
    }
)
TRAIL_DROP_POS = frozenset({"DET", "AUX", "CCONJ", "SCONJ", "ADP", "PUNCT", "SPACE", "PART", "INTJ"})
MAX_LABEL_WORDS = 7
# Verbs that take "after" as their own particle ("look after", "take after"), not as a time clause.
AFTER_VERBS = frozenset({"look", "take"})
# Nouns that make one verb with a closing "of" ("taken advantage of", "taken care of", "got rid of").
OF_VERB_NOUNS = frozenset({"advantage", "care", "rid", "fun", "hold", "track", "sight"})
# Particles that complete a phrasal verb at the end of a label ("turned up", "sorted it out").
PARTICLES = frozenset({"up", "out", "off", "down", "back", "away", "over"})
# Verbs that take a closing "in" of their own ("let the noise in", "fit in", "log in"), as lemmas.
IN_VERBS = frozenset({"let", "fit", "plug", "log", "fill", "check", "sign", "settle", "join", "move", "kick"})
# Pronouns that stand for a person other than the respondent ("she watched me use the inhaler").
PERSON_PRONOUNS = frozenset({"she", "he"})
# Pronouns that open a relative clause ("that" also opens a complement: not among them).
RELATIVES = frozenset({"who", "whom", "whose", "which"})
# What carries on the noun phrase before it ("in two | minutes", "in the middle | of a shift",
# "a week | later"); another preposition ("slot | for tuesday"), a verb or punctuation after a cut
# starts a phrase of its own.
PHRASE_GOES_ON = frozenset({"NOUN", "PROPN", "NUM"})
WORDS_GO_ON = frozenset({"of", "later", "earlier", "ago"})
# Words of place or part that say nothing without their "of …" ("in the middle | of a shift")
NEEDS_OF = frozenset(
    {
        "middle",
        "end",
        "start",
        "beginning",
        "rest",
        "part",
        "top",
        "bottom",
        "side",
        "front",
        "back",
        "half",
        "most",
        "lot",
        "bit",
        "kind",
        "sort",
        "couple",
        "number",
        "edge",
        "centre",
        "center",
        "all",
        "some",
    }
)
# Conjunctions that open a clause of time, condition or reason inside a label ("… when i plan the
# meals"), and what continues a clause's object after a cut ("plan | the meals")
SUBORDINATORS = frozenset(
    {"when", "whenever", "while", "because", "if", "unless", "until", "although", "though"}
)
OBJECT_GOES_ON = frozenset({"DET", "NOUN", "PROPN", "ADJ", "PRON", "NUM"})
# The auxiliary a passive label keeps ("was told at the ward round", "be seen as reliable")
PASSIVE_AUX = frozenset({"was", "were", "be", "being"})
# Verbs of thinking or noticing before a clause of its own ("(I) think my dad …", "(I) realised my
# energy crashed"): the clause is the item
HEDGE_VERBS = frozenset(
    {"guess", "think", "suppose", "reckon", "believe", "imagine", "realised", "realized", "noticed"}
)
# Possessives that open a noun phrase of someone's own ("my heart", "their own series")
POSSESSIVES = frozenset({"my", "our", "his", "her", "their"})
CLAUSE_OPENERS = POSSESSIVES | {"the"}
TIME_ADVERBS = frozenset({"after", "before", "later", "earlier", "ago"})
# Verbs of wanting that open a need ("need to be able to …")
WANTING = frozenset({"need", "needed", "want", "wanted"})
# Words that open a time phrase ("one evening", "every morning", "last week")
TIME_OPENERS = frozenset({"one", "every", "each", "last", "next", "that", "this", "some"})
TIME_NOUNS = frozenset(
    {"minute", "hour", "day", "night", "morning", "evening", "week", "weekend", "month", "year", "time"}
)

# Past participles the lookup tagger reads as adjectives that are not formed with "-ed".
IRREGULAR_PARTICIPLES = frozenset(
    {
        "known",
        "made",
        "meant",
        "built",
        "done",
        "chosen",
        "written",
        "picked",
        "told",
        "given",
        "sent",
        "kept",
        "left",
        "taken",
        "shown",
        "brought",
        "seen",
        "put",
        "sold",
    }
)

# Times of day a phrase of time may end on ("until morning", "before lunch"), besides TIME_NOUNS.
TIMES_OF_DAY = frozenset({"lunch", "lunchtime", "dinner", "bedtime", "midnight", "noon", "dawn", "breakfast"})
