"""Filler and meta talk never becomes a node, in the offline extractor or from an LLM."""

from __future__ import annotations

import pytest

from services.extraction.checking import RawConcept, validate_items
from services.extraction.engine import ExtractionEngine
from services.extraction.filler import is_filler_label, is_meta, meta_spans
from services.extraction.models import ConceptBrief, ExtractionRequest
from shared.methodology import MethodologyRegistry
from tests.unit.extraction.support import extract


@pytest.mark.parametrize(
    "segment",
    [
        "I don't think there's anything deeper than that",
        "it's simply what I care about",
        "That's just what matters to me in the end",
        "I can't really put it any other way",
        "Well, that's really all there was to it",
        "I don't think there's more to say about that",
        "Nothing else comes to mind",
        "I think I've told you everything that comes to mind",
        "Hmm, I don't know",
        "Good question",
        "I'm really happy with that",
        "That's a bit of a leading question",
        "I hate that so much",
        "I'm rambling",
        "Sorry",
        "Where was I",
        "I'm going off on a tangent again",
        "It was infuriating",
        "That was a bit annoying",
        "That reminds me",
        "Funnily enough",
        "Ugh",
        "Honestly, it drives me absolutely mad",
    ],
)
def test_meta_segments(segment: str) -> None:
    assert is_meta(segment)


@pytest.mark.parametrize(
    "segment",
    [
        "I don't know what I'd do without the noise cancelling",
        "I'm not sure it's worth the price",
        "That's important to me because I can focus",
        "Nothing beats a long battery life",
        "I'm happy with the battery",
        "Sorry it took so long to arrive",
    ],
)
def test_content_is_not_meta(segment: str) -> None:
    assert not is_meta(segment)


def test_meta_spans_cover_a_remark_split_by_a_comma() -> None:
    text = "I don't really know, to be honest. The price matters."
    spans = meta_spans(text)
    assert spans == [(0, len("I don't really know, to be honest"))]


@pytest.mark.parametrize("assent", ["but fine", "but okay", "fine then", "sure"])
def test_an_assent_right_after_a_remark_is_part_of_it(assent: str) -> None:
    remark = "That's a bit of a leading question"
    text = f"{remark}, {assent}. I was readmitted within a week."
    assert meta_spans(text) == [(0, len(f"{remark}, {assent}"))]


@pytest.mark.parametrize(
    "text",
    [
        "It's simple really: it's a practical thing really, I didn't overthink it.",
        "That was a nightmare, honestly terrible.",
        "It was infuriating, I was furious.",
        "That was such a relief, I was thrilled.",
    ],
)
def test_a_remark_and_what_closes_it_are_one_span(text: str) -> None:
    # "practical thing" (after the colon) and "terrible" had become nodes
    assert meta_spans(text) == [(0, len(text) - 1)]


@pytest.mark.parametrize("feeling", ["Honestly, it makes me so happy.", "It really makes me so angry!"])
def test_what_it_makes_them_feel_after_the_content_is_a_verdict(feeling: str) -> None:
    # "I work long night shifts on intensive care. Honestly, it makes me so happy." made a push
    # "makes me so happy", and a learning after an incident's lesson
    content = "I work long night shifts on intensive care. "
    spans = meta_spans(content + feeling)
    assert spans and spans[-1][1] == len(content + feeling) - 1, spans
    assert content.strip() not in {(content + feeling)[a:b] for a, b in spans}
    # alone, or after lead-ins only, it answers the question ("Why does that matter?")
    alone = meta_spans(feeling)
    assert not [(a, b) for a, b in alone if "makes me" in feeling[a:b]], alone


def test_what_it_made_them_feel_at_the_time_stays_an_answer() -> None:
    # a journey's emotion: "As a result, it made me furious." revealed the respondent's anger
    text = "The substitutions were completely wrong. As a result, it made me furious."
    assert not [(a, b) for a, b in meta_spans(text) if "furious" in text[a:b]], meta_spans(text)


async def test_what_it_makes_them_feel_names_no_node_after_an_answer(
    offline_engine: ExtractionEngine,
) -> None:
    result = await extract(
        offline_engine,
        "Like I said, I need to stay sharp for my patients. Honestly, it makes me so happy.",
        "What were you really trying to get done when you chose the good thermos flask?",
    )
    labels = {c.label for c in result.concepts}
    assert "need to stay sharp for my patients" in labels, labels
    assert not [label for label in labels if "happy" in label], labels


def test_an_assent_on_its_own_stays_an_answer() -> None:
    # "How did you feel?" "Fine." is an answer, and so is the same word after content.
    assert meta_spans("Fine.") == []
    assert meta_spans("I was readmitted within a week, but fine.") == []
    assert meta_spans("I was furious.") == []


async def test_the_sceptics_assent_yields_no_node(offline_engine: ExtractionEngine) -> None:
    # "fine" had become an attribution node, then the focus of "Why do you think ... fine?"
    result = await extract(
        offline_engine,
        "That's a bit of a leading question, but fine. I was readmitted within a week, and I think "
        "that was because everyone assumed someone else had explained it.",
        "Why do you think ending up back in hospital turned out the way it did?",
        methodology="critical_incident",
        concept=ConceptBrief(id="hospital_discharge_cit", name="Hospital discharge"),
    )
    labels = {c.label for c in result.concepts}
    assert "everyone assumed someone else had explained it" in labels, labels
    assert not {label for label in labels if label.split()[-1] in {"fine", "okay"}}, labels


async def test_filler_answer_yields_no_node(offline_engine: ExtractionEngine) -> None:
    request = ExtractionRequest(
        session_id="s",
        utterance_id="u",
        text="I don't think there's anything deeper than that, it's simply what I care about. "
        "I'm really happy with that.",
        question="What does peace of mind give you?",
        methodology="means_end_chain",
        concept=ConceptBrief(id="headphones_mec", name="Wireless headphones"),
    )
    result = await offline_engine.extract(request)
    assert result.concepts == () and result.relationships == ()


async def test_filler_next_to_content_keeps_the_content(offline_engine: ExtractionEngine) -> None:
    request = ExtractionRequest(
        session_id="s",
        utterance_id="u",
        text="Good question. I really care about the long battery life. I'm really happy with that.",
        question="What do you look for?",
        methodology="means_end_chain",
        concept=ConceptBrief(id="headphones_mec", name="Wireless headphones"),
    )
    result = await offline_engine.extract(request)
    assert [c.label for c in result.concepts] == ["long battery life"]


async def test_an_apology_for_rambling_names_nothing(offline_engine: ExtractionEngine) -> None:
    # "Sorry, I'm rambling, …" had given the firing criteria "sorry" and "rambling", and the interviewer
    # asked "When it came to being rambling, what progress were you trying to make?"
    result = await extract(
        offline_engine,
        "I want to reduce the chance of mistakes at 4am, which was down to a thermos of filter coffee. "
        "Sorry, I'm rambling, I had three coffees this morning.",
        "Before the energy drinks, what did you use instead, and what made you stop?",
    )
    labels = {c.label for c in result.concepts}
    assert "thermos of filter coffee" in labels, labels
    assert not labels & {"sorry", "rambling", "i'm rambling"}, labels


def test_an_llm_filler_label_is_dropped_with_a_warning(methodologies: MethodologyRegistry) -> None:
    text = "I don't think there's anything deeper than that. It gives me peace of mind."
    concepts, _, warnings = validate_items(
        [
            RawConcept(
                label="nothing deeper than that",
                node_type="terminal_value",
                quote="anything deeper than that",
            ),
            RawConcept(label="peace of mind", node_type="terminal_value", quote="peace of mind"),
        ],
        [],
        text=text,
        utterance_id="u",
        methodology=methodologies.get("means_end_chain"),
    )
    assert [c.label for c in concepts] == ["peace of mind"]
    assert any("filler" in w for w in warnings)
    assert is_filler_label("don't think there's anything deeper")
    assert not is_filler_label("not sure it's worth the price")


async def test_a_label_starting_in_a_lead_in_keeps_only_what_follows_it(
    offline_engine: ExtractionEngine,
) -> None:
    # The sceptical persona's opener: the clause's label used to start at "speaking".
    result = await extract(
        offline_engine,
        "Strictly speaking, the consultant said at nine that I was fit to leave, which meant I sat "
        "in my coat until four waiting for the letter.",
        "Could you tell me about one specific time with hospital discharge that you remember well?",
        methodology="critical_incident",
        concept=ConceptBrief(id="hospital_discharge_cit", name="Hospital discharge"),
    )
    labels = [c.label for c in result.concepts]
    assert "consultant said at nine" in labels
    assert not [label for label in labels if "speaking" in label]
