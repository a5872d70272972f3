"""The longest chain said back stops at an edge that sets two things against each other.

The graph store's longest chain follows directed edges of every type; a contrast between two
incidents, a trade-off or a preference is no step of a sequence or a ladder.
"""

from __future__ import annotations

import pytest

from services.question.chains import chain_to_say, joined_run
from services.question.models import (
    ClosingRequest,
    ConceptBrief,
    FocusNode,
    GraphDigest,
    TerminationReason,
)
from services.question.offline_messages import offline_closing
from services.question.prompts import chain_text, render_graph_summary
from services.question.spoken import SpokenLabels
from shared.methodology import MethodologyRegistry
from tests.unit.question.conftest import asked_over_turns

# two incidents the respondent set against each other, each with its outcome
INCIDENTS = GraphDigest(
    node_count=4,
    max_depth=4,
    longest_chain_labels=(
        "rushed through my new medication",
        "mixed up the tablets at home",
        "ward nurse went through all my tablets",
        "felt safe going home",
    ),
    longest_chain_types=("incident", "outcome", "incident", "outcome"),
    longest_chain_edge_types=("leads_to", "contrasts_with", "leads_to"),
)


def _closing(methodologies: MethodologyRegistry, methodology: str, graph: GraphDigest) -> str:
    request = ClosingRequest(
        session_id="s1",
        methodology=methodology,
        concept=ConceptBrief(name="Leaving hospital"),
        termination_reason=TerminationReason.MAX_TURNS,
        graph_summary=graph,
    )
    return offline_closing(request, methodologies.get(methodology))


def test_a_contrast_cuts_the_incident_sequence(methodologies: MethodologyRegistry) -> None:
    cit = methodologies.get("critical_incident")
    # the first of the two runs (both two long) without a focus, the focus's run with one
    assert chain_to_say(INCIDENTS, cit) == [
        "rushed through my new medication",
        "mixed up the tablets at home",
    ]
    assert chain_to_say(INCIDENTS, cit, "felt safe going home") == [
        "ward nurse went through all my tablets",
        "felt safe going home",
    ]
    text = _closing(methodologies, "critical_incident", INCIDENTS)
    assert "first rushed through my new medication, then mixed up the tablets at home." in text
    assert "ward nurse" not in text


def test_a_longer_run_wins_and_an_unknown_edge_type_joins(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    graph = GraphDigest(
        node_count=4,
        longest_chain_labels=("low price", "great sound", "enjoy my music", "feel happy"),
        longest_chain_types=("attribute", "attribute", "psychosocial_consequence", "terminal_value"),
        # a trade-off, then a ladder: the ladder is said, not "low price leads to great sound"
        longest_chain_edge_types=("conflicts_with", "leads_to", "some_future_type"),
    )
    assert joined_run(graph, mec)[0] == ("great sound", "enjoy my music", "feel happy")
    text = _closing(methodologies, "means_end_chain", graph)
    assert "great sound leads to enjoy my music, and that leads to feel happy" in text
    assert "low price" not in text


def test_without_edge_types_the_chain_is_taken_whole(methodologies: MethodologyRegistry) -> None:
    cit = methodologies.get("critical_incident")
    older = INCIDENTS.model_copy(update={"longest_chain_edge_types": ()})
    assert len(chain_to_say(older, cit)) == 4
    # edge types that do not pair with the labels are not guessed at either
    odd = INCIDENTS.model_copy(update={"longest_chain_edge_types": ("contrasts_with",)})
    assert joined_run(odd, cit)[0] == INCIDENTS.longest_chain_labels
    assert chain_text(odd) == " -> ".join(INCIDENTS.longest_chain_labels)


@pytest.mark.parametrize(
    ("focus", "said", "unsaid"),
    [
        ("mixed up the tablets at home", "rushing through your new medication", "ward nurse"),
        ("ward nurse went through all my tablets", "the ward nurse went through all your tablets", "rushing"),
    ],
)
def test_a_check_back_says_the_focus_own_run(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, focus: str, said: str, unsaid: str
) -> None:
    node = FocusNode(node_id="f", label=focus, node_type="outcome" if "mixed" in focus else "incident")
    asked = asked_over_turns(
        methodologies,
        spoken,
        "critical_incident",
        "verify_account",
        node,
        range(3, 40),
        graph_summary=INCIDENTS,
    )
    told = [q for q in asked if said in q.lower()]
    assert told, asked
    assert not [q for q in told if unsaid in q.lower()], told


def test_the_prompt_names_each_step_of_the_chain() -> None:
    assert chain_text(INCIDENTS) == (
        "rushed through my new medication -leads_to-> mixed up the tablets at home -contrasts_with-> "
        "ward nurse went through all my tablets -leads_to-> felt safe going home"
    )
    assert "-contrasts_with->" in render_graph_summary(INCIDENTS)
