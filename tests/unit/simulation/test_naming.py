"""Which hidden element a question names: candidates, recency, summaries and the phrasing taken up."""

from __future__ import annotations

from typing import Any

from simulation.respondent.naming import Namer
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer
from tests.unit.simulation.support import mini_scenario_data


def _namer(lemmatizer: Lemmatizer, **phrasings: list[str]) -> tuple[Namer, Scenario]:
    data: dict[str, Any] = mini_scenario_data()
    for element in data["elements"]:
        if element["id"] in phrasings:
            element["phrasings"] = phrasings[element["id"]]
    scenario = Scenario.model_validate(data)
    return Namer(scenario, lemmatizer), scenario


def test_only_a_candidate_can_be_named(lemmatizer: Lemmatizer) -> None:
    namer, _ = _namer(lemmatizer)
    question = "What does the long battery life give you?"
    assert namer.named(question, {"a_noise": 1}) is None
    picked = namer.named(question, {"a_noise": 1, "a_battery": 2})
    assert picked is not None and picked.element.id == "a_battery"


def test_between_equally_named_elements_the_one_said_last_wins(lemmatizer: Lemmatizer) -> None:
    # "train" is the only content word the question shares, and both phrasings hold it once
    namer, _ = _namer(lemmatizer, a_noise=["quiet on the train"], f_focus=["I can focus on the train"])
    question = "Tell me more about the train?"
    first = namer.named(question, {"a_noise": 3, "f_focus": 5})
    later = namer.named(question, {"a_noise": 6, "f_focus": 5})
    assert first is not None and later is not None
    assert first.key[0] == later.key[0]  # the same score either way: only the turn decides
    assert (first.element.id, later.element.id) == ("f_focus", "a_noise")


def test_a_summary_names_its_items_in_order_and_only_said_ones(lemmatizer: Lemmatizer) -> None:
    namer, _ = _namer(lemmatizer)
    summary = (
        "You've mentioned the long battery life, peace of mind and the noise cancelling. "
        "How do these connect for you?"
    )
    every = {"a_battery": 1, "v_peace": 2, "a_noise": 3}
    assert [e.id for e in namer.told_in(summary, every)] == ["a_battery", "v_peace", "a_noise"]
    assert [e.id for e in namer.told_in(summary, {"v_peace": 2, "a_noise": 3})] == ["v_peace", "a_noise"]


def test_the_element_is_voiced_in_the_phrasing_the_question_took_up(lemmatizer: Lemmatizer) -> None:
    namer, _ = _namer(lemmatizer, a_noise=["the noise cancelling", "blocks out the announcements"])
    picked = namer.named("How does it feel when it blocks out the announcements?", {"a_noise": 1})
    assert picked is not None
    assert picked.element.texts[picked.phrasing] == "blocks out the announcements"
    assert Namer.voiced(picked).phrasings == ("blocks out the announcements",)
    # named by its label, which is none of its phrasings, it keeps them all
    by_label = namer.named("What about noise cancelling?", {"a_noise": 1})
    assert by_label is not None and by_label.phrasing == 0
    assert Namer.voiced(by_label).phrasings == ("the noise cancelling", "blocks out the announcements")


def test_a_whole_label_in_the_question_is_named_said_or_not(lemmatizer: Lemmatizer) -> None:
    namer, _ = _namer(lemmatizer)
    assert namer.named_in("Is peace of mind what the long battery life is about?") == {
        "v_peace",
        "a_battery",
    }
    assert namer.named_in("Is it about the battery?") == set()  # part of a label names nothing
