"""Small text helpers shared by the prompt builders, the offline engine and the sanitiser, and the
number of a noun phrase (`is_plural`, `agreement`) that the offline engine's verbs agree with."""

from __future__ import annotations

import re
from collections.abc import Iterable

from services.question.models import ConceptBrief

# Method names that concept names sometimes carry ("Oat Milk Means-End Chain"); they are not the
# topic a respondent would recognise.
_METHOD_SUFFIX = re.compile(
    r"[\s:(\-–—]*\b(?:means[\s-]*end(?:[\s-]*chain)?|mec|laddering|jobs[\s-]*to[\s-]*be[\s-]*done|jtbd|"
    r"critical[\s-]*incident(?:s)?(?:[\s-]*technique)?|cit|customer[\s-]*journey(?:[\s-]*map(?:ping)?)?|"
    r"journey[\s-]*map(?:ping)?|cjm|repertory[\s-]*grid|rgt|interview|study)\b[\s)]*$",
    re.IGNORECASE,
)
# "Online Grocery Shopping Journey": the journey is the method's; the topic is the shopping
# ("Rail Journey" keeps it: there the journey is the topic).
_ACTIVITY_JOURNEY = re.compile(r"(?<=ing)\s+journeys?$", re.IGNORECASE)
_SPACES = re.compile(r"\s+")
_PLACEHOLDER = re.compile(r"\{[a-z_0-9]+\}")


def squash(text: str) -> str:
    """Collapse whitespace and strip."""
    return _SPACES.sub(" ", text).strip()


def clean_label(label: str) -> str:
    """A node label as it reads inside a sentence (no stray quotes or end punctuation, nor the
    "about" of the sentence it was cut from: "about the energy drinks from the vending machine",
    said as "Thinking about about the …")."""
    return _LEADING_ABOUT.sub("", squash(label).strip(" \"'“”‘’`.,;:!?"))


_LEADING_ABOUT = re.compile(r"^about (?!to\b)(?=\S+ \S)", re.IGNORECASE)


def topic_phrase(concept: ConceptBrief) -> str:
    """The topic as a respondent would say it: the concept name without method names."""
    name = squash(concept.name)
    previous = None
    while name and name != previous:
        previous = name
        name = _ACTIVITY_JOURNEY.sub("", _METHOD_SUFFIX.sub("", name)).strip()
    name = clean_label(name)
    if not name:
        return "this topic"
    words = name.split(" ")
    # Lower-case ordinary Title Case words ("Oat Milk" -> "oat milk"); keep acronyms and brands
    # with inner capitals ("iPhone", "BMW").
    return " ".join(w.lower() if w[:1].isupper() and w[1:].islower() else w for w in words)


_UNCOUNTED_ENDS = ("ss", "us", "is", "ics", "news", "series", "species", "means")


def topic_kind(topic: str) -> str:
    """The topic as one of its kind, to stand before a noun: "video streaming services" ->
    "video streaming service" ("which video streaming service options …", "your ideal … service").

    Only the last word changes, by spelling: it is the head of the phrase.
    """
    words = topic.split(" ")
    last = words[-1]
    low = last.lower()
    if len(low) < 4 or not low.endswith("s") or low.endswith(_UNCOUNTED_ENDS):
        return topic
    if low.endswith("ies"):
        last = last[:-3] + "y"
    elif low.endswith(("ches", "shes", "xes", "zes", "sses")):
        last = last[:-2]
    else:
        last = last[:-1]
    return " ".join([*words[:-1], last])


# Words that end a noun phrase's head: a relative clause or a prepositional phrase follows.
_AFTER_HEAD = frozenset(
    {
        "that",
        "which",
        "who",
        "of",
        "for",
        "with",
        "in",
        "on",
        "at",
        "from",
        "by",
        "to",
        "between",
        "during",
        "before",
        "after",
        "about",
        "without",
        "like",
    }
)


def head_words(phrase: str) -> list[str]:
    """The lower-case words of `phrase` up to its head: "energy that lasts" -> ["energy"], "the app
    on your phone" -> ["the", "app"] (the first word never ends it)."""
    words = phrase.lower().split()
    cut = next((i for i, w in enumerate(words) if i > 0 and w in _AFTER_HEAD), len(words))
    return words[:cut]


# Words a label may open with that say nothing of what it names ("the app", "your app").
ARTICLES = frozenset({"the", "a", "an", "your"})


def join_labels(labels: Iterable[str], limit: int = 3) -> str:
    """`a`, `a and b`, `a, b and c` from the first `limit` distinct non-empty labels.

    A label whose words another label says and more is left to that one: "the app, the supermarket
    app and …" lists "the supermarket app" once."""
    cleaned = [c for c in (clean_label(label) for label in labels) if c]
    words = [(frozenset(c.lower().split()) - ARTICLES) or frozenset(c.lower().split()) for c in cleaned]
    seen: list[str] = []
    for i, label in enumerate(cleaned):
        if label.lower() in {s.lower() for s in seen} or any(words[i] < other for other in words):
            continue
        seen.append(label)
        if len(seen) == limit:
            break
    if not seen:
        return ""
    if len(seen) == 1:
        return seen[0]
    return ", ".join(seen[:-1]) + " and " + seen[-1]


def normalise_question(text: str) -> str:
    """Comparison key for "never repeat a question verbatim" (case, spacing and punctuation blind)."""
    return re.sub(r"[^\w]+", " ", text.lower()).strip()


def has_placeholder(text: str) -> bool:
    """True if a template placeholder such as `{focus}` survived rendering."""
    return bool(_PLACEHOLDER.search(text))


def lower_first(text: str) -> str:
    """Lower-case the first letter unless it starts an acronym or the pronoun "I"."""
    if (
        len(text) >= 2
        and text[0].isupper()
        and (text[1].islower() or text[1] in " ,'")
        and not text.startswith(("I ", "I'"))
    ):
        return text[0].lower() + text[1:]
    return text


_PLURAL_WORDS = frozenset(
    {"people", "children", "men", "women", "staff", "police", "feet", "teeth", "mice", "ads"}
)
# Singular nouns that end in a plural's "s" ("the steel thermos is", not "are").
_SINGULAR_WORDS = frozenset(
    {"thermos", "lens", "gas", "chaos", "canvas", "atlas", "bias", "diabetes", "maths"}
)
# Nouns in "-ing" that open a plural phrase ("morning walks", "wedding photos"): not a doing.
_ING_NOUNS = frozenset(
    {
        "morning",
        "evening",
        "wedding",
        "building",
        "meeting",
        "clothing",
        "ceiling",
        "earring",
        "spring",
        "string",
    }
)
_SINGULAR_ENDINGS = ("ss", "us", "is", "ness", "ics", "ous", "'s", "ys")


def is_plural(label: str) -> bool:
    """A rough number check on the head of a noun phrase, for verb agreement: the last word before
    a relative clause or a prepositional phrase ("energy that lasts", "price of apples": singular)."""
    words = head_words(label)
    if not words:
        return False
    rest = label.lower().split()[len(words) : len(words) + 1]
    core = words[1:] if len(words) > 1 and words[0] in ARTICLES else words
    if len(core) == 2 and _is_number(core[0]) and rest == ["of"]:
        return False  # "(the) thirty hours of battery leads to …": an amount of something, one quantity
    if len(core) > 1 and core[0].endswith("ing") and core[0] not in _ING_NOUNS:
        return False  # "having palpitations in the middle of a shift leads to …": one doing
    last = words[-1]
    if last in _PLURAL_WORDS:
        return True
    if last in _SINGULAR_WORDS:
        return False
    return last.endswith("s") and not last.endswith(_SINGULAR_ENDINGS) and len(last) > 3


_NUMBER_WORDS = frozenset(
    {
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "twelve",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
        "several",
        "few",
    }
)


def _is_number(word: str) -> bool:
    return word.isdigit() or word in _NUMBER_WORDS


def agreement(label: str) -> dict[str, str]:
    """Verb forms and the pronoun that agree with `label` ({is}, {does}, {was}, {has}, {it})."""
    plural = is_plural(label)
    return {
        "is": "are" if plural else "is",
        "does": "do" if plural else "does",
        "was": "were" if plural else "was",
        "has": "have" if plural else "has",
        "it": "them" if plural else "it",
    }
