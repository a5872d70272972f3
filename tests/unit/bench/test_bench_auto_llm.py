"""The benchmark's automatic LLM answers are valid for the services that receive them."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.answers import answer
from bench.auto_llm import (
    AutoResponder,
    call_kind,
    extraction_reply,
    parse_ontology,
    question_text,
    rubric_reply,
    slots_reply,
)
from services.canonical_slots.proposal import (
    PreparedNode,
    ProposalContext,
    SlotProposalOut,
    proposals_from_answer,
    render_batch,
)
from services.extraction.checking import RawConcept, RawRelationship, validate_items
from services.extraction.models import ExtractionRequest
from services.extraction.prompts import system_prompt, user_prompt
from services.question.sanitize import sanitize_question
from services.scoring.rubric.models import RubricOutput
from services.scoring.rubric.prompt import system_prompt as rubric_system
from services.scoring.rubric.prompt import user_prompt as rubric_user
from shared.methodology import MethodologyRegistry

CONFIG = Path(__file__).resolve().parents[3] / "config"
METHODOLOGIES = MethodologyRegistry(CONFIG)


@pytest.mark.parametrize("name", METHODOLOGIES.names())
def test_extraction_reply_passes_the_services_validation(name: str) -> None:
    methodology = METHODOLOGIES.get(name)
    system = system_prompt(methodology)
    labels: set[str] = set()
    edges = 0
    for turn in range(1, 51):
        text = answer(turn)
        request = ExtractionRequest(session_id="s", utterance_id=f"u{turn}", text=text, methodology=name)
        reply = extraction_reply(system, user_prompt(request, []))
        concepts = [RawConcept(**c) for c in reply["concepts"]]
        relationships = [RawRelationship(**r) for r in reply["relationships"]]
        kept_c, kept_r, warnings = validate_items(
            concepts, relationships, text=text, utterance_id=f"u{turn}", methodology=methodology
        )
        assert warnings == []
        assert len(kept_c) == 3  # feature, effect, feeling: every answer yields new nodes
        labels |= {c.label for c in kept_c}
        edges += len(kept_r)
    assert len(labels) == 150  # 50 turns x 3 concepts, none repeated: the interview keeps yielding
    assert edges >= 50  # every ontology here permits a link between its lowest two levels


def test_ontology_is_read_from_the_system_prompt() -> None:
    ontology = parse_ontology(system_prompt(METHODOLOGIES.get("means_end_chain")))
    assert ontology.levels["attribute"] == 1 and ontology.levels["terminal_value"] == 5
    assert ontology.chain(3) == ["attribute", "functional_consequence", "psychosocial_consequence"]
    assert ontology.edge_between("attribute", "functional_consequence") == "leads_to"
    assert ontology.edge_between("terminal_value", "attribute") is None


def test_rubric_reply_validates_and_scores_long_answers_as_deep() -> None:
    long = rubric_reply(rubric_user("Why?", answer(1)))
    short = rubric_reply(rubric_user("Why?", "Not sure."))
    assert RubricOutput.model_validate(long).response_depth.score == 4
    assert RubricOutput.model_validate(short).response_depth.score == 2


def test_slots_reply_maps_every_listed_node_once() -> None:
    batch = [
        PreparedNode(id="a1", label="battery life", node_type="attribute"),
        PreparedNode(id="b2", label="fewer charging worries", node_type="functional_consequence"),
        PreparedNode(id="c3", label="peace of mind", node_type="terminal_value"),
    ]
    prompt = render_batch(batch, ProposalContext(session_id="s", methodology="means_end_chain"))
    out = SlotProposalOut.model_validate(slots_reply(prompt))
    proposals, warnings = proposals_from_answer(batch, out)
    assert warnings == []
    assert sorted(p.node_ids for p in proposals) == [("a1",), ("b2",), ("c3",)]
    assert {p.slot_name for p in proposals} == {"battery_life", "fewer_charging_worries", "peace_of_mind"}


def test_questions_are_open_unique_and_survive_sanitising() -> None:
    prompt = "Ask about it.\nFocus concept: <focus_concept>battery life</focus_concept>"
    questions = [question_text(prompt, n) for n in range(1, 9)]
    assert len(set(questions)) == 8
    for q in questions:
        assert "battery life" in q
        assert sanitize_question(q, max_chars=300) == q


def test_call_kind_tells_the_suites_calls_apart() -> None:
    rubric_tool = {"tools": [{"name": "score_rubric", "input_schema": RubricOutput.model_json_schema()}]}
    assert call_kind("anthropic", rubric_tool, "") == "rubric"
    json_mode = {"response_format": {"type": "json_object"}}
    assert call_kind("openai", json_mode, 'schema {"title":"SlotProposalOut","type":"object"}') == "slots"
    assert call_kind("openai", {"messages": []}, "You are an interviewer") == "text"


def test_responder_answers_an_openai_rubric_request_with_usage() -> None:
    body = {
        "response_format": {"type": "json_object"},
        "messages": [
            {"role": "system", "content": rubric_system() + '\n{"title":"RubricOutput"}'},
            {"role": "user", "content": rubric_user("Why?", answer(2))},
        ],
    }
    reply = AutoResponder().reply("openai", body)
    assert reply.kind == "rubric"
    assert reply.data is not None
    RubricOutput.model_validate(reply.data)
    assert reply.input_tokens > 100 and reply.output_tokens > 10
