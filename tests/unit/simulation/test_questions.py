"""Reading interviewer questions: kind and node-type hints."""

from __future__ import annotations

import pytest

from services.question.templates.base import Templates
from services.question.templates.critical_incident import FAMILIES as CIT_TEMPLATES
from services.question.templates.jobs_to_be_done import FAMILIES as JTBD_TEMPLATES
from services.question.templates.repertory_grid import FAMILIES as RGT_TEMPLATES
from simulation.respondent.questions import QuestionKind, classify


@pytest.mark.parametrize(
    ("question", "method", "names", "kind"),
    [
        ("Why is noise cancelling important to you?", "means_end_chain", True, QuestionKind.LADDER),
        ("What does the long battery life give you?", "means_end_chain", True, QuestionKind.LADDER),
        (
            "Imagine the noise cancelling weren't there. What would be different for you?",
            "means_end_chain",
            True,
            QuestionKind.LADDER,
        ),
        (
            "When you choose wireless headphones, what else do you notice or look for?",
            "means_end_chain",
            False,
            QuestionKind.EXPLORE,
        ),
        (
            "Besides the battery, what else matters to you about headphones?",
            "means_end_chain",
            True,
            QuestionKind.EXPLORE,
        ),
        (
            "When you say comfortable, what do you mean exactly?",
            "means_end_chain",
            True,
            QuestionKind.SPECIFIC,
        ),
        (
            "Thinking about battery: if I've understood you, it leads to peace of mind. "
            "How well does that match how you see it?",
            "means_end_chain",
            True,
            QuestionKind.VALIDATE,
        ),
        (
            "Before we finish, what else about headphones would you like to add that we haven't covered?",
            "means_end_chain",
            False,
            QuestionKind.CLOSING,
        ),
        (
            "Think of one particular time with hospital discharge that stood out. What happened?",
            "critical_incident",
            False,
            QuestionKind.INCIDENT,
        ),
        (
            "What did the discharge nurse actually say or do that stood out to you?",
            "critical_incident",
            True,
            QuestionKind.SPECIFIC,
        ),
        (
            "What happened right before the café queue, and what came next?",
            "jobs_to_be_done",
            True,
            QuestionKind.TIMELINE,
        ),
        (
            "Who was involved in the rushed explanation, and what were their roles?",
            "critical_incident",
            True,
            QuestionKind.SPECIFIC,
        ),
        (
            "It sounds like battery life is a big part of this for you. How would you put that in your "
            "own words?",
            "means_end_chain",
            True,
            QuestionKind.VALIDATE,
        ),
        # asks for the other pole, in the respondent's words: no validation to confirm
        (
            "What is the opposite of endless scrolling, in your own words?",
            "repertory_grid",
            True,
            QuestionKind.LADDER,
        ),
        ("Hmm, and the weather?", "means_end_chain", False, QuestionKind.EXPLORE),
        ("And the price?", "means_end_chain", True, QuestionKind.LADDER),
    ],
)
def test_question_kinds(question: str, method: str, names: bool, kind: QuestionKind) -> None:
    assert classify(question, method, names_something=names).kind is kind


@pytest.mark.parametrize(
    ("question", "method", "hint"),
    [
        ("What worried you about the capsule machine when you were deciding?", "jobs_to_be_done", "anxiety"),
        ("What was going wrong that made the queue matter?", "jobs_to_be_done", "push"),
        ("What did you hope the machine would let you do?", "jobs_to_be_done", "pull"),
        ("Who was involved in the discharge?", "critical_incident", "actor"),
        ("Why do you think the discharge turned out the way it did?", "critical_incident", "attribution"),
        # the interviewer puts the item between "differently" and "next time"
        (
            "Looking back, what would you want to happen differently with waiting for the letter next time?",
            "critical_incident",
            "learning",
        ),
        ("How did you feel at checkout?", "customer_journey_mapping", "emotion"),
        (
            "What is the opposite of lots of original shows, in your own words?",
            "repertory_grid",
            "implicit_pole",
        ),
        ("How does that make you feel about yourself?", "means_end_chain", "psychosocial_consequence"),
    ],
)
def test_type_hints(question: str, method: str, hint: str) -> None:
    assert hint in classify(question, method, names_something=True).type_hints


def _jtbd_template(family: str, part: str) -> str:
    """The interviewer's one template of `family` containing `part`, about the station café."""
    (template,) = [t for t in JTBD_TEMPLATES[family].node if part in t]
    return template.format(focus="the station café", it="it", was="was", Focus="The station café")


@pytest.mark.parametrize(
    ("family", "part", "hints", "not_hinted"),
    [
        ("push", "get in the way", {"push"}, set()),
        ("pull", "picture", {"pull"}, set()),
        ("push_pull_solution", "pushed you away", {"push", "pull"}, set()),
        ("push_pull_solution", "think about a change", {"push"}, set()),
        ("push_pull_solution", "came into the picture", set(), {"pull"}),
        ("push_pull_event", "hoping for", {"pull"}, set()),
        # the old way is named, but what made it stop being good enough is a push, not a habit
        ("push_pull_event", "stop being good enough", {"push"}, {"habit"}),
        ("job_of_solution", "What job", {"job"}, set()),
        ("alternatives", "been an option", {"solution"}, set()),
    ],
)
def test_the_interviewers_switch_questions_are_read_as_the_force_they_ask_for(
    family: str, part: str, hints: set[str], not_hinted: set[str]
) -> None:
    reading = classify(_jtbd_template(family, part), "jobs_to_be_done", names_something=True)
    assert hints <= set(reading.type_hints)
    assert not not_hinted & set(reading.type_hints)


@pytest.mark.parametrize(
    ("templates", "family", "part", "method", "hint"),
    [
        (CIT_TEMPLATES, "attribution", "made the difference", "critical_incident", "attribution"),
        (RGT_TEMPLATES, "pyramid_down", "what would tell you", "repertory_grid", "emergent_pole"),
        (RGT_TEMPLATES, "elements", "another example", "repertory_grid", "element"),
    ],
)
def test_the_interviewers_questions_hint_at_what_they_ask_for(
    templates: dict[str, Templates], family: str, part: str, method: str, hint: str
) -> None:
    (template,) = [t for t in (*templates[family].node, *templates[family].topic) if part in t]
    question = template.format(focus="waiting for the letter", topic="streaming services")
    assert hint in classify(question, method, names_something=True).type_hints


def test_another_time_is_no_lesson() -> None:
    reading = classify(
        "Did it happen differently the next time you went in?", "critical_incident", names_something=True
    )
    assert "learning" not in reading.type_hints


def test_hints_are_per_methodology() -> None:
    question = "What worried you about it?"
    assert "anxiety" in classify(question, "jobs_to_be_done", names_something=True).type_hints
    assert "anxiety" not in classify(question, "means_end_chain", names_something=True).type_hints


@pytest.mark.parametrize(
    "question",
    [
        "Where would each of the options you mentioned fall on no adverts, from one end to the other?",
        "If you rated each option from 1 to 5 on no adverts, how would they come out?",
        "On original shows, which option sits nearest each end, and why?",
        "How would you rate Netflix and YouTube on feeling made for you?",
    ],
)
def test_a_rating_question_is_read_as_one_in_a_repertory_grid_only(question: str) -> None:
    assert classify(question, "repertory_grid", names_something=True).kind is QuestionKind.RATE
    # elsewhere no scenario places elements on constructs: the question asks for specifics
    assert classify(question, "means_end_chain", names_something=True).kind is not QuestionKind.RATE


def _incident_questions() -> list[str]:
    family = CIT_TEMPLATES["incident"]
    return [t.format(topic="hospital discharge") for t in (*family.topic, *family.again)]


@pytest.mark.parametrize("question", _incident_questions())
def test_every_question_for_an_incident_is_read_as_one(question: str) -> None:
    """The interviewer's requests for an incident, first or another, open one with the respondent."""
    assert classify(question, "critical_incident", names_something=False).kind is QuestionKind.INCIDENT


def _timeline_questions() -> list[str]:
    family = JTBD_TEMPLATES["timeline"]
    return [t.format(topic="morning coffee") for t in dict.fromkeys((*family.topic, *family.again))]


@pytest.mark.parametrize("question", _timeline_questions())
def test_every_step_of_a_switch_timeline_is_read_as_one(question: str) -> None:
    """Each step the interviewer walks a switch's timeline by asks the respondent for the timeline."""
    assert classify(question, "jobs_to_be_done", names_something=False).kind is QuestionKind.TIMELINE


def test_every_wording_of_the_opposite_pole_question_reads_alike() -> None:
    # the respondent gives the other pole whichever way the interviewer words the request
    wordings = [t.format(focus="endless scrolling") for t in RGT_TEMPLATES["opposite_pole"].node]
    readings = {classify(q, "repertory_grid", names_something=True) for q in wordings}
    assert len(wordings) >= 5 and len(readings) == 1, readings
    (reading,) = readings
    assert reading.kind is QuestionKind.LADDER and "implicit_pole" in reading.type_hints


def _triad_questions() -> list[str]:
    family = RGT_TEMPLATES["triad"]
    values = {"a": "Netflix", "b": "YouTube", "c": "Disney+", "focus": "Netflix", "kind": "streaming service"}
    return [t.format(**values) for t in (*family.node, *family.summary)]


@pytest.mark.parametrize("question", _triad_questions())
@pytest.mark.parametrize("names", [True, False])
def test_every_triad_asks_for_a_new_construct(question: str, names: bool) -> None:
    """A triad asks for a construct, both poles, also when it names the elements and asks "why"."""
    reading = classify(question, "repertory_grid", names_something=names)
    assert reading.kind is QuestionKind.EXPLORE, question
    assert reading.type_hints[:2] == ("emergent_pole", "implicit_pole"), (question, reading.type_hints)


@pytest.mark.parametrize(
    ("question", "relates"),
    [
        ("You've mentioned battery life, comfort and peace of mind. How do these connect for you?", True),
        ("How are the price and the noise cancelling related for you?", True),
        ("Looking back at battery life and comfort, which of these matters most to you, and why?", False),
        ("Why is battery life important to you?", False),
    ],
)
def test_a_question_about_how_things_connect_is_told_apart(question: str, relates: bool) -> None:
    assert classify(question, "means_end_chain", names_something=True).relates is relates
