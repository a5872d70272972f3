"""A focus the templates place "at" is said with the preposition it takes: in the app, on the
phone, with (or from) the driver; a place keeps "at"."""

from __future__ import annotations

import re

import pytest

from services.question.models import FocusNode
from services.question.places import for_doing, is_absence, is_state, is_thing, placed, preposition_for
from services.question.spoken import SpokenLabels
from shared.methodology import MethodologyRegistry
from tests.unit.question.conftest import asked_over_turns


@pytest.mark.parametrize(
    ("spoken", "preposition"),
    [
        ("the app", "in"),
        ("the supermarket app", "in"),
        ("the app on your phone", "in"),  # the head comes before its prepositional phrase
        ("the phone", "on"),
        ("the website", "on"),
        ("the driver", "with"),
        ("the delivery drivers", "with"),
        ("the discharge nurse", "with"),
        ("the checkout", None),
        ("the pharmacy", None),
        ("Tesco", None),
        ("Friday afternoon", "on"),  # a day
        ("the bags", "with"),  # a thing handled or received
        ("the delivery slot", "with"),
        ("the discharge letter", "with"),
        ("the glass", None),
    ],
)
def test_the_head_noun_chooses_the_preposition(spoken: str, preposition: str | None) -> None:
    assert preposition_for(spoken) == preposition


def test_a_template_is_said_with_the_preposition() -> None:
    assert placed("At {focus}, what exactly did you do?", "in") == "In {focus}, what exactly did you do?"
    assert placed("What went wrong at {focus}?", "with") == "What went wrong with {focus}?"
    # what a respondent wanted came from a person or a channel, not with or on it
    assert placed("What were you expecting at {focus}?", "with") == "What were you expecting from {focus}?"
    assert placed("What did you need at {focus}?", "on") == "What did you need from {focus}?"
    assert placed("What went wrong at {focus}?", "on") == "What went wrong on {focus}?"
    # "deal with with the driver" cannot be said: the template is left out
    assert placed("Who or what did you deal with at {focus}?", "with") is None
    assert (
        placed("At the moment of {focus}, how did you feel?", None)
        == "At the moment of {focus}, how did you feel?"
    )
    # a channel or a person has no moment, and a person is not something to get right
    assert placed("At the moment of {focus}, how did you feel?", "in") is None
    assert placed("Why does getting {focus} right matter to you?", "with") is None
    assert placed("What would have made {focus} right for you?", "with") is None
    assert placed("What did you see or hear at {focus}?", "with") is None
    assert (
        placed("Could you describe {focus} in more detail: where were you, and what happened there?", "with")
        is None
    )
    assert (
        placed("What would have made {focus} right for you?", "in")
        == "What would have made {focus} right for you?"
    )


def test_a_thing_is_asked_about_with_and_from_never_at() -> None:
    # "What were you expecting at the bags?", "Which channel did you use at the bags?"
    assert is_thing("the bags") and is_thing("the delivery slot") and not is_thing("the driver")
    assert placed("What went wrong at {focus}?", "with", thing=True) == "What went wrong with {focus}?"
    assert (
        placed("What were you expecting at {focus}?", "with", thing=True)
        == "What were you expecting from {focus}?"
    )
    for template in (
        "Which channel did you use at {focus}, and how did it go?",
        "How did you feel at {focus}?",
        "What did you see or hear at {focus}?",
        "Who or what did you deal with at {focus}, and what were you told?",
    ):
        assert placed(template, "with", thing=True) is None, template
    # "look at" is no place: it stays, for a person or a channel too
    look = "Let's look at {focus} from a different angle: what has surprised you about {it}?"
    assert placed(look, "with", thing=True) == look
    assert placed(look, "with") == look and placed(look, "in") == look
    # unlike a person, a thing is something to get right
    assert placed("Why does getting {focus} right matter to you?", "with", thing=True) is not None
    assert placed("Why does getting {focus} right matter to you?", "with") is None


@pytest.mark.parametrize(
    ("label", "wrong", "strategies"),
    [
        ("app", "at the app", ("explore_touchpoint", "identify_need", "probe_pain_point")),
        ("phone", "at the phone", ("explore_touchpoint", "identify_need", "probe_pain_point")),
        ("driver", "at the driver", ("explore_touchpoint", "identify_need", "probe_pain_point")),
        ("bags", "at the bags", ("explore_touchpoint", "identify_need", "probe_pain_point")),
    ],
)
def test_a_journey_question_does_not_place_a_channel_or_person(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    label: str,
    wrong: str,
    strategies: tuple[str, ...],
) -> None:
    focus = FocusNode(node_id="t", label=label, node_type="touchpoint")
    asked = set().union(
        *(
            asked_over_turns(methodologies, spoken, "customer_journey_mapping", name, focus)
            for name in strategies
        )
    )
    assert all(f"the {label}" in q for q in asked), asked
    assert not any(wrong in q.lower() or "with with" in q or "moment of the" in q for q in asked), asked


def test_a_place_keeps_at(methodologies: MethodologyRegistry, spoken: SpokenLabels) -> None:
    focus = FocusNode(node_id="t", label="pharmacy", node_type="touchpoint")
    asked = asked_over_turns(methodologies, spoken, "customer_journey_mapping", "identify_need", focus)
    assert any("at the pharmacy" in q.lower() for q in asked), asked


def test_a_journey_stage_gets_its_article(methodologies: MethodologyRegistry, spoken: SpokenLabels) -> None:
    # "what were you expecting at delivery slot?" dropped the article the label lost
    focus = FocusNode(node_id="t", label="delivery slot", node_type="stage")
    asked = asked_over_turns(methodologies, spoken, "customer_journey_mapping", "identify_need", focus)
    assert all("the delivery slot" in q for q in asked), asked


@pytest.mark.parametrize(
    ("methodology", "strategy", "label", "node_type", "place"),
    [
        ("customer_journey_mapping", "identify_need", "at the weekend", "stage", "at the weekend"),
        (
            "critical_incident",
            "trace_actions",
            "on the respiratory ward",
            "situation",
            "on the respiratory ward",
        ),
    ],
)
def test_a_focus_with_its_own_preposition_takes_the_templates_place(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    methodology: str,
    strategy: str,
    label: str,
    node_type: str,
    place: str,
) -> None:
    # "When being at the weekend, …", "at the moment of being on the ward": the label says where
    focus = FocusNode(node_id="p", label=label, node_type=node_type)
    asked = asked_over_turns(methodologies, spoken, methodology, strategy, focus, range(3, 14))
    assert any(place in q.lower() and f"being {place}" not in q for q in asked), asked
    assert not any(f"when being {place}" in q.lower() or f"moment of being {place}" in q for q in asked), (
        asked
    )


def test_a_day_is_on_and_nothing_comes_from_it() -> None:
    assert (
        placed("In {focus}, what did the others do?", "on", day=True) == "On {focus}, what did the others do?"
    )
    assert placed("What did you need at {focus}?", "on", day=True) == "What did you need on {focus}?"
    # a channel is different: what was needed came from it
    assert placed("What did you need at {focus}?", "on") == "What did you need from {focus}?"


def test_a_product_attribute_gets_its_article_unless_it_is_a_property(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "You mentioned secure fit" dropped the article; "the waterproof" would be a raincoat
    def asked(label: str) -> set[str]:
        focus = FocusNode(node_id="a", label=label, node_type="attribute")
        return asked_over_turns(methodologies, spoken, "means_end_chain", "deepen", focus, range(3, 8))

    fit = asked("secure fit")
    assert all("the secure fit" in q for q in fit), fit
    waterproof = asked("waterproof")
    assert all("waterproof" in q and "the waterproof" not in q for q in waterproof), waterproof


def test_a_state_is_not_made_right() -> None:
    # "what would have made being furious right for you?"
    made = "What would have made {focus} right for you?"
    assert is_state("being furious") and is_state("there being no evening slots left")
    assert not is_state("checking out in the app")
    assert for_doing(made, place=False, clause=False, state=True) is None
    assert for_doing(made, place=False, clause=False) == made


def _asked_of_a_setting(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str, strategies: tuple[str, ...]
) -> set[str]:
    """Every incident question the `strategies` ask over turns 3-29 of a setting labelled `label`."""
    focus = FocusNode(node_id="t", label=label, node_type="situation")
    asked: set[str] = set()
    for strategy in strategies:
        asked |= asked_over_turns(methodologies, spoken, "critical_incident", strategy, focus, range(3, 30))
    return asked


@pytest.mark.parametrize("label", ["on a Friday afternoon", "on a quiet Tuesday morning"])
def test_a_time_is_said_as_that_time_not_a_state(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str
) -> None:
    # "How did being on a Friday afternoon affect you?": a time is no state to be in
    said, doing = spoken.say(label)
    assert said == "that " + label.removeprefix("on a ") and not doing
    assert preposition_for(said) == "on"
    asked = _asked_of_a_setting(
        methodologies, spoken, label, ("probe_outcome", "trace_actions", "probe_attribution")
    )
    assert len(asked) > 8, asked
    assert all(said in q for q in asked), asked
    assert not any("being on" in q or "at that" in q.lower() for q in asked), asked


@pytest.mark.parametrize(
    ("label", "said"),
    [("calm Tuesday", "that calm Tuesday"), ("quiet Tuesday morning", "that quiet Tuesday morning")],
)
def test_a_day_told_as_a_setting_is_that_day(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str, said: str
) -> None:
    # "What was the situation around calm Tuesday?", "During calm Tuesday, what was actually said?"
    assert spoken.say(label) == (said, False)
    asked = _asked_of_a_setting(methodologies, spoken, label, ("set_scene", "trace_actions"))
    assert asked and all(said in q for q in asked), asked


def test_the_first_time_is_said_with_its_article(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "time I went home" was said as "timing you went home"; "first time …" lacked its article
    assert spoken.say("first time I went home") == ("the first time you went home", False)
    focus = FocusNode(node_id="t", label="first time I went home", node_type="situation")
    asked = asked_over_turns(methodologies, spoken, "critical_incident", "set_scene", focus, range(3, 30))
    assert asked and all("the first time you went home" in q for q in asked), asked


@pytest.mark.parametrize("label", ["Friday afternoon", "Tuesday", "good sleep", "price"])
def test_a_day_by_its_name_or_a_bare_noun_is_said_as_it_is(spoken: SpokenLabels, label: str) -> None:
    assert spoken.say(label) == (label, False)


@pytest.mark.parametrize("label", ["weekend", "evening", "night"])
def test_a_part_of_the_day_or_week_alone_takes_its_article(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str
) -> None:
    # "half the beds were being cleared for the weekend" leaves the setting "weekend": "how did
    # weekend affect you?" lacked its article
    said = "the " + label
    assert spoken.say(label) == (said, False)
    asked = _asked_of_a_setting(
        methodologies, spoken, label, ("set_scene", "probe_outcome", "probe_attribution")
    )
    assert len(asked) > 8, asked
    assert all(said in q for q in asked), asked
    assert not any(re.search(rf"\b(?:that|the) the {label}\b", q) for q in asked), asked


@pytest.mark.parametrize(
    ("label", "asked_why"),
    [
        ("nobody gave me a written list", "Why do you think nobody gave you a written list?"),
        ("hospital transport never turned up", "Why do you think the hospital transport never turned up?"),
    ],
)
def test_what_did_not_happen_is_asked_why_not_how_it_turned_out(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str, asked_why: str
) -> None:
    # "Why do you think nobody giving you a written list turned out the way it did?", "what made
    # nobody giving you a written list work, or not work?": an absence did not turn out
    focus = FocusNode(node_id="n", label=label, node_type="incident")
    asked = asked_over_turns(
        methodologies, spoken, "critical_incident", "probe_attribution", focus, range(3, 30)
    )
    assert asked_why in asked, asked
    assert not any(
        w in q for q in asked for w in ("turned out", "work, or not work", "made the difference")
    ), asked
    assert is_absence(spoken.say(label)[0])
    # what happened still is asked how it turned out
    happened = FocusNode(node_id="h", label="waited six hours for the discharge letter", node_type="incident")
    others = asked_over_turns(
        methodologies, spoken, "critical_incident", "probe_attribution", happened, range(3, 30)
    )
    assert any("turned out the way it did" in q for q in others), others


@pytest.mark.parametrize(
    ("strategy", "phrases"),
    [
        ("probe_outcome", ("turn out in the end",)),
        ("verify_account", ("retold", "what part of")),
        ("trace_actions", ("at the moment of", "moment by moment")),
    ],
)
def test_what_did_not_happen_has_no_steps_parts_or_end(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, strategy: str, phrases: tuple[str, ...]
) -> None:
    # "If you retold nobody properly explaining your new tablets in three or four steps, …", "How
    # did nobody … turn out in the end?", "what part of nobody … have I not yet understood?"
    absent = FocusNode(node_id="n", label="nobody properly explained my new tablets", node_type="incident")
    asked = asked_over_turns(methodologies, spoken, "critical_incident", strategy, absent, range(3, 40))
    assert len(asked) >= 3, asked
    assert not any(p in q for q in asked for p in phrases), asked
    # what happened still is
    happened = FocusNode(node_id="h", label="waited six hours for the discharge letter", node_type="incident")
    others = asked_over_turns(methodologies, spoken, "critical_incident", strategy, happened, range(3, 40))
    assert all(any(p in q for q in others) for p in phrases), others


def test_what_someone_else_did_is_not_made_right(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "What would have made the driver turning up with the crates right for you?"
    focus = FocusNode(node_id="d", label="driver turns up with the crates", node_type="action")
    asked = asked_over_turns(
        methodologies, spoken, "customer_journey_mapping", "identify_need", focus, range(3, 30)
    )
    assert asked and not any("made the driver" in q for q in asked), asked
    assert any("when the driver turned up with the crates" in q for q in asked), asked
    # a doing of the respondent's own still is
    own = FocusNode(node_id="c", label="check out in the app", node_type="action")
    mine = asked_over_turns(
        methodologies, spoken, "customer_journey_mapping", "identify_need", own, range(3, 30)
    )
    assert any("made checking out in the app right" in q for q in mine), mine


def test_a_doing_is_not_asked_the_job_it_was_doing(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "How would you sum up, in one sentence, the job buying a steel thermos was doing for you?"
    def asked(label: str, node_type: str) -> set[str]:
        focus = FocusNode(node_id="x", label=label, node_type=node_type)
        return asked_over_turns(methodologies, spoken, "jobs_to_be_done", "validate_job", focus, range(3, 40))

    doing = asked("bought a steel thermos", "timeline_event")
    assert doing and not any("the job buying" in q for q in doing), doing
    thing = asked("steel thermos", "solution")
    assert any("the job the steel thermos was doing for you" in q for q in thing), thing


def test_a_doing_is_not_asked_about_as_a_thing_one_has() -> None:
    # "What would you miss if you no longer had feeling in control of your day?", "Imagine not
    # pressing on your glasses weren't there."
    absence = [
        "Imagine {focus} weren't there. What would be different for you?",
        "What would you miss if you no longer had {focus}?",
        "How would you feel if {focus} were missing?",
        "What would change for you without {focus}?",
    ]
    doing = [t for t in absence if for_doing(t, place=False, clause=False) is not None]
    assert doing == ["What would change for you without {focus}?"]
    absent = [t for t in absence if for_doing(t, place=False, clause=False, absent=True) is not None]
    assert absent == []


def test_a_time_said_as_the_time_during_is_not_given_a_second_during(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "During the time during bed pressures, what was actually said?"
    focus = FocusNode(node_id="s", label="during bed pressures", node_type="situation")
    asked = asked_over_turns(methodologies, spoken, "critical_incident", "trace_actions", focus, range(3, 30))
    assert any(q.startswith("During bed pressures") for q in asked), asked
    assert not [q for q in asked if "during the time during" in q.lower()], asked


@pytest.mark.parametrize(
    ("label", "node_type"),
    [
        ("driver carried the bags up three flights of stairs", "moment_of_truth"),
        ("copy last week's order", "action"),
        ("delivery driver", "touchpoint"),
        ("felt stressed and anxious about the slot", "emotion"),
    ],
)
def test_looking_at_the_focus_keeps_the_verbs_at(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str, node_type: str
) -> None:
    # "Looking when the driver carried the bags …", "Looking with the delivery driver, …": the
    # "at" of "looking at" is the verb's, not a place that a doing or a person changes
    focus = FocusNode(node_id="m", label=label, node_type=node_type)
    asked = asked_over_turns(
        methodologies, spoken, "customer_journey_mapping", "find_moment_of_truth", focus, range(3, 40)
    )
    looking = [q for q in asked if q.startswith("Looking")]
    assert looking, asked
    assert all(q.startswith("Looking at ") for q in looking), looking


def test_a_place_told_as_being_there_is_looked_at_as_the_place() -> None:
    template = "Looking at {focus}, when did you decide how you felt about the whole experience?"
    assert for_doing(template, place=False, clause=False) == template
    assert for_doing(template, place=True, clause=False) == (
        "Looking {place}, when did you decide how you felt about the whole experience?"
    )
    assert placed(template, "with") == template


@pytest.mark.parametrize(
    ("label", "node_type", "strategy", "never", "still"),
    [
        # the app is the channel: "Which channel did you use in the app?"
        (
            "app",
            "touchpoint",
            "explore_touchpoint",
            "channel did you use",
            "In the app, what exactly did you do?",
        ),
        # a person or a thing is not slow: "What made the bags slower or harder than you expected?"
        ("delivery driver", "touchpoint", "probe_pain_point", "slower or harder", "the delivery driver"),
        ("bags", "touchpoint", "probe_pain_point", "slower or harder", "the bags"),
        ("delivery driver", "touchpoint", "explore_touchpoint", "channel", "the delivery driver"),
        # a feeling is not the respondent's to make right: "What would have made feeling really
        # relieved right for you?"
        ("felt really relieved", "emotion", "identify_need", "right for you", "feeling really relieved"),
    ],
)
def test_a_journey_question_fits_what_its_focus_is(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    label: str,
    node_type: str,
    strategy: str,
    never: str,
    still: str,
) -> None:
    focus = FocusNode(node_id="j", label=label, node_type=node_type)
    asked = asked_over_turns(methodologies, spoken, "customer_journey_mapping", strategy, focus, range(3, 40))
    assert not any(never in q for q in asked), asked
    assert any(still in q for q in asked), asked
    # the same templates still ask it of a stage
    stage = FocusNode(node_id="s", label="checkout", node_type="stage")
    of_stage = asked_over_turns(
        methodologies, spoken, "customer_journey_mapping", strategy, stage, range(3, 40)
    )
    assert any(never in q for q in of_stage), of_stage
