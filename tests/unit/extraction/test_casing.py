"""Labels keep the capitals of names as the respondent wrote them."""

from __future__ import annotations

import pytest

from services.extraction.casing import cased_label
from services.extraction.checking import RawConcept, RawRelationship, validate_items
from services.extraction.engine import ExtractionEngine
from services.extraction.models import ConceptBrief, ExistingNode, ExtractionRequest
from shared.methodology import MethodologyRegistry


@pytest.mark.parametrize(
    ("label", "text", "expected"),
    [
        # a capital mid-sentence makes a name; capitals inside a word always do
        ("netflix", "I always go for Netflix.", "Netflix"),
        ("youtube clips", "Mostly YouTube clips, honestly.", "YouTube clips"),
        ("the bbc app", "Mostly the BBC app.", "the BBC app"),
        ("dr patel rang", "Then Dr Patel rang me.", "Dr Patel rang"),
        # a capital that only opens a sentence says nothing
        ("battery lasts all week", "Battery lasts all week.", "battery lasts all week"),
        ("endless scrolling", "It was fine. Endless scrolling though.", "endless scrolling"),
        # ... unless the same word is written as a name elsewhere in the answer
        ("netflix", "Netflix, mostly. I pay for Netflix myself.", "Netflix"),
        # the pronoun is always written so
        ("the one i cancelled", "the one i cancelled last year", "the one I cancelled"),
        # a shouted answer's capitals are not names
        ("no adverts", "NO ADVERTS AT ALL, EVER.", "no adverts"),
        ("disney+", "We switched to Disney+ in May.", "Disney+"),
        # a word opening a sentence before a name's next word belongs to the name
        ("prime video", "Prime Video is a good example of that.", "Prime Video"),
        ("apple tv", "Apple TV, mostly.", "Apple TV"),
        ("good apps", "Good Apps are rare.", "Good Apps"),
        ("endless scrolling", "Endless scrolling. Not Netflix.", "endless scrolling"),
    ],
)
def test_a_word_takes_the_case_the_respondent_wrote(label: str, text: str, expected: str) -> None:
    assert cased_label(label, text) == expected


def test_the_labels_own_quote_decides_before_the_rest_of_the_answer() -> None:
    text = "We watch Prime Video at night. The video quality is poor on the old telly."
    start = text.index("video quality")
    assert cased_label("video quality", text, (start, start + len("video quality"))) == "video quality"
    # without the quote, the name elsewhere in the answer would have been taken
    assert cased_label("video quality", text.replace("The video", "Poor video")) == "Video quality"


def test_known_names_fill_in_where_the_answer_does_not_tell() -> None:
    # "Prime Video" opens the sentence; the concept's vocabulary knows the name
    text = "Prime video, mostly."
    assert cased_label("prime video", text, known=["Prime Video", "subscription"]) == "Prime Video"
    # a word written lower-case mid-sentence stays lower-case even if the interview knows a name
    assert cased_label("max volume", "I keep it at max volume.", known=["Max"]) == "max volume"
    # a known name is matched as a whole phrase, never a word of it on its own
    assert cased_label("video calls", "Video calls.", known=["Prime Video"]) == "video calls"


def test_validation_keeps_the_cased_label_and_edges_name_it(methodologies: MethodologyRegistry) -> None:
    repgrid = methodologies.get("repertory_grid")
    text = "Mostly Netflix, which is closer to endless scrolling these days."
    concepts, relationships, warnings = validate_items(
        [
            RawConcept(label="netflix", node_type="element", quote="Netflix"),
            RawConcept(label="Endless Scrolling", node_type="implicit_pole", quote="endless scrolling"),
            RawConcept(label="NETFLIX", node_type="element", quote="netflix", confidence=0.2),
        ],
        [
            RawRelationship(
                source_label="netflix",
                target_label="endless scrolling",
                edge_type="placed_at",
                quote="Netflix",
            )
        ],
        text=text,
        utterance_id="u1",
        methodology=repgrid,
    )
    # the duplicate (same name, other case) still merges; the model's title case is not a name here
    assert [c.label for c in concepts] == ["Netflix", "endless scrolling"]
    assert any("duplicate" in w for w in warnings)
    (edge,) = relationships
    assert (edge.source_label, edge.target_label) == ("Netflix", "endless scrolling")


def test_an_edge_to_an_existing_node_names_it_as_stored(methodologies: MethodologyRegistry) -> None:
    repgrid = methodologies.get("repertory_grid")
    text = "youtube is easy to find something on"
    _, relationships, _ = validate_items(
        [
            RawConcept(
                label="easy to find something", node_type="emergent_pole", quote="easy to find something"
            )
        ],
        [
            RawRelationship(
                source_label="youtube",
                target_label="easy to find something",
                edge_type="placed_at",
                quote=text,
            )
        ],
        text=text,
        utterance_id="u2",
        methodology=repgrid,
        existing=(ExistingNode(node_id="n1", label="YouTube", node_type="element"),),
    )
    (edge,) = relationships
    assert edge.source_label == "YouTube"


async def test_the_offline_extractor_gives_names_their_capitals(offline_engine: ExtractionEngine) -> None:
    result = await offline_engine.extract(
        ExtractionRequest(
            session_id="s1",
            utterance_id="u1",
            text="Netflix and Mubi both feel curated, while YouTube is a free-for-all.",
            question="How are two of them alike?",
            methodology="repertory_grid",
            concept=ConceptBrief(id="streaming", name="Streaming services", vocabulary=("Netflix",)),
        )
    )
    labels = {c.label for c in result.concepts if c.node_type == "element"}
    assert labels == {"Netflix", "Mubi", "YouTube"}
