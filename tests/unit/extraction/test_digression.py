"""An announced aside off the topic names nothing for the graph; one that comes back to it does."""

from __future__ import annotations

import pytest
from spacy.lang.en.stop_words import STOP_WORDS

from services.extraction.engine import ExtractionEngine
from services.extraction.local.digression import digression_spans
from services.extraction.models import ConceptBrief, ConversationTurn, ExistingNode, Speaker
from services.extraction.nlp import NlpPipeline
from tests.unit.extraction.support import extract

_DISCHARGE = ConceptBrief(id="hospital_discharge_cit", name="Hospital discharge")
_FENCE = "That reminds me, I really must repaint the garden fence before winter."
_WHY = "Why do you think the time after your hip operation turned out the way it did?"


def _spans(pipeline: NlpPipeline, text: str, *context: str) -> list[str]:
    doc = pipeline.nlp(text)
    told = [_WHY, "Hospital discharge", *context]
    spans = digression_spans(doc, told, pipeline.lemmas, frozenset(STOP_WORDS))
    return [text[a:b] for a, b in spans]


@pytest.mark.parametrize(
    "aside",
    [
        _FENCE,
        "Anyway, my sister just got back from a cruise to Norway, lovely photos.",
        "By the way, my neighbour has a parrot that imitates the doorbell all day.",
        "Sorry, I'm rambling, I had three coffees this morning.",
    ],
)
def test_an_announced_aside_off_the_topic_is_a_digression(pipeline: NlpPipeline, aside: str) -> None:
    text = f"The nurse wrote each dose on a card. {aside}"
    assert _spans(pipeline, text) == [aside]


def test_an_aside_that_comes_back_to_the_topic_is_not(pipeline: NlpPipeline) -> None:
    # "card" was said earlier in the answer, "operation" in the question, "ward" in the graph
    text = (
        "The nurse wrote each dose on a card. Anyway, I still keep the card in my purse. "
        "Funnily enough, the operation itself was the easy part. By the way, the ward had new beds."
    )
    assert _spans(pipeline, text, "ward round") == []


def test_a_new_item_said_without_an_aside_is_not(pipeline: NlpPipeline) -> None:
    assert _spans(pipeline, "The nurse wrote each dose on a card. My neighbour drove me home.") == []


def test_an_answer_that_opens_with_an_aside_is_not(pipeline: NlpPipeline) -> None:
    # nothing came before it to digress from: "Funnily enough" opens a real answer as often as not
    assert _spans(pipeline, "Funnily enough, my neighbour drove me home. She waited an hour.") == []


async def test_the_digression_names_no_node(offline_engine: ExtractionEngine) -> None:
    # The fence had become an attribution ("repaint the garden fence before winter"), and with a
    # learning question a learning, that the interviewer then asked about.
    for question in (_WHY, "What would you want to happen differently next time?"):
        result = await extract(
            offline_engine,
            f"A nurse sat down and walked me through every tablet. {_FENCE}",
            question,
            methodology="critical_incident",
            concept=_DISCHARGE,
        )
        labels = {c.label for c in result.concepts}
        assert any("walked me through every tablet" in label for label in labels), labels
        assert not {label for label in labels if "fence" in label or "reminds" in label}, labels


async def test_an_aside_about_something_in_the_graph_stays(offline_engine: ExtractionEngine) -> None:
    result = await extract(
        offline_engine,
        f"A nurse sat down and walked me through every tablet. {_FENCE}",
        _WHY,
        methodology="critical_incident",
        concept=_DISCHARGE,
        existing=(ExistingNode(label="the garden fence", node_type="situation", node_id="n1"),),
    )
    assert any("fence" in c.label for c in result.concepts), [c.label for c in result.concepts]


async def test_an_aside_told_before_is_still_one(offline_engine: ExtractionEngine) -> None:
    # The respondent's earlier answers hold their earlier asides: the football, mentioned again, had
    # become "at the weekend", then "What were you expecting at the weekend?"
    football = "Where was I? Oh yes, I was also thinking about the football at the weekend."
    recent = (
        ConversationTurn(speaker=Speaker.INTERVIEWER, text="What happened next?", turn_number=2),
        ConversationTurn(speaker=Speaker.RESPONDENT, text=f"I book a slot. {football}", turn_number=2),
        ConversationTurn(speaker=Speaker.INTERVIEWER, text="And after that?", turn_number=3),
    )
    result = await extract(
        offline_engine,
        f"I go through the checkout and pay. {football}",
        "And after that?",
        methodology="customer_journey_mapping",
        concept=ConceptBrief(id="online_grocery_journey", name="Online grocery shopping"),
        recent=recent,
    )
    labels = {c.label for c in result.concepts}
    assert any("checkout" in label for label in labels), labels
    assert not {label for label in labels if "weekend" in label or "football" in label}, labels
