"""The preposition before a focus that the templates place "at" something.

Journey and incident templates ask "what did you need at {focus}?", which fits a place or a stage
("at the checkout", "at the pharmacy"). A channel is used *in* or *on* ("in the app", "on the
phone"), and a person is dealt *with* ("what went wrong with the driver?"); what a respondent needed
or expected came *from* either ("what were you expecting from the app?"). The head noun of the focus as
spoken decides; a focus whose head is in none of the lists (a place, a stage, a name) keeps "at".

A focus said back as a doing is no place either: "at {focus}" becomes "when {focus}" ("when copying
last week's order"), "when" and a clause where the doing has a subject of its own ("when the driver
turns up"), and the focus's own preposition where it brings one ("at the weekend").
"""

from __future__ import annotations

import re

from services.question.text import head_words

# Channels, by the preposition they take.
_CHANNELS: dict[str, str] = {
    "app": "in",
    "chat": "in",
    "email": "in",
    "portal": "on",
    "website": "on",
    "site": "on",
    "phone": "on",
    "helpline": "on",
    "hotline": "on",
    "call": "on",
    "screen": "on",
    "line": "on",
}
# Roles and people a respondent deals with (lower case, singular and plural).
_PEOPLE = frozenset(
    {
        "driver",
        "courier",
        "nurse",
        "doctor",
        "gp",
        "consultant",
        "surgeon",
        "pharmacist",
        "receptionist",
        "agent",
        "advisor",
        "adviser",
        "assistant",
        "manager",
        "staff",
        "carer",
        "midwife",
        "physio",
        "therapist",
        "specialist",
        "barista",
        "cashier",
        "picker",
        "shopper",
        "colleague",
        "friend",
        "partner",
        "husband",
        "wife",
        "mum",
        "dad",
        "mother",
        "father",
        "son",
        "daughter",
        "neighbour",
        "team",
        "paramedic",
        "porter",
        "registrar",
        "dietitian",
        "social worker",
        "worker",
    }
)
# Things a respondent handles or receives: something goes wrong *with* them and is expected *from*
# them, but nobody is "at the bags" or uses a channel "with the delivery slot".
_THINGS = frozenset(
    {
        "bag",
        "basket",
        "box",
        "card",
        "crate",
        "form",
        "invoice",
        "label",
        "leaflet",
        "letter",
        "list",
        "order",
        "packaging",
        "parcel",
        "prescription",
        "receipt",
        "slot",
        "van",
        "voucher",
    }
)
# "at {focus}" in a template; a verb of wanting before it asks what came *from* a person
_AT_FOCUS = re.compile(
    r"\b(?:(?P<want>expecting|expect|need|needed|want|wanted) )?(?P<at>[Aa]t|[Ii]n) \{focus\}"
)
# A form of "look" just before a template's "at {focus}": the verb's "at", not a place or a time.
_LOOK_AT = re.compile(r"\b(?:look|looks|looking|looked) $", re.IGNORECASE)
# A day is "on" it ("on Friday afternoon"), whatever the template's "at" or "in"
_DAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})


def _head(spoken: str) -> tuple[list[str], str] | None:
    """The focus's head words and the singular of the last ("bags" -> "bag"), or None."""
    head = head_words(spoken)
    if not head:
        return None
    last = head[-1]
    return head, last[:-1] if last.endswith("s") and not last.endswith("ss") else last


def preposition_for(spoken: str) -> str | None:
    """ "in", "on" or "with" for a focus said as `spoken`, or None to keep "at" (and "in")."""
    if is_day(spoken):
        return "on"
    found = _head(spoken)
    if found is None:
        return None
    head, singular = found
    last = head[-1]
    if last in _CHANNELS or singular in _CHANNELS:
        return _CHANNELS.get(last) or _CHANNELS[singular]
    if last in _PEOPLE or singular in _PEOPLE or " ".join(head[-2:]) in _PEOPLE:
        return "with"
    if last in _THINGS or singular in _THINGS:
        return "with"
    return None


def is_thing(spoken: str) -> bool:
    """Whether the focus names a thing handled or received ("the bags", "the delivery slot")."""
    found = _head(spoken)
    return found is not None and (found[0][-1] in _THINGS or found[1] in _THINGS)


def is_day(spoken: str) -> bool:
    """Whether the focus names a day ("Friday afternoon", "that quiet Tuesday morning"): "on" it,
    and nothing comes "from" it."""
    words = spoken.lower().split()
    return bool(words) and (words[0] in _DAYS or (words[0] == "that" and any(w in _DAYS for w in words)))


def placed(template: str, preposition: str | None, *, day: bool = False, thing: bool = False) -> str | None:
    """`template` with "at {focus}" (or "in {focus}") said with `preposition`; None when it cannot be
    said that way ("who did you deal with at {focus}" about a person, "the moment of {focus}" about a
    channel). A `day` takes its preposition everywhere ("what did you need on Friday afternoon"); a
    `thing` (`is_thing`) is neither where one was nor how one got in touch."""
    if preposition is None or "{focus}" not in template:
        return template
    if "moment of {focus}" in template:
        return None  # a channel or a person has no moment
    if thing:
        if any(phrase in template for phrase in _NOT_OF_THINGS):
            return None  # "which channel did you use with the bags", "how did you feel with the bags"
    elif preposition == "with" and any(phrase in template for phrase in _NOT_OF_PEOPLE):
        return None  # "deal with with the driver", "getting the driver right"
    elif not day and preposition in {"in", "on"} and "channel did you use" in template:
        return None  # "which channel did you use in the app": the app is the channel

    def swap(m: re.Match[str]) -> str:
        if _LOOK_AT.search(m.string[: m.start()]):
            return m.group(0)  # "let's look at {focus}": the verb's "at", no place
        want = m.group("want")
        word = "from" if want and not day else preposition
        if m.group("at")[0].isupper():
            word = word.capitalize()
        return f"{want} {word} {{focus}}" if want else f"{word} {{focus}}"

    return _AT_FOCUS.sub(swap, template)


# What a template says of a place or a thing that cannot be said of a person: "deal with with the
# driver", "getting the driver right", "what would have made the driver right", "what did you see
# or hear with the driver", "describe the driver in more detail: where were you", "which channel
# did you use with the driver", "what made the driver slower or harder than you expected".
_NOT_OF_PEOPLE = (
    "with at {focus}",
    "getting {focus} right",
    "made {focus} right",
    "see or hear at {focus}",
    "{focus} in more detail: where were you",
    "channel did you use at {focus}",
    "{focus} slower or harder",
)
# What a template says of a place or a person that cannot be said of a thing: "deal with with the
# bags", "what did you see or hear with the bags", "describe the bags: where were you", "which
# channel did you use with the bags", "how did you feel with the bags" (a thing is something to get
# right, unlike a person).
_NOT_OF_THINGS = (
    "with at {focus}",
    "see or hear at {focus}",
    "{focus} in more detail: where were you",
    "channel did you use at {focus}",
    "feel at {focus}",
    "the way you did at {focus}",
    # "what made the bags slower or harder than you expected?"
    "{focus} slower or harder",
)
# What a template asks of something that happened that cannot be asked of what did not: how it
# turned out, what made it work, what made the difference in it.
_NOT_OF_ABSENCES = (
    "{focus} turned out",
    "{focus} turn out",
    "made {focus} work",
    "made the difference in {focus}",
    # "what would change for you without not pressing on your glasses?"
    "without {focus}",
    # "if you retold nobody properly explaining your new tablets in three or four steps", "what part
    # of nobody explaining …": what did not happen has no steps and no parts
    "retold {focus}",
    "part of {focus}",
    # "what did you do at the moment of nobody properly explaining your new tablets?", "take me
    # through the hospital transport never turning up moment by moment": nor a moment
    "moment of {focus}",
    "take me through {focus}",
)
# What a template asks only of a thing one has: "what would you miss if you no longer had feeling in
# control of your day?", "imagine not pressing on your glasses weren't there".
_OF_THINGS_ONLY = ("no longer had {focus}", "{focus} weren't there", "if {focus} were missing")
_NOBODY = frozenset({"nobody", "no", "none", "nothing", "noone"})
# "at/during/in {focus}" (or "at the moment of {focus}") in a template
_BEFORE_DOING = re.compile(r"\b([Aa]t|[Dd]uring|[Ii]n)(?: the moment of)? \{focus\}")
# A focus said back as being somewhere or at some time ("being at the weekend", "being on the train")
_BEING_PLACED = tuple(f"being {p} " for p in ("at", "in", "on", "during"))


def place_of(spoken: str) -> str:
    """The place or time a focus said as "being at …" brings ("at the weekend"), or ""."""
    return spoken.removeprefix("being ") if spoken.startswith(_BEING_PLACED) else ""


def is_absence(spoken: str) -> bool:
    """Whether a focus says what did not happen ("nobody giving you a written list", "the hospital
    transport never turning up")."""
    words = spoken.lower().split()
    return bool(words) and (
        words[0] in _NOBODY or any(w in {"never", "not"} or w.endswith("n't") for w in words)
    )


# What a template says to negate the focus ("if something isn't {focus}", "something that is not
# {focus} at all"): a focus that is a negation already ("no adverts") would read "not no adverts".
_NEGATING = re.compile(r"\b(?:not|isn't|aren't|wasn't|weren't)\s+\{focus\}")


def negates_again(template: str, spoken: str) -> bool:
    """Whether `template` negates a focus that says what is not there ("What word would you use for
    something that is not no adverts at all?")."""
    words = spoken.lower().split()
    return (
        bool(words) and words[0] in _NOBODY | {"not", "never", "without"} and bool(_NEGATING.search(template))
    )


_FOR_YOU = re.compile(r"\bfor you\b")
_FOR_YOURS = re.compile(r"\bfor (?:you|your|yourself)\b")


def says_whom_for(spoken: str) -> bool:
    """Whether what is said back already says whom it is for ("staying sharp for your patients",
    "feeling made for you"): a "for you" after it says it twice."""
    return bool(_FOR_YOURS.search(spoken.lower()))


def says_for_you_twice(template: str, spoken: str) -> bool:
    """Whether `template` adds "for you" to a focus that already says whom it is for ("So in the end
    it comes down to needing to stay sharp for your patients for you")."""
    return bool(_FOR_YOU.search(template)) and says_whom_for(spoken)


def is_state(spoken: str) -> bool:
    """Whether a focus is said back as a state ("being furious", "there being no slots left",
    "feeling really relieved")."""
    return spoken.startswith(("being ", "there being ", "feeling "))


def for_doing(
    template: str, *, place: bool, clause: bool, state: bool = False, absent: bool = False
) -> str | None:
    """`template` for a focus said back as a doing; None for a template that cannot take one
    ("why does getting {focus} right matter"; for a `state` or a doing with a subject of its own,
    `clause`, "what would have made {focus} right": neither is the respondent's to make right; for
    what did not happen, `absent`, "why do you think nobody giving you a list turned out the way it
    did"). With `place`, the template's preposition gives way to `{place}`/`{Place}` (`place_of`);
    with `clause`, "when"/"while" take `{clause}` (`SpokenLabels.finite`) instead of the gerund
    `{focus}`."""
    if "getting {focus}" in template or ((state or clause) and "made {focus}" in template):
        return None
    if absent and any(phrase in template for phrase in _NOT_OF_ABSENCES):
        return None
    if any(phrase in template for phrase in _OF_THINGS_ONLY):
        return None
    if "the job {focus}" in template:
        return None  # "the job buying a steel thermos was doing for you" reads as a garden path
    slot = "clause" if clause else "focus"

    def connect(m: re.Match[str]) -> str:
        if place:
            return "{Place}" if m.group(1)[0].isupper() else "{place}"
        if _LOOK_AT.search(m.string[: m.start()]):
            return m.group(0)  # "Looking at {focus}": the verb's "at" ("Looking when …" said nothing)
        if "moment of" in m.group(0):
            return m.group(0)  # "at the moment of copying last week's order" reads as it is
        word = "when" if m.group(1).lower() == "at" else "while"
        return (word.capitalize() if m.group(1)[0].isupper() else word) + f" {{{slot}}}"

    return _BEFORE_DOING.sub(connect, template)
