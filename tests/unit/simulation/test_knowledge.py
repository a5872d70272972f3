"""The offline respondent's bookkeeping of what is out: steps of the story and names in passing."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

from simulation.respondent.knowledge import KnowledgeState, Step
from simulation.scenarios import Scenario, ScenarioRegistry
from simulation.text import Lemmatizer

ROOT = Path(__file__).resolve().parents[3]


def _state(scenario: Scenario, lemmatizer: Lemmatizer) -> KnowledgeState:
    return KnowledgeState(scenario, lemmatizer, random.Random(0))


def test_mention_needs_every_content_word_of_a_label_or_phrasing(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    state = _state(mini_scenario, lemmatizer)
    assert state.mention("The battery was fine, honestly.", 1) == []  # one word of "long battery life"
    assert state.mention("Mostly that it has a long battery life.", 2) == ["a_battery"]
    assert state.mention("Did I say the long battery life?", 3) == []  # named once
    assert state.mentioned == {"a_battery": 2}
    assert state.revealed == {}  # the story has told nothing yet
    assert state.said() == {"a_battery"}


def test_an_element_the_story_revealed_is_not_mentioned_again(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    state = _state(mini_scenario, lemmatizer)
    state.mark([Step(mini_scenario.element("a_noise"))], 1)
    assert state.mention("Just the noise cancelling, really.", 2) == []
    assert state.mentioned == {}


def test_a_step_to_an_element_named_in_passing_states_its_link_but_not_the_element_again(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    state = _state(mini_scenario, lemmatizer)
    battery, charge = mini_scenario.element("a_battery"), mini_scenario.element("f_charge")
    assert state.mention("I don't have to charge them daily.", 1) == ["f_charge"]
    new, links = state.mark([Step(battery)], 2)
    assert (new, links) == (["a_battery"], [])
    chain = mini_scenario.chains_with("a_battery")[0]
    link = mini_scenario.link_between("a_battery", "f_charge")
    new, links = state.mark([Step(charge, battery, link, chain)], 3)
    assert new == []  # already out since turn 1
    assert links == ["a_battery->f_charge"]
    assert state.revealed == {"a_battery": 2, "f_charge": 3}
    assert state.said() == {"a_battery", "f_charge"}


def test_a_question_about_something_named_in_passing_is_about_it(
    scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("coffee_jtbd_cafe_to_capsule")
    state = _state(scenario, lemmatizer)
    state.mark([Step(scenario.element("t_saw_machine"))], 1)
    assert state.mention("I saw a capsule machine at a colleague's desk.", 1) == ["sol_capsule"]
    state.mark([Step(scenario.element("t_compared"))], 2)
    # "capsule machine" is all of the solution's name and part of the comparison's, which was said
    # last: the question asks about the machine (its worries and criteria are linked to it)
    picked = state.match("What worried you about the capsule machine when you were deciding?")
    assert picked is not None and picked.id == "sol_capsule"
    # what the respondent has not said is no candidate ...
    assert state.match("Why did you stop going to the station café?") is None
    # ... and a question that names more of the comparison is about the comparison
    picked = state.match("What did comparing the capsule machines online tell you?")
    assert picked is not None and picked.id == "t_compared"


_MATCH_SCRIPT = """
import random, sys
from pathlib import Path
from shared.methodology import ConceptRegistry, MethodologyRegistry
from simulation.respondent.knowledge import KnowledgeState
from simulation.scenarios import ScenarioRegistry
from simulation.text import Lemmatizer
config = Path("config")
registry = ScenarioRegistry(config, MethodologyRegistry(config), ConceptRegistry(config))
state = KnowledgeState(registry.get("headphones_mec_commuter"), Lemmatizer(), random.Random(0))
print(state.match(sys.argv[1], revealed_only=False).id)
"""


def test_the_element_a_question_names_does_not_depend_on_the_process_hash_seed() -> None:
    # three words of "comfortable ear cushions" and three of "keep them on for hours at my desk"
    # weigh the same; added up in a set's order, which each process's hash seed changes, the two
    # sums differed in the last bit under some seeds, and a rerun of a simulation took the other
    # element and told a different interview from there on
    question = (
        "From what you've said, several things come together: keeping them on for hours at your desk, "
        "wearing them all day and comfortable ear cushions. What is missing from that picture?"
    )
    picked = set()
    for seed in (0, 4):  # under 4 the plain sum came out one bit larger for the other element
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        done = subprocess.run(
            [sys.executable, "-c", _MATCH_SCRIPT, question],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        picked.add(done.stdout.strip())
    assert len(picked) == 1, picked
