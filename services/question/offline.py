"""The offline (`local`) question engine: deterministic, rule-based, no API key needed.

It is what a new user meets first, so it must read like a competent interviewer: questions come
from per-strategy, per-methodology templates (`templates`) that name the focus concept, several
variants each. The variant is chosen deterministically from (session_id, turn_number) and a
question already asked in the session (the request carries them) is never asked again verbatim:
the engine moves on to the next variant, then to related families, then to re-worded lead-ins.
"""

from __future__ import annotations

import hashlib
import itertools
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import TypeVar

from services.question import templates as tpl
from services.question.chains import (
    DESCRIBED_TYPES,
    FEELING_TYPES,
    MET_TYPES,
    THING_TYPES,
    WORRY_TYPES,
    chain_types,
    joined_run,
    render_chain,
    run_to_say,
    say_labels,
)
from services.question.elements import triad_labels
from services.question.fit import fitting_family
from services.question.models import FollowUpRequest, RespondentIntent
from services.question.places import (
    for_doing,
    is_absence,
    is_day,
    is_state,
    is_thing,
    negates_again,
    place_of,
    placed,
    preposition_for,
    says_for_you_twice,
)
from services.question.prompts import effective_focus_mode
from services.question.spoken import SpokenLabels, in_second_person
from services.question.text import (
    agreement,
    clean_label,
    has_placeholder,
    join_labels,
    lower_first,
    normalise_question,
    topic_kind,
    topic_phrase,
)
from shared.methodology_models import FocusMode, MethodologyConfig, StrategyConfig

# Lead-ins of a question said again in other words (`FollowUpComposer._candidates`).
_REWORDINGS: tuple[str, ...] = (
    "Coming back to {focus} for a moment, ",
    "Let me ask about {focus} another way: ",
    "Thinking again about {focus}, ",
)


T = TypeVar("T")


def stable_index(*parts: object) -> int:
    """A process-independent hash of `parts` (Python's `hash` is salted per process)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


# Lead-ins of a rewording (`offline_messages.offline_rephrase`): the first time the respondent asks
# what a question means, and from the second time on, when only a narrower question can help.
REPHRASE_LEADS: tuple[str, ...] = ("Let me put that more simply: ", "In other words, ", "Put another way, ")
NARROW_LEADS: tuple[str, ...] = (
    "Sorry, let me keep it short: ",
    "Let me make it simpler still: ",
    "Just this part, then: ",
)
# Lead-ins this engine and the rephrasing put before a question (intent replies, rewordings).
_LEAD_INS = re.compile(
    r"^(?:No problem, let's leave that one\. |Thanks for sharing that\. Coming back to [^,]+, "
    r"|Let me ask something else instead\. "
    r"|Coming back to [^,]+ for a moment, |Let me ask about [^:]+ another way: |Thinking again about [^,]+, "
    + "".join("|" + re.escape(lead) for lead in (*REPHRASE_LEADS, *NARROW_LEADS))
    + ")+",
)


def without_lead_in(question: str) -> str:
    """`question` without the lead-ins this engine puts before questions (capitalised again)."""
    stripped = _LEAD_INS.sub("", question)
    return stripped[:1].upper() + stripped[1:] if stripped != question else question


def _rotated(pool: list[T], start: int) -> list[T]:
    if not pool:
        return []
    start %= len(pool)
    return pool[start:] + pool[:start]


def _fill(template: str, values: Mapping[str, str]) -> str | None:
    try:
        text = template.format_map(values)
    except KeyError:
        return None  # a placeholder with no value for this request: skip the template
    if has_placeholder(text):
        return None
    # "During the time during bed pressures": a time said back as "the time during …" (`SpokenLabels`)
    # needs no second "during" from the template
    return _TIME_TWICE.sub(r"\1 ", text)


_TIME_TWICE = re.compile(r"\b(during|after|before) the time \1 ", re.IGNORECASE)


class FollowUpComposer:
    """Chooses and renders one follow-up question for a request."""

    def __init__(
        self,
        request: FollowUpRequest,
        methodology: MethodologyConfig,
        strategy: StrategyConfig,
        spoken: SpokenLabels | None = None,
    ) -> None:
        self._request = request
        self._methodology = methodology
        self._spoken = spoken or SpokenLabels()
        self._doing = False  # whether the focus is said back as a gerund phrase (set by `_values`)
        self._preposition: str | None = None  # "in"/"on"/"with" for "at {focus}" (set by `_values`)
        self._day = False  # whether the focus names a day: "on" it, nothing "from" it (set by `_values`)
        self._thing = False  # whether the focus names a thing: "with" it, never "at" it (set by `_values`)
        self._mode = effective_focus_mode(request, strategy)
        self._family = tpl.family_for(strategy)
        if self._mode is FocusMode.RECENT_NODE:
            self._family = fitting_family(self._family, request.focus, methodology)
        self._topic = topic_phrase(request.concept)
        self._kind = topic_kind(self._topic)
        self._seed = stable_index(request.session_id, request.turn_number)
        # a question asked behind a lead-in ("Thanks for sharing that. Coming back to …, ") was asked
        self._asked = {
            normalise_question(form) for q in request.previous_questions for form in (q, without_lead_in(q))
        }

    @property
    def family(self) -> str:
        """The template family the strategy maps to."""
        return self._family

    def _values(self) -> dict[str, str]:
        req = self._request
        focus = clean_label(req.focus.label) if self._mode is FocusMode.RECENT_NODE else ""
        if focus:
            # said back as the respondent would hear it: "concentrating during your commute"
            feeling = req.focus.node_type in FEELING_TYPES
            spoken, singular = self._spoken.say(
                focus,
                thing=req.focus.node_type in THING_TYPES,
                feeling=feeling,
                worry=req.focus.node_type in WORRY_TYPES,
            )
            described = req.focus.node_type in DESCRIBED_TYPES and " " in spoken
            if not singular and (self._family == "actor" or req.focus.node_type in MET_TYPES or described):
                # "what did the nurse do", "what were you expecting at the app"
                spoken = self._spoken.with_article(spoken)
            self._doing = singular
            clause = self._spoken.finite(focus, feeling=feeling) if singular else None
            place = place_of(spoken) if singular else ""
            # "in the app", "on the phone", "with the driver": not every focus is a place
            self._preposition = None if singular else preposition_for(spoken)
            self._day = is_day(spoken)
            self._thing = is_thing(spoken)
            values = {
                "topic": self._topic,
                "kind": self._kind,
                "focus": spoken,
                **agreement("it" if singular else spoken),
                **({"clause": clause} if clause else {}),
                **({"place": place, "Place": place[:1].upper() + place[1:]} if place else {}),
            }
        else:
            values = {
                "topic": self._topic,
                "kind": self._kind,
                "focus": self._topic,
                **agreement(self._topic),
            }
        labels = [c for c in (clean_label(x) for x in req.graph_summary.node_labels) if c]
        # Triads take their elements from the newest labels only, not from `element_labels` (the
        # older ones, for the LLM's prompt): triads naming those too brought nothing new in 63
        # simulated grids, and fewer questions then asked for new elements (2026-12-03)
        triad_focus, elements = triad_labels(
            labels, req.focus, self._methodology, req.recent_turns, req.previous_questions
        )
        # a repertory grid's summary says what tells the options apart: the options themselves
        # ("the main ways you tell options apart seem to be Netflix, …") are the triads' business
        method = tpl.method_key(self._methodology.name)
        named = {e.lower() for e in elements} if method == "repertory_grid" else set()
        # a different handful of recent items each turn, so summaries do not repeat word for word
        recent = [x for x in labels if x.lower() not in named][:6]
        if len(recent) > 3:
            shift = self._seed % len(recent)
            recent = recent[shift:] + recent[:shift]
        chained = [x for x in req.graph_summary.longest_chain_labels if x.lower() not in named]
        summary = join_labels(say_labels([*recent, *chained], self._methodology, self._spoken), 3)
        if summary:
            values["summary"] = summary
        method_cfg = self._methodology
        graph = req.graph_summary
        run, run_types = joined_run(graph, method_cfg, focus)
        chain_labels = say_labels(
            run_to_say(run, run_types, method_cfg), method_cfg, self._spoken, chain_types(graph)
        )
        chain = render_chain(chain_labels, self._methodology.name)
        # said back about the focus ("About {focus}, from what you've told me: {chain}") only when the
        # chain holds it: the graph's longest chain is often another one ("About the café, …: fitting
        # on your tiny kitchen counter leads to …" said back the capsule machine's)
        focused = focus.lower() in {clean_label(x).lower() for x in run}
        if chain and (not focus or focused):
            values["chain"] = chain
        # the respondent's elements as names, only their pronouns turned ("the one you cancelled")
        triad = self._triad(in_second_person(triad_focus), [in_second_person(e) for e in elements])
        if triad:
            values.update(zip(("a", "b", "c"), triad, strict=True))
        return values

    def _triad(self, focus: str, labels: list[str]) -> tuple[str, str, str] | None:
        # elements only (`elements.triad_labels`): a pole or construct never poses as an element
        seen = {focus.lower()}
        distinct: list[str] = []
        for lab in labels:
            if lab.lower() not in seen:
                seen.add(lab.lower())
                distinct.append(lab)
        distinct = distinct[:6]
        if focus:
            if len(distinct) < 2:
                return None
            triads = [(focus, b, c) for b, c in itertools.combinations(distinct, 2)]
        elif len(distinct) < 3:
            return None
        else:
            triads = [(a, b, c) for a, b, c in itertools.combinations(distinct, 3)]
        # From a place that differs per turn, the first triad not put to the respondent yet: with four
        # or more elements Kelly's cycle goes through new triads before any is asked again.
        ordered = _rotated(triads, self._seed % len(triads))
        return next((t for t in ordered if self._unasked(t)), ordered[0])

    def _mode_templates(self, family: str) -> tuple[list[str], bool]:
        """The family's templates for the focus mode, and whether they are the ordered steps of a
        sequence (a switch's timeline: asked in their order, not from a per-session place)."""
        out: list[str] = []
        ordered = False
        # Another family's node questions read the topic as an item ("what is the opposite of video
        # streaming services?"): only the strategy's own family may lend them to topic/summary mode.
        lend = family == self._family
        graph = self._request.graph_summary
        told = graph.node_count > 0 or bool(graph.node_labels)
        # A methodology's own topic questions replace the shared family's, which ask the same things
        # in other words ("… the ones you'd reject?", "… the ones you'd turn down?"): both in one
        # interview read as a repeat.
        worded = False
        for templates in tpl.templates_for(family, self._methodology.name):
            topic = templates.again if told and templates.again else templates.topic
            general = () if worded else (topic or (templates.node if lend else ()))
            worded = worded or bool(topic)
            if self._mode is FocusMode.TOPIC:
                chosen = general
            elif self._mode is FocusMode.SUMMARY:
                chosen = templates.summary or general
            else:
                chosen = templates.node
            out.extend(t for t in chosen if t not in out)
            ordered = ordered or (templates.ordered and self._mode is not FocusMode.RECENT_NODE)
        return out, ordered

    def _rendered(self, family: str, values: Mapping[str, str]) -> list[str]:
        templates, ordered = self._mode_templates(family)
        spoken = values.get("focus", "")
        if self._doing:
            place, clause = "place" in values, "clause" in values
            state, absent = is_state(spoken), is_absence(spoken)
            templates = [
                x
                for t in templates
                if (x := for_doing(t, place=place, clause=clause, state=state, absent=absent)) is not None
            ]
        elif self._preposition is not None:
            templates = [
                x
                for t in templates
                if (x := placed(t, self._preposition, day=self._day, thing=self._thing)) is not None
            ]
        templates = [
            t for t in templates if not negates_again(t, spoken) and not says_for_you_twice(t, spoken)
        ]
        # The steps of a sequence are asked in their order, the first not asked yet; other variants
        # start at a place that differs per session, so sessions vary.
        start = 0 if ordered else stable_index(self._seed, family)
        named = _rotated([x for t in templates if "{a}" in t and (x := _fill(t, values))], start)
        rest = _rotated([x for t in templates if "{a}" not in t and (x := _fill(t, values))], start)
        # Three of the respondent's own elements, named, before a triad in general terms; once that
        # triad was asked, the same three in other words come last.
        return named + rest if self._new_triad(values) else rest + named

    def _new_triad(self, values: Mapping[str, str]) -> bool:
        """Whether the triad in `values` was never put to the respondent (all three in one question)."""
        triad = [values.get(k, "") for k in ("a", "b", "c")]
        return not all(triad) or self._unasked(triad)  # no triad: none to repeat

    def _unasked(self, triad: Sequence[str]) -> bool:
        """Whether no earlier question named all three of `triad`."""
        names = [x.lower() for x in triad]
        return not any(all(x in q.lower() for x in names) for q in self._request.previous_questions)

    def _candidates(self) -> Iterator[str]:
        values = self._values()
        families = [self._family, *tpl.FALLBACKS.get(self._family, ()), *tpl.LAST_RESORT]
        ordered = list(dict.fromkeys(families))
        for family in ordered:
            yield from self._rendered(family, values)
        for prefix in _REWORDINGS:
            lead = prefix.format(focus=values["focus"])
            for family in ordered:
                for question in self._rendered(family, values):
                    yield lead + lower_first(question)

    def compose(self) -> str:
        """The first candidate not asked before, with the respondent-intent lead-in (if any)."""
        first: str | None = None
        for question in self._candidates():
            first = first or question
            final = self._with_intent(question)
            if (
                normalise_question(question) not in self._asked
                and normalise_question(final) not in self._asked
            ):
                return final
        # Every variant was asked already (hundreds of turns): repeat rather than fail.
        return self._with_intent(first or f"What else would you like to tell me about {self._topic}?")

    def _with_intent(self, question: str) -> str:
        intent = self._request.respondent_intent
        if intent is RespondentIntent.SKIP_REQUEST:
            return "No problem, let's leave that one. " + question
        if intent is RespondentIntent.OFF_TOPIC:
            return f"Thanks for sharing that. Coming back to {self._topic}, " + lower_first(question)
        if intent is RespondentIntent.CLARIFICATION_REQUEST:
            # A follow-up, not a rewording: the orchestrator moves on once rewordings did not help.
            return "Let me ask something else instead. " + question
        return question
