"""Builders shared by the simulation unit tests."""

from __future__ import annotations

from typing import Any


def mini_scenario_data() -> dict[str, Any]:
    """Two short means-end ladders plus a side attribute; small enough to check by hand."""
    return {
        "id": "mini",
        "concept_id": "headphones_mec",
        "methodology": "means_end_chain",
        "title": "mini",
        "background": "A commuter.",
        "emotional_node_types": ["psychosocial_consequence", "terminal_value"],
        "elements": [
            {
                "id": "a_noise",
                "node_type": "attribute",
                "label": "noise cancelling",
                "phrasings": ["the noise cancelling"],
                "details": ["It blocks the train announcements."],
            },
            {
                "id": "f_focus",
                "node_type": "functional_consequence",
                "label": "focus on the train",
                "form": "clause",
                "phrasings": ["I can focus on the train"],
            },
            {
                "id": "p_calm",
                "node_type": "psychosocial_consequence",
                "label": "feel calm",
                "form": "clause",
                "phrasings": ["I feel calm at work"],
            },
            {
                "id": "v_peace",
                "node_type": "terminal_value",
                "label": "peace of mind",
                "phrasings": ["peace of mind"],
            },
            {
                "id": "a_battery",
                "node_type": "attribute",
                "label": "long battery life",
                "phrasings": ["the long battery life"],
            },
            {
                "id": "f_charge",
                "node_type": "functional_consequence",
                "label": "no daily charging",
                "form": "clause",
                "phrasings": ["I don't have to charge them daily"],
            },
            {
                "id": "a_light",
                "node_type": "attribute",
                "label": "lightweight",
                "phrasings": ["a lightweight band"],
            },
        ],
        "links": [
            {"source": "a_noise", "target": "f_focus", "edge_type": "leads_to"},
            {"source": "f_focus", "target": "p_calm", "edge_type": "leads_to"},
            {"source": "p_calm", "target": "v_peace", "edge_type": "leads_to"},
            {"source": "a_battery", "target": "f_charge", "edge_type": "leads_to"},
            {"source": "a_light", "target": "a_noise", "edge_type": "leads_to"},
        ],
        "chains": [
            {"id": "noise", "elements": ["a_noise", "f_focus", "p_calm", "v_peace"]},
            {"id": "battery", "elements": ["a_battery", "f_charge"]},
        ],
    }


def persona_data(**overrides: Any) -> dict[str, Any]:
    """A plain, fully cooperative persona with no randomness, updated by `overrides`."""
    data: dict[str, Any] = {
        "name": "plain",
        "title": "Plain",
        "description": "Answers plainly.",
        "traits": ["plain"],
        "speech_pattern": {"description": "plain"},
        "answer_length": {"min_words": 3, "max_words": 80, "elements_per_answer": 1, "restate_focus": True},
    }
    data.update(overrides)
    return data


def sample_record() -> Any:
    """A finished run on the mini scenario: four turns and the graph checked by hand in `test_metrics`."""
    from datetime import UTC, datetime

    from simulation.records import (
        GraphEdge,
        GraphNode,
        GraphSnapshot,
        RunMeta,
        RunRecord,
        SessionSummary,
        TurnRecord,
    )

    nodes = [
        GraphNode(id="n1", label="noise cancelling", node_type="attribute", level=1),
        GraphNode(id="n2", label="focus on the train", node_type="functional_consequence", level=2),
        GraphNode(id="n3", label="calm", node_type="psychosocial_consequence", level=3),
        GraphNode(id="n4", label="battery", node_type="attribute", level=1),
        GraphNode(id="n5", label="weather", node_type="attribute", level=1),
        GraphNode(id="n6", label="charge daily", node_type="functional_consequence", level=2),
    ]
    edges = [
        GraphEdge(id="e1", source="n1", target="n2", edge_type="leads_to"),
        GraphEdge(id="e2", source="n3", target="n2", edge_type="leads_to"),
        GraphEdge(id="e3", source="n4", target="n6", edge_type="leads_to"),
    ]
    turns = [
        TurnRecord(
            turn=1,
            question="Thanks for joining. What do you look for in headphones?",
            answer="The noise cancelling.",
            strategy="explore",
            node_count=1,
            edge_count=0,
            revealed_elements=["a_noise"],
            respondent_kind="explore",
            nothing_left=False,
            signals={
                "graph.max_depth": 0.2,
                "meta.interview_progress": 0.1,
                "llm.response_depth": "shallow",
                "graph.chain_completion.has_complete": False,
            },
        ),
        TurnRecord(
            turn=2,
            question="Why is noise cancelling important to you?",
            answer="I can focus on the train.",
            strategy="deepen",
            focus_label="noise cancelling",
            node_count=2,
            edge_count=1,
            revealed_elements=["f_focus"],
            revealed_links=["a_noise->f_focus"],
            respondent_kind="ladder",
            nothing_left=False,
            behaviours=["hedge"],
            signals={
                "graph.max_depth": 0.4,
                "meta.interview_progress": 0.2,
                "llm.response_depth": "moderate",
            },
        ),
        TurnRecord(
            turn=3,
            question="Why is noise cancelling important to you?",
            answer="I feel calm at work.",
            strategy="deepen",
            focus_label="focus on the train",
            node_count=4,
            edge_count=2,
            revealed_elements=["p_calm"],
            revealed_links=["f_focus->p_calm"],
            respondent_kind="ladder",
            nothing_left=False,
            signals={"graph.max_depth": 0.6, "meta.interview_progress": 0.3, "llm.response_depth": "deep"},
        ),
        TurnRecord(
            turn=4,
            question="What else do you look for? And why?",
            answer="The long battery life.",
            strategy="explore",
            node_count=6,
            edge_count=3,
            revealed_elements=["a_battery"],
            respondent_kind="explore",
            nothing_left=False,
            should_continue=False,
            termination_reason="max_turns",
            signals={"graph.max_depth": 0.6, "meta.interview_progress": 0.4},
        ),
    ]
    return RunRecord(
        meta=RunMeta(
            run_id="mini__plain__s1",
            concept_id="headphones_mec",
            methodology="means_end_chain",
            persona="plain",
            scenario_id="mini",
            seed=1,
            engine="offline",
            target="127.0.0.1:1",
            max_turns=4,
            started_at=datetime(2025, 1, 1, tzinfo=UTC),
        ),
        opening_question=turns[0].question,
        closing_message="Thank you so much.",
        turns=turns,
        graph=GraphSnapshot(nodes=nodes, edges=edges, max_depth=3, chain_completion_ratio=0.5),
        session=SessionSummary(
            session_id="sess-1", status="completed", termination_reason="max_turns", turn_count=4
        ),
        revealed_elements=["a_noise", "f_focus", "p_calm", "v_peace"],
        revealed_links=["a_noise->f_focus", "f_focus->p_calm", "p_calm->v_peace"],
    )
