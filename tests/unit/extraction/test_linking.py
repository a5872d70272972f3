"""Links the offline extractor recovers: "X because Y", "X so that Y", "which means", anaphoric
"that's important to me because", "X conflicts with Y", restated items from earlier turns, and
narrative sequences."""

from __future__ import annotations

import itertools

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.models import ConceptBrief, ExistingNode, ExtractionResult
from tests.unit.extraction.support import extract

CONCEPTS = {
    "means_end_chain": ConceptBrief(id="headphones_mec", name="Wireless headphones"),
    "critical_incident": ConceptBrief(id="hospital_discharge_cit", name="Hospital discharge"),
    "jobs_to_be_done": ConceptBrief(id="coffee_jtbd", name="Morning coffee"),
    "repertory_grid": ConceptBrief(id="streaming_services_repgrid", name="Video streaming services"),
    "customer_journey_mapping": ConceptBrief(id="online_grocery_journey", name="Online grocery shopping"),
}


async def _extract(
    engine: ExtractionEngine,
    methodology: str,
    text: str,
    question: str = "",
    existing: tuple[tuple[str, str], ...] = (),
    concept: ConceptBrief | None = None,
) -> ExtractionResult:
    nodes = tuple(
        ExistingNode(node_id=f"n{i}", label=label, node_type=node_type)
        for i, (label, node_type) in enumerate(existing)
    )
    return await extract(
        engine,
        text,
        question,
        methodology=methodology,
        concept=concept or CONCEPTS[methodology],
        existing=nodes,
    )


def _edges(result: ExtractionResult) -> set[tuple[str, str, str]]:
    return {(r.source_label, r.edge_type, r.target_label) for r in result.relationships}


def _types(result: ExtractionResult) -> dict[str, str]:
    return {c.label: c.node_type for c in result.concepts}


def _linked(result: ExtractionResult, source: str, edge_type: str, target: str) -> bool:
    """An edge whose endpoint labels contain the given words (labels are shaped, e.g. "being" dropped)."""
    return any(
        set(source.split()) <= set(s.split()) and e == edge_type and set(target.split()) <= set(t.split())
        for s, e, t in _edges(result)
    )


@pytest.mark.parametrize("opening", ["", "Right, ", "Hmm, okay, "])
async def test_importance_linked_to_the_item_the_question_named(
    offline_engine: ExtractionEngine, opening: str
) -> None:
    result = await _extract(
        offline_engine,
        "means_end_chain",
        f"{opening}that's important to me because I can concentrate during my commute.".capitalize(),
        question="What is it about noise cancelling that matters to you?",
        existing=(("noise cancelling", "attribute"),),
    )
    assert ("noise cancelling", "leads_to", "concentrate during my commute") in _edges(result)


async def test_a_push_given_as_the_reason_serves_the_outcome_asked_about(
    offline_engine: ExtractionEngine,
) -> None:
    result = await _extract(
        offline_engine,
        "jobs_to_be_done",
        "Right, that was because I was spending too much on coffee.",
        question="What did you picture spending less each month would change for you?",
        existing=(("spend less each month", "desired_outcome"),),
    )
    assert ("spending too much on coffee", "serves", "spend less each month") in _edges(result)


@pytest.mark.parametrize(
    ("methodology", "text", "reason", "edge_type", "explained", "subject"),
    [
        # the reason is what the drinks did, a push, not the drinks themselves
        (
            "jobs_to_be_done",
            "I want to reduce the chance of mistakes at 4am. That was because the energy drinks made me "
            "jittery.",
            "made me jittery",
            "serves",
            "reduce the chance of mistakes at 4am",
            "energy drinks",
        ),
        # the ladder keeps its rungs: attribute -> functional -> psychosocial, not attribute -> psychosocial
        (
            "means_end_chain",
            "I feel relaxed because the long battery life saves me time.",
            "saves time",
            "leads_to",
            "feel relaxed",
            "long battery life",
        ),
    ],
)
async def test_a_reason_told_of_a_subject_is_the_telling_not_the_subject(
    offline_engine: ExtractionEngine,
    methodology: str,
    text: str,
    reason: str,
    edge_type: str,
    explained: str,
    subject: str,
) -> None:
    result = await _extract(offline_engine, methodology, text, question="Why does that matter to you?")
    edges = _edges(result)
    assert (reason, edge_type, explained) in edges, edges
    assert not any(subject == s and explained == t for s, _, t in edges), edges
    assert any(subject == s and reason == t for s, _, t in edges), edges  # the clause still joins the two


async def test_that_points_back_to_the_clause_before(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "I feel relaxed before exams, and that's important because in the end it's about happiness.",
        question="Why does that matter to you?",
    )
    assert _types(result)["happiness"] == "terminal_value"
    assert _linked(result, "feel relaxed", "leads_to", "happiness"), _edges(result)


async def test_its_about_is_not_read_as_it_has(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine, "means_end_chain", "Well, in the end it's about security.", question="Why?"
    )
    assert _types(result) == {"security": "terminal_value"}


async def test_the_bare_reason_side_becomes_the_rung_below(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "For me being sensible with money matters because ultimately it's about security.",
        question="What does saving money give you?",
    )
    types = _types(result)
    assert types.get("sensible with money") == "instrumental_value", types
    assert _linked(result, "sensible with money", "leads_to", "security"), _edges(result)


async def test_a_restated_item_from_an_earlier_turn_is_linked(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "I have money left over for holidays, which matters because ultimately it's about being responsible "
        "with money.",
        question="What does that give you?",
        existing=(("have money left over for holidays", "functional_consequence"),),
    )
    assert _linked(result, "have money left over for holidays", "leads_to", "responsible with money")
    # one item, one type: the named value ("being responsible") is not also a terminal value
    assert _types(result).get("responsible with money") == "instrumental_value", _types(result)
    assert len(result.concepts) == 2


_LOUNGE = "nobody checked on him in the discharge lounge"


async def test_an_item_said_again_in_its_own_words_keeps_its_type(offline_engine: ExtractionEngine) -> None:
    # told as an action, the same words opening the next answer read as an incident: a second node
    # of the same label took the link to the outcome, and the chain through the action broke
    answer = f"I think {_LOUNGE}, and because of that he was so exhausted he fell that night."
    question = "How did nobody checking on him in the discharge lounge turn out in the end?"
    result = await _extract(offline_engine, "critical_incident", answer, question)
    assert _types(result).get(_LOUNGE) == "incident", _types(result)  # the cue's reading, with no history
    told = ((_LOUNGE, "action"),)
    result = await _extract(offline_engine, "critical_incident", answer, question, existing=told)
    assert _types(result).get(_LOUNGE) == "action", _types(result)
    assert (_LOUNGE, "leads_to", "he fell that night") in _edges(result), _edges(result)


async def test_one_word_said_again_may_play_another_part(offline_engine: ExtractionEngine) -> None:
    # a single word is too little to call it the same item: the answer's own cue types it
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "I really care about comfort.",
        question="What else do you look for?",
        existing=(("comfort", "psychosocial_consequence"),),
    )
    assert _types(result).get("comfort") == "attribute", _types(result)


async def test_because_of_that_after_and_links_the_clause_before(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "critical_incident",
        "Dad waited five hours for transport that never came, and because of that nobody checked on him "
        "in the discharge lounge.",
        question="What happened next?",
    )
    edges = _edges(result)
    assert any(
        "waited five hours" in s and t.startswith("nobody checked") and e == "leads_to" for s, e, t in edges
    ), edges


@pytest.mark.parametrize(
    ("question", "existing"),
    [
        ("How did that turn out?", ()),
        # the question names a node, but "that" is the answer's own clause before it
        ("How did the nurse act during what happened?", (("nurse", "actor"),)),
        # a "why" question types every bare clause as an attribution: the clause "that" points back
        # to is what the reason explains, not a second attribution (made a lesson to fit an edge)
        ("Why do you think the discharge nurse phoned you?", (("discharge nurse phoned me", "action"),)),
        ("Why do you think it turned out the way it did?", ()),
    ],
)
async def test_an_explanation_after_that_was_because_is_an_attribution(
    offline_engine: ExtractionEngine, question: str, existing: tuple[tuple[str, str], ...]
) -> None:
    result = await _extract(
        offline_engine,
        "critical_incident",
        "Everything was ready when he got home, and I think that was because they involved the family early.",
        question=question,
        existing=existing,
    )
    types = _types(result)
    assert types.get("involved the family early") == "attribution", types
    assert types.get("everything was ready when he got home") == "outcome", types
    assert ("everything was ready when he got home", "attributed_to", "involved the family early") in _edges(
        result
    )


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        # "nobody" cues an incident, but the respondent gives it as the explanation
        ((), "attribution"),
        # said before in these very words, as an incident: the node keeps its type
        ((("nobody chased the transport booking", "incident"),), "incident"),
    ],
)
async def test_a_reason_framed_as_an_explanation_outweighs_its_cue(
    offline_engine: ExtractionEngine, existing: tuple[tuple[str, str], ...], expected: str
) -> None:
    result = await _extract(
        offline_engine,
        "critical_incident",
        "He came home exhausted and confused, and I think that was because nobody chased the transport "
        "booking.",
        question="How did that affect him?",
        existing=existing,
    )
    assert _types(result).get("nobody chased the transport booking") == expected, _types(result)


async def test_an_explanation_with_nothing_before_it_explains_the_node_asked_about(
    offline_engine: ExtractionEngine,
) -> None:
    result = await _extract(
        offline_engine,
        "critical_incident",
        "Well, I think that was because they involved the family early.",
        question="Why did the nurse phoning you matter?",
        existing=(("nurse phoned me", "action"),),
    )
    assert ("nurse phoned me", "attributed_to", "involved the family early") in _edges(result)


@pytest.mark.parametrize("next_sentence", [False, True])
async def test_someone_who_was_the_one_took_part_in_what_was_told_before(
    offline_engine: ExtractionEngine, next_sentence: bool
) -> None:
    join = ". The" if next_sentence else ", and the"
    result = await _extract(
        offline_engine,
        "critical_incident",
        f"Nobody properly explained my new tablets before I left{join} junior doctor was the one dealing"
        " with it.",
        question="Who else was involved?",
    )
    edges = _edges(result)
    assert ("nobody properly explained my new tablets", "involves", "junior doctor") in edges, edges


async def test_the_one_named_with_a_place_is_no_state_of_the_place(offline_engine: ExtractionEngine) -> None:
    # "the nurse on the ward was the one …" met the situation cue "the ward was": a situation "ward
    # was the one dealing" took the nurse's part in what was told
    result = await _extract(
        offline_engine,
        "critical_incident",
        "I chased the nurses again and again, and the nurse on the ward was the one dealing with it.",
        question="What did the others involved actually do or say?",
    )
    assert "situation" not in _types(result).values(), _types(result)
    assert ("chased the nurses", "involves", "nurse") in _edges(result), _edges(result)
    # the cue still reads what the ward was
    result = await _extract(
        offline_engine, "critical_incident", "The ward was short-staffed that day.", question="What happened?"
    )
    assert _types(result).get("ward was short-staffed that day") == "situation", _types(result)


async def test_a_touchpoint_named_in_a_clause_leaves_its_doing_to_be_typed(
    offline_engine: ExtractionEngine,
) -> None:
    # "the driver" is a touchpoint found by its noun; it made the clause look typed, so the moment
    # the need comes from was never extracted
    result = await _extract(
        offline_engine,
        "customer_journey_mapping",
        "The driver helped me carry everything upstairs, which meant I want to feel they actually care.",
        question="What did you need from the delivery driver?",
    )
    assert _types(result).get("driver helped me carry everything upstairs") == "moment_of_truth", _types(
        result
    )
    assert (
        "driver helped me carry everything upstairs",
        "reveals",
        "want to feel they actually care",
    ) in _edges(result)


async def test_a_narrative_sequence_gives_ordered_events(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "jobs_to_be_done",
        "I missed my train twice in one week, and then I saw a colleague's capsule machine in the office.",
        question="What happened first?",
    )
    edges = _edges(result)
    assert any(e == "precedes" and s.startswith("missed my train") for s, e, _ in edges), edges


async def test_two_poles_on_either_side(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "repertory_grid",
        "On one side it's no adverts, on the other constant adverts.",
        question="How are two of them alike and different from the third?",
    )
    types = _types(result)
    assert types.get("no adverts") == "emergent_pole" and types.get("constant adverts") == "implicit_pole", (
        types
    )
    assert ("no adverts", "contrasts_with", "constant adverts") in _edges(result)


_HEARING = (("ambient sound mode", "attribute"), ("hear cars and cyclists coming", "functional_consequence"))


async def test_what_follows_like_i_said_is_the_node_asked_about(offline_engine: ExtractionEngine) -> None:
    # "Like I said, I can still hear the traffic" made a near-copy "hear the traffic" of the focus,
    # and the next rung linked to the copy: the chain to the attribute broke
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "Like I said, I can still hear the traffic around me, which means I feel safe when I run alone.",
        question="And what does hearing cars and cyclists coming make possible for you in the end?",
        existing=_HEARING,
    )
    assert "hear the traffic" not in _types(result), _types(result)
    assert ("hear cars and cyclists coming", "leads_to", "feel safe") in _edges(result), _edges(result)


async def test_a_new_item_after_like_i_said_stays_new(offline_engine: ExtractionEngine) -> None:
    # no word of the focus in it: something else said again, not the focus
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "Like I said, I feel safe when I run alone.",
        question="And what does hearing cars and cyclists coming make possible for you in the end?",
        existing=_HEARING,
    )
    assert "feel safe" in _types(result), _types(result)
    # without "like I said" the item is new words, and a new node
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "I can still hear the traffic around me, which means I feel safe when I run alone.",
        question="And what does hearing cars and cyclists coming make possible for you in the end?",
        existing=_HEARING,
    )
    assert "hear the traffic around me" in _types(result) or "hear the traffic" in _types(result), _types(
        result
    )


_WHO_WAS_INVOLVED = (
    "Who was involved while waiting six hours for the discharge letter, and what were their roles?"
)
_WAIT = (
    ("waited six hours for the discharge letter", "incident"),
    ("was told at the morning ward round", "situation"),
)


async def test_part_of_the_words_asked_about_is_the_node_asked_about(
    offline_engine: ExtractionEngine,
) -> None:
    # "waiting for the letter" restates the wait the question named: as a node of its own it took
    # the link to the chasing, and the chain through the wait broke
    wait = "waited six hours for the discharge letter"
    result = await _extract(
        offline_engine,
        "critical_incident",
        "I sat in my coat until four waiting for the letter, so I chased the nurses again and again.",
        question=_WHO_WAS_INVOLVED,
        existing=_WAIT,
    )
    assert "waiting for the letter" not in _types(result), _types(result)
    assert (wait, "leads_to", "chased the nurses") in _edges(result), _edges(result)


@pytest.mark.parametrize(
    "answer",
    [
        # a word of its own: another wait
        "I sat there waiting for the taxi, so I chased the nurses again and again.",
        # one word of the node: a part of it, not the node
        "The letter never came, so I chased the nurses again and again.",
    ],
)
async def test_an_item_with_words_of_its_own_is_not_the_node_asked_about(
    offline_engine: ExtractionEngine, answer: str
) -> None:
    result = await _extract(
        offline_engine,
        "critical_incident",
        answer,
        question=_WHO_WAS_INVOLVED,
        existing=_WAIT,
    )
    assert not any(s == "waited six hours for the discharge letter" for s, _, _ in _edges(result)), _edges(
        result
    )


async def test_someone_named_in_the_words_asked_about_stays_who_they_are(
    offline_engine: ExtractionEngine,
) -> None:
    # "the discharge nurse" has two words, both of "discharge nurse phoned me": the nurse who phoned
    result = await _extract(
        offline_engine,
        "critical_incident",
        "The discharge nurse was really kind, so she talked me through the fluid limits.",
        question="What happened after the discharge nurse phoned you?",
        existing=(("discharge nurse phoned me", "incident"), ("discharge nurse", "actor")),
    )
    assert _types(result).get("discharge nurse") == "actor", _types(result)


_COMMUTE = (("noise cancelling", "attribute"), ("concentrate during my commute", "functional_consequence"))


async def test_said_again_after_nothing_more_is_the_node_asked(offline_engine: ExtractionEngine) -> None:
    # the top of a ladder: "focus" became a new node, so the answer that ended the ladder read as
    # productive and the next question asked "what is it about focus that matters to you?"
    question = "What is it about concentrating during your commute that matters to you?"
    answer = "Like I said, I can focus even when the carriage is noisy."
    declined = "I don't think there's anything deeper than that, it's simply what I care about. " + answer
    result = await _extract(offline_engine, "means_end_chain", declined, question=question, existing=_COMMUTE)
    assert _types(result) == {"concentrate during my commute": "functional_consequence"}, _types(result)
    # without the remark, "like I said" may refer to anything said before: no shared word, no match
    result = await _extract(offline_engine, "means_end_chain", answer, question=question, existing=_COMMUTE)
    assert "concentrate during my commute" not in _types(result), _types(result)
    # a new point before the marker is not a refusal to go on
    result = await _extract(
        offline_engine,
        "means_end_chain",
        "I get my inbox cleared before work. " + answer,
        question=question,
        existing=_COMMUTE,
    )
    assert "concentrate during my commute" not in _types(result), _types(result)


async def test_someone_else_s_doing_keeps_its_doer(offline_engine: ExtractionEngine) -> None:
    # "lost half a day's pay" (my wife did) was said back as the respondent's own: "how did losing
    # half a day's pay affect you?"
    result = await _extract(
        offline_engine,
        "critical_incident",
        "I kept asking the nurses every hour, so my wife lost half a day's pay waiting in the car park.",
        question="How did chasing the nurses affect you?",
    )
    assert any(label.startswith("wife lost half a day's pay") for label in _types(result)), _types(result)
    result = await _extract(
        offline_engine,
        "critical_incident",
        "Dad waited five hours for transport.",
        question="What happened next?",
    )
    assert "dad waited five hours for transport" in _types(result), _types(result)
    # the doer is still an item of its own, and the doing involves it
    result = await _extract(
        offline_engine, "critical_incident", "My daughter picked me up.", question="Who helped?"
    )
    assert _types(result).get("daughter") == "actor", _types(result)
    assert ("daughter picked me up", "involves", "daughter") in _edges(result), _edges(result)


_GAMER = (
    ("price", "attribute"),
    ("detachable microphone", "attribute"),
    ("punchy bass", "attribute"),
    ("clear microphone", "attribute"),
    ("understand me on voice chat", "functional_consequence"),
    ("enjoy my music", "psychosocial_consequence"),
)


async def test_a_question_asking_to_choose_among_items_anchors_none(offline_engine: ExtractionEngine) -> None:
    # "Looking back at punchy bass, detachable microphone and enjoying your music, which of these
    # matters most?" anchored the answer to the microphone: "the detachable microphone leads to
    # listening to full albums"
    answer = "I can listen to full albums in the library, which means I feel relaxed even before exams."
    result = await _extract(
        offline_engine,
        "means_end_chain",
        answer,
        question="Looking back at punchy bass, detachable microphone and enjoying your music, which of these "
        "matters most to you, and why?",
        existing=_GAMER,
    )
    assert not any(s == "detachable microphone" for s, _, _ in _edges(result)), _edges(result)
    # a question about one of them still anchors the answer to it
    result = await _extract(
        offline_engine,
        "means_end_chain",
        answer,
        question="You mentioned the detachable microphone. What does it give you?",
        existing=_GAMER,
    )
    assert any(s == "detachable microphone" for s, _, _ in _edges(result)), _edges(result)


async def test_an_example_of_what_was_asked_about_exemplifies_it(offline_engine: ExtractionEngine) -> None:
    # pyramiding down: the element named as an example was left unlinked
    result = await _extract(
        offline_engine,
        "repertory_grid",
        "Prime Video is a good example of that.",
        question="What do old licensed films do for you, personally?",
        existing=(("old licensed films", "implicit_pole"), ("Netflix", "element")),
    )
    assert ("old licensed films", "exemplified_by", "Prime Video") in _edges(result), _edges(result)
    # without "example", the same answer names no instance of it
    plain = await _extract(
        offline_engine,
        "repertory_grid",
        "Prime Video is the one I use most.",
        question="What do old licensed films do for you, personally?",
        existing=(("old licensed films", "implicit_pole"),),
    )
    assert not any(e == "exemplified_by" for _, e, _ in _edges(plain)), _edges(plain)


@pytest.mark.parametrize(
    ("answer", "question", "typed", "poles"),
    [
        # "no ads at all" was no item: "ads" is ignored as a word alone, and "no" made nothing of it
        (
            "Honestly, some have no ads at all, whereas others have constant adverts.",
            "In what important way are two of them alike and different from the third?",
            ("no ads", "emergent_pole"),
            ("no ads", "constant adverts"),
        ),
        # the opposite in a sentence of its own was set against nothing
        (
            "Netflix has lots of original shows. The opposite would be mostly old licensed films.",
            "How is Netflix different from the other two?",
            ("old licensed films", "implicit_pole"),
            ("original shows", "old licensed films"),
        ),
    ],
)
async def test_the_two_poles_set_against_each_other(
    offline_engine: ExtractionEngine,
    answer: str,
    question: str,
    typed: tuple[str, str],
    poles: tuple[str, str],
) -> None:
    result = await _extract(offline_engine, "repertory_grid", answer, question=question)
    label, node_type = typed
    assert _types(result).get(label) == node_type, _types(result)
    assert (poles[0], "contrasts_with", poles[1]) in _edges(result), _edges(result)


async def test_what_it_is_about_is_a_pole_that_ladders_up(offline_engine: ExtractionEngine) -> None:
    result = await _extract(
        offline_engine,
        "repertory_grid",
        "Well, it's about good recommendations. That's important to me because it doesn't waste my time.",
        question="How does scrolling for half an hour make a difference for you personally?",
        existing=(("scrolling for half an hour", "implicit_pole"),),
    )
    assert _types(result).get("good recommendations") == "emergent_pole", _types(result)
    assert ("good recommendations", "ladders_to", "doesn't waste my time") in _edges(result), _edges(result)


async def test_the_pole_chosen_over_the_one_asked_about_is_what_ladders_up(
    offline_engine: ExtractionEngine,
) -> None:
    # The node asked about had been linked as well: "constant adverts ladders_to feels like it's on
    # my side", then said back as "constant adverts lead to feeling like it's on your side"
    existing = (("no adverts", "emergent_pole"), ("constant adverts", "implicit_pole"))
    questions = (
        "Which side of constant adverts appeals to you more, and why does that matter to you?",
        "Thinking about constant adverts, which end do you prefer, and why is that important to you?",
        "If you had to choose between constant adverts and the opposite, which would it be, and why does "
        "that matter to you?",
    )
    answers = (
        "Well, I want no adverts at all so that it feels like it's on my side.",
        "I want no ads at all so that it feels like it's on my side.",
    )
    for question, answer in itertools.product(questions, answers):
        result = await _extract(offline_engine, "repertory_grid", answer, question, existing)
        edges = _edges(result)
        assert _linked(result, "no", "ladders_to", "on my side"), edges
        assert not [e for e in edges if e[0] == "constant adverts"], edges


async def test_a_ranking_question_links_the_answer_to_none_of_the_items_ranked(
    offline_engine: ExtractionEngine,
) -> None:
    # "If you ranked …, feeling like it's on your side and constant adverts by how much they matter
    # …?" "It's really just being treated fairly." had made "constant adverts ladders_to being
    # treated fairly": the last item named, not one the respondent chose
    existing = (
        ("no adverts", "emergent_pole"),
        ("constant adverts", "implicit_pole"),
        ("feels like it's on my side", "superordinate_construct"),
    )
    question = (
        "If you ranked feeling like it's on your side and constant adverts by how much they matter to you, "
        "what would come first, and why?"
    )
    result = await _extract(
        offline_engine, "repertory_grid", "It's really just being treated fairly.", question, existing
    )
    assert "being treated fairly" in _types(result), _types(result)
    ranked = {"constant adverts", "feels like it's on my side"}
    assert not [e for e in _edges(result) if e[0] in ranked], _edges(result)


async def test_an_answer_to_a_laddering_question_links_to_what_it_asked_about(
    offline_engine: ExtractionEngine,
) -> None:
    # "how does X make a difference for you?" was no probe: the answer's item stayed unlinked
    existing = (
        ("hear cars and cyclists coming", "functional_consequence"),
        ("ambient sound mode", "attribute"),
    )
    for question in (
        "How does hearing cars and cyclists coming make a difference for you personally?",
        "What does hearing cars and cyclists coming give you?",
        "What does hearing cars and cyclists coming do for you, personally?",
    ):
        result = await _extract(
            offline_engine,
            "means_end_chain",
            "It means I feel safe running on the road.",
            question=question,
            existing=existing,
        )
        assert ("hear cars and cyclists coming", "leads_to", "feel safe running on the road") in _edges(
            result
        ), (
            question,
            _edges(result),
        )


async def test_a_result_asked_about_links_to_the_incident(offline_engine: ExtractionEngine) -> None:
    for question in (
        "How did chasing the nurses turn out in the end?",
        "How did chasing the nurses affect you?",
    ):
        result = await _extract(
            offline_engine,
            "critical_incident",
            "I was home by lunchtime.",
            question=question,
            existing=(("chase the nurses", "action"),),
        )
        assert ("chase the nurses", "leads_to", "home by lunchtime") in _edges(result), (
            question,
            _edges(result),
        )


async def test_what_costs_too_much_is_kept(offline_engine: ExtractionEngine) -> None:
    # "cost" read as a noun made "pods cost" one phrase, and the criterion lost whose cost it was
    result = await _extract(
        offline_engine,
        "jobs_to_be_done",
        "The pods cost too much in the long run, so I stopped buying them.",
        question="What was going wrong with the capsule machine?",
    )
    assert _types(result).get("pods") == "solution", _types(result)
    assert ("pods", "decided_by", "cost too much in the long run") in _edges(result), _edges(result)


@pytest.mark.parametrize(
    "answer",
    [
        "The trouble is good sound quality usually conflicts with a low price.",
        "Good sound quality is at odds with a low price.",
    ],
)
async def test_one_item_against_another_in_one_clause(offline_engine: ExtractionEngine, answer: str) -> None:
    # "X conflicts with Y" was read as two unrelated attributes, and "the trouble" as a third
    brief = ConceptBrief(id="headphones_mec", name="Wireless headphones", vocabulary=("sound quality",))
    result = await _extract(
        offline_engine, "means_end_chain", answer, question="What else do you look for?", concept=brief
    )
    labels = {label.removeprefix("good ") for label in _types(result)}
    assert labels == {"sound quality", "low price"}, _types(result)
    assert [e for e in _edges(result) if e[1] == "conflicts_with"], _edges(result)


@pytest.mark.parametrize(
    ("answer", "edge"),
    [
        (
            "Good sound quality conflicts with a low price.",
            ("good sound quality", "conflicts_with", "low price"),
        ),
        (
            "Good sound quality clashes with a low price.",
            ("good sound quality", "conflicts_with", "low price"),
        ),
        ("Sound quality competes with the price.", ("sound quality", "conflicts_with", "price")),
        (
            "I get good sound at the expense of battery life.",
            ("good sound", "conflicts_with", "battery life"),
        ),
        ("Good sound quality leads to more enjoyment.", ("good sound quality", "leads_to", "enjoyment")),
        ("Comfortable ear cushions result in less pain.", ("comfortable ear cushions", "leads_to", "pain")),
    ],
)
async def test_the_verb_between_two_items_is_no_part_of_either(
    offline_engine: ExtractionEngine, answer: str, edge: tuple[str, str, str]
) -> None:
    # without the concept's vocabulary to name the item, the relating verb was read as the last
    # noun of its subject ("good sound quality conflicts", "comfortable ear cushions result"), and
    # "at the expense of" and "clashes with" related nothing ("expense of battery life" was an item)
    brief = ConceptBrief(id="headphones", name="Wireless headphones")
    result = await _extract(offline_engine, "means_end_chain", answer, question="What else?", concept=brief)
    assert edge in _edges(result), _edges(result)
    verbs = {"conflicts", "clashes", "competes", "result", "leads"}
    assert not [label for label in _types(result) if label.split()[-1] in verbs], _types(result)


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        # the reason is the drinks', not the machine's they came from
        (
            "I stopped using the energy drinks from the vending machine because I crashed after two hours.",
            "energy drinks",
        ),
        # without "from", the item nearest the connective is the one explained, as before
        (
            "I stopped using the energy drinks and the vending machine because I crashed after two hours.",
            "vending machine",
        ),
    ],
)
async def test_a_reason_explains_the_item_not_where_it_came_from(
    offline_engine: ExtractionEngine, answer: str, source: str
) -> None:
    result = await _extract(
        offline_engine,
        "jobs_to_be_done",
        answer,
        "What was it about the energy drinks that made you think about a change?",
    )
    explained = {r.source_label for r in result.relationships if r.target_label == "crashed"}
    assert explained == {source}, [
        (r.source_label, r.edge_type, r.target_label) for r in result.relationships
    ]


@pytest.mark.parametrize(
    "frame",
    [
        "It was very different from the time when",
        "It was different from when",
        "That was so different to the time",
        "The opposite was when",
    ],
)
async def test_another_occasion_set_against_the_one_told(
    offline_engine: ExtractionEngine, frame: str
) -> None:
    # the frame named an item of its own ("different from the time", "opposite was when the
    # hospital transport") and the two occasions were left unlinked
    result = await _extract(
        offline_engine,
        "critical_incident",
        f"A nurse rang me to plan the discharge a day early. {frame} the hospital transport never turned up.",
        question="What happened?",
    )
    told = "nurse rang me to plan the discharge"
    types = _types(result)
    assert types.get("hospital transport never turned up") == "incident", types
    assert not any("different" in label or "opposite" in label or "time" in label for label in types), types
    assert (told, "contrasts_with", "hospital transport never turned up") in _edges(result), _edges(result)


async def test_a_visit_set_against_a_wait(offline_engine: ExtractionEngine) -> None:
    # "came to my bed" named nothing, so the wait was set against no one's doing
    result = await _extract(
        offline_engine,
        "critical_incident",
        "The ward pharmacist came to my bed with everything ready. "
        "It was very different from the time when I waited six hours for the discharge letter.",
        question="What happened?",
    )
    visit = next((label for label in _types(result) if "came to my bed" in label), None)
    assert visit is not None and _types(result)[visit] == "action", _types(result)
    assert (visit, "contrasts_with", "waited six hours for the discharge letter") in _edges(result)


@pytest.mark.parametrize(
    "frame",
    [
        "It was very different from the time when",
        "That was so different to the time",
        "The opposite was when",
    ],
)
async def test_the_other_occasion_is_an_incident_though_told_as_a_doing(
    offline_engine: ExtractionEngine, frame: str
) -> None:
    # "the ward nurse went through all my tablets" reads like a nurse's doing: typed an action, it
    # became a second node when the next answer told it as an incident, and the chain split there
    result = await _extract(
        offline_engine,
        "critical_incident",
        f"The junior doctor rushed through my new medication in two minutes. {frame} the ward nurse went "
        "through all my tablets with me.",
        question="What happened?",
        existing=(("rushed through my new medication", "incident"),),
    )
    walk = "ward nurse went through all my tablets"
    assert _types(result).get(walk) == "incident", _types(result)
    assert ("rushed through my new medication", "contrasts_with", walk) in _edges(result), _edges(result)


async def test_a_doing_set_against_a_wish_or_said_before_keeps_its_type(
    offline_engine: ExtractionEngine,
) -> None:
    walk = "ward nurse went through all my tablets"
    # "the opposite would be" names no occasion
    wished = await _extract(
        offline_engine,
        "critical_incident",
        "The junior doctor rushed through my new medication. The opposite would be the ward nurse went "
        "through all my tablets with me.",
        question="What happened?",
    )
    assert _types(wished).get(walk) == "action", _types(wished)
    # the same words told before as an action stay that node
    told = await _extract(
        offline_engine,
        "critical_incident",
        f"The junior doctor rushed through my new medication. It was very different from the time when "
        f"the {walk}.",
        question="What happened?",
        existing=((walk, "action"),),
    )
    assert _types(told).get(walk) == "action", _types(told)


_OCCASION = "Think of one particular occasion with hospital discharge that stood out: what happened?"


@pytest.mark.parametrize(
    ("answer", "setting", "incident"),
    [
        (
            "Dad was being discharged after his heart failure got worse, which meant a nurse rang me to "
            "plan the discharge a day early.",
            "discharged after his heart failure got worse",
            "nurse rang me to plan the discharge",
        ),
        (
            "A year later I was back on the respiratory ward, and because of that the ward pharmacist came "
            "to my bed with everything ready.",
            "back on the respiratory ward",
            "ward pharmacist came to my bed",
        ),
    ],
)
async def test_an_occasion_opens_with_its_setting(
    offline_engine: ExtractionEngine, answer: str, setting: str, incident: str
) -> None:
    # the connective made the setting an incident (or a cue an outcome, and the edge ran backwards)
    # and the incident an action: both one step off
    result = await _extract(offline_engine, "critical_incident", answer, question=_OCCASION)
    types = _types(result)
    assert types.get(setting) == "situation" and types.get(incident) == "incident", types
    assert (setting, "leads_to", incident) in _edges(result), _edges(result)


async def test_an_event_said_before_keeps_its_type_after_a_new_setting(
    offline_engine: ExtractionEngine,
) -> None:
    # "the ward nurse went through all my tablets" was told as an action in an earlier turn: the
    # setting is still a setting, but retyping the event made a second node of the same words
    walk = "ward nurse went through all my tablets"
    answer = f"My second discharge was on a quiet Tuesday morning, which meant the {walk} with me."
    question = (
        "Besides the times you've described, what is another moment with hospital discharge you remember?"
    )
    result = await _extract(
        offline_engine, "critical_incident", answer, question=question, existing=((walk, "action"),)
    )
    types = _types(result)
    assert types.get("on a quiet Tuesday morning") == "situation" and types.get(walk) == "action", types
    new = _types(await _extract(offline_engine, "critical_incident", answer, question=question))
    assert new.get(walk) == "incident", new


@pytest.mark.parametrize(
    ("answer", "question"),
    [
        # told as a deed, the first item is the incident itself
        (
            "The junior doctor rushed through my new medication in two minutes, and because of that they "
            "handed me a bag of boxes without a written schedule.",
            _OCCASION,
        ),
        # the setting first only where an occasion was asked for
        (
            "The junior doctor was rushing through my new medication, and because of that they handed me a "
            "bag of boxes without a written schedule.",
            "What happened next?",
        ),
    ],
)
async def test_no_setting_where_none_was_told(
    offline_engine: ExtractionEngine, answer: str, question: str
) -> None:
    types = _types(await _extract(offline_engine, "critical_incident", answer, question=question))
    assert "situation" not in types.values(), types
    assert types.get("handed me a bag of boxes") == "action", types


@pytest.mark.parametrize(
    ("answer", "existing"),
    [
        # named first inside the wait, then again as the reason: its one candidate lay outside the
        # reason's side, and "café at the station" was guessed as an item of its own
        ("Waiting at the café took too long. That was down to the café at the station.", ()),
        # the wait told in an earlier turn: its label names the café, yet the two are two items
        ("That was down to the café.", (("waiting at the café took too long", "push"),)),
    ],
)
async def test_a_thing_given_as_the_reason_is_linked_where_it_was_named_before(
    offline_engine: ExtractionEngine, answer: str, existing: tuple[tuple[str, str], ...]
) -> None:
    result = await _extract(
        offline_engine,
        "jobs_to_be_done",
        answer,
        question="What drew you to the café, or pushed you away from it?",
        existing=existing,
    )
    types = _types(result)
    assert types.get("café") == "solution" and "café at the station" not in types, types
    assert ("café", "gives_rise_to", "waiting at the café took too long") in _edges(result), _edges(result)
