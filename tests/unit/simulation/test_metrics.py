"""Recall, link recall, chain completion and question metrics on hand-built graphs."""

from __future__ import annotations

from typing import Any

import pytest

from simulation.matching import ElementMatcher
from simulation.metrics import asked_after_nothing_left, compute, question_metrics, recall_metrics
from simulation.records import GraphEdge, GraphNode, TurnRecord
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer
from tests.unit.simulation.support import mini_scenario_data, sample_record


def test_recall_on_a_constructed_graph(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    record = sample_record()
    r = recall_metrics(
        mini_scenario,
        record.graph,
        ElementMatcher(mini_scenario, lemmatizer),
        set(record.revealed_elements),
        set(record.revealed_links),
    )
    # n1 noise cancelling -> a_noise, n2 -> f_focus, n3 "calm" -> p_calm (Dice 2·1/3),
    # n4 "battery" -> a_battery (Dice 2·1/4 = 0.5), n6 "charge daily" -> f_charge; n5 "weather": nothing
    assert r.recovered == ["a_battery", "a_noise", "f_charge", "f_focus", "p_calm"]
    assert (r.elements_recovered, r.elements_total) == (5, 7)
    assert r.element_recall == pytest.approx(5 / 7)
    assert r.elements_recovered_typed == 5
    assert r.revealed_share == pytest.approx(4 / 7)
    assert r.recall_of_revealed == pytest.approx(3 / 4)  # v_peace was said but not extracted
    # links: a_noise->f_focus (n1->n2), f_focus->p_calm (as n3->n2, reversed), a_battery->f_charge (n4->n6)
    assert (r.links_recovered, r.links_total, r.links_recovered_typed) == (3, 5, 2)
    assert r.link_recall == pytest.approx(3 / 5)
    assert r.link_recall_of_revealed == pytest.approx(2 / 3)
    # battery chain complete; noise chain lacks v_peace
    assert (r.chains_completed, r.chains_connected, r.chains_total) == (1, 1, 2)
    assert r.chain_completion == pytest.approx(0.5)
    assert r.mean_chain_progress == pytest.approx((3 / 4 + 2 / 2) / 2)
    assert (r.nodes_matched, r.nodes_total) == (5, 6)


def test_a_chain_completes_only_as_one_walk_through_the_graph(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    matcher = ElementMatcher(mini_scenario, lemmatizer)
    record = sample_record()
    peace = GraphNode(id="n7", label="peace of mind", node_type="terminal_value", level=4)
    record.graph.nodes.append(peace)
    record.graph.edges.append(GraphEdge(id="e4", source="n3", target="n7", edge_type="leads_to"))
    r = recall_metrics(mini_scenario, record.graph, matcher, set(), set())
    # noise: n1 - n2 - n3 - n7, every link on the walk; battery: n4 - n6
    assert (r.chains_completed, r.chains_connected) == (2, 2)

    # p_calm split over two nodes: n3 holds the link from f_focus, a second "feel calm" node the
    # link to v_peace. Every element and every link is still recovered, but no walk goes through.
    split = sample_record()
    split.graph.nodes += [
        peace,
        GraphNode(id="n8", label="feel calm", node_type="psychosocial_consequence", level=3),
    ]
    split.graph.edges.append(GraphEdge(id="e4", source="n8", target="n7", edge_type="leads_to"))
    r = recall_metrics(mini_scenario, split.graph, matcher, set(), set())
    assert set(r.recovered) >= {"a_noise", "f_focus", "p_calm", "v_peace"}
    assert r.links_recovered == 4  # all three links of the noise chain, and the battery one
    assert (r.chains_completed, r.chains_connected) == (1, 1)  # the battery chain only
    assert r.chains_completed_canonical is None  # no canonical slots in the run

    # the two "calm" nodes share a canonical slot: over slots the walk goes through
    split.graph.slot_of = {"n3": "s_calm", "n8": "s_calm", "n1": "s_noise"}
    r = recall_metrics(mini_scenario, split.graph, matcher, set(), set())
    assert r.chains_completed == 1
    assert (r.chains_completed_canonical, r.chain_completion_canonical) == (2, 1.0)
    # a slot joins nodes, not links: without the edge into the second node the chain stays open
    split.graph.edges = [e for e in split.graph.edges if e.id != "e4"]
    r = recall_metrics(mini_scenario, split.graph, matcher, set(), set())
    assert r.chains_completed_canonical == 1


def test_type_must_agree_for_typed_recall(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    record = sample_record()
    record.graph.nodes[2].node_type = "terminal_value"  # "calm" extracted at the wrong level
    r = recall_metrics(mini_scenario, record.graph, ElementMatcher(mini_scenario, lemmatizer), set(), set())
    assert r.elements_recovered == 5
    assert r.elements_recovered_typed == 4


def test_one_node_recovers_at_most_one_element(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    matcher = ElementMatcher(mini_scenario, lemmatizer)
    matches = matcher.assign([("x", "noise cancelling focus", "attribute")])
    assert len(matches) == 1
    assert matches[0].element_id == "a_noise"  # Dice 0.8 beats "focus on the train" (0.5)


def test_embedding_similarity_catches_paraphrases(
    mini_scenario: Scenario, lemmatizer: Lemmatizer, embedder: Any
) -> None:
    label = [("x", "less anxious at work", "psychosocial_consequence")]
    assert ElementMatcher(mini_scenario, lemmatizer).assign(label) == []  # lemmas alone: Dice 1/3
    matches = ElementMatcher(mini_scenario, lemmatizer, embedder).assign(label)
    assert [(m.element_id, m.method) for m in matches] == [("p_calm", "embedding")]


def test_repeated_questions_and_form(lemmatizer: Lemmatizer) -> None:
    questions = [
        "Thanks for joining. What do you look for in headphones?",
        "Why is noise cancelling important to you?",
        "Why is noise-cancelling important to you?",  # exact repeat once punctuation is ignored
        "Why is the noise cancelling so important to you?",  # near: lemmas {noise, cancel, important}
        "What does the battery give you? And why?",  # two questions
        "Tell me more about the battery",  # no question mark
    ]
    q = question_metrics(questions, lemmatizer)
    assert (q.count, q.exact_repeats, q.near_repeats) == (6, 1, 2)
    assert q.repeated_rate_exact == pytest.approx(1 / 5)
    assert q.repeated_rate_near == pytest.approx(2 / 5)
    assert q.single_question_share == pytest.approx(4 / 6)
    assert q.ends_with_question_mark_share == pytest.approx(5 / 6)
    # words: 10, 7, 6, 9, 8, 6
    assert q.words_max == 10
    assert q.words_median == pytest.approx(7.5)
    assert q.words_mean == pytest.approx(46 / 6)


def test_a_rewording_the_respondent_asked_for_is_not_a_repeat(lemmatizer: Lemmatizer) -> None:
    questions = [
        "What do you look for in headphones?",
        "Which one do you use most today, and why?",
        "Which one do you use most today, and why?",  # asked again after "what do you mean?"
        "Why does the battery matter to you?",
    ]
    plain = question_metrics(questions, lemmatizer)
    assert (plain.exact_repeats, plain.near_repeats, plain.rewordings) == (1, 1, 0)
    asked = question_metrics(questions, lemmatizer, reworded=frozenset({2}))
    assert (asked.exact_repeats, asked.near_repeats, asked.rewordings) == (0, 0, 1)
    assert asked.repeated_rate_near == 0.0 and asked.count == 4


def test_questions_for_what_the_respondent_has_none_left_of_are_counted() -> None:
    def turn(n: int, kind: str, *, nothing_left: bool = False) -> TurnRecord:
        return TurnRecord(turn=n, question="?", answer=".", respondent_kind=kind, nothing_left=nothing_left)

    turns = [
        turn(1, "incident"),
        turn(2, "ladder"),
        turn(3, "incident", nothing_left=True),  # "nothing else comes to mind"
        turn(4, "ladder"),
        turn(5, "incident", nothing_left=True),  # asked again: counted
        turn(6, "explore"),  # another kind, never declined: not counted
        turn(7, "incident"),  # and again
    ]
    assert asked_after_nothing_left(turns) == 2
    # one that still brought something out ("the opposite was when the nurse phoned") is no waste
    said = turns[6].model_copy(update={"revealed_links": ["i1->i2"]})
    assert asked_after_nothing_left([*turns[:6], said]) == 1
    assert asked_after_nothing_left(turns[:5]) == 1
    assert asked_after_nothing_left(turns[:3]) == 0  # the decline itself is no re-ask
    # a respondent that does not say what a question asked for (the LLM engine) cannot tell
    unknown = [t.model_copy(update={"nothing_left": None}) for t in turns]
    assert asked_after_nothing_left(unknown) is None


def test_compute_counts_the_question_after_a_clarification_request_as_a_rewording(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    record = sample_record()
    record.turns[1].intent = "clarification_request"  # turn 3's question (a repeat) answers it
    m = compute(record, mini_scenario, lemmatizer)
    assert m.questions.rewordings == 1 and m.questions.exact_repeats == 0


def test_compute_fills_every_section(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    record = sample_record()
    m = compute(record, mini_scenario, lemmatizer)
    assert m.turns == 4
    assert m.termination_reason == "max_turns"
    # Turn n's strategy asks question n + 1; the one chosen after the last answer asks nothing.
    assert m.strategy_counts == {"explore": 1, "deepen": 2}
    assert [(t["turn"], t["strategy"]) for t in m.timeline] == [(2, "explore"), (3, "deepen"), (4, "deepen")]
    assert m.timeline[1]["focus"] == "noise cancelling"  # question 3 was about turn 2's focus
    assert m.questions.exact_repeats == 1  # turn 3 repeats turn 2's question
    assert m.behaviours == {"hedge": 1}
    assert m.graph_nodes == 6 and m.graph_edges == 3


def test_a_completed_chain_without_links_counts_as_connected(lemmatizer: Lemmatizer) -> None:
    # A repertory grid's set of elements: no hidden links, so no edge joins its ends; once every
    # element is found it is complete, and "connected" must not read lower than "completed".
    data = mini_scenario_data()
    data["chains"].append({"id": "attributes", "kind": "elements", "elements": ["a_noise", "a_battery"]})
    scenario = Scenario.model_validate(data)
    record = sample_record()
    r = recall_metrics(scenario, record.graph, ElementMatcher(scenario, lemmatizer), set(), set())
    assert (r.chains_completed, r.chains_connected, r.chains_total) == (2, 2, 3)
