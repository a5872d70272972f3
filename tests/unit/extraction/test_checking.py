"""Validation of extracted items against the ontology and the utterance (both extractors)."""

from __future__ import annotations

import pytest

from services.extraction.checking import RawConcept, RawRelationship, locate_quote, validate_items
from services.extraction.models import ExistingNode
from shared.methodology import MethodologyRegistry
from shared.methodology_models import MethodologyConfig

# "Battery" opens the sentence: its capital is not a name's, so labels from it stay lower-case
TEXT = "Battery lasts  all week, so I never worry about charging."


@pytest.fixture(scope="module")
def mec(methodologies: MethodologyRegistry) -> MethodologyConfig:
    return methodologies.get("means_end_chain")


def _c(label: str, node_type: str, quote: str, **kw: object) -> RawConcept:
    return RawConcept(label=label, node_type=node_type, quote=quote, **kw)


def test_offsets_are_recomputed_from_the_utterance(mec: MethodologyConfig) -> None:
    concepts, _, warnings = validate_items(
        [_c("Battery lasts all week", "attribute", "battery lasts all week", start=99)],
        [],
        text=TEXT,
        utterance_id="u1",
        methodology=mec,
    )
    assert warnings == []
    (c,) = concepts
    # case and the double space differ: the stored quote is the utterance's own text
    assert c.quote.text == "Battery lasts  all week" == TEXT[c.quote.start : c.quote.end]
    assert (c.label, c.source_utterance_id, c.quote.utterance_id) == ("battery lasts all week", "u1", "u1")


def test_invalid_items_are_dropped_with_a_warning_each(mec: MethodologyConfig) -> None:
    concepts, relationships, warnings = validate_items(
        [
            _c("battery lasts all week", "attribute", "Battery lasts  all week"),
            _c("never worry", "psychosocial_consequence", "never worry"),
            _c("cheap price", "feature", "all week"),  # not an ontology type
            _c("saves money", "functional_consequence", "it saves me money"),  # hallucinated quote
            _c("", "attribute", "all week"),
            _c("a label that is far too long to be a short noun phrase really", "attribute", "all week"),
        ],
        [
            RawRelationship(
                source_label="battery lasts all week",
                target_label="never worry",
                edge_type="leads_to",
                quote="all week, so I never worry",
            ),
            RawRelationship(
                source_label="battery lasts all week",
                target_label="never worry",
                edge_type="causes",
                quote="so I never",
            ),  # unknown edge type
            RawRelationship(
                source_label="never worry",
                target_label="battery lasts all week",
                edge_type="leads_to",
                quote="so I never",
            ),  # psychosocial -> attribute
            RawRelationship(
                source_label="battery lasts all week",
                target_label="saves money",
                edge_type="leads_to",
                quote="so I never",
            ),  # endpoint was dropped
            RawRelationship(
                source_label="battery lasts all week",
                target_label="never worry",
                edge_type="conflicts_with",
                quote="lasts forever",
            ),  # not permitted + bad quote
        ],
        text=TEXT,
        utterance_id="u1",
        methodology=mec,
    )
    assert [c.label for c in concepts] == ["battery lasts all week", "never worry"]
    assert [(r.source_label, r.target_label, r.edge_type) for r in relationships] == [
        ("battery lasts all week", "never worry", "leads_to")
    ]
    assert len(warnings) == 8
    joined = "\n".join(warnings)
    for reason in (
        "'feature' is not in the means_end_chain ontology",
        "quote not found in the utterance",
        "empty label",
        "not a short noun phrase",
        "edge_type 'causes' is not",
        "leads_to may not connect",
        "neither extracted nor an existing node",
    ):
        assert reason in joined


def test_relationships_may_point_at_existing_nodes(mec: MethodologyConfig) -> None:
    existing = (ExistingNode(label="Long Battery Life", node_type="attribute", node_id="n1"),)
    _, relationships, warnings = validate_items(
        [_c("never worry", "psychosocial_consequence", "never worry")],
        [
            RawRelationship(
                source_label="long battery life",
                target_label="never worry",
                edge_type="leads_to",
                quote="so I never worry",
            )
        ],
        text=TEXT,
        utterance_id="u2",
        methodology=mec,
        existing=existing,
    )
    assert warnings == []
    # the existing node's label is returned as the graph knows it
    assert relationships[0].source_label == "Long Battery Life"


def test_duplicates_merge_and_confidence_is_clamped(mec: MethodologyConfig) -> None:
    concepts, _, warnings = validate_items(
        [
            _c("never worry", "psychosocial_consequence", "never worry", confidence=0.4),
            _c("Never worry", "psychosocial_consequence", "I never worry", confidence=7.0, stance=-5),
        ],
        [],
        text=TEXT,
        utterance_id="u3",
        methodology=mec,
    )
    (c,) = concepts
    assert (c.confidence, c.stance, c.quote.text) == (1.0, -1, "I never worry")
    assert len(warnings) == 1 and "merged" in warnings[0]


def test_locate_quote_prefers_the_occurrence_nearest_the_hint() -> None:
    text = "so so so"
    assert locate_quote(text, "so", 6) == (6, 8)
    assert locate_quote(text, "so") == (0, 2)
    assert locate_quote(text, "  ") is None
    assert locate_quote(text, "no") is None
