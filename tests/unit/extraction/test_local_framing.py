"""The respondent's own frame types an item: pseudo-clefts and stated reasons (offline extractor)."""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.models import ExistingNode
from tests.unit.extraction.support import edges as _edges
from tests.unit.extraction.support import extract as _extract
from tests.unit.extraction.support import nodes as _nodes

_CHOOSE = "Why did you choose the capsule machine?"


@pytest.mark.parametrize("question", [_CHOOSE, "What happened next?"])
async def test_a_cleft_types_its_focus_by_its_head_whatever_the_question(
    offline_engine: ExtractionEngine, question: str
) -> None:
    # before: the head was the label ("what put me off energy drinks", a hiring criterion after
    # "why did you choose") and the reason was lost
    result = await _extract(
        offline_engine, "What put me off energy drinks was that I crashed after two hours.", question
    )
    nodes = _nodes(result)
    assert ("solution", "energy drinks") in nodes
    assert any(t == "firing_criterion" and "crashed" in label for t, label in nodes), nodes
    assert not any("put me off" in label for _, label in nodes), nodes
    assert any(s == "energy drinks" and e == "decided_by" and "crashed" in t for s, e, t in _edges(result))


async def test_a_cleft_is_said_of_the_head_of_what_its_gap_names(offline_engine: ExtractionEngine) -> None:
    # "the energy drinks from the vending machine": the drinks put them off, the machine only says
    # where they came from (the edge once went to the last thing named)
    result = await _extract(
        offline_engine,
        "What put me off the energy drinks from the vending machine was that the buzz wore off too fast.",
    )
    edges = {(s, e) for s, e, t in _edges(result) if "buzz" in t}
    assert edges == {("energy drinks", "decided_by")}, _edges(result)


@pytest.mark.parametrize(
    ("text", "node_type", "words"),
    [
        ("What won me over was that it heats up in thirty seconds.", "hiring_criterion", "heats up"),
        ("Honestly, what put me off was that the queue took too long.", "firing_criterion", "queue"),
        ("My biggest worry was that the capsules would cost a fortune.", "anxiety", "fortune"),
        (
            "The thing that nearly stopped me was that the machine looked complicated.",
            "anxiety",
            "complicated",
        ),
        ("What I liked about the grinder was the smell of fresh coffee.", "pull", "smell"),
        ("What bothered me was just that the café was always packed.", "push", "packed"),
    ],
)
async def test_each_head_gives_its_type(
    offline_engine: ExtractionEngine, text: str, node_type: str, words: str
) -> None:
    nodes = _nodes(await _extract(offline_engine, text, _CHOOSE))
    assert any(t == node_type and words in label for t, label in nodes), nodes
    # the head is a frame, not an item of the question's type
    assert not any(t == "hiring_criterion" and node_type != t for t, _ in nodes), nodes


async def test_a_cleft_focus_keeps_the_thing_it_is_said_of(offline_engine: ExtractionEngine) -> None:
    # the whole clause is too long for a label; its predicate alone ("went up twice in one year")
    # names nothing
    nodes = _nodes(
        await _extract(
            offline_engine,
            "The reason I stopped going was that the price went up twice in one year.",
            "Why did you stop going to the café?",
        )
    )
    assert any(t == "firing_criterion" and label.startswith("price went up") for t, label in nodes), nodes


async def test_what_held_someone_back_from_a_solution_holds_it_back(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "What almost held me back from the capsule machine was that I was not sure it would fit.",
    )
    assert ("anxiety", "not sure it would fit") in _nodes(result)
    assert ("not sure it would fit", "holds_back", "capsule machine") in _edges(result)


async def test_a_cleft_without_a_thing_is_about_what_the_question_asked(
    offline_engine: ExtractionEngine,
) -> None:
    existing = (ExistingNode(label="energy drinks", node_type="solution"),)
    result = await _extract(
        offline_engine,
        "What put me off was that I crashed after two hours.",
        "What was it like using energy drinks?",
        existing=existing,
    )
    assert not any("put me off" in label for _, label in _nodes(result))
    edges = _edges(result)
    assert any(s == "energy drinks" and e == "decided_by" and "crashed" in t for s, e, t in edges), edges


async def test_only_a_clause_opened_by_a_head_and_closed_by_was_is_a_cleft(
    offline_engine: ExtractionEngine,
) -> None:
    nodes = _nodes(await _extract(offline_engine, "What worried me was the noise.", _CHOOSE))
    assert ("anxiety", "noise") in nodes, nodes
    # the head must open the clause and be followed by "was": here it is neither
    nodes = _nodes(await _extract(offline_engine, "I never really knew what worried me about it.", _CHOOSE))
    assert not any(t == "anxiety" for t, _ in nodes), nodes
    # a focus that only names a thing already found is no criterion
    nodes = _nodes(await _extract(offline_engine, "What sold me was the capsule machine.", _CHOOSE))
    assert nodes == {("solution", "capsule machine")}


@pytest.mark.parametrize(
    ("text", "node_type", "reason"),
    [
        ("I gave up on it because the buzz wore off too fast.", "firing_criterion", "buzz wore off too fast"),
        ("I stopped using energy drinks because I crashed after two hours.", "firing_criterion", "crashed"),
        ("I chose it because it was under 100 euros.", "hiring_criterion", "under 100 euros"),
    ],
)
async def test_a_stated_reason_is_typed_by_its_lead_in_and_the_lead_in_is_no_item(
    offline_engine: ExtractionEngine, text: str, node_type: str, reason: str
) -> None:
    # before: after "why did you choose …?" every reason was a hiring criterion, and "chose it" and
    # "gave up" were hiring criteria too
    for question in (_CHOOSE, "What happened next?"):
        nodes = _nodes(await _extract(offline_engine, text, question))
        assert (node_type, reason) in nodes, (question, nodes)
        assert all(t == node_type or t == "solution" for t, _ in nodes), (question, nodes)
        assert not any(w in label for _, label in nodes for w in ("chose", "gave up", "stopped")), nodes


async def test_a_lead_in_without_a_thing_points_at_the_asked_about_node(
    offline_engine: ExtractionEngine,
) -> None:
    existing = (ExistingNode(label="energy drinks", node_type="solution"),)
    result = await _extract(
        offline_engine,
        "I gave up on them because the buzz wore off too fast.",
        "What did you think of energy drinks?",
        existing=existing,
    )
    assert ("energy drinks", "decided_by", "buzz wore off too fast") in _edges(result)
