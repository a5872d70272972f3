"""The offline ground-truth respondent: what it reveals for which question, and persona shaping."""

from __future__ import annotations

import itertools
import re
import statistics
from collections.abc import Sequence
from typing import Any

import pytest

from simulation.personas import Persona, PersonaRegistry
from simulation.respondent.knowledge import Step
from simulation.respondent.offline import OfflineRespondent
from simulation.scenarios import HiddenElement, Scenario, ScenarioRegistry
from simulation.text import Lemmatizer
from tests.unit.simulation.support import persona_data

CAUSAL_CUES = re.compile(r"because|so that|which means|, so |it lets me|that's important to me|in the end")
OPEN = "When you choose wireless headphones, what do you notice or look for?"
MEC_SCRIPT = [
    OPEN,
    "Why is {0} important to you?",
    "What does that give you?",
    "Why does that matter to you?",
    "When it comes to wireless headphones, what else do you notice or look for?",
    "Why is that important to you?",
    "What does that do for you, personally?",
    "And why does that matter to you in the end?",
    "Apart from that, what other things about wireless headphones matter to you?",
    "Why is that important to you?",
    "What does that give you?",
    "Why does that matter to you?",
    "What else do you look for?",
    "Why is that important to you?",
    "What does that give you?",
    "Why does that matter to you?",
]


def _persona(**overrides: Any) -> Persona:
    return Persona.model_validate(persona_data(**overrides))


def _script(respondent: OfflineRespondent, questions: Sequence[str]) -> list[str]:
    answers = []
    for turn, q in enumerate(questions, start=1):
        label = respondent.state.current.label if respondent.state.current else ""
        answers.append(respondent.respond(q.format(label), turn))
    return answers


def _words(texts: Sequence[str]) -> float:
    return statistics.fmean(len(t.split()) for t in texts)


def test_broad_question_opens_a_chain_at_its_first_level(
    plain_persona: Persona, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    r = OfflineRespondent(plain_persona, mini_scenario, seed=3, lemmatizer=lemmatizer)
    r.respond(OPEN, 1)
    first = r.log[-1]
    starts = {c.elements[0] for c in mini_scenario.chains}
    assert first.kind == "explore"
    assert len(first.revealed_elements) == 1 and first.revealed_elements[0] in starts
    assert first.revealed_links == []


def test_laddering_reveals_the_next_level_of_the_focused_chain(
    plain_persona: Persona, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    for seed in range(6):  # whichever chain the seed opens first, "why" climbs that chain
        r = OfflineRespondent(plain_persona, mini_scenario, seed=seed, lemmatizer=lemmatizer)
        r.respond(OPEN, 1)
        opened = mini_scenario.element(r.log[-1].revealed_elements[0])
        chain = mini_scenario.chains_with(opened.id)[0]
        answer = r.respond(f"Why is {opened.label} important to you?", 2)
        turn = r.log[-1]
        nxt = mini_scenario.element(chain.elements[1])
        assert turn.focus_element == opened.id
        assert turn.revealed_elements == [nxt.id]
        assert turn.revealed_links == [f"{opened.id}->{nxt.id}"]
        assert nxt.phrasings[0] in answer
        assert CAUSAL_CUES.search(answer), answer


def test_laddering_follows_the_element_the_question_names(
    plain_persona: Persona, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    r = OfflineRespondent(plain_persona, mini_scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(OPEN, 1)
    r.respond("What else do you look for?", 2)  # both chains are open now
    r.respond("Why is noise cancelling important to you?", 3)
    assert r.log[-1].revealed_elements == ["f_focus"]
    r.respond("What does focusing on the train do for you?", 4)
    assert r.log[-1].revealed_elements == ["p_calm"]
    r.respond("Why does feeling calm matter to you?", 5)
    assert r.log[-1].revealed_elements == ["v_peace"]
    answer = r.respond("Why is peace of mind important to you?", 6)
    assert r.log[-1].revealed_elements == []  # the top of the ladder: nothing further
    assert "peace of mind" in answer
    r.respond("Why is the long battery life important to you?", 7)
    assert r.log[-1].revealed_elements == ["f_charge"]


def test_a_second_broad_question_opens_the_other_chain(
    plain_persona: Persona, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    r = OfflineRespondent(plain_persona, mini_scenario, seed=5, lemmatizer=lemmatizer)
    r.respond(OPEN, 1)
    first = r.log[-1].revealed_elements[0]
    r.respond("What else do you notice or look for?", 2)
    second = r.log[-1].revealed_elements
    starts = {c.elements[0] for c in mini_scenario.chains}
    assert second == list(starts - {first})


def test_clarify_gives_detail_without_new_elements(
    plain_persona: Persona, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    r = OfflineRespondent(plain_persona, mini_scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(OPEN, 1)
    r.respond("What else do you look for?", 2)
    answer = r.respond("When you say noise cancelling, what do you mean exactly?", 3)
    turn = r.log[-1]
    assert turn.kind == "specific"
    # the side element linked to the focus (lightweight -> noise cancelling) is the detail offered
    assert turn.revealed_elements == ["a_light"] or "train announcements" in answer


def test_answers_are_deterministic_per_seed(
    personas: PersonaRegistry, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("headphones_mec_commuter")
    persona = personas.get("verbose_tangential")

    def run(seed: int) -> list[str]:
        return _script(OfflineRespondent(persona, scenario, seed=seed, lemmatizer=lemmatizer), MEC_SCRIPT)

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_brief_answers_are_shorter_than_baseline(
    personas: PersonaRegistry, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("headphones_mec_commuter")
    brief, base = [], []
    for seed in range(4):
        brief += _script(
            OfflineRespondent(personas.get("brief_responder"), scenario, seed=seed, lemmatizer=lemmatizer),
            MEC_SCRIPT,
        )
        base += _script(
            OfflineRespondent(
                personas.get("baseline_cooperative"), scenario, seed=seed, lemmatizer=lemmatizer
            ),
            MEC_SCRIPT,
        )
    assert _words(brief) < 0.7 * _words(base)


def test_verbose_answers_are_longer_than_baseline(
    personas: PersonaRegistry, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("headphones_mec_runner")
    verbose = _script(
        OfflineRespondent(personas.get("verbose_tangential"), scenario, seed=2, lemmatizer=lemmatizer),
        MEC_SCRIPT,
    )
    base = _script(
        OfflineRespondent(personas.get("baseline_cooperative"), scenario, seed=2, lemmatizer=lemmatizer),
        MEC_SCRIPT,
    )
    assert _words(verbose) > 1.3 * _words(base)


def test_hedger_hedges_and_baseline_does_not(
    personas: PersonaRegistry, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("headphones_mec_student_gamer")
    hedges = re.compile(r"\bI guess\b|\bkind of\b|\bsort of\b|\bmaybe\b|\bI'm not sure\b|\bprobably\b", re.I)
    hedger = _script(
        OfflineRespondent(personas.get("uncertain_hedger"), scenario, seed=1, lemmatizer=lemmatizer),
        MEC_SCRIPT,
    )
    base = _script(
        OfflineRespondent(personas.get("baseline_cooperative"), scenario, seed=1, lemmatizer=lemmatizer),
        MEC_SCRIPT,
    )
    assert sum(bool(hedges.search(a)) for a in hedger) >= len(hedger) / 2
    assert sum(bool(hedges.search(a)) for a in base) <= 2


def test_rationaliser_withholds_emotional_levels_until_probed_twice(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    guarded = _persona(
        rationalisation={"emotional_probe_threshold": 2, "practical_phrases": ["It's just practical."]}
    )
    r = OfflineRespondent(guarded, mini_scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(OPEN, 1)
    r.respond("What else do you look for?", 2)
    r.respond("Why is noise cancelling important to you?", 3)
    assert r.log[-1].revealed_elements == ["f_focus"]  # functional: said at once
    answer = r.respond("Why is focusing on the train important to you?", 4)
    assert r.log[-1].revealed_elements == []  # psychosocial: withheld at the first probe
    assert "withheld" in r.log[-1].behaviours and "It's just practical." in answer
    r.respond("And why does focusing on the train matter to you?", 5)
    assert r.log[-1].revealed_elements == ["p_calm"]  # given up at the second probe


def test_tangential_persona_adds_an_off_topic_sentence(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    chatty = _persona(tangents={"probability": 1.0, "phrases": ["My neighbour has a parrot."]})
    r = OfflineRespondent(chatty, mini_scenario, seed=0, lemmatizer=lemmatizer)
    answer = r.respond(OPEN, 1)
    assert answer.endswith("My neighbour has a parrot.")
    assert len(r.log[-1].revealed_elements) == 1  # the content is still there


def test_fatiguing_answers_get_flatter(
    personas: PersonaRegistry, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("headphones_mec_commuter")
    early, late = [], []
    for seed in range(4):
        answers = _script(
            OfflineRespondent(personas.get("fatiguing"), scenario, seed=seed, lemmatizer=lemmatizer),
            MEC_SCRIPT,
        )
        early += answers[:4]
        late += answers[-4:]
    assert _words(late) < 0.6 * _words(early)


def test_fixator_keeps_returning_to_the_first_chain(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    fixated = _persona(fixation={"probability": 1.0, "phrases": ["It always comes back to {focus}."]})
    r = OfflineRespondent(fixated, mini_scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(OPEN, 1)
    first_chain = mini_scenario.chains_with(r.log[-1].revealed_elements[0])[0]
    for turn in range(2, 6):
        r.respond("What else do you notice or look for?", turn)
        assert set(r.log[-1].revealed_elements) <= set(first_chain.elements)
        assert "fixation" in r.log[-1].behaviours


def test_sceptic_may_answer_with_a_counter_question(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    sceptic = _persona(
        scepticism={"question_only_probability": 1.0, "counter_questions": ["Why do you ask?"]}
    )
    r = OfflineRespondent(sceptic, mini_scenario, seed=0, lemmatizer=lemmatizer)
    assert r.respond(OPEN, 1) == "Why do you ask?"
    assert r.log[-1].revealed_elements == []


def test_emotionally_reactive_persona_uses_strong_valence(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    reactive = _persona(
        valence={
            "intensity": 1.0,
            "positive": ["I absolutely love that!"],
            "negative": ["I hate that so much!"],
        }
    )
    answer = OfflineRespondent(reactive, mini_scenario, seed=0, lemmatizer=lemmatizer).respond(OPEN, 1)
    assert "I absolutely love that!" in answer or "I hate that so much!" in answer


def test_summary_is_confirmed_and_closing_is_thanked(
    plain_persona: Persona, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    r = OfflineRespondent(plain_persona, mini_scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(OPEN, 1)
    answer = r.respond(
        "If I've understood you, it all comes down to this. How well does that match how you see it?", 2
    )
    assert r.log[-1].kind == "validate"
    assert answer.startswith(("Yes", "Pretty much"))
    answer = r.respond("Before we finish, what else would you like to add that we haven't covered?", 3)
    assert r.log[-1].kind == "closing"
    assert answer.startswith("Thank")


def test_critical_incident_question_opens_an_incident(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("hospital_discharge_cit_medication")
    r = OfflineRespondent(plain_persona, scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(
        "Think of one particular occasion with hospital discharge that stood out as especially good or "
        "especially bad: what happened?",
        1,
    )
    opened = r.log[-1].revealed_elements
    types = [scenario.element(e).node_type for e in opened]
    assert types == ["situation", "incident"]
    incident = scenario.element(opened[1])
    r.respond(f"Who was involved in {incident.label}, and what were their roles?", 2)
    # what the story told in turn 2 (the actor may have been named in passing in turn 1 already)
    told = [e for e, turn in r.state.revealed.items() if turn == 2]
    assert [scenario.element(e).node_type for e in told] == ["actor"]
    r.respond(f"What happened as a result of {incident.label}?", 3)
    assert "outcome" in {scenario.element(e).node_type for e in r.log[-1].revealed_elements}


def test_jobs_to_be_done_timeline_and_forces(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("coffee_jtbd_cafe_to_capsule")
    r = OfflineRespondent(plain_persona, scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(
        "Think of a recent time you changed how you handle morning coffee: what first got you thinking "
        "about it?",
        1,
    )
    assert r.log[-1].revealed_elements == ["s_rushing"]
    r.respond("After that first thought, what happened next?", 2)
    assert r.log[-1].revealed_elements == ["t_missed_train"]
    r.respond("What was going wrong that made missing the train matter?", 3)
    assert r.log[-1].revealed_elements == ["p_queue"]


def _after_a_triad(
    persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> tuple[Scenario, OfflineRespondent, list[HiddenElement]]:
    """The repertory-grid respondent after one triad question, and what it revealed."""
    scenario = scenarios.get("streaming_services_repgrid_family")
    r = OfflineRespondent(persona, scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(
        "Thinking about Netflix, YouTube and Disney+, in what important way are two of them alike and "
        "different from the third?",
        1,
    )
    return scenario, r, [scenario.element(e) for e in r.log[-1].revealed_elements]


def test_repertory_grid_triad_gives_both_poles(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    _, _, revealed = _after_a_triad(plain_persona, scenarios, lemmatizer)
    assert [e.node_type for e in revealed] == ["emergent_pole", "implicit_pole"]


def test_asked_again_for_an_opposite_already_told_the_respondent_says_it_again(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario, r, (emergent, implicit) = _after_a_triad(plain_persona, scenarios, lemmatizer)
    assert (emergent.node_type, implicit.node_type) == ("emergent_pole", "implicit_pole")
    answer = r.respond(f"What is the opposite of {emergent.label}, in your own words?", 2)
    # the other pole, said again: not the next rung of the ladder, which the question did not ask for
    assert r.log[-1].kind == "ladder" and r.log[-1].revealed_elements == []
    said = [implicit.label, *implicit.phrasings]
    assert any(p.lower() in answer.lower() for p in said), answer
    # and the other way round: the opposite of the implicit pole is the emergent one
    answer = r.respond(f"If something isn't {implicit.label}, what is it instead, for you?", 3)
    assert r.log[-1].revealed_elements == []
    assert any(p.lower() in answer.lower() for p in [emergent.label, *emergent.phrasings]), answer
    # a question that asks for more than the pole still climbs the ladder
    r.respond(
        f"Between {emergent.label} and the opposite, which end do you prefer, and why is that important "
        "to you?",
        4,
    )
    climbed = [scenario.element(e).node_type for e in r.log[-1].revealed_elements]
    assert climbed and "implicit_pole" not in climbed, r.log[-1]


def test_a_rating_question_places_the_named_elements_on_the_construct(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("streaming_services_repgrid_family")
    r = OfflineRespondent(plain_persona, scenario, seed=0, lemmatizer=lemmatizer)
    r.respond("Which video streaming services have you used or come across?", 1)
    for turn in range(2, 7):
        r.respond(
            "What other examples of video streaming services can you name, including one you don't like?",
            turn,
        )
    pole = scenario.element("ep_easy_find")
    assert {"el_youtube", "el_disney", pole.id} <= r.state.said()
    rate = f"Where would each of the options you mentioned fall on {pole.label}, from one end to the other?"

    r.respond(rate, 7)
    placed = r.log[-1]
    assert placed.kind == "rate" and placed.focus_element == pole.id
    links = {link.id: link for link in scenario.links}
    # elements named turns ago, placed on this construct's poles (the emergent one and its opposite)
    construct = {pole.id} | {
        link.target
        for link in scenario.links
        if link.source == pole.id and link.edge_type == "contrasts_with"
    }
    assert placed.revealed_links and all(
        links[i].edge_type == "placed_at" and links[i].target in construct for i in placed.revealed_links
    )
    assert "el_youtube->ep_easy_find" in placed.revealed_links
    assert not placed.revealed_elements

    r.respond(rate, 8)  # asked again: every element of it is placed already
    assert r.log[-1].kind == "rate" and not r.log[-1].revealed_links


def _at_the_colleagues_machine(
    persona: Persona, scenario: Scenario, lemmatizer: Lemmatizer
) -> OfflineRespondent:
    """The coffee timeline told up to turn 3, whose answer is the colleague's capsule machine."""
    r = OfflineRespondent(persona, scenario, seed=0, lemmatizer=lemmatizer)
    r.respond(
        "Think of a recent time you changed how you handle morning coffee: what first got you thinking?", 1
    )
    r.respond("What happened next?", 2)
    r.respond("And what happened after that?", 3)
    return r


def test_a_hinted_question_reaches_the_asked_for_type_through_links(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("coffee_jtbd_cafe_to_capsule")
    r = _at_the_colleagues_machine(plain_persona, scenario, lemmatizer)
    assert r.log[-1].revealed_elements == ["t_saw_machine"]
    # the timeline's next step is not what is asked: the answer walks to a job or outcome instead
    r.respond(
        "In that situation with the colleague's capsule machine, what progress were you trying to make?", 4
    )
    revealed = r.log[-1].revealed_elements
    assert len(revealed) == 2
    assert scenario.element(revealed[-1]).node_type in {"job", "desired_outcome"}
    assert "t_compared" not in revealed


def test_an_element_named_inside_another_ones_phrasing_is_said_in_passing(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    # Both phrasings of "saw a colleague's machine" name the capsule machine, a solution of its own:
    # the graph may hold it from that answer on, so it counts as out, though no step revealed it.
    scenario = scenarios.get("coffee_jtbd_cafe_to_capsule")
    r = _at_the_colleagues_machine(plain_persona, scenario, lemmatizer)
    turn = r.log[-1]
    assert turn.revealed_elements == ["t_saw_machine"]
    assert "capsule machine" in turn.answer
    assert turn.mentioned_elements == ["sol_capsule"]
    assert "sol_capsule" in r.revealed()[0]
    # the story has not told it: the planner may still bring it out, with its links
    assert "sol_capsule" not in r.state.revealed
    r.respond("What happened next?", 4)
    assert "sol_capsule" not in r.log[-1].mentioned_elements  # listed once, in the turn that named it


def _told_apart(persona: Persona, scenario: Scenario, lemmatizer: Lemmatizer) -> OfflineRespondent:
    """The café chain told to its end, then spending too much, then the timeline to the missed train
    and the café queue: neighbours in the hidden graph, each told without its link to the other."""
    r = OfflineRespondent(persona, scenario, seed=0, lemmatizer=lemmatizer)
    element, link = scenario.element, scenario.link_between
    chains = {c.id: c for c in scenario.chains}
    cafe = chains["cafe"]
    path = zip(cafe.elements, cafe.elements[1:], strict=False)
    r.state.mark(
        [Step(element(cafe.elements[0]), chain=cafe)]
        + [Step(element(b), element(a), link(a, b), cafe) for a, b in path],
        1,
    )
    r.state.mark([Step(element("p_spending"), element("sol_cafe"), link("sol_cafe", "p_spending"))], 2)
    timeline = chains["timeline"]
    rushing, missed = element("s_rushing"), element("t_missed_train")
    told = [Step(rushing, chain=timeline), Step(missed, rushing, link(rushing.id, missed.id), timeline)]
    r.state.mark(told, 3)
    r.state.mark([Step(element("p_queue"), chain=chains["push"])], 4)
    return r


def test_asked_about_an_element_whose_neighbour_is_told_the_respondent_says_how_they_bear(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("coffee_jtbd_cafe_to_capsule")
    r = _told_apart(plain_persona, scenario, lemmatizer)
    outcome = scenario.element("o_spend_less")
    assert "p_spending->o_spend_less" not in r.state.revealed_links

    answer = r.respond("Why does spending too much on coffee matter to you?", 5)
    turn = r.log[-1]
    # the outcome is told already: the answer links it, with nothing new, instead of a shrug
    assert (turn.kind, turn.focus_element) == ("ladder", "p_spending")
    assert turn.revealed_links == ["p_spending->o_spend_less"] and turn.revealed_elements == []
    assert any(p.lower() in answer.lower() for p in [outcome.label, *outcome.phrasings]), answer

    # what pushed them after the missed train: the queue, told before, now said as its result
    r.respond("What was going wrong that made missing the train matter?", 6)
    assert r.log[-1].revealed_links == ["t_missed_train->p_queue"]
    assert r.log[-1].revealed_elements == []

    # asked again, the link is said: the next answer about it brings nothing of the kind
    r.respond("Why does spending too much on coffee matter to you?", 7)
    assert "p_spending->o_spend_less" not in r.log[-1].revealed_links


@pytest.mark.parametrize(
    ("scenario_id", "said", "question", "focus", "revealed", "links"),
    [
        # the solution dropped and why, not what sold them on the grinder (its next level)
        (
            "coffee_jtbd_instant_to_grinder",
            ["sol_grinder"],
            "Before the hand grinder, what did you use instead, and what made you stop?",
            "sol_grinder",
            ["sol_instant", "f_bitter"],
            ["sol_instant->f_bitter"],
        ),
        # the café holds back nothing; the worry about the switch held back the capsule machine
        (
            "coffee_jtbd_cafe_to_capsule",
            ["sol_capsule", "sol_cafe"],
            "Thinking of the station café, what worried you about changing?",
            "sol_cafe",
            ["anx_cost"],
            ["anx_cost->sol_capsule"],
        ),
    ],
)
def test_asked_about_the_old_or_the_new_solution_the_respondent_answers_from_the_other(
    personas: PersonaRegistry,
    scenarios: ScenarioRegistry,
    lemmatizer: Lemmatizer,
    scenario_id: str,
    said: list[str],
    question: str,
    focus: str,
    revealed: list[str],
    links: list[str],
) -> None:
    r = OfflineRespondent(
        personas.get("baseline_cooperative"), scenarios.get(scenario_id), seed=0, lemmatizer=lemmatizer
    )
    r.state.mark([Step(r.scenario.element(e)) for e in said], 1)
    r.respond(question, 2)
    turn = r.log[-1]
    assert turn.focus_element == focus
    assert (turn.revealed_elements, turn.revealed_links) == (revealed, links)


@pytest.mark.parametrize("seed", range(4))
def test_an_element_asked_about_in_one_of_its_phrasings_is_said_again_in_it(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer, seed: int
) -> None:
    # the interviewer's node holds the words it was asked in; an answer in other words of the same
    # element bore on a twin node and left the asked one without its opposite
    scenario = scenarios.get("streaming_services_repgrid_family")
    for pole in (e for e in scenario.elements if e.node_type.endswith("_pole")):
        for phrasing in pole.phrasings:
            r = OfflineRespondent(plain_persona, scenario, seed=seed, lemmatizer=lemmatizer)
            r.state.revealed[pole.id] = 0
            answer = r.respond(f"What is the opposite of {phrasing}, in your own words?", 1)
            assert r.log[-1].focus_element == pole.id
            assert phrasing.lower() in answer.lower(), (phrasing, answer)
            others = [p for p in pole.phrasings if p != phrasing and p.lower() not in phrasing.lower()]
            assert not any(p.lower() in answer.lower() for p in others), (phrasing, answer)


def _told(r: OfflineRespondent, *ids: str, links: Sequence[str] = ()) -> None:
    """Mark elements (and links) as told, as earlier turns would have."""
    for ident in ids:
        r.state.revealed[ident] = 0
    for link in links:
        r.state.revealed_links[link] = 0


def _noise_ladder_and_the_price(
    persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> tuple[Scenario, OfflineRespondent]:
    """The commuter's noise-cancelling ladder told to its top, and the price told alone."""
    scenario = scenarios.get("headphones_mec_commuter")
    r = OfflineRespondent(persona, scenario, seed=0, lemmatizer=lemmatizer)
    noise = ["a_noise_cancelling", "fc_focus_train", "pc_less_stressed", "tv_peace_of_mind"]
    _told(r, *noise, "a_price", links=[f"{a}->{b}" for a, b in itertools.pairwise(noise)])
    return scenario, r


def test_asked_how_the_things_of_a_summary_connect_the_respondent_says_how_two_of_them_bear(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario, r = _noise_ladder_and_the_price(plain_persona, scenarios, lemmatizer)
    said = [scenario.element(e).phrasings[0] for e in ("a_noise_cancelling", "a_price", "tv_peace_of_mind")]
    r.respond(f"You've mentioned {said[0]}, {said[1]} and {said[2]}. How do these connect for you?", 1)
    # the one link between them not said yet: the noise cancelling is at odds with the price
    assert r.log[-1].revealed_links == ["a_noise_cancelling->a_price"]


def test_asked_which_of_a_summary_matters_most_the_respondent_takes_the_one_with_more_to_say(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario, r = _noise_ladder_and_the_price(plain_persona, scenarios, lemmatizer)
    top, price = (scenario.element(e).phrasings[0] for e in ("tv_peace_of_mind", "a_price"))
    r.respond(f"Looking back at {price} and {top}, which of these matters most to you, and why?", 1)
    # the question is about the top of a finished ladder; the price's ladder goes on
    assert r.log[-1].focus_element == "tv_peace_of_mind"
    assert r.log[-1].revealed_elements[:1] == ["fc_saves_money"]


def test_asked_for_a_contrasting_time_once_every_one_is_told_the_respondent_says_how_two_differ(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("hospital_discharge_cit_carer")
    r = OfflineRespondent(plain_persona, scenario, seed=0, lemmatizer=lemmatizer)
    _told(r, *(e for c in scenario.chains for e in c.elements))
    r.state.opened.extend(c.id for c in scenario.chains)
    r.respond("Could you tell me about another time with hospital discharge that stood out?", 1)
    assert r.log[-1].kind == "incident" and r.log[-1].revealed_links == []  # nothing else to tell
    assert r.log[-1].nothing_left  # and it says so
    answer = r.respond("What is a time with hospital discharge that went the opposite way?", 2)
    (contrast,) = [lk for lk in scenario.links if lk.edge_type == "contrasts_with"]
    assert r.log[-1].kind == "incident" and r.log[-1].revealed_links == [contrast.id]
    assert not r.log[-1].nothing_left
    told = [scenario.element(contrast.source), scenario.element(contrast.target)]
    assert all(any(p.lower() in answer.lower() for p in e.phrasings) for e in told), answer


def test_a_fixated_respondent_whose_topic_heads_no_ladder_says_something_new_about_it(
    scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    # a repertory grid's favourite element heads only the list of elements: asked for a triad, the
    # person talks about it again, but says how it stands on a construct instead of nothing new
    scenario = scenarios.get("streaming_services_repgrid_family")
    fixated = _persona(fixation={"probability": 1.0, "phrases": ["It always comes back to {focus}."]})
    r = OfflineRespondent(fixated, scenario, seed=0, lemmatizer=lemmatizer)
    r.respond("Which examples of video streaming services have you used or come across?", 1)
    (favourite,) = r.log[-1].revealed_elements
    assert scenario.element(favourite).node_type == "element"
    r.respond("Thinking of three video streaming services you know, how are two of them alike?", 2)
    assert "fixation" in r.log[-1].behaviours
    (link,) = r.log[-1].revealed_links
    assert link.startswith(f"{favourite}->")


def test_only_a_question_for_something_new_is_spent_by_nothing_else(
    plain_persona: Persona, scenarios: ScenarioRegistry, lemmatizer: Lemmatizer
) -> None:
    scenario = scenarios.get("headphones_mec_commuter")
    r = OfflineRespondent(plain_persona, scenario, seed=0, lemmatizer=lemmatizer)
    _told(r, *(e.id for e in scenario.elements))
    r.state.opened.extend(c.id for c in scenario.chains)
    # asked why something matters before anything was said of it, with every thread out: nothing
    # to tell, but a question about something said can still get an answer
    r.respond("Why does that matter to you?", 1)
    assert r.log[-1].kind == "ladder" and r.log[-1].revealed_elements == []
    assert r.log[-1].nothing_left is False
    # asked for something else when every thread is out: nothing else of that kind is left
    r.respond("What else do you look for in headphones?", 2)
    assert r.log[-1].kind == "explore" and r.log[-1].revealed_elements == []
    assert r.log[-1].nothing_left is True


def test_a_broad_question_brings_out_the_head_of_a_ladder_entered_midway(
    plain_persona: Persona, mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    r = OfflineRespondent(plain_persona, mini_scenario, seed=0, lemmatizer=lemmatizer)
    chains = {c.id: c for c in mini_scenario.chains}
    element, link = mini_scenario.element, mini_scenario.link_between
    battery, charge = element("a_battery"), element("f_charge")
    # the battery ladder told from its head; the noise ladder entered at its second rung, what the
    # noise cancelling does, told without the noise cancelling itself
    r.state.mark(
        [
            Step(battery, chain=chains["battery"]),
            Step(charge, battery, link("a_battery", "f_charge"), chains["battery"]),
            Step(element("f_focus"), chain=chains["noise"]),
        ],
        1,
    )
    assert set(r.state.opened) == {"battery", "noise"}  # no chain left unopened
    answer = r.respond("What else do you look for in headphones?", 2)
    turn = r.log[-1]
    assert turn.kind == "explore"
    assert turn.revealed_elements == ["a_noise"], answer
    assert turn.nothing_left is False
    # once the head is out, nothing of that kind is left
    r.respond("What else do you look for in headphones?", 3)
    assert r.log[-1].revealed_elements == []
    assert r.log[-1].nothing_left is True
