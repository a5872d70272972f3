"""Stage 2.5 on hand-picked discourse examples: connectives, the spans they join, offsets,
sentences and lemmas, rule-based and dependency-based predicate frames, and the enable flag."""

from __future__ import annotations

import pytest
from spacy.tokens import Doc

from services.extraction.frames import dependency_frames
from services.extraction.models import PreprocessMode, PreprocessResult, RelationKind
from services.extraction.nlp import NlpPipeline
from services.extraction.preprocess import Preprocessor

# text, marker, relation, left span text (None = refers to the question), right span text
DISCOURSE_CASES = [
    (
        "I like the noise cancelling because it lets me focus at work.",
        "because",
        RelationKind.CAUSE,
        "I like the noise cancelling",
        "it lets me focus at work",
    ),
    (
        "The battery lasts all week, so I never worry about charging.",
        "so",
        RelationKind.RESULT,
        "The battery lasts all week",
        "I never worry about charging",
    ),
    (
        "I bought a grinder so that I could make fresh coffee.",
        "so that",
        RelationKind.PURPOSE,
        "I bought a grinder",
        "I could make fresh coffee",
    ),
    (
        "The app was slow. Therefore I switched to the website.",
        "therefore",
        RelationKind.RESULT,
        "The app was slow",
        "I switched to the website",
    ),
    (
        "The sound is great but the case is bulky.",
        "but",
        RelationKind.CONTRAST,
        "The sound is great",
        "the case is bulky",
    ),
    (
        "I kept using it although the price went up.",
        "although",
        RelationKind.CONCESSION,
        "I kept using it",
        "the price went up",
    ),
    (
        "They are light, which means I can wear them all day.",
        "which means",
        RelationKind.RESULT,
        "They are light",
        "I can wear them all day",
    ),
    (
        "I order online since the shop is far away.",
        "since",
        RelationKind.CAUSE,
        "I order online",
        "the shop is far away",
    ),
    (
        "I value my health. That's why I buy oat milk.",
        "that's why",
        RelationKind.RESULT,
        "I value my health",
        "I buy oat milk",
    ),
    (
        "I use the app in order to track my spending.",
        "in order to",
        RelationKind.PURPOSE,
        "I use the app",
        "track my spending",
    ),
    (
        "Because it saves me time, I buy it every week.",
        "because",
        RelationKind.CAUSE,
        "I buy it every week",
        "it saves me time",
    ),
    ("Because it saves me time.", "because", RelationKind.CAUSE, None, "it saves me time"),
    # a hedge or an interjection before a fronted connective leaves it fronted
    (
        "Maybe, because it saves me time, I buy it every week.",
        "because",
        RelationKind.CAUSE,
        "I buy it every week",
        "it saves me time",
    ),
    (
        "Hmm, okay, because the queue was long, I bought a machine.",
        "because",
        RelationKind.CAUSE,
        "I bought a machine",
        "the queue was long",
    ),
    # so does a focusing adverb: "Mainly because …" answers "why?" as "Because …" does
    (
        "Mainly because it has no capsules to buy.",
        "because",
        RelationKind.CAUSE,
        None,
        "it has no capsules to buy",
    ),
    ("Partly because the price was lower.", "because", RelationKind.CAUSE, None, "the price was lower"),
]


@pytest.mark.parametrize(("text", "marker", "relation", "left", "right"), DISCOURSE_CASES)
def test_discourse_relation_spans_and_offsets(
    preprocessor: Preprocessor, text: str, marker: str, relation: RelationKind, left: str | None, right: str
) -> None:
    result = preprocessor.preprocess(text)
    found = [r for r in result.discourse_relations if r.marker == marker]
    assert len(found) == 1, [r.marker for r in result.discourse_relations]
    rel = found[0]
    assert rel.relation is relation
    assert rel.right.text == right
    assert text[rel.right.start : rel.right.end] == right
    if left is None:
        assert rel.left is None
    else:
        assert rel.left is not None and rel.left.text == left
        assert text[rel.left.start : rel.left.end] == left
    assert text[rel.marker_span.start : rel.marker_span.end].lower() == marker


def test_causal_direction_of_because_and_so(preprocessor: Preprocessor) -> None:
    because = preprocessor.preprocess("I like it because it is light.").discourse_relations[0]
    so = preprocessor.preprocess("It is light, so I like it.").discourse_relations[0]
    assert because.cause is not None and because.cause.text == "it is light"
    assert because.effect is not None and because.effect.text == "I like it"
    assert so.cause is not None and so.cause.text == "It is light"
    assert so.effect is not None and so.effect.text == "I like it"


@pytest.mark.parametrize(
    "text",
    [
        "It is so good.",  # intensifier
        "I think so.",  # pro-form
        "I have used it since 2019.",  # temporal since
        "I have had them since I was a student.",
        "It is pricey though.",  # sentence-final adverb
    ],
)
def test_false_friends_are_not_connectives(preprocessor: Preprocessor, text: str) -> None:
    assert preprocessor.preprocess(text).discourse_relations == ()


def test_chained_connectives_split_the_answer(preprocessor: Preprocessor) -> None:
    text = "I like the noise cancelling because it lets me focus at work, which means I get more done."
    rels = preprocessor.preprocess(text).discourse_relations
    assert [(r.marker, r.left.text if r.left else None, r.right.text) for r in rels] == [
        ("because", "I like the noise cancelling", "it lets me focus at work"),
        ("which means", "it lets me focus at work", "I get more done"),
    ]


def test_sentences_and_lower_cased_lemmas(preprocessor: Preprocessor) -> None:
    text = "Saving money MATTERS to me. It Saves me stress!"
    result = preprocessor.preprocess(text)
    assert [s.span.text for s in result.sentences] == ["Saving money MATTERS to me.", "It Saves me stress!"]
    assert all(text[s.span.start : s.span.end] == s.span.text for s in result.sentences)
    assert result.sentences[0].lemmas == ("save", "money", "matter", "to", "me")
    assert result.sentences[1].lemmas[1] == "save"  # "Saves" found only after lower-casing
    assert result.mode is PreprocessMode.RULES


def test_rule_frames_who_does_what(preprocessor: Preprocessor) -> None:
    text = "The long battery life saves me time. I don't want to worry about the price."
    frames = preprocessor.preprocess(text).frames
    by_lemma = {f.predicate_lemma: f for f in frames}
    save = by_lemma["save"]
    assert save.subject is not None and save.subject.text == "long battery life"
    assert save.object is not None and save.object.text == "time"
    assert not save.negated
    want = by_lemma["want"]
    assert want.subject is not None and want.subject.text == "I" and want.negated
    worry = by_lemma["worry"]
    assert worry.object is not None and worry.object.text == "price"
    for f in frames:
        assert text[f.predicate.start : f.predicate.end] == f.predicate.text


def test_disabled_returns_an_empty_result_with_the_intent(preprocessor: Preprocessor) -> None:
    result = preprocessor.preprocess("I like it because it is light. Can we stop here?", enabled=False)
    assert result.mode is PreprocessMode.DISABLED
    assert (result.sentences, result.discourse_relations, result.frames) == ((), (), ())
    assert result.intent is not None and result.intent.intent.value == "stop_request"


def test_dependency_frames_from_a_parsed_doc(pipeline: NlpPipeline) -> None:
    # A hand-built parse (what a trained pipeline would produce) exercises the dependency mode.
    words = ["My", "daughter", "did", "n't", "drive", "me", "home"]
    doc = Doc(
        pipeline.nlp.vocab,
        words=words,
        spaces=[True, True, False, True, True, True, False],
        heads=[1, 4, 4, 4, 4, 4, 4],
        deps=["poss", "nsubj", "aux", "neg", "ROOT", "dobj", "advmod"],
        pos=["PRON", "NOUN", "AUX", "PART", "VERB", "PRON", "ADV"],
        lemmas=["my", "daughter", "do", "not", "drive", "I", "home"],
    )
    (frame,) = dependency_frames(doc)
    assert frame.subject is not None and frame.subject.text == "My daughter"
    assert frame.predicate.text == "drive" and frame.predicate_lemma == "drive"
    assert frame.object is not None and frame.object.text == "me"
    assert frame.negated


def test_result_round_trips_as_a_model(preprocessor: Preprocessor) -> None:
    result = preprocessor.preprocess("I like it because it is light.")
    assert PreprocessResult.model_validate(result.model_dump()) == result
