"""Labels of the offline extractor read as whole phrases: the interviewer says them back."""

from __future__ import annotations

import pytest

from services.extraction.checking import MAX_LABEL_WORDS as CHECKED_MAX_WORDS
from services.extraction.engine import ExtractionEngine
from services.extraction.local.labels import shape_label
from services.extraction.models import ConceptBrief, ExtractionResult
from services.extraction.nlp import NlpPipeline
from tests.unit.extraction.support import edges, extract, nodes

_COFFEE = ConceptBrief(id="coffee", name="Morning coffee")
_STREAMING = ConceptBrief(id="streaming", name="Streaming services")


async def _extract(
    engine: ExtractionEngine,
    text: str,
    methodology: str = "jobs_to_be_done",
    *,
    question: str = "What happened next?",
    concept: ConceptBrief = _COFFEE,
) -> ExtractionResult:
    return await extract(engine, text, question, methodology=methodology, concept=concept)


async def _labels(
    engine: ExtractionEngine,
    text: str,
    methodology: str = "jobs_to_be_done",
    *,
    question: str = "What happened next?",
) -> set[str]:
    return {c.label for c in (await _extract(engine, text, methodology, question=question)).concepts}


async def _typed(
    engine: ExtractionEngine,
    text: str,
    methodology: str = "jobs_to_be_done",
    *,
    question: str = "What happened next?",
) -> set[tuple[str, str]]:
    """(node type, label) of every concept extracted from `text`."""
    result = await _extract(engine, text, methodology, question=question)
    return {(c.node_type, c.label) for c in result.concepts}


@pytest.mark.parametrize(
    ("text", "whole", "cut"),
    [
        # a time phrase keeps its closing word ("the week" alone says nothing)
        (
            "I bought a hand grinder the week after, and then I gave up instant for good.",
            "bought a hand grinder the week after",
            "bought a hand grinder the week",
        ),
        # a possessor belongs to the noun phrase it owns, even when that phrase is an item of its own
        (
            "Then I saw a colleague's capsule machine in the office kitchen.",
            "saw a colleague's capsule machine",
            "saw a colleague",
        ),
        # a number belongs to the noun phrase it counts, even when that phrase is an item of its own
        (
            "As I said, I compared three capsule machines online.",
            "compared three capsule machines online",
            "compared three",
        ),
    ],
)
async def test_an_event_label_is_not_cut_inside_a_phrase(
    offline_engine: ExtractionEngine, text: str, whole: str, cut: str
) -> None:
    labels = await _labels(offline_engine, text)
    assert whole in labels and cut not in labels, labels


async def test_after_that_starts_a_clause_still_ends_the_label(offline_engine: ExtractionEngine) -> None:
    # "after I started" is a clause of its own: the event stops before it
    labels = await _labels(offline_engine, "I bought a grinder the week after I started the new job.")
    assert not any("started" in label and "grinder" in label for label in labels), labels


async def test_a_time_phrase_cut_off_from_its_clause_is_dropped(offline_engine: ExtractionEngine) -> None:
    # "phoned me the day | before he came home": "the day" alone would be said back as if it meant something
    labels = await _labels(
        offline_engine,
        "The discharge nurse phoned me the day before he came home, so she went through his care plan.",
        methodology="critical_incident",
    )
    assert any(label.startswith(("phoned", "discharge nurse phoned")) for label in labels), labels
    assert not any(label.endswith(("the day", "a day")) for label in labels), labels


async def test_a_hedge_before_the_clause_is_not_part_of_the_label(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(
        offline_engine,
        "Hmm, I don't know, I guess I try to get a delivery slot for Tuesday, and then I check out.",
        methodology="customer_journey_mapping",
    )
    assert not any(label.startswith(("guess", "think", "suppose")) for label in labels), labels
    assert any(label.startswith("try to get a delivery") for label in labels), labels


async def test_an_adverb_left_before_a_cut_off_clause_is_dropped(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(
        offline_engine,
        "I can focus even when the carriage is noisy, which means I arrive calm instead of frazzled.",
        methodology="means_end_chain",
    )
    assert "focus" in labels and not any(label.endswith(" even") for label in labels), labels


async def test_the_object_of_a_second_verb_stays(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(
        offline_engine,
        "I copy last week's order and tweak it, which meant I feel relieved.",
        methodology="customer_journey_mapping",
    )
    assert "copy last week's order and tweak it" in labels, labels


async def test_a_pole_of_an_ignored_noun_with_own_is_kept_whole(offline_engine: ExtractionEngine) -> None:
    # "series" alone is no item, "their own series" is a pole; "on the other" gives its opposite
    result = await _extract(
        offline_engine,
        "On one side it's their own series you can't get elsewhere, on the other the same reruns everywhere.",
        "repertory_grid",
        question="How are two of them alike and different from the third?",
        concept=_STREAMING,
    )
    poles = {c.node_type: c.label for c in result.concepts}
    assert poles.get("emergent_pole") == "their own series you can't get elsewhere", poles
    assert poles.get("implicit_pole", "").endswith("reruns everywhere"), poles
    assert [(r.source_label, r.edge_type) for r in result.relationships] == [
        ("their own series you can't get elsewhere", "contrasts_with")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Practically speaking, one thing I pay attention to is good recommendations.",
        "I really care about good recommendations.",
        "I went for good recommendations, nothing fancy.",
    ],
)
async def test_what_a_viewer_attends_to_is_a_pole(offline_engine: ExtractionEngine, text: str) -> None:
    labels = await _labels(offline_engine, text, methodology="repertory_grid")
    assert "good recommendations" in labels, labels


@pytest.mark.parametrize("text", ["One thing I pay attention to is Netflix.", "I really care about Disney+."])
async def test_a_named_element_attended_to_stays_an_element(
    offline_engine: ExtractionEngine, text: str
) -> None:
    result = await _extract(
        offline_engine,
        text,
        "repertory_grid",
        question="Which services do you know well?",
        concept=_STREAMING,
    )
    assert [c.node_type for c in result.concepts] == ["element"], result.concepts


async def test_and_between_two_noun_phrases_does_not_end_the_label(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(offline_engine, "Then I compared the price and the taste.")
    assert "compared the price and the taste" in labels, labels
    # "and" before a clause of its own still ends it
    labels = await _labels(
        offline_engine, "I bought a grinder and the coffee tasted better.", methodology="jobs_to_be_done"
    )
    assert not any("grinder and" in label for label in labels), labels


async def test_a_state_keeps_the_noun_phrase_it_describes(offline_engine: ExtractionEngine) -> None:
    # "gone by Sunday night" alone would be said back as the doing "going by Sunday night"
    labels = await _labels(
        offline_engine,
        "All the good slots are gone by Sunday night, so I get anxious about getting a slot.",
        methodology="customer_journey_mapping",
    )
    assert "good slots are gone by Sunday night" in labels, labels
    # a subject that is an item of its own stays one ("YouTube" is an element, "random clips" a pole)
    labels = await _labels(
        offline_engine,
        "Netflix has original shows, whereas YouTube is mostly random clips.",
        "repertory_grid",
    )
    assert "YouTube" in labels and not any(label.startswith("YouTube is") for label in labels), labels


@pytest.mark.parametrize(
    ("text", "element", "pole"),
    [
        (
            "I'd put Disney+ firmly on the 'scrolling for half an hour' side.",
            "Disney+",
            "scrolling for half an hour",
        ),
        ("I think Netflix is more on the good recommendations end.", "Netflix", "good recommendations"),
        ("YouTube sits closer to the constant adverts end.", "YouTube", "constant adverts"),
    ],
)
async def test_a_placement_names_a_pole_and_links_the_element(
    offline_engine: ExtractionEngine, text: str, element: str, pole: str
) -> None:
    result = await _extract(
        offline_engine,
        text,
        "repertory_grid",
        question="Where would each of them fall on that?",
        concept=_STREAMING,
    )
    assert {(c.label, c.node_type) for c in result.concepts} == {
        (element, "element"),
        (pole, "emergent_pole"),
    }
    assert [(r.source_label, r.edge_type, r.target_label) for r in result.relationships] == [
        (element, "placed_at", pole)
    ]


async def test_an_idiom_with_end_is_no_placement(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(offline_engine, "At the end of the day it's about the shows.", "repertory_grid")
    assert labels == set(), labels


@pytest.mark.parametrize(
    "text",
    [
        "I just need the weekdays to be easier.",
        "I felt relieved, and because of that I just need the weekdays to be easier.",
    ],
)
async def test_a_need_with_just_is_a_need(offline_engine: ExtractionEngine, text: str) -> None:
    # read one level up from the emotion it would be a moment of truth, and the interviewer would
    # ask "what did you need when needing …"
    result = await _extract(
        offline_engine,
        text,
        "customer_journey_mapping",
        question="What did you need then?",
        concept=ConceptBrief(id="grocery", name="Online grocery shopping"),
    )
    types = {c.label: c.node_type for c in result.concepts}
    assert types.get("need the weekdays to be easier") == "need", types


@pytest.mark.parametrize(
    ("text", "methodology", "whole", "broken"),
    [
        (
            "I work nights. After that, I had palpitations in the middle of a long night shift.",
            "jobs_to_be_done",
            "had palpitations",
            "had palpitations in the middle",
        ),
        (
            "I ended up back in hospital a week later, and I think that was because everyone assumed.",
            "critical_incident",
            "ended up back in hospital",
            "ended up back in hospital a week",
        ),
    ],
)
async def test_a_label_cut_to_length_drops_the_phrase_it_broke(
    offline_engine: ExtractionEngine, text: str, methodology: str, whole: str, broken: str
) -> None:
    labels = await _labels(offline_engine, text, methodology=methodology)
    assert whole in labels and broken not in labels, labels


async def test_a_label_cut_after_a_whole_phrase_keeps_it(offline_engine: ExtractionEngine) -> None:
    # "being in control of my time | is really important": the cut broke nothing
    labels = await _labels(
        offline_engine, "Because being in control of my time is really important to me.", "repertory_grid"
    )
    assert "in control of my time" in labels, labels


@pytest.mark.parametrize(
    ("text", "whole", "cut"),
    [
        # the respondent as the object of a participle completes it: "feels made" dangles
        ("It means it feels made for me.", "feels made for me", "feels made"),
        ("Honestly it feels designed for me.", "feels designed for me", "feels designed"),
    ],
)
async def test_the_respondent_as_object_stays_in_the_label(
    offline_engine: ExtractionEngine, text: str, whole: str, cut: str
) -> None:
    labels = await _labels(offline_engine, text, "repertory_grid", question="Why does that matter?")
    assert whole in labels and cut not in labels, labels


async def test_for_me_after_an_adjective_is_still_dropped(offline_engine: ExtractionEngine) -> None:
    # "much cheaper for me": the respondent is the point of view, not part of the item
    labels = await _labels(offline_engine, "The capsules are much cheaper for me.", "means_end_chain")
    assert labels and not any(label.endswith("for me") for label in labels), labels


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # an item with a cue of its own keeps its type and label; the weak frame is spent on it
        ("Feeling calm is what matters to me.", "feeling calm"),
        ("Staying focused is what matters to me.", "staying focused"),
    ],
)
async def test_is_what_matters_to_me_frames_the_item(
    offline_engine: ExtractionEngine, text: str, label: str
) -> None:
    labels = await _labels(offline_engine, text, "means_end_chain", question="Why is that important to you?")
    assert labels == {label}, labels


async def test_a_noun_cue_inside_an_idiom_names_no_item(offline_engine: ExtractionEngine) -> None:
    # "in control" is a feeling; "control" is also an attribute noun ("touch controls")
    result = await _extract(offline_engine, "I feel in control of my day.", "means_end_chain")
    assert [(c.node_type, c.label) for c in result.concepts] == [
        ("psychosocial_consequence", "feel in control of my day")
    ]
    assert ("attribute", "touch controls") in await _typed(
        offline_engine, "The touch controls are fiddly.", "means_end_chain"
    )


async def test_a_crash_of_energy_is_a_push_not_a_solution(offline_engine: ExtractionEngine) -> None:
    # "energy" is no product; an energy drink still is one (by "drink")
    result = await _extract(offline_engine, "My energy crashed every afternoon.")
    assert [(c.node_type, c.label) for c in result.concepts] == [("push", "energy crashed")]
    assert ("solution", "energy drinks") in await _typed(offline_engine, "The energy drinks made me jittery.")


async def test_a_hedge_before_a_subject_of_the_respondents_own_is_dropped(
    offline_engine: ExtractionEngine,
) -> None:
    # "I think my dad was going home": the hedge is not what happened
    labels = await _labels(
        offline_engine,
        "Hmm, I think my dad was going home after ten days with heart failure, and because of that the"
        " discharge nurse phoned me the day before he came home.",
        "critical_incident",
    )
    # (with its counted time: "after ten | days" is not cut before its unit)
    assert "dad was going home after ten days" in labels, labels
    assert not any(label.startswith("think") for label in labels), labels


@pytest.mark.parametrize("hedge", ["I think", "I reckon that", "We guess"])
async def test_a_hedge_before_a_bare_noun_subject_reads_as_the_clause_alone(
    offline_engine: ExtractionEngine, hedge: str
) -> None:
    # "I think dad was being discharged …" had given the incident "think dad" (the hedge's verb took
    # the subject as its object) and lost the discharge; the answer must read as it does unhedged
    told = (
        "dad was being discharged after his heart failure got worse, so a nurse rang me to plan the"
        " discharge a day early."
    )
    unhedged = await _extract(offline_engine, told[0].upper() + told[1:], methodology="critical_incident")
    hedged = await _extract(offline_engine, f"{hedge} {told}", methodology="critical_incident")
    assert nodes(hedged) == nodes(unhedged), (nodes(hedged), nodes(unhedged))
    assert edges(hedged) == edges(unhedged)
    assert any("heart failure" in label for _, label in nodes(hedged)), nodes(hedged)


async def test_a_hedge_before_anything_but_a_clause_stays_in_its_clause(
    offline_engine: ExtractionEngine,
) -> None:
    # "I think about it" is not a hedge over a clause: nothing of the sentence may be dropped as one
    labels = await _labels(
        offline_engine,
        "I think about the discharge lounge a lot, because nobody checked on him there.",
        "critical_incident",
    )
    assert not any(label.startswith("about") for label in labels), labels


async def test_a_passive_keeps_its_was(offline_engine: ExtractionEngine) -> None:
    # "I was told at the ward round": without "was", "told …" would be said back as the telling
    labels = await _labels(
        offline_engine,
        "I was told at the morning ward round that I could go home, and because of that I waited six hours.",
        "critical_incident",
    )
    assert "was told at the morning ward round" in labels, labels


async def test_a_cut_before_of_keeps_a_whole_noun_phrase(offline_engine: ExtractionEngine) -> None:
    # "gave me a written list | of the doses": the list is whole without its "of"; "the middle | of a
    # shift" is not (tested above)
    labels = await _labels(
        offline_engine,
        "Nobody properly explained my new tablets before I left, and because of that nobody gave me a written"
        " list of the doses.",
        "critical_incident",
    )
    assert "nobody gave me a written list" in labels, labels


async def test_about_before_a_doing_is_not_part_of_the_label(offline_engine: ExtractionEngine) -> None:
    # "that's about standing on my own feet": said back as "about standing …" it would not parse
    labels = await _labels(
        offline_engine,
        "I don't have to borrow money from my parents, and in the end that's about standing on my own feet.",
        "means_end_chain",
        question="Why does that matter to you?",
    )
    assert "standing on my own feet" in labels and not any(label.startswith("about") for label in labels), (
        labels
    )


async def test_respects_keeps_whose_time(offline_engine: ExtractionEngine) -> None:
    # "respects time" was said back as "How does respects time make a difference …"
    assert "respects my time" in await _labels(
        offline_engine, "I think that was because it respects my time.", "repertory_grid"
    )


async def test_a_noticed_clause_and_its_amount_make_the_label(offline_engine: ExtractionEngine) -> None:
    # "(I) realised my energy crashed", "spending (too much)": neither the noticing nor a bare doing
    labels = await _labels(
        offline_engine,
        "I work from home, and because of that I realised my energy crashed every afternoon.",
    )
    assert "energy crashed" in labels and not any(label.startswith("realised") for label in labels), labels
    result = await _extract(offline_engine, "I realised I was spending too much.")
    assert [c.label for c in result.concepts] == ["spending too much"]


async def test_a_noun_described_in_a_when_clause_is_no_product_property(
    offline_engine: ExtractionEngine,
) -> None:
    # "when the carriage is noisy" is the setting; "if the clamp is gentle" stays a property (gold mec-h1)
    labels = await _labels(
        offline_engine,
        "I can focus even when the carriage is noisy, which means I arrive calm instead of frazzled.",
        "means_end_chain",
    )
    assert "carriage" not in labels, labels
    assert ("attribute", "clamp") in await _typed(
        offline_engine, "If the clamp is gentle I can keep them on.", "means_end_chain"
    )


async def test_a_passive_after_to_be_keeps_its_be(offline_engine: ExtractionEngine) -> None:
    # "seen as reliable" was said back as "seeing as reliable by your team"
    assert "be seen as reliable by my team" in await _labels(
        offline_engine, "I want to be seen as reliable by my team."
    )


async def test_a_trailing_sort_of_is_a_hedge(offline_engine: ExtractionEngine) -> None:
    labels = await _labels(
        offline_engine,
        "I go through the checkout and pay. After that, the delivery arrives on Tuesday evening, sort of.",
        "customer_journey_mapping",
    )
    assert "arrives on Tuesday evening" in labels and not any("sort" in label for label in labels), labels


async def test_a_label_too_long_gives_up_its_passive_be_before_its_end(
    offline_engine: ExtractionEngine,
) -> None:
    # eight words with "being": cut at the end it read "… after his heart failure got"
    labels = await _labels(
        offline_engine,
        "Dad was being discharged after his heart failure got worse, and because of that the discharge nurse"
        " phoned me the day before he came home.",
        "critical_incident",
    )
    assert "discharged after his heart failure got worse" in labels, labels


async def test_a_reflexive_after_its_preposition_stays_in_the_label(offline_engine: ExtractionEngine) -> None:
    # "feel like I take care (of myself)" was said back as "feeling like you take care"
    labels = await _labels(offline_engine, "Because of that, I want to feel like I take care of myself.")
    assert "feel like I take care of myself" in labels, labels


async def test_look_after_is_one_verb_and_a_broken_relative_clause_goes_whole(
    offline_engine: ExtractionEngine,
) -> None:
    # "after" of "looks after" cut the clause ("a grown-up who looks"); the label, too long for the
    # cap, ends on the noun its relative clause described instead of inside the clause
    labels = await _labels(
        offline_engine,
        "I'm trying to get my head clear between tasks, which meant I want to feel like a grown-up who"
        " looks after herself.",
    )
    assert "feel like a grown-up" in labels, labels
    assert not any(label.endswith(("who", "who looks")) for label in labels), labels
    # "after" still opens a time clause after any other verb
    timed = await _labels(offline_engine, "I felt abandoned after they sent him home.", "critical_incident")
    assert "felt abandoned" in timed, timed


@pytest.mark.parametrize("agreement", ["Yes, that's about right.", "That's true.", "Yes, exactly right."])
async def test_an_answer_that_only_agrees_names_no_node(
    offline_engine: ExtractionEngine, agreement: str
) -> None:
    # "Yes, that's about right. Because of that, …" made a job "about right" serve the next clause
    labels = await _labels(
        offline_engine,
        f"{agreement} Because of that, I want to feel like I take care of myself.",
        question="How well does that match how you see it?",
    )
    assert labels == {"feel like I take care of myself"}, labels


async def test_a_relative_clause_that_lost_its_end_goes_whole(offline_engine: ExtractionEngine) -> None:
    # "(with it)" trimmed from "the discharge nurse who was dealing with it" left "… who was dealing",
    # said back as "How did discharge nurse who dealing affect you?"
    labels = await _labels(
        offline_engine,
        "It was the discharge nurse who was dealing with it.",
        "critical_incident",
        question="How did what the discharge nurse did shape the way things turned out?",
    )
    assert "discharge nurse" in labels, labels
    assert not any("who" in label for label in labels), labels


async def test_a_phrasal_verb_keeps_its_particle(offline_engine: ExtractionEngine) -> None:
    # "hospital transport never turned" (up): said back as "hospital transport never turned"
    labels = await _labels(
        offline_engine,
        "The hospital transport never turned up, so I waited six hours."
        " I picked him up and he gave up trying.",
        "critical_incident",
    )
    assert "hospital transport never turned up" in labels, labels
    assert "picked him up" in labels, labels
    # a preposition that lost its object still goes
    assert "waited six hours" in labels, labels


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        (
            "If I've understood you, always calling the carer is what made the difference in the end."
            " How well does that match how you see it?",
            "Yes, that sums it up well.",
        ),
        ("Why do you think the time after your hip operation turned out the way it did?", "Oh my goodness."),
    ],
)
async def test_a_stock_phrase_is_no_attribution(
    offline_engine: ExtractionEngine, question: str, answer: str
) -> None:
    # "that sums it up" and "oh my goodness" made attributions "sums" and "goodness"
    assert await _labels(offline_engine, answer, "critical_incident", question=question) == set()


async def test_what_something_makes_the_respondent_is_the_label(offline_engine: ExtractionEngine) -> None:
    # "it makes me so happy" gave "makes so happy", said back as "what does making so happy give you?"
    labels = await _labels(
        offline_engine, "Honestly, it makes me so happy.", "means_end_chain", question="Why does that matter?"
    )
    assert labels == {"happy"}, labels
    assert "stand out at work" in await _labels(
        offline_engine, "It makes me stand out at work.", "means_end_chain", question="Why does that matter?"
    )


@pytest.mark.parametrize(
    "text",
    [
        "I need to feel looked after.",  # "after" at the end of the answer
        "Because of that I need to feel looked after as a loyal customer.",  # and where the length cap cuts
    ],
)
async def test_looked_after_keeps_its_after(offline_engine: ExtractionEngine, text: str) -> None:
    # "need to feel looked" (after): the particle read as a dangling preposition and dropped
    labels = await _labels(offline_engine, text, "customer_journey_mapping", question="What did you need?")
    assert "need to feel looked after" in labels, labels


async def test_a_noun_verb_keeps_its_closing_of(offline_engine: ExtractionEngine) -> None:
    # "hate feeling taken advantage" (of): the closing "of" read as a preposition that lost its object
    labels = await _labels(
        offline_engine,
        "Mostly I hate feeling taken advantage of.",
        "means_end_chain",
        question="Why does that matter?",
    )
    assert any(label.endswith("feeling taken advantage of") for label in labels), labels


async def test_how_a_thing_is_done_stays_after_its_object(offline_engine: ExtractionEngine) -> None:
    # "feels like a treat to make" (it slowly): the cap cut the verb's object and its manner
    labels = await _labels(
        offline_engine,
        "That was because it feels like a treat to make it slowly.",
        question="What did you hope the barista course would let you do?",
    )
    assert "feels like a treat to make it slowly" in labels, labels


def test_a_time_phrase_the_cut_broke_goes_whole(pipeline: NlpPipeline) -> None:
    # "read reviews of a few machines one | evening": "one" was left dangling
    doc = pipeline.parse("read reviews of a few machines one evening")
    shaped = shape_label(doc, list(range(len(doc))))
    assert shaped is not None and shaped[0] == "read reviews of a few machines", shaped


@pytest.mark.parametrize("noun", ["time", "evening", "weekend"])
def test_time_spent_is_the_object_the_cap_keeps(pipeline: NlpPipeline, noun: str) -> None:
    # "deciding for myself how I spend my | time" lost the word past the cap, then the dangling
    # "my", and the closing said "deciding for yourself how you spend"
    doc = pipeline.parse(f"deciding for myself how I spend my {noun}")
    shaped = shape_label(doc, list(range(len(doc))))
    assert shaped is not None and shaped[0] == f"deciding for myself how i spend my {noun}", shaped


@pytest.mark.parametrize(
    ("text", "outcome"),
    [
        ("Hmm, that was because I can get out of the house faster.", "get out of the house faster"),
        ("Now I can have a proper coffee at my desk.", "have a proper coffee at my desk"),
        ("I can see why people like it.", None),  # a thought, not what the change lets them do
    ],
)
async def test_what_the_change_lets_them_do_is_an_outcome(
    offline_engine: ExtractionEngine, text: str, outcome: str | None
) -> None:
    # "I can get out of the house faster" gave nothing at all
    typed = await _typed(
        offline_engine, text, question="What were you really trying to get done at the time?"
    )
    outcomes = {label for kind, label in typed if kind == "desired_outcome"}
    assert outcomes == ({outcome} if outcome else set()), typed


def test_a_long_need_gives_up_its_wanting_before_its_object(pipeline: NlpPipeline) -> None:
    # "need to be able to plan | the week ahead" was said back as "needing to be able to plan"
    doc = pipeline.parse("need to be able to plan the week ahead")
    shaped = shape_label(doc, list(range(len(doc))))
    assert shaped is not None and shaped[0] == "be able to plan the week ahead", shaped
    # a need that fits keeps its words
    doc = pipeline.parse("need to know the food will come")
    assert shape_label(doc, list(range(len(doc)))) == ("need to know the food will come", list(range(7)))


async def test_a_long_clause_keeps_a_subject_of_the_respondent_s_own(
    offline_engine: ExtractionEngine,
) -> None:
    # "started racing one night at 3" (my heart did; "am" read as the verb and dropped): said back as
    # if the respondent had started racing
    labels = await _labels(
        offline_engine, "My heart started racing one night at 3am, and then I saw my GP the following week."
    )
    assert "heart started racing one night at 3am" in labels, labels


@pytest.mark.parametrize(
    ("text", "label"),
    [
        (
            "I was hoping for energy that lasts until morning, so I stay alert.",
            "energy that lasts until morning",
        ),
        # a clause after "until" still ends the label
        ("I wanted something that keeps me going until I get home.", "wanted something that keeps me going"),
    ],
)
async def test_a_phrase_of_time_stays_in_the_label(
    offline_engine: ExtractionEngine, text: str, label: str
) -> None:
    # "energy that lasts" (until morning): "until" read as opening a clause of its own
    assert label in await _labels(offline_engine, text), text


async def test_an_actor_is_the_whole_a_part_is_taken_of(offline_engine: ExtractionEngine) -> None:
    # "part of the team" became an actor, asked "how did what the part of the team did shape …?"
    async def actors(text: str) -> set[str]:
        return {
            label
            for kind, label in await _typed(offline_engine, text, "critical_incident")
            if kind == "actor"
        }

    assert await actors("I think that was because they treated me as part of the team.") == {"team"}
    assert await actors("The rest of the staff were lovely.") == {"staff"}
    assert await actors("A member of staff phoned me.") == {"member of staff"}  # a person: whole
    # "dad going home" (the tagger reads "going" as an adjective): the person, not what he did
    assert await actors("For me it always comes back to dad going home after heart failure admission.") == {
        "dad"
    }


@pytest.mark.parametrize(
    ("text", "lesson"),
    [
        (
            "I had the scales ready, and what I took from it is that hospitals should always call the carer"
            " before discharge.",
            "always call the carer",
        ),
        ("Every carer should get a call the day before.", "get a call the day before"),
    ],
)
async def test_a_lesson_names_roles_not_people_who_took_part(
    offline_engine: ExtractionEngine, text: str, lesson: str
) -> None:
    # "carer" from the lesson became an actor with nothing to tell: "How did the carer act during
    # what happened?" was answered "Nothing more to add there" (11 such actors in 36 simulated
    # incident interviews)
    typed = await _typed(offline_engine, text, "critical_incident")
    assert ("learning", lesson) in typed, typed
    assert not {label for kind, label in typed if kind == "actor"}, typed


async def test_someone_in_the_story_beside_a_lesson_still_took_part(
    offline_engine: ExtractionEngine,
) -> None:
    typed = await _typed(
        offline_engine,
        "The discharge nurse phoned me the day before, and what I took from it is that every carer should"
        " get a call.",
        "critical_incident",
    )
    assert ("actor", "discharge nurse") in typed, typed
    assert "carer" not in {label for kind, label in typed if kind == "actor"}, typed


async def test_an_incident_question_does_not_retype_what_a_cue_typed(
    offline_engine: ExtractionEngine,
) -> None:
    # "why do you think …?" made every item an attribution, and the stated reason then linked to
    # "was readmitted within a week" as a lesson ("teaches"), so the interviewer confirmed a
    # readmission as what the respondent took from it
    result = await _extract(
        offline_engine,
        "I mixed up the morning and evening tablets, so I was readmitted within a week, and I think that"
        " was because nobody owned the discharge.",
        "critical_incident",
        question="Why do you think the time after your hip operation turned out the way it did?",
    )
    types = {c.label: c.node_type for c in result.concepts}
    assert types["was readmitted within a week"] == "outcome", types
    assert "learning" not in types.values(), types
    edges = {(e.source_label, e.edge_type, e.target_label) for e in result.relationships}
    assert ("was readmitted within a week", "attributed_to", "nobody owned the discharge") in edges, edges


@pytest.mark.parametrize(
    ("subject", "label"),
    [
        # "realised waiting at the café took" (too long): the hedge stayed, and the cap cut the end
        ("waiting at the café", "waiting at the café took too long"),
        # a subject of a few words more before its verb ("realised the queue at the station café")
        ("the queue at the station café", "queue at the station café took too long"),
    ],
)
async def test_realised_before_a_subject_is_a_hedge(
    offline_engine: ExtractionEngine, subject: str, label: str
) -> None:
    text = f"I missed my train twice in one week, and because of that I realised {subject} took too long."
    labels = await _labels(offline_engine, text, question="What was going wrong?")
    assert label in labels, labels


async def test_what_comes_to_mind_is_the_item(offline_engine: ExtractionEngine) -> None:
    # "thermos of filter coffee comes" was the label, and "What job did the thermos of filter coffee
    # comes do for you?" the question
    labels = await _labels(
        offline_engine, "A thermos of filter coffee comes to mind.", question="What happened?"
    )
    assert labels == {"thermos of filter coffee"}, labels


async def test_a_label_over_the_cap_keeps_how_much_went_wrong(offline_engine: ExtractionEngine) -> None:
    # "queue at the station café took" (too long): the cap of seven words cut the amount, which is
    # what went wrong, and left the verb dangling
    labels = await _labels(
        offline_engine, "Like I said, the queue at the station café took too long.", question="What happened?"
    )
    assert "queue at the station café took too long" in labels, labels


async def test_a_counted_stretch_of_time_keeps_its_unit(offline_engine: ExtractionEngine) -> None:
    # "going home after ten" (days): "days" was dropped as the filler of "these days"
    labels = await _labels(
        offline_engine,
        "My dad was going home after ten days with heart failure, which meant the discharge nurse phoned me.",
        "critical_incident",
    )
    assert any("going home after ten days" in label for label in labels), labels
    assert not any(label.endswith("going home after ten") for label in labels), labels


async def test_the_ward_nurse_is_a_person_not_a_situation(offline_engine: ExtractionEngine) -> None:
    # the situation cue "the ward" took "ward nurse", asked back as "what made ward nurse work?"
    typed = await _typed(
        offline_engine, "The ward nurse went through all my tablets with me.", "critical_incident"
    )
    assert ("actor", "ward nurse") in typed, typed
    # the ward itself as the setting still is one
    assert ("situation", "ward had no beds") in await _typed(
        offline_engine, "The ward had no beds.", "critical_incident"
    )


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("Then I check out in the app.", "check out in the app"),
        ("Then I pay in the app.", "pay in the app"),
        ("So I compare prices in the app.", "compare prices in the app"),
    ],
)
async def test_a_journey_told_as_a_habit_keeps_its_actions(
    offline_engine: ExtractionEngine, text: str, action: str
) -> None:
    # "then I check out in the app" gave the app alone: only past forms ("checked out") were actions
    typed = await _typed(offline_engine, text, "customer_journey_mapping")
    assert ("action", action) in typed, typed


async def test_planning_is_an_action_of_the_journey(offline_engine: ExtractionEngine) -> None:
    # "Well, it starts on Sunday night when I plan the meals" (the first answer) gave no item at all
    typed = await _typed(
        offline_engine,
        "Well, it starts on Sunday night when I plan the meals.",
        "customer_journey_mapping",
        question="Could you describe it from the very beginning: what did you do first?",
    )
    assert ("action", "plan the meals") in typed, typed


@pytest.mark.parametrize(
    ("text", "pain"),
    [
        (
            "I tried to book for Tuesday, and because of that there are no evening slots left.",
            "no evening slots left",
        ),
        ("There was no way to add items.", "no way to add items"),
        ("The van was late.", "van was late"),
        ("There were no problems at all.", None),
        ("There was no hassle with the driver.", None),
        ("The van wasn't late.", None),
    ],
)
async def test_a_journey_s_friction_and_a_friction_denied(
    offline_engine: ExtractionEngine, text: str, pain: str | None
) -> None:
    # "there are no evening slots left" was typed an emotion; "there were no problems" is no friction
    pains = {
        label
        for kind, label in await _typed(offline_engine, text, "customer_journey_mapping")
        if kind == "pain_point"
    }
    assert pains == ({pain} if pain else set()), pains


async def test_a_need_to_do_something_is_no_action(offline_engine: ExtractionEngine) -> None:
    # the present is an action only right after "I": wanting to check out is a need
    typed = await _typed(
        offline_engine,
        "I need to check out quickly.",
        "customer_journey_mapping",
        question="What did you need?",
    )
    assert {kind for kind, _ in typed} == {"need"}, typed


async def test_a_clause_the_length_cut_broke_goes_whole(offline_engine: ExtractionEngine) -> None:
    # "starts on sunday night when i write | the list": the cut left "write" without what is written
    labels = await _labels(
        offline_engine,
        "It starts on Sunday night when I write the list, and then I try to get a delivery slot for Tuesday.",
        "customer_journey_mapping",
    )
    assert "starts on sunday night" in {label.lower() for label in labels}, labels
    assert not any(label.lower().endswith("when i write") for label in labels), labels


def test_a_clause_that_ended_before_the_cut_stays(pipeline: NlpPipeline) -> None:
    # the cut falls where "when it rained" is complete ("| and"): nothing of the clause is missing
    def shaped(text: str) -> str | None:
        doc = pipeline.parse(text)
        shaped = shape_label(doc, list(range(len(doc))))
        return shaped[0] if shaped is not None else None

    assert shaped("felt so anxious when it rained and the van came late") == "felt so anxious when it rained"
    # the same clause losing its object to the cut goes
    assert shaped("felt so anxious when i planned the meals for the week") == "felt so anxious"


async def test_an_aside_and_a_bare_happening_name_nothing(offline_engine: ExtractionEngine) -> None:
    # "Looking back, it happened because …" gave a lesson "looking back" and an attribution
    # "happened": the reason that follows is the only item
    question = (
        "So what stays with you from all this is being home by lunchtime. Is that right, or would you put"
        " it differently?"
    )
    labels = await _labels(
        offline_engine,
        "Yes, that sums it up well. Looking back, it happened because there was a pharmacist based on"
        " the ward.",
        "critical_incident",
        question=question,
    )
    assert "pharmacist based on the ward" in labels, labels
    assert not labels & {"looking back", "happened", "looking", "back"}, labels


async def test_a_closing_object_a_word_past_the_cap_is_kept(offline_engine: ExtractionEngine) -> None:
    # "showed me how to use the new | inhalers" became "showed me how to use": what was shown went
    labels = await _labels(
        offline_engine,
        "She showed me how to use the new inhalers, so I was home by lunchtime.",
        "critical_incident",
    )
    assert "showed me how to use the new inhalers" in labels, labels
    # beyond what the checks let a label run, the cut stands: a longer label would be dropped whole
    longer = await _labels(
        offline_engine,
        "She showed me how to use the two new blue inhalers, so I was home by lunchtime.",
        "critical_incident",
    )
    shown = [label for label in longer if label.startswith("showed me")]
    assert shown and all(len(label.split()) <= CHECKED_MAX_WORDS for label in shown), longer


async def test_a_cue_word_alone_names_nothing(offline_engine: ExtractionEngine) -> None:
    # "someone else had explained it" gave the action "explained" (the cue "explained", its object
    # "it" trimmed): the reason is the whole clause
    typed = await _typed(
        offline_engine,
        "I was readmitted within a week, and I think that was because everyone assumed someone else had"
        " explained it.",
        "critical_incident",
        question="In your view, what made it work, or not work?",
    )
    assert ("action", "explained") not in typed, typed
    assert any(kind == "attribution" and "everyone assumed" in label for kind, label in typed), typed


async def test_a_named_thing_keeps_its_type_when_a_link_is_forced(offline_engine: ExtractionEngine) -> None:
    # "because of that the driver carried the bags": the stated link between two touchpoints retyped
    # "bags" to an emotion the driver evoked (asked back as "What did you need at bags?")
    typed = await _typed(
        offline_engine,
        "The delivery arrives on Tuesday evening, and that meant dealing with a friendly driver, and because"
        " of that the driver carried the bags up three flights of stairs.",
        "customer_journey_mapping",
        question="What would have made the driver right for you?",
    )
    assert ("touchpoint", "bags") in typed, typed
    assert not any(kind == "emotion" for kind, _ in typed), typed


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("I always go for earbuds that weigh almost nothing.", "earbuds that weigh almost nothing"),
        ("I like headphones that fold flat.", "headphones that fold flat"),
        (
            "I go for a transparency mode that lets traffic noise in.",
            "transparency mode that lets traffic noise in",
        ),
        ("Mainly a case which fits in my pocket, really.", "case which fits in my pocket"),
    ],
)
async def test_a_chosen_noun_keeps_the_relative_clause_that_describes_it(
    offline_engine: ExtractionEngine, text: str, label: str
) -> None:
    # "earbuds" alone (an ignored word, or the concept's vocabulary) or "traffic noise" name nothing
    # the respondent chose: the relative clause is the attribute
    typed = await _typed(offline_engine, text, "means_end_chain", question="What stands out to you?")
    assert ("attribute", label) in typed, typed


async def test_a_state_keeps_the_noun_it_is_said_of(offline_engine: ExtractionEngine) -> None:
    # "feels well spent" alone is said back as the respondent's feeling ("what does feeling well
    # spent give you?"); the evening is what felt well spent
    labels = await _labels(
        offline_engine,
        "Well, the evening feels well spent, and that's important to me.",
        "repertory_grid",
        question="Why does that matter to you?",
    )
    assert "evening feels well spent" in labels, labels


@pytest.mark.parametrize(
    ("text", "label"),
    [
        # the pronoun a verb acts on completes it: "forgetting you're even wearing" dangles
        ("forget I'm even wearing them", "forget i'm even wearing them"),
        ("don't have to charge it", "don't have to charge it"),
        # a way to be keeps its "being": "independent" alone is said back as a thing
        ("being independent", "being independent"),
        ("being well organised", "being well organised"),
        ("being in control of my time", "in control of my time"),
    ],
)
def test_a_label_keeps_the_words_that_complete_it(pipeline: NlpPipeline, text: str, label: str) -> None:
    doc = pipeline.parse(text)
    shaped = shape_label(doc, list(range(len(doc))))
    assert shaped is not None and shaped[0] == label, shaped


@pytest.mark.parametrize("degree", ["", "well ", "really ", "financially "])
async def test_a_way_of_being_with_a_degree_word_is_a_value(
    offline_engine: ExtractionEngine, degree: str
) -> None:
    # "That was down to being well organised." named no item: the value cue is "being organised"
    typed = await _typed(
        offline_engine,
        f"That was down to being {degree}organised.",
        "means_end_chain",
        question="Why does that matter to you?",
    )
    assert ("instrumental_value", f"being {degree}organised") in typed, typed


async def test_forgetting_the_product_is_what_it_does(offline_engine: ExtractionEngine) -> None:
    # "I forget I'm even wearing them" named no item at all
    typed = await _typed(
        offline_engine,
        "Honestly, I forget I'm even wearing them.",
        "means_end_chain",
        question="Why does that matter?",
    )
    assert ("functional_consequence", "forget I'm even wearing them") in typed, typed


@pytest.mark.parametrize(
    ("text", "item"),
    [
        (
            "Because of that, she watched me use the inhaler twice.",
            ("action", "she watched me use the inhaler twice"),
        ),
        (
            "So they left him in the discharge lounge without food.",
            ("action", "left him in the discharge lounge"),
        ),
        ("The nurse walked me through the tablets.", ("action", "nurse walked me through the tablets")),
        ("Because of that I was home by lunchtime.", ("outcome", "home by lunchtime")),
        ("The hospital transport never turned up.", ("incident", "hospital transport never turned up")),
    ],
)
async def test_common_doings_of_an_incident_are_items(
    offline_engine: ExtractionEngine, text: str, item: tuple[str, str]
) -> None:
    # each gave no item at all when the question named none of them
    typed = await _typed(
        offline_engine,
        text,
        "critical_incident",
        question="How did the pharmacist act during what happened, and how did that affect you?",
    )
    assert item in typed, typed


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Because of that, she watched me use the inhaler twice.", "she watched me use the inhaler twice"),
        ("So he phoned me the next morning.", "he phoned me the next morning"),
    ],
)
async def test_a_pronoun_doer_stays_with_the_doing(
    offline_engine: ExtractionEngine, text: str, label: str
) -> None:
    # "watched me use the inhaler twice" was said back as the respondent's own doing
    labels = await _labels(offline_engine, text, "critical_incident", question="What happened next?")
    assert label in labels, labels


async def test_a_time_after_a_cue_noun_is_not_part_of_its_name(offline_engine: ExtractionEngine) -> None:
    # "machines one evening" was a solution, asked back as "what job did the machines one evening do?"
    labels = await _labels(
        offline_engine,
        "Hmm, I read reviews of a few machines one evening.",
        question="What was it about the capsule machine that made you think about a change?",
    )
    assert "machines" in labels and not any("machines one" in label for label in labels), labels


async def test_a_result_after_so_is_a_clause_of_its_own(offline_engine: ExtractionEngine) -> None:
    # "he was so exhausted he fell that night" gave the label "exhausted he fell that night"
    labels = await _labels(
        offline_engine,
        "They left him in the discharge lounge without food, and because of that he was so exhausted he fell"
        " that night.",
        "critical_incident",
    )
    assert "he fell that night" in labels, labels
    assert not any("exhausted he" in label for label in labels), labels


async def test_coming_home_is_an_outcome_with_its_doer(offline_engine: ExtractionEngine) -> None:
    typed = await _typed(
        offline_engine, "Because of that, he came home exhausted and confused.", "critical_incident"
    )
    assert ("outcome", "he came home exhausted and confused") in typed, typed


@pytest.mark.parametrize("hedge", ["", ", sort of"])
async def test_what_was_completely_wrong_is_the_pain_point(
    offline_engine: ExtractionEngine, hedge: str
) -> None:
    # "completely wrong" was an emotion (and the interviewer asked "What were you expecting at
    # completely wrong?"), or, without the hedge, nothing at all was read
    text = f"I unpack everything, and because of that the substitutions were completely wrong{hedge}."
    typed = await _typed(offline_engine, text, "customer_journey_mapping", question="What happened next?")
    assert ("pain_point", "substitutions were completely wrong") in typed, typed
    assert ("emotion", "completely wrong") not in typed, typed


@pytest.mark.parametrize(
    ("text", "pole"),
    [
        # "no" before the noun phrase a cue points at is the pole: "adverts" said the opposite
        ("Um, one thing I pay attention to is no adverts, kind of.", "no adverts"),
        ("I went for no ads at all, which means it feels like it's on my side.", "no ads"),
        # the pole wanted, not the wanting ("want no ads" was a second node beside "no ads")
        ("I want no ads at all so that it feels made for me.", "no ads"),
    ],
)
async def test_a_grid_pole_keeps_its_no_and_drops_the_wanting(
    offline_engine: ExtractionEngine, text: str, pole: str
) -> None:
    typed = await _typed(offline_engine, text, "repertory_grid", question="Which do you prefer, and why?")
    poles = {label for kind, label in typed if kind == "emergent_pole"}
    assert poles == {pole}, typed


async def test_what_it_is_about_is_the_item_also_when_negated(offline_engine: ExtractionEngine) -> None:
    # "about not being wasteful" kept its "about" ("why about not being wasteful is important to you?")
    labels = await _labels(
        offline_engine,
        "I want to save money, and in the end that's about not being wasteful.",
        "means_end_chain",
        question="Why does that matter to you?",
    )
    assert "not being wasteful" in labels, labels


@pytest.mark.parametrize(
    ("text", "methodology", "expected", "unwanted"),
    [
        # the gamer's anecdote about the pair they had before made an attribute "old bluetooth pair",
        # asked back as "what does the old bluetooth pair make possible for you in the end?"
        (
            "With my old bluetooth pair the footsteps came a split second late.",
            "means_end_chain",
            set(),
            "pair",
        ),
        ("My previous earbuds kept falling out.", "means_end_chain", set(), "earbuds"),
        # the product the respondent has is still its properties' bearer
        ("I love my bluetooth pair.", "means_end_chain", {("attribute", "bluetooth pair")}, None),
        # in a switch interview the old machine is a solution, not a property
        ("My old coffee machine broke.", "jobs_to_be_done", {("solution", "old coffee machine")}, None),
    ],
)
async def test_the_product_had_before_is_no_property(
    offline_engine: ExtractionEngine,
    text: str,
    methodology: str,
    expected: set[tuple[str, str]],
    unwanted: str | None,
) -> None:
    # with the concept's vocabulary ("earbuds", "bluetooth"), which names attributes on its own
    brief = ConceptBrief(id="headphones", name="Wireless headphones", vocabulary=("bluetooth", "earbuds"))
    result = await _extract(
        offline_engine, text, methodology, question="What do you look for?", concept=brief
    )
    typed = {(c.node_type, c.label) for c in result.concepts}
    assert expected <= typed, typed
    assert unwanted is None or not any(unwanted in label for _, label in typed), typed


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A value said plainly, with a hedge or a degree in the cue: these gave no node at all.
        (
            "Family closeness is probably the most important thing in my life.",
            ("family closeness", "terminal_value"),
        ),
        ("Peace of mind matters most to me.", ("peace of mind", "terminal_value")),
        ("Being a patient parent matters a lot to me.", ("patient parent", "instrumental_value")),
        ("Being productive is very important to me.", ("being productive", "instrumental_value")),
    ],
)
async def test_a_value_said_plainly_is_a_value_node(
    offline_engine: ExtractionEngine, text: str, expected: tuple[str, str]
) -> None:
    result = await extract(
        offline_engine,
        text,
        "Why is that important to you?",
        methodology="means_end_chain",
        concept=ConceptBrief(id="headphones", name="Wireless headphones"),
    )
    assert expected in [(c.label, c.node_type) for c in result.concepts]


@pytest.mark.parametrize(
    "answer",
    [
        "I pay for Netflix and Disney+, and there's Prime Video, the one I cancelled.",
        "The one I cancelled, Prime Video, kept showing the same reruns everywhere.",
    ],
)
async def test_a_description_beside_a_name_is_not_an_element_of_its_own(
    offline_engine: ExtractionEngine, answer: str
) -> None:
    # "Prime Video, the one I cancelled" had given two elements, and a triad then named the same
    # service twice ("Prime Video, one you cancelled and Disney+")
    question = "Which streaming services have you used or come across?"
    result = await extract(offline_engine, answer, question, methodology="repertory_grid", concept=_STREAMING)
    elements = {c.label for c in result.concepts if c.node_type == "element"}
    assert "Prime Video" in elements and not [e for e in elements if "cancelled" in e], elements


async def test_a_description_alone_is_still_an_element(offline_engine: ExtractionEngine) -> None:
    # a role title the respondent gives no name stays the element it is ("the service I cancelled")
    question = "Which streaming services have you used or come across?"
    answer = "The one I cancelled had the same reruns everywhere, and Netflix has its own series."
    result = await extract(offline_engine, answer, question, methodology="repertory_grid", concept=_STREAMING)
    elements = {c.label for c in result.concepts if c.node_type == "element"}
    assert "one I cancelled" in elements and "Netflix" in elements, elements


@pytest.mark.parametrize(
    ("text", "items", "not_items"),
    [
        # the device an item was used on is not an item of its own
        (
            "I copy last week's order and tweak it, using the app on my phone.",
            {("touchpoint", "app")},
            {("touchpoint", "phone")},
        ),
        ("I checked the tracking on my phone.", {("touchpoint", "tracking")}, {("touchpoint", "phone")}),
        # with nothing before it to carry, the phone is what they dealt with
        ("They rang me on my phone the day before.", {("touchpoint", "phone")}, set()),
    ],
)
async def test_the_device_an_item_was_used_on_is_no_item_of_its_own(
    offline_engine: ExtractionEngine,
    text: str,
    items: set[tuple[str, str]],
    not_items: set[tuple[str, str]],
) -> None:
    typed = await _typed(offline_engine, text, "customer_journey_mapping", question="What did you do next?")
    assert items <= typed, typed
    assert not typed & not_items, typed
