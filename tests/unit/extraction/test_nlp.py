"""The rule pipeline's lemmas and tags: what the cues and label rules downstream read."""

from __future__ import annotations

import pytest

from services.extraction.nlp import NlpPipeline


@pytest.mark.parametrize("word", ["evening", "matter", "wedding", "ceiling", "clothing"])
def test_a_noun_the_lookup_table_reads_as_another_word_keeps_its_own_lemma(
    pipeline: NlpPipeline, word: str
) -> None:
    # the lookup table maps "evening" to "even" and "matter" to "matt" (as if -ing and -er forms)
    assert pipeline.lemma(word) == word
    assert pipeline.lemma(word.capitalize()) == word
    assert pipeline.lemma(word + "s") == word


def test_a_subject_noun_before_its_verb_is_a_noun(pipeline: NlpPipeline) -> None:
    doc = pipeline.parse("Well, the evening feels well spent.")
    assert [(t.text, t.pos_) for t in doc[2:5]] == [("the", "DET"), ("evening", "NOUN"), ("feels", "VERB")]


@pytest.mark.parametrize(
    ("text", "word", "tag"),
    [
        # after a preposition the noun phrase has no subject: the -s word is a plural
        ("I always go for soft memory-foam ear cushions.", "cushions", "NOUN"),
        ("The comfort of the ear pads.", "pads", "NOUN"),
        # a relative pronoun after it describes a noun
        ("One thing I pay attention to is ear hooks that keep them in place.", "hooks", "NOUN"),
        # a bare noun phrase after "be" that ends the sentence names a thing
        ("One thing I pay attention to is comfortable ear cushions.", "cushions", "NOUN"),
        ("What matters is ear cushions!", "cushions", "NOUN"),
        # ... but a clause there starts with its own determiner, and keeps its verb
        ("The thing is the battery lasts.", "lasts", "VERB"),
        # a subject noun before its verb, and a clause opened by "before", keep the verb
        ("The battery lasts.", "lasts", "VERB"),
        ("I need to know before the driver leaves the depot.", "leaves", "VERB"),
        # a verb that is next to never a plural noun stays the verb after a prepositional phrase
        ("A thermos of filter coffee comes to mind.", "comes", "VERB"),
        ("The battery of my phone lasts all week.", "lasts", "VERB"),
    ],
)
def test_an_s_word_after_a_noun_is_a_verb_only_after_a_subject(
    pipeline: NlpPipeline, text: str, word: str, tag: str
) -> None:
    doc = pipeline.parse(text)
    assert next(t.pos_ for t in doc if t.text == word) == tag


@pytest.mark.parametrize(
    ("text", "word", "tag"),
    [
        # a plural subject and an amount after the word: the word is the verb, and "pods" the
        # subject item ("cost too much in the long run" had lost whose cost it was)
        ("The pods cost too much in the long run.", "cost", "VERB"),
        ("The kids need so much attention in the morning.", "need", "VERB"),
        # no plural subject, or a preposition before it: the noun stays
        ("The cost too often put me off.", "cost", "NOUN"),
        ("I worried about the price of the pods cost more than anything.", "cost", "NOUN"),
    ],
)
def test_a_plural_subject_then_an_amount(pipeline: NlpPipeline, text: str, word: str, tag: str) -> None:
    doc = pipeline.parse(text)
    assert next(t.pos_ for t in doc if t.text == word) == tag


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        # a verb relating two items: the word before it ends the subject ("quality" had read as a
        # modifier of "conflicts", taken for a noun, and the item became "good sound quality conflicts")
        ("Good sound quality conflicts with a low price.", {"quality": "NOUN", "conflicts": "VERB"}),
        ("Sound quality usually clashes with a low price.", {"quality": "NOUN", "clashes": "VERB"}),
        ("Comfortable ear cushions result in less pain.", {"cushions": "NOUN", "result": "VERB"}),
        # after a determiner or a possessive the same words are nouns
        ("The results in the report were wrong.", {"results": "NOUN"}),
        ("I had a conflict with my boss.", {"conflict": "NOUN"}),
        ("My conflicts with him never ended.", {"conflicts": "NOUN"}),
    ],
)
def test_a_verb_that_relates_two_items(pipeline: NlpPipeline, text: str, tags: dict[str, str]) -> None:
    doc = pipeline.parse(text)
    assert {t.text: t.pos_ for t in doc if t.text in tags} == tags
