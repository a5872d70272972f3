"""The question fits the kind of node in focus: no ladder above a terminal value, no event
question about a person, no pole question about a repertory-grid element."""

from __future__ import annotations

import re

import pytest

from services.question.fit import fitting_family, participant_types
from services.question.models import FocusNode, GraphDigest
from services.question.offline import FollowUpComposer
from services.question.spoken import SpokenLabels
from shared.methodology import MethodologyRegistry
from tests.unit.question.conftest import asked_over_turns, follow_up


def _ask(
    methodologies: MethodologyRegistry, methodology: str, strategy: str, focus: FocusNode, turn: int
) -> str:
    cfg = methodologies.get(methodology)
    chosen = cfg.strategy(strategy)
    assert chosen is not None
    req = follow_up(
        methodology=methodology,
        strategy=strategy,
        turn=turn,
        focus=focus,
        graph_summary=GraphDigest(node_count=3, node_labels=("netflix", "youtube", "disney+")),
    )
    return FollowUpComposer(req, cfg, chosen).compose()


def test_participants_are_the_types_only_ever_pointed_at(methodologies: MethodologyRegistry) -> None:
    assert participant_types(methodologies.get("critical_incident")) == frozenset({"actor"})
    assert participant_types(methodologies.get("means_end_chain")) == frozenset()


def test_a_terminal_value_is_confirmed_not_laddered(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    value = FocusNode(node_id="v", label="security", node_type="terminal_value")
    assert fitting_family("ladder_up", value, mec) == "top"
    attribute = FocusNode(node_id="a", label="long battery life", node_type="attribute")
    assert fitting_family("ladder_up", attribute, mec) == "ladder_up"
    for turn in range(3, 9):
        question = _ask(methodologies, "means_end_chain", "deepen", value, turn)
        assert "security" in question
        assert not question.lower().startswith(("why", "what does", "what is it about")), question


def test_a_person_is_asked_what_they_did(methodologies: MethodologyRegistry) -> None:
    nurse = FocusNode(node_id="n", label="the discharge nurse", node_type="actor")
    for turn in range(3, 9):
        question = _ask(methodologies, "critical_incident", "trace_actions", nurse, turn)
        assert "during the discharge nurse" not in question and "of the discharge nurse" not in question
        assert (
            "What did the discharge nurse" in question
            or "How did the discharge nurse" in question
            or ("what the discharge nurse did" in question)
        ), question


def test_an_element_gets_a_comparison_not_a_pole_question(methodologies: MethodologyRegistry) -> None:
    netflix = FocusNode(node_id="e", label="netflix", node_type="element")
    for turn in range(3, 9):
        question = _ask(methodologies, "repertory_grid", "elicit_opposite_pole", netflix, turn)
        assert "opposite" not in question.lower() and "other end" not in question.lower(), question
        assert "netflix" in question.lower()


def test_a_construct_above_the_poles_is_laddered_not_given_an_opposite(
    methodologies: MethodologyRegistry,
) -> None:
    rgt = methodologies.get("repertory_grid")
    construct = FocusNode(node_id="s", label="doesn't waste my time", node_type="superordinate_construct")
    assert fitting_family("opposite_pole", construct, rgt) == "ladder_up_construct"
    value = FocusNode(node_id="v", label="being in control of my time", node_type="core_value")
    assert fitting_family("opposite_pole", value, rgt) == "top"
    pole = FocusNode(node_id="p", label="no adverts", node_type="emergent_pole")
    assert fitting_family("opposite_pole", pole, rgt) == "opposite_pole"


def test_the_pole_not_preferred_is_laddered_through_the_preference(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "What do ads every ten minutes give you?" and "why is endless scrolling important to you?"
    # asked as if the person valued the pole they had set against the one they prefer
    rgt = methodologies.get("repertory_grid")
    implicit = FocusNode(node_id="i", label="constant adverts", node_type="implicit_pole")
    assert fitting_family("ladder_up", implicit, rgt) == "ladder_up_pole"
    asked = asked_over_turns(methodologies, spoken, "repertory_grid", "ladder_up", implicit, range(3, 30))
    assert len(asked) == 3, asked
    for question in asked:
        assert "constant adverts" in question and re.search(r"\b(?:prefer|side|choose)\b", question), question
        assert " give you" not in question and "important to you in the end" not in question, question
    # the preferred pole keeps the whole ladder
    emergent = FocusNode(node_id="e", label="no adverts", node_type="emergent_pole")
    assert fitting_family("ladder_up", emergent, rgt) == "ladder_up"


def test_a_construct_above_the_poles_is_laddered_without_ends(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "Thinking about the evening feeling well spent, which end do you prefer …?": a construct
    # laddered up to is one phrase, with no ends or sides to choose between; its ladder asks why it
    # matters, also where the strategy asked for its opposite
    rgt = methodologies.get("repertory_grid")
    construct = FocusNode(node_id="s", label="evening feels well spent", node_type="superordinate_construct")
    assert fitting_family("ladder_up", construct, rgt) == "ladder_up_construct"
    assert fitting_family("opposite_pole", construct, rgt) == "ladder_up_construct"
    asked = asked_over_turns(methodologies, spoken, "repertory_grid", "ladder_up", construct, range(3, 30))
    assert len(asked) == 4, asked
    for question in asked:
        assert "the evening feeling well spent" in question, question
        assert not re.search(r"\b(?:end do you|side|prefer|choose)\b", question), question


def test_a_lesson_is_confirmed_not_traced_as_an_event(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    cit = methodologies.get("critical_incident")
    lesson = FocusNode(node_id="l", label="always call the carer", node_type="learning")
    assert fitting_family("actions", lesson, cit) == "account_top"
    incident = FocusNode(node_id="i", label="waited six hours", node_type="incident")
    assert fitting_family("actions", incident, cit) == "actions"
    # in an account's words: "Would you say chasing the nurses is the heart of it for you?" and
    # "… is where it all leads for you" are a ladder's
    asked: set[str] = set()
    for strategy in ("trace_actions", "probe_outcome", "probe_attribution"):
        asked |= asked_over_turns(methodologies, spoken, "critical_incident", strategy, lesson, range(3, 20))
    assert len(asked) >= 3 and all("always calling the carer" in q for q in asked), asked
    assert not any("heart of it" in q or "all leads" in q for q in asked), asked
    # a ladder's top keeps a ladder's words
    value = FocusNode(node_id="v", label="peace of mind", node_type="terminal_value")
    assert fitting_family("ladder_up", value, methodologies.get("means_end_chain")) == "top"


def test_a_push_is_asked_what_went_wrong_and_a_pull_what_it_promised(
    methodologies: MethodologyRegistry,
) -> None:
    # "What did you hope having palpitations would let you do?" asked a pull question of a push
    jtbd = methodologies.get("jobs_to_be_done")
    push = FocusNode(node_id="p", label="had palpitations", node_type="push")
    pull = FocusNode(node_id="q", label="steady energy all night", node_type="pull")
    event = FocusNode(node_id="e", label="bought a steel thermos", node_type="timeline_event")
    assert fitting_family("push_pull", push, jtbd) == "push"
    assert fitting_family("push_pull", pull, jtbd) == "pull"
    assert fitting_family("push_pull", event, jtbd) == "push_pull_event"
    for turn in range(3, 9):
        asked_push = _ask(methodologies, "jobs_to_be_done", "probe_push_pull", push, turn)
        assert "hope" not in asked_push and "pulled you" not in asked_push, asked_push
        asked_pull = _ask(methodologies, "jobs_to_be_done", "probe_push_pull", pull, turn)
        assert "going wrong" not in asked_pull and "worth doing something about" not in asked_pull, asked_pull


@pytest.mark.parametrize(
    ("node_type", "label", "wrong"),
    [
        # the graph does not say whether a solution was the old one or the new one
        (
            "solution",
            "capsule machine",
            ("the moment to start looking", "going wrong that made", "worth doing"),
        ),
        # a moment of the timeline is no force: the forces around it are asked
        ("timeline_event", "bought a hand grinder", ("going wrong that made", "the moment to start looking")),
    ],
)
def test_push_and_pull_are_asked_around_a_solution_or_a_moment(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    node_type: str,
    label: str,
    wrong: tuple[str, ...],
) -> None:
    # "What made the capsule machine the moment to start looking for something else?", "What was
    # going wrong that made buying a hand grinder matter?"
    focus = FocusNode(node_id="x", label=label, node_type=node_type)
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "probe_push_pull", focus, range(3, 40))
    assert len(asked) == 4, asked
    said = spoken.say(label)[0]
    assert all(said in q for q in asked), asked
    assert not any(w in q for q in asked for w in wrong), asked


@pytest.mark.parametrize(
    ("node_type", "label", "family", "wrong"),
    [
        ("pull", "fresh coffee in two minutes", "anxiety_of_pull", ()),
        ("timeline_event", "missed my train twice in one week", "anxiety_habit_event", ()),
        # old or new: "What did you like about the old way, compared with the energy drinks?" asked of
        # the old way itself
        ("solution", "energy drinks", "anxiety_habit_solution", ("compared with", "before you committed")),
    ],
)
def test_what_held_them_back_is_asked_around_a_pull_a_moment_or_a_solution(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    node_type: str,
    label: str,
    family: str,
    wrong: tuple[str, ...],
) -> None:
    # "What was hard to give up when it came to having fresh coffee in two minutes?", "What concerns
    # did you have about missing your train twice in one week before you committed?"
    jtbd = methodologies.get("jobs_to_be_done")
    focus = FocusNode(node_id="x", label=label, node_type=node_type)
    assert fitting_family("anxiety_habit", focus, jtbd) == family
    strategy = "probe_anxiety_habit"
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", strategy, focus, range(3, 40))
    assert len(asked) == 4, asked
    said = spoken.say(label)[0]
    assert all(said in q for q in asked), asked
    misfits = (f"give up when it came to {said}", "concerns did you have about", *wrong)
    assert not any(w in q for q in asked for w in misfits), asked
    # each still asks for a force that holds a switch back, in words a respondent reads as one
    assert all(any(w in q for w in ("worr", "almost stopped", "old way", "habit")) for q in asked), asked
    # a node of any other kind keeps the whole family
    outcome = FocusNode(node_id="o", label="spend less per month", node_type="desired_outcome")
    assert fitting_family("anxiety_habit", outcome, jtbd) == "anxiety_habit"


@pytest.mark.parametrize("node_type", ["desired_outcome", "job", "emotional_social_job"])
def test_a_goal_is_asked_what_it_promised_not_what_went_wrong(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, node_type: str
) -> None:
    # "When did you first feel that feeling in control on a hard night was worth doing something
    # about?": what the person wanted is no problem to fix
    jtbd = methodologies.get("jobs_to_be_done")
    goal = FocusNode(node_id="g", label="feel in control on a hard night", node_type=node_type)
    assert fitting_family("push_pull", goal, jtbd) == "pull"
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "probe_push_pull", goal, range(3, 12))
    assert asked and all("feeling in control on a hard night" in q for q in asked), asked
    assert not any("worth doing something about" in q or "going wrong" in q for q in asked), asked


def test_a_push_is_asked_what_job_it_stood_in_the_way_of(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "What would getting energy crashed sorted make possible?", "How would you know that having
    # palpitations had gone well?": a problem is no job to get sorted
    jtbd = methodologies.get("jobs_to_be_done")
    push = FocusNode(node_id="p", label="had palpitations", node_type="push")
    solution = FocusNode(node_id="s", label="capsule machine", node_type="solution")
    assert fitting_family("job", push, jtbd) == "job_behind_push"
    # a reason the old solution was fired is a problem too: "What bigger goal is tasting flat and
    # bitter part of for you?"
    fired = FocusNode(node_id="f", label="tasted flat and bitter", node_type="firing_criterion")
    assert fitting_family("job", fired, jtbd) == "job_behind_push"
    assert fitting_family("push_pull", fired, jtbd) == "push"
    asked_fired = asked_over_turns(
        methodologies, spoken, "jobs_to_be_done", "dig_for_job", fired, range(3, 15)
    )
    assert asked_fired and not any("bigger goal" in q or "sorted" in q for q in asked_fired), asked_fired
    assert fitting_family("job", solution, jtbd) == "job_of_solution"
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", push, range(3, 15))
    assert len(asked) >= 3, asked
    assert all("having palpitations" in q for q in asked), asked
    assert not any(w in q for q in asked for w in ("sorted", "gone well", "bigger goal")), asked


@pytest.mark.parametrize("label", ["capsule machine", "energy drinks"])
def test_a_solution_is_asked_what_job_it_did(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str
) -> None:
    # "What would getting the capsule machine sorted make possible?", "How would you know that the
    # good thermos flask had gone well?": a solution is hired for a job, not sorted
    jtbd = methodologies.get("jobs_to_be_done")
    solution = FocusNode(node_id="s", label=label, node_type="solution")
    assert fitting_family("job", solution, jtbd) == "job_of_solution"
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", solution, range(3, 40))
    assert len(asked) == 5, asked  # every job_of_solution question
    assert all(f"the {label}" in q for q in asked), asked
    assert not any(w in q for q in asked for w in ("sorted", "gone well", "came up")), asked
    if label == "energy drinks":
        assert not any(re.search(r"energy drinks (is|was|does)\b", q) for q in asked), asked


@pytest.mark.parametrize("label", ["had palpitations", "bought a steel thermos"])
def test_a_moment_of_the_timeline_is_asked_what_the_person_was_after(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, label: str
) -> None:
    # "What bigger goal is having palpitations part of for you?": a moment is no goal of its own
    jtbd = methodologies.get("jobs_to_be_done")
    event = FocusNode(node_id="e", label=label, node_type="timeline_event")
    assert fitting_family("job", event, jtbd) == "job_at_event"
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", event, range(3, 40))
    assert len(asked) == 4, asked  # every job_at_event question
    doing = spoken.say(label)[0]
    assert all(doing in q for q in asked), asked
    assert not any(w in q for q in asked for w in ("sorted", "gone well", "part of", "came up")), asked
    # then the moment itself is asked about, not the topic explored
    later = asked_over_turns(
        methodologies,
        spoken,
        "jobs_to_be_done",
        "dig_for_job",
        event,
        range(3, 6),
        previous_questions=tuple(asked),
    )
    assert later and not later & asked, later
    assert not any(q.startswith(("Besides", "Apart from")) for q in later), later


def test_a_fitted_family_falls_back_like_the_family_it_stands_for(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # once a lesson's confirmations are all asked, the account is checked back (as after a ladder's
    # top), not the topic explored again; a push is asked what went wrong, never "getting … sorted"
    lesson = FocusNode(node_id="l", label="always call the carer", node_type="learning")
    confirmations = asked_over_turns(
        methodologies, spoken, "critical_incident", "probe_outcome", lesson, range(3, 40)
    )
    assert len(confirmations) == 4, confirmations  # every account_top question
    after = asked_over_turns(
        methodologies,
        spoken,
        "critical_incident",
        "probe_outcome",
        lesson,
        range(3, 6),
        previous_questions=tuple(confirmations),
    )
    assert after and not after & confirmations, after
    assert all("always calling the carer" in q for q in after), after
    # the account is checked back, the topic not explored ("Besides always calling the carer, …")
    assert not any(q.startswith(("Besides", "Apart from")) for q in after), after
    push = FocusNode(node_id="p", label="had palpitations", node_type="push")
    jobs = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", push, range(3, 40))
    assert len(jobs) == 4, jobs  # every job_behind_push question
    later = asked_over_turns(
        methodologies,
        spoken,
        "jobs_to_be_done",
        "dig_for_job",
        push,
        range(3, 6),
        previous_questions=tuple(jobs),
    )
    assert later and not later & jobs, later
    assert not any("sorted" in q or "gone well" in q for q in later), later
    assert not any(q.startswith(("Besides", "Apart from")) for q in later), later


@pytest.mark.parametrize(
    ("node_type", "label"),
    [
        ("desired_outcome", "reduce errors in the early hours"),
        ("situation", "work from home alone all day"),
        ("push", "queue at the station café took too long"),
        ("hiring_criterion", "fits on our tiny kitchen counter"),
    ],
)
def test_the_job_is_asked_of_an_outcome_a_situation_a_push_or_a_criterion_in_plain_words(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, node_type: str, label: str
) -> None:
    # "In that situation with reducing errors in the early hours, what progress …?", "What bigger
    # goal are under 100 euros part of for you?", "What would getting … sorted make possible?"
    focus = FocusNode(node_id="x", label=label, node_type=node_type)
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", focus, range(3, 40))
    assert len(asked) >= 4, asked
    assert all(spoken.say(label)[0] in q for q in asked), asked
    assert not any("situation with" in q for q in asked), asked
    if node_type == "hiring_criterion":
        assert fitting_family("job", focus, methodologies.get("jobs_to_be_done")) == "job_of_criterion"
        assert not any("sorted" in q or "gone well" in q or "bigger goal" in q for q in asked), asked


def test_a_pull_is_asked_what_job_it_promised_to_do(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "What would getting feeling like a treat sorted make possible?", "In that situation with
    # feeling like a treat …": what pulled them is no job to get sorted, nor a situation
    jtbd = methodologies.get("jobs_to_be_done")
    pull = FocusNode(node_id="p", label="feels like a treat to make it slowly", node_type="pull")
    assert fitting_family("job", pull, jtbd) == "job_behind_pull"
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", pull, range(3, 15))
    assert len(asked) >= 3, asked
    assert all("feeling like a treat to make it slowly" in q for q in asked), asked
    assert not any("sorted" in q or "gone well" in q or "situation with" in q for q in asked), asked


@pytest.mark.parametrize(
    ("node_type", "label", "said", "family"),
    [
        (
            "anxiety",
            "coffee would ruin my sleep",
            "the worry that coffee would ruin your sleep",
            "job_despite_worry",
        ),
        (
            "anxiety",
            "might not taste as good",
            "the worry that it might not taste as good",
            "job_despite_worry",
        ),
        (
            "anxiety",
            "not sure it was worth the price",
            "not being sure it was worth the price",
            "job_despite_worry",
        ),
        (
            "anxiety",
            "worried it would ruin my sleep",
            "being worried it would ruin your sleep",
            "job_despite_worry",
        ),
        (
            "habit",
            "vending machine break with colleagues",
            "the vending machine break with colleagues",
            "job_over_habit",
        ),
    ],
)
def test_the_job_is_asked_around_a_worry_or_a_habit_not_of_it(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    node_type: str,
    label: str,
    said: str,
    family: str,
) -> None:
    # "What bigger goal is coffee would ruin your sleep part of for you?", "What would getting not
    # sure it was worth the price sorted make possible for you?", "How would you know that
    # worrying it would ruin your sleep had gone well?"
    jtbd = methodologies.get("jobs_to_be_done")
    focus = FocusNode(node_id="w", label=label, node_type=node_type)
    assert fitting_family("job", focus, jtbd) == family
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", focus, range(3, 30))
    assert len(asked) >= 3, asked
    assert all(said in q for q in asked), asked
    assert not any(w in q for q in asked for w in ("sorted", "gone well", "bigger goal", "worrying")), asked


def test_a_pole_that_is_a_negation_is_not_negated_again(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "What word would you use for something that is not no adverts at all?", "If something isn't
    # no adverts, what is it instead?"
    pole = FocusNode(node_id="p", label="no adverts", node_type="emergent_pole")
    asked = asked_over_turns(
        methodologies, spoken, "repertory_grid", "elicit_opposite_pole", pole, range(3, 30)
    )
    assert len(asked) >= 3 and all("no adverts" in q for q in asked), asked
    assert not [q for q in asked if re.search(r"\b(?:not|isn't) no\b", q)], asked
    # a pole said without a negation keeps them
    other = FocusNode(node_id="o", label="easy to find something", node_type="emergent_pole")
    asked = asked_over_turns(
        methodologies, spoken, "repertory_grid", "elicit_opposite_pole", other, range(3, 30)
    )
    assert [
        q for q in asked if "is not easy to find something" in q or "isn't easy to find something" in q
    ], asked


def test_a_focus_that_says_whom_it_is_for_gets_no_second_for_you(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "So in the end it comes down to needing to stay sharp for your patients for you."
    job = FocusNode(node_id="j", label="need to stay sharp for my patients", node_type="job")
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", job, range(3, 30))
    assert len(asked) >= 3 and all("for your patients" in q for q in asked), asked
    assert not [q for q in asked if re.search(r"\bfor your patients\b.*\bfor you\b", q)], asked
    # a focus that names no one keeps the templates that say "for you"
    other = FocusNode(node_id="o", label="need to stay sharp at work", node_type="job")
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "dig_for_job", other, range(3, 30))
    assert [q for q in asked if re.search(r"\bat work\b.*\bfor you\b", q)], asked
