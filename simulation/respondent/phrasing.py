"""Sentence templates of the offline respondent.

Answers carry the causal cue phrases the offline extractor reads ("because", "so", "which
means", "that's important to me because", "so that", "because of that"). Laddering methods
(means-end chain, repertory grid) speak about importance ("X is important to me because Y");
event methods (critical incident, journey, jobs-to-be-done) about consequences ("X, so Y").
A template is chosen by edge type and direction (the chain may run against the link, e.g. from a
solution to the anxiety that held it back), by whether the source is restated, and by the
grammatical form (noun phrase or clause) of both sides. A further level in the same answer is
appended to the sentence before as a clause (", which means Z"). Sentences keep the first letter
as written and are capitalised when the answer is assembled.
"""

from __future__ import annotations

import random

from simulation.scenarios import ElementForm, HiddenElement, HiddenLink

LADDER_METHODS = frozenset({"means_end_chain", "repertory_grid"})

Table = dict[tuple[str | None, str], tuple[str, ...]]

# (restated source form or None, target form) -> templates with {s} and {t}
_IMPORTANCE: Table = {
    ("np", "clause"): (
        "I want {s} so that {t}.",
        "I went for {s}, which means {t}.",
        "It's about {s}. That's important to me because {t}.",
    ),
    ("clause", "clause"): ("{s}, which means {t}.", "{s}, so {t}."),
    ("np", "np"): (
        "I care about {s} because in the end it's about {t}.",
        "For me {s} matters because ultimately it's about {t}.",
    ),
    ("clause", "np"): (
        "{s}, and that's important because in the end it's about {t}.",
        "{s}, which matters because ultimately it's about {t}.",
    ),
    (None, "clause"): ("That's important to me because {t}.", "Because {t}.", "It means {t}."),
    (None, "np"): (
        "That's important to me because in the end it's about {t}.",
        "Because in the end it's about {t}.",
    ),
}
_EVENTS: Table = {
    ("np", "clause"): ("Because of {s}, {t}.", "{s} meant that {t}."),
    ("clause", "clause"): ("{s}, so {t}.", "{s}, which meant {t}.", "{s}, and because of that {t}."),
    ("np", "np"): ("{s} led to {t}.",),
    ("clause", "np"): ("{s}, which led to {t}.",),
    (None, "clause"): ("Because of that, {t}.", "So {t}.", "As a result, {t}."),
    (None, "np"): ("That led to {t}.", "It came down to {t}."),
}
# Edge-specific wording, keyed by (edge type, forward?); forward = the chain runs source -> target.
_BY_EDGE: dict[tuple[str, bool], Table] = {
    ("precedes", True): {
        ("clause", "clause"): ("{s}, and then {t}.", "{s}. After that, {t}."),
        ("np", "clause"): ("After {s}, {t}.",),
        ("clause", "np"): ("{s}, and then came {t}.",),
        ("np", "np"): ("After {s} came {t}.",),
        (None, "clause"): ("Then {t}.", "After that, {t}.", "Next, {t}."),
        (None, "np"): ("After that came {t}.",),
    },
    ("gives_rise_to", True): {
        ("clause", "clause"): ("{s}, and because of that I realised {t}.",),
        ("np", "clause"): ("With {s}, the problem was that {t}.", "Because of {s}, I realised {t}."),
        (None, "clause"): ("That's when I realised {t}.", "Because of that, I realised {t}."),
    },
    ("involves", True): {
        ("clause", "np"): ("{s}, and {t} was the one dealing with it.",),
        ("np", "np"): ("{s} involved {t}.",),
        (None, "np"): ("It was {t} who was dealing with it.", "That involved {t}."),
    },
    # asked about the actor, the incident they took part in: "That was because nobody explained my
    # tablets" made the incident the actor's reason
    ("involves", False): {
        ("np", "clause"): ("{s} was the one dealing with it when {t}.",),
        ("np", "np"): ("{s} was part of {t}.",),
        (None, "clause"): ("{s} was the one dealing with it when {t}.",),
        (None, "np"): ("{s} was part of {t}.",),
    },
    ("attributed_to", True): {
        ("clause", "clause"): ("{s}, and I think that was because {t}.",),
        (None, "clause"): ("I think it went that way because {t}.", "Looking back, it happened because {t}."),
        (None, "np"): ("I'd put it down to {t}.",),
    },
    ("teaches", True): {
        ("clause", "clause"): ("{s}, and what I took from it is that {t}.",),
        (None, "clause"): ("What I took from it is that {t}.", "The lesson for me is that {t}."),
        (None, "np"): ("The lesson for me is {t}.",),
    },
    ("decided_by", True): {
        ("np", "clause"): ("I chose {s} because {t}.", "What sold me on {s} was that {t}."),
        (None, "clause"): ("Mainly because {t}.", "Because {t}."),
        (None, "np"): ("Mainly because of {t}.",),
    },
    # a firing criterion is why a solution was dropped, not chosen ("I chose energy drinks because I
    # crashed after two hours"): `_edge` reads decided_by to one as this
    ("fired_by", True): {
        ("np", "clause"): ("I stopped using {s} because {t}.", "What put me off {s} was that {t}."),
        (None, "clause"): ("I gave up on it because {t}.", "I stopped because {t}."),
        (None, "np"): ("I dropped it mainly because of {t}.",),
    },
    ("holds_back", False): {
        ("np", "clause"): ("What almost held me back from {s} was that {t}.",),
        (None, "clause"): (
            "What almost held me back was that {t}.",
            "The thing that nearly stopped me was that {t}.",
        ),
    },
    ("conflicts_with", True): {
        ("np", "np"): (
            "The trouble is {s} usually conflicts with {t}.",
            "You can't really have {s} and {t} at once.",
        ),
        (None, "np"): ("The trouble is it conflicts with {t}.",),
    },
    ("conflicts_with", False): {
        ("np", "np"): ("The trouble is {s} usually conflicts with {t}.",),
        (None, "np"): ("The trouble is it conflicts with {t}.",),
    },
    ("contrasts_with", True): {
        ("np", "np"): ("Some have {s}, whereas others have {t}.", "On one side it's {s}, on the other {t}."),
        (None, "np"): ("The opposite would be {t}.", "Whereas the other kind has {t}."),
        (None, "clause"): ("The opposite was when {t}.",),
    },
    ("contrasts_with", False): {
        (None, "np"): ("The opposite would be {t}.",),
        (None, "clause"): ("It was very different from the time when {t}.",),
    },
    ("placed_at", True): {
        ("np", "np"): ("I'd put {s} firmly on the '{t}' side.",),
        (None, "np"): ("It's definitely '{t}'.",),
    },
    ("placed_at", False): {
        ("np", "np"): ("{t} is a good example of {s}.",),
        (None, "np"): ("{t} is a good example of that.",),
    },
    ("preferred_over", True): {
        ("np", "np"): ("I prefer {s} to {t}.",),
        (None, "np"): ("I prefer that to {t}.",),
    },
    ("exemplified_by", True): {
        ("np", "np"): ("{t} is a good example of {s}.",),
        (None, "np"): ("{t} is a good example of that.",),
    },
    ("includes", True): {
        ("np", "np"): ("{s} meant dealing with {t}.",),
        ("clause", "np"): ("{s}, and that meant dealing with {t}.",),
        ("clause", "clause"): ("{s}, and at that point {t}.",),
        (None, "np"): ("That meant dealing with {t}.",),
        (None, "clause"): ("At that point {t}.",),
    },
    ("occurs_at", True): {
        ("clause", "np"): ("{s}, using {t}.",),
        (None, "np"): ("I did that on {t}.",),
    },
}
# Against any other link: "Y, because X".
_REVERSE: Table = {
    (None, "clause"): ("That was because {t}.",),
    (None, "np"): ("That was down to {t}.",),
}
# A further level appended to the sentence before (the source is what that sentence just said).
_CONTINUE_LADDER: dict[str, tuple[str, ...]] = {
    "clause": (", which means {t}.", ", so {t}."),
    "np": (", and in the end that's about {t}.", ", which really comes down to {t}."),
}
_CONTINUE_EVENTS: dict[str, tuple[str, ...]] = {
    "clause": (", so {t}.", ", and because of that {t}."),
    "np": (", which led to {t}.",),
}
_CONTINUE_BY_EDGE: dict[str, dict[str, tuple[str, ...]]] = {
    "precedes": {"clause": (", and then {t}.",), "np": (", and then came {t}.",)},
    "attributed_to": {
        "clause": (", and I think that was because {t}.",),
        "np": (", which I put down to {t}.",),
    },
    "teaches": {"clause": (", and what I took from it is that {t}.",), "np": (", and the lesson is {t}.",)},
    "decided_by": {"clause": (", and I chose it because {t}.",), "np": (", mainly because of {t}.",)},
    "fired_by": {
        "clause": (", and I gave up on it because {t}.",),
        "np": (", and I dropped it because of {t}.",),
    },
    "gives_rise_to": {"clause": (", and because of that I realised {t}.",)},
}
# A further level that the level just said came from (the chain runs against the link: "the queue
# took too long" said, the café that gave rise to it next): the cause is named as such.
_CONTINUE_REVERSE: dict[str, tuple[str, ...]] = {
    "clause": (", and that was because {t}.",),
    "np": (", which was down to {t}.",),
}
_OPENERS_LADDER: dict[str, tuple[str, ...]] = {
    "np": ("One thing I pay attention to is {t}.", "I really care about {t}.", "I always go for {t}."),
    "clause": ("{t}.", "Well, {t}."),
}
_OPENERS_EVENT: dict[str, tuple[str, ...]] = {
    "np": ("There's {t}.", "I'd mention {t}.", "{t} comes to mind."),
    "clause": ("{t}.", "So, {t}.", "Well, {t}."),
}


def pick(element: HiddenElement, rng: random.Random, *, shortest: bool = False) -> str:
    """One phrasing of `element` (the shortest one for terse speakers)."""
    if shortest:
        return min(element.phrasings, key=len)
    return rng.choice(element.phrasings)


def _edge(link: HiddenLink, target: HiddenElement) -> str:
    """The link's edge type as spoken: decided_by to a firing criterion is why it was dropped."""
    if link.edge_type == "decided_by" and target.node_type == "firing_criterion":
        return "fired_by"
    return link.edge_type


def _table(link: HiddenLink, target: HiddenElement, methodology: str, forward: bool) -> Table:
    specific = _BY_EDGE.get((_edge(link, target), forward))
    if specific is not None:
        return specific
    if not forward:
        return _REVERSE
    return _IMPORTANCE if methodology in LADDER_METHODS else _EVENTS


def link_sentence(
    source: HiddenElement,
    target: HiddenElement,
    link: HiddenLink,
    methodology: str,
    rng: random.Random,
    *,
    restate: bool,
    shortest: bool = False,
) -> str:
    """A sentence revealing `target` in relation to `source` through `link`."""
    table = _table(link, target, methodology, link.source == source.id)
    t_form = target.form.value
    key: tuple[str | None, str] = (source.form.value if restate else None, t_form)
    lead = ""
    if key not in table:
        key = (None, t_form)
        if restate:
            # no wording of this table names the source: say it first, so that "that" in the
            # sentence below points at it ("Like I said, … That was because …"); else the record
            # counts a link the answer never expressed
            lead = restate_sentence(source, rng) + " "
    if key not in table:  # an unusual form pair: fall back to the generic consequence wording
        table, key = _EVENTS, (None, t_form)
    template = rng.choice(table[key])
    return lead + template.format(
        s=pick(source, rng, shortest=shortest), t=pick(target, rng, shortest=shortest)
    )


# Links with a wording of their own and no continuing clause for it: "…, and in the end that's
# about mostly old licensed films" made the opposite pole a reason, "…, so the ward nurses" an effect.
_NO_CONTINUATION = frozenset(edge for edge, _ in _BY_EDGE) - frozenset(_CONTINUE_BY_EDGE)


def continue_sentence(
    previous: str,
    target: HiddenElement,
    link: HiddenLink,
    methodology: str,
    rng: random.Random,
    *,
    shortest: bool = False,
) -> str | None:
    """`previous` (which just said the link's other end) extended by a clause revealing `target`;
    None for a link no clause tacked on says (the caller says it in a sentence of its own)."""
    if _edge(link, target) in _NO_CONTINUATION:
        return None
    if link.target != target.id:
        # the forward wordings ("…, which led to the café") would say the link backwards
        options, specific = _CONTINUE_REVERSE, {}
    else:
        options = _CONTINUE_LADDER if methodology in LADDER_METHODS else _CONTINUE_EVENTS
        specific = _CONTINUE_BY_EDGE.get(_edge(link, target), {})
    clause = rng.choice(specific.get(target.form.value) or options[target.form.value]).format(
        t=pick(target, rng, shortest=shortest)
    )
    return previous.rstrip(" .!?") + clause


def opener_sentence(
    element: HiddenElement, methodology: str, rng: random.Random, *, shortest: bool = False
) -> str:
    """A sentence introducing `element` without relating it to anything said before."""
    table = _OPENERS_LADDER if methodology in LADDER_METHODS else _OPENERS_EVENT
    return rng.choice(table[element.form.value]).format(t=pick(element, rng, shortest=shortest))


def restate_sentence(element: HiddenElement, rng: random.Random) -> str:
    """The element said again, as someone who already said it."""
    text = pick(element, rng)
    if element.form is ElementForm.CLAUSE:
        return rng.choice(("Like I said, {t}.", "As I said, {t}.")).format(t=text)
    return rng.choice(("Like I said, it's about {t}.", "It's really just {t}.")).format(t=text)


def detail_sentence(element: HiddenElement, rng: random.Random) -> str | None:
    """A detail sentence of `element`, if the scenario gives any."""
    return rng.choice(element.details) if element.details else None


def top_sentence(element: HiddenElement, methodology: str, rng: random.Random) -> str:
    """The answer when there is nothing further above `element`."""
    if methodology in LADDER_METHODS:
        lead = rng.choice(
            (
                "That's just what matters to me in the end, I can't really put it any other way.",
                "I don't think there's anything deeper than that, it's simply what I care about.",
            )
        )
    else:
        lead = rng.choice(
            ("That's really all there was to it.", "I don't think there's more to say about that.")
        )
    return f"{lead} {restate_sentence(element, rng)}"


def confirm_sentence(rng: random.Random) -> str:
    """Agreement with a summary."""
    return rng.choice(("Yes, that's about right.", "Yes, that sums it up well.", "Pretty much, yes."))


def thanks_sentence(rng: random.Random) -> str:
    """The reply to a closing question."""
    return rng.choice(
        ("Thank you, I enjoyed talking about it.", "Thanks, that was interesting to think about.")
    )


def nothing_new_sentence(rng: random.Random) -> str:
    """The reply when nothing is left to reveal."""
    return rng.choice(
        ("I think I've told you everything that comes to mind.", "Nothing else comes to mind, really.")
    )
