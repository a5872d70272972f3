"""Where a hidden chain's walk through the graph stops, and why (hand-built graphs on the mini scenario).

The mini scenario's chains: noise (a_noise → f_focus → p_calm → v_peace) and battery (a_battery →
f_charge). `sample_record`'s graph holds the noise chain up to p_calm and the battery chain whole;
v_peace was said but never extracted.
"""

from __future__ import annotations

from simulation.matching import ElementMatcher
from simulation.metrics import recall_metrics
from simulation.records import ChainOutcome, GraphEdge, GraphNode, GraphSnapshot, RecallMetrics
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer
from tests.unit.simulation.support import sample_record

PEACE = GraphNode(id="n7", label="peace of mind", node_type="terminal_value", level=4)


def _recall(
    scenario: Scenario,
    lemmatizer: Lemmatizer,
    graph: GraphSnapshot,
    elements: set[str] | None = None,
    links: set[str] | None = None,
) -> RecallMetrics:
    record = sample_record()
    return recall_metrics(
        scenario,
        graph,
        ElementMatcher(scenario, lemmatizer),
        set(record.revealed_elements) if elements is None else elements,
        set(record.revealed_links) if links is None else links,
    )


def _by_id(r: RecallMetrics) -> dict[str, ChainOutcome]:
    return {c.chain_id: c for c in r.chains}


def _calm_told_twice(*, linked_onward: bool) -> GraphSnapshot:
    """The sample graph with v_peace (n7) and a second p_calm node, "feel calm" (n8), which holds
    the link on to v_peace when `linked_onward`."""
    graph: GraphSnapshot = sample_record().graph
    graph.nodes += [
        PEACE,
        GraphNode(id="n8", label="feel calm", node_type="psychosocial_consequence", level=3),
    ]
    if linked_onward:
        graph.edges.append(GraphEdge(id="e4", source="n8", target="n7", edge_type="leads_to"))
    return graph


def test_a_missing_element_stops_the_walk_said_or_not(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    graph = sample_record().graph
    r = _recall(mini_scenario, lemmatizer, graph)
    noise, battery = _by_id(r)["noise"], _by_id(r)["battery"]
    assert battery.completed and battery.reason is None and battery.stopped_at is None
    assert not noise.completed
    assert (noise.reached, noise.stopped_at, noise.reason) == ("p_calm", "v_peace", "not_recovered")
    assert r.chains_completed == sum(c.completed for c in r.chains) == 1
    # the same graph, but the respondent never said it: the interviewer did not get there
    r = _recall(mini_scenario, lemmatizer, graph, elements={"a_noise", "f_focus", "p_calm"})
    assert _by_id(r)["noise"].reason == "not_revealed"


def test_the_walk_can_stop_at_the_first_element(mini_scenario: Scenario, lemmatizer: Lemmatizer) -> None:
    graph = sample_record().graph
    graph.nodes = [n for n in graph.nodes if n.id != "n1"]  # no "noise cancelling" node
    graph.edges = [e for e in graph.edges if e.id != "e1"]
    noise = _by_id(_recall(mini_scenario, lemmatizer, graph))["noise"]  # the record says a_noise was said
    assert (noise.reached, noise.stopped_at, noise.reason) == (None, "a_noise", "not_recovered")
    noise = _by_id(_recall(mini_scenario, lemmatizer, graph, elements={"f_focus"}))["noise"]
    assert noise.reason == "not_revealed"


def test_a_missing_edge_is_a_link_not_said_or_not_extracted(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    graph = sample_record().graph
    graph.nodes.append(PEACE)  # peace of mind extracted, but joined to nothing
    noise = _by_id(_recall(mini_scenario, lemmatizer, graph))["noise"]
    assert (noise.reached, noise.stopped_at, noise.reason) == ("p_calm", "v_peace", "link_not_recovered")
    assert noise.nodes == []
    noise = _by_id(_recall(mini_scenario, lemmatizer, graph, links={"a_noise->f_focus"}))["noise"]
    assert noise.reason == "link_not_revealed"
    # with the edge the chain completes
    graph.edges.append(GraphEdge(id="e4", source="n3", target="n7", edge_type="leads_to"))
    noise = _by_id(_recall(mini_scenario, lemmatizer, graph))["noise"]
    assert noise.completed and noise.reason is None


def test_an_element_held_by_two_nodes_is_a_split_naming_them(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    # p_calm told twice: "calm" (n3) holds the link from f_focus, "feel calm" (n8) the one to v_peace
    graph = _calm_told_twice(linked_onward=True)
    r = _recall(mini_scenario, lemmatizer, graph)
    noise = _by_id(r)["noise"]
    assert (noise.reached, noise.stopped_at, noise.reason) == ("p_calm", "v_peace", "split")
    assert noise.nodes == ["calm (psychosocial_consequence)", "feel calm (psychosocial_consequence)"]
    assert noise.completed_canonical is None  # no canonical slots in the run
    # the two "calm" nodes share a canonical slot: the chain completes over slots, not on the surface
    graph.slot_of = {"n3": "s_calm", "n8": "s_calm"}
    r = _recall(mini_scenario, lemmatizer, graph)
    noise, battery = _by_id(r)["noise"], _by_id(r)["battery"]
    assert (noise.completed, noise.completed_canonical, noise.reason) == (False, True, "split")
    assert (battery.completed, battery.completed_canonical) == (True, True)
    assert r.chains_completed_canonical == sum(bool(c.completed_canonical) for c in r.chains) == 2


def test_a_second_node_without_the_link_onward_is_no_split(
    mini_scenario: Scenario, lemmatizer: Lemmatizer
) -> None:
    # a second "calm" node joined to nothing: the missing edge to v_peace is the link's, not a split's
    graph = _calm_told_twice(linked_onward=False)
    noise = _by_id(_recall(mini_scenario, lemmatizer, graph))["noise"]
    assert (noise.stopped_at, noise.reason, noise.nodes) == ("v_peace", "link_not_recovered", [])
