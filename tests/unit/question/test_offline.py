"""The offline (`local`) engine: distinct, well-formed, method-fitting questions with no API key."""

from __future__ import annotations

import re
import string

import pytest

from services.question import templates as tpl
from services.question.chains import chain_to_say, ladder, render_chain
from services.question.models import (
    ClosingRequest,
    ConceptBrief,
    FocusNode,
    GraphDigest,
    OpeningRequest,
    RephraseRequest,
    RespondentIntent,
    TerminationReason,
)
from services.question.offline import NARROW_LEADS, REPHRASE_LEADS, FollowUpComposer, without_lead_in
from services.question.offline_messages import first_part, offline_closing, offline_opening, offline_rephrase
from services.question.prompts import effective_focus_mode
from services.question.sanitize import sanitize_question
from services.question.spoken import SpokenLabels
from services.question.text import (
    clean_label,
    is_plural,
    join_labels,
    normalise_question,
    topic_kind,
    topic_phrase,
)
from shared.methodology import MethodologyRegistry
from shared.methodology_models import FocusMode, MethodologyConfig, StrategyConfig
from tests.unit.question.conftest import asked_over_turns, follow_up

LABELS = ("long battery life", "noise cancelling", "the commute", "customer support", "headphones")
KNOWN_PLACEHOLDERS = {
    *("focus", "topic", "kind", "summary", "chain", "clause", "a", "b", "c"),
    *("is", "does", "was", "has", "it"),
}


def assert_well_formed(question: str) -> None:
    assert question.count("?") == 1, question
    assert question.endswith("?"), question
    assert "{" not in question and "}" not in question, question
    assert "  " not in question, question
    assert question[0].isupper(), question
    assert len(question) <= 300, question
    assert sanitize_question(question) == question, "the sanitiser must leave a well-formed question alone"


def simulate(methodology: MethodologyConfig, session_id: str, turns: int = 20) -> list[tuple[str, str, str]]:
    """(strategy, mode, question) for `turns` turns, cycling strategies and focus labels."""
    asked: list[str] = []
    out: list[tuple[str, str, str]] = []
    chain = ("long battery life", "never caught out", "peace of mind")
    for turn in range(1, turns + 1):
        strategy = methodology.strategies[(turn - 1) % len(methodology.strategies)]
        label = LABELS[(turn * 3) % len(LABELS)] if strategy.node_binding.value == "required" else ""
        req = follow_up(
            methodology=methodology.name,
            strategy=strategy.name,
            label=label,
            turn=turn,
            session_id=session_id,
            previous_questions=tuple(asked),
            graph_summary=GraphDigest(
                node_count=turn + 2,
                edge_count=turn,
                max_depth=min(3, 1 + turn // 5),
                node_labels=LABELS[:4],
                longest_chain_labels=chain if turn > 6 else (),
            ),
        )
        question = FollowUpComposer(req, methodology, strategy).compose()
        asked.append(question)
        out.append((strategy.name, effective_focus_mode(req, strategy).value + ":" + label, question))
    return out


def test_every_shipped_methodology_is_covered(methodologies: MethodologyRegistry) -> None:
    assert set(methodologies.names()) >= {
        "means_end_chain",
        "jobs_to_be_done",
        "critical_incident",
        "customer_journey_mapping",
        "repertory_grid",
    }
    for methodology in methodologies.all():
        for strategy in methodology.strategies:
            assert strategy.name in tpl.STRATEGY_FAMILIES, (
                f"{methodology.name}.{strategy.name} has no template family"
            )


@pytest.mark.parametrize("session_id", ["sess-a", "sess-b"])
def test_twenty_turn_session_per_methodology(methodologies: MethodologyRegistry, session_id: str) -> None:
    for methodology in methodologies.all():
        session = simulate(methodology, session_id)
        questions = [q for _, _, q in session]
        assert len({normalise_question(q) for q in questions}) == 20, (methodology.name, questions)
        for _strategy, mode, question in session:
            assert_well_formed(question)
            focus_mode, _, label = mode.partition(":")
            if focus_mode == FocusMode.RECENT_NODE.value:
                assert label in question, (methodology.name, mode, question)


def test_choice_is_deterministic_and_varies_by_session(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    assert simulate(mec, "same") == simulate(mec, "same")
    a = [q for _, _, q in simulate(mec, "one")]
    b = [q for _, _, q in simulate(mec, "two")]
    assert a != b


def test_method_specific_wording(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    rgt = methodologies.get("repertory_grid")
    deepen, ladder = mec.strategy("deepen"), rgt.strategy("ladder_up")
    assert deepen is not None and ladder is not None
    mec_questions = {FollowUpComposer(follow_up(turn=t), mec, deepen).compose() for t in range(1, 30)}
    rgt_questions = {
        FollowUpComposer(
            follow_up(methodology="repertory_grid", strategy="ladder_up", turn=t), rgt, ladder
        ).compose()
        for t in range(1, 30)
    }
    assert "Why is long battery life important to you?" in mec_questions
    assert "What does long battery life give you?" in mec_questions
    assert any("which end do you prefer" in q for q in rgt_questions)
    assert not any("which end do you prefer" in q for q in mec_questions)


def test_never_repeats_a_previous_question(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    deepen = mec.strategy("deepen")
    assert deepen is not None
    asked: list[str] = []
    for turn in range(1, 41):  # far more turns on one node and strategy than there are variants
        question = FollowUpComposer(
            follow_up(turn=turn, previous_questions=tuple(asked)), mec, deepen
        ).compose()
        assert normalise_question(question) not in {normalise_question(q) for q in asked}
        assert_well_formed(question)
        asked.append(question)


def test_a_repeat_differing_only_in_case_and_punctuation_counts_as_asked(
    methodologies: MethodologyRegistry,
) -> None:
    mec = methodologies.get("means_end_chain")
    deepen = mec.strategy("deepen")
    assert deepen is not None
    first = FollowUpComposer(follow_up(turn=5), mec, deepen).compose()
    again = FollowUpComposer(
        follow_up(turn=5, previous_questions=(first.upper().replace("?", " ?!"),)), mec, deepen
    ).compose()
    assert normalise_question(again) != normalise_question(first)


def test_triad_uses_three_graph_labels(methodologies: MethodologyRegistry) -> None:
    rgt = methodologies.get("repertory_grid")
    triad = rgt.strategy("triad_elicitation")
    assert triad is not None
    elements = ("Netflix", "BBC iPlayer", "Disney+", "YouTube")
    seen = set()
    for turn in range(1, 10):
        req = follow_up(
            methodology="repertory_grid",
            strategy="triad_elicitation",
            label="",
            turn=turn,
            graph_summary=GraphDigest(node_count=4, node_labels=elements),
        )
        question = FollowUpComposer(req, rgt, triad).compose()
        named = [e for e in elements if e in question]
        if named:
            assert len(named) == 3, question
            seen.add(frozenset(named))
    assert len(seen) >= 2, "different triads across turns"


def test_unknown_strategy_maps_by_its_description(methodologies: MethodologyRegistry) -> None:
    cases = [
        (
            StrategyConfig(name="probe_feelings", description="Ask how they felt then.", signal_weights={}),
            "emotion",
        ),
        (
            StrategyConfig(name="why_chain", description="Ask why it is important.", signal_weights={}),
            "ladder_up",
        ),
        (StrategyConfig(name="x1", description="Imagine it were missing.", signal_weights={}), "absence"),
        (StrategyConfig(name="x2", description="", signal_weights={}), tpl.DEFAULT_FAMILY),
        (
            StrategyConfig(name="x3", description="", signal_weights={}, generates_closing_question=True),
            "closing",
        ),
    ]
    for strategy, family in cases:
        assert tpl.family_for(strategy) == family, strategy.name
    mec = methodologies.get("means_end_chain")
    feelings = cases[0][0]
    question = FollowUpComposer(
        follow_up(strategy="probe_feelings", label="the checkout"), mec, feelings
    ).compose()
    assert "the checkout" in question
    assert_well_formed(question)


_FIXED_VERB_BEFORE_FOCUS = re.compile(
    r"\b(?:why|how|what|where|when) (?:does|is|has|was) \{focus\}", re.IGNORECASE
)


def test_template_hygiene() -> None:
    formatter = string.Formatter()
    for _method, family, templates in tpl.all_templates():
        for mode, texts in (
            ("node", templates.node),
            ("topic", templates.topic),
            ("again", templates.again),
            ("summary", templates.summary),
        ):
            for text in texts:
                fields = {f for _, f, _, _ in formatter.parse(text) if f}
                assert fields <= KNOWN_PLACEHOLDERS, (family, text)
                assert text.count("?") == 1 and text.endswith("?"), (family, text)
                if mode == "node":
                    assert fields & {"focus", "clause", "a"}, (
                        f"{family} node template must name the focus: {text}"
                    )
                    # a verb whose subject is the focus agrees with it ("why do original shows matter")
                    assert not _FIXED_VERB_BEFORE_FOCUS.search(text), f"use {{does}}/{{is}}…: {text}"


@pytest.mark.parametrize(
    ("intent", "start"),
    [
        (RespondentIntent.SKIP_REQUEST, "No problem, let's leave that one. "),
        (RespondentIntent.OFF_TOPIC, "Thanks for sharing that. Coming back to wireless headphones, "),
    ],
)
def test_intent_lead_ins(methodologies: MethodologyRegistry, intent: RespondentIntent, start: str) -> None:
    mec = methodologies.get("means_end_chain")
    deepen = mec.strategy("deepen")
    assert deepen is not None
    question = FollowUpComposer(follow_up(respondent_intent=intent), mec, deepen).compose()
    assert question.startswith(start)
    assert_well_formed(question)


def test_a_list_names_a_thing_once() -> None:
    # "the app, the supermarket app and …": the longer label says the shorter one
    assert join_labels(["the app", "the supermarket app", "feeling relieved"]) == (
        "the supermarket app and feeling relieved"
    )
    assert join_labels(["driver", "the friendly driver", "the app", "calm"]) == (
        "the friendly driver, the app and calm"
    )
    # different words, or the same label twice: each said once, in order
    assert (
        join_labels(["calm", "feeling calmer", "calm", "peace of mind"])
        == "calm, feeling calmer and peace of mind"
    )
    assert join_labels(["a", "b", "a"]) == "a and b"


def test_agreement_and_chains() -> None:
    assert is_plural("headphones") and is_plural("noise cancelling headphones")
    assert not is_plural("long battery life") and not is_plural("business") and not is_plural("focus")
    # the head decides, not the last word
    assert not is_plural("energy that lasts") and not is_plural("price of apples")
    assert is_plural("bags of shopping") and is_plural("drivers who call ahead")
    assert not is_plural("little ritual between meetings") and not is_plural("a break during shifts")
    assert not is_plural("steel thermos") and not is_plural("the camera lens")  # singular, in "s"
    # an amount of something is one quantity ("thirty hours of battery lead to …"); "bags of" is not one
    assert not is_plural("thirty hours of battery") and not is_plural("30 minutes of quiet")
    assert is_plural("ten minutes")
    assert is_plural("no ads") and is_plural("ads every ten minutes")  # a plural of three letters
    # the same amount after the article the interviewer gave it back; a doing is one ("having
    # palpitations in the middle of a shift lead to …"), a noun in "-ing" before a plural is not one
    assert not is_plural("the thirty hours of battery")
    assert not is_plural("having palpitations in the middle of a shift") and not is_plural("buying capsules")
    assert is_plural("morning walks") and is_plural("the evening shifts")
    assert render_chain(["thirty hours of battery", "no daily charging"], "means_end_chain") == (
        "thirty hours of battery leads to no daily charging"
    )
    assert render_chain(["a feature", "a benefit", "a value"], "means_end_chain") == (
        "a feature leads to a benefit, and that leads to a value"
    )
    assert (
        render_chain(["checkout", "delivery"], "customer_journey_mapping") == "first checkout, then delivery"
    )
    assert render_chain(["alone"], "means_end_chain") is None


def test_plural_focus_reads_correctly(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    deepen = mec.strategy("deepen")
    assert deepen is not None
    questions = {
        FollowUpComposer(follow_up(label="headphones", turn=t), mec, deepen).compose() for t in range(40)
    }
    assert "Why are headphones important to you?" in questions
    assert not any(re.search(r"\b(is|does) headphones\b", q) for q in questions)


def test_topic_phrase() -> None:
    assert topic_phrase(ConceptBrief(name="Wireless Headphones Means-End Chain")) == "wireless headphones"
    assert topic_phrase(ConceptBrief(name="Coffee (JTBD)")) == "coffee"
    assert topic_phrase(ConceptBrief(name="iPhone upgrades")) == "iPhone upgrades"
    assert topic_phrase(ConceptBrief(name="Online Grocery Shopping Journey")) == "online grocery shopping"
    assert topic_phrase(ConceptBrief(name="Rail Journey")) == "rail journey"
    assert topic_phrase(ConceptBrief(name="BBC iPlayer")) == "BBC iPlayer"
    assert topic_phrase(ConceptBrief(name="")) == "this topic"


@pytest.mark.parametrize(
    ("topic", "kind"),
    [
        ("video streaming services", "video streaming service"),
        ("wireless headphones", "wireless headphone"),
        ("bakeries", "bakery"),
        ("watches", "watch"),
        ("coffee", "coffee"),
        ("news", "news"),
        ("tv series", "tv series"),
        ("glass", "glass"),
        ("BBC iPlayer", "BBC iPlayer"),
    ],
)
def test_the_topic_as_one_of_its_kind(topic: str, kind: str) -> None:
    assert topic_kind(topic) == kind


def test_a_plural_topic_is_not_put_before_options(methodologies: MethodologyRegistry) -> None:
    repgrid = methodologies.get("repertory_grid")
    concept = ConceptBrief(name="Video Streaming Services Repertory Grid")
    asked = set()
    for seed in range(12):
        asked.add(
            offline_opening(
                OpeningRequest(session_id=f"s{seed}", methodology="repertory_grid", concept=concept), repgrid
            )
        )
        for strategy in ("elicit_elements", "triad_elicitation"):
            chosen = repgrid.strategy(strategy)
            assert chosen is not None
            request = follow_up(
                methodology="repertory_grid", strategy=strategy, label="", turn=seed + 2, concept=concept
            )
            asked.add(FollowUpComposer(request, repgrid, chosen).compose())
    assert any("video streaming service option" in q for q in asked), asked
    assert not any("services option" in q or "ideal video streaming services" in q for q in asked), asked


def test_opening_per_methodology(methodologies: MethodologyRegistry) -> None:
    texts = set()
    for methodology in methodologies.all():
        req = OpeningRequest(
            session_id="s-open", methodology=methodology.name, concept=ConceptBrief(name="Meal Kits")
        )
        text = offline_opening(req, methodology)
        texts.add(text)
        assert "meal kits" in text or "meal kit options" in text
        assert "meal kits options" not in text
        assert text.count("?") == 1 and text.endswith("?")
        assert text.startswith(("Thank", "Thanks", "It's great"))
    assert len(texts) == len(methodologies.all())


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        (TerminationReason.MAX_TURNS, "We've covered a lot of ground"),
        (TerminationReason.QUALITY_DEGRADED, "appreciate your patience"),
        (TerminationReason.GRAPH_SATURATED, "explored this really thoroughly"),
        (TerminationReason.RESPONDENT_STOP, "Of course, we can stop here."),
    ],
)
def test_closing_message(
    methodologies: MethodologyRegistry, reason: TerminationReason, expected: str
) -> None:
    mec = methodologies.get("means_end_chain")
    req = ClosingRequest(
        session_id="s1",
        methodology="means_end_chain",
        concept=ConceptBrief(name="Wireless Headphones"),
        termination_reason=reason,
        graph_summary=GraphDigest(
            node_count=3,
            node_labels=("long battery life", "noise cancelling"),
            longest_chain_labels=("long battery life", "never caught out", "peace of mind"),
        ),
    )
    text = offline_closing(req, mec)
    assert expected in text
    assert "Thank you so much for taking the time to talk with me about wireless headphones." in text
    assert "long battery life leads to never caught out, and that leads to peace of mind" in text
    assert "?" not in text
    if reason is TerminationReason.RESPONDENT_STOP:
        assert text.startswith("Of course") and "all my questions" not in text


def test_closing_says_labels_back_to_the_respondent(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    repgrid = methodologies.get("repertory_grid")
    req = ClosingRequest(
        session_id="s1",
        methodology="repertory_grid",
        concept=ConceptBrief(name="Video streaming services"),
        termination_reason=TerminationReason.CLOSING_STRATEGY,
        graph_summary=GraphDigest(
            node_count=3,
            node_labels=("easy to find something", "doesn't waste my time", "in control of my time"),
            longest_chain_labels=("easy to find something", "doesn't waste my time", "in control of my time"),
        ),
    )
    text = offline_closing(req, repgrid, spoken)
    assert "not wasting your time" in text and "being in control of your time" in text, text
    assert " my " not in text.replace("That's all my questions", "")


def test_a_closing_chain_that_says_for_you_is_not_said_for_you_again(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "It was really helpful to hear how it fits together for you: no adverts lead to feeling made
    # for you, …"
    repgrid = methodologies.get("repertory_grid")
    chain = ("no adverts", "feels made for me", "being treated fairly")
    digest = GraphDigest(node_count=3, node_labels=chain, longest_chain_labels=chain)
    req = ClosingRequest(
        session_id="s1",
        methodology="repertory_grid",
        concept=ConceptBrief(name="Video streaming services"),
        termination_reason=TerminationReason.CLOSING_STRATEGY,
        graph_summary=digest,
    )
    text = offline_closing(req, repgrid, spoken)
    assert "feeling made for you" in text, text
    assert text.count("for you") == 1, text
    # a chain that names no one keeps "for you"
    other = ("no adverts", "worth my evening", "being treated fairly")
    req = req.model_copy(
        update={"graph_summary": GraphDigest(node_count=3, node_labels=other, longest_chain_labels=other)}
    )
    assert "fits together for you:" in offline_closing(req, repgrid, spoken)


@pytest.mark.parametrize(
    ("labels", "types", "said"),
    [
        # a contrast is no ladder: "no adverts lead to constant adverts" would be said
        (("no adverts", "constant adverts"), ("emergent_pole", "implicit_pole"), None),
        # an element is placed on a pole, not a reason for it
        (
            ("Netflix", "lots of original shows", "worth my evening"),
            ("element", "emergent_pole", "superordinate_construct"),
            "lots of original shows lead to worth my evening",
        ),
        # without types the chain is said as it is
        (("no adverts", "constant adverts"), (), "no adverts lead to constant adverts"),
    ],
)
def test_a_repertory_grid_closing_says_only_a_ladder_as_leading_to(
    methodologies: MethodologyRegistry,
    labels: tuple[str, ...],
    types: tuple[str, ...],
    said: str | None,
) -> None:
    repgrid = methodologies.get("repertory_grid")
    req = ClosingRequest(
        session_id="s1",
        methodology="repertory_grid",
        concept=ConceptBrief(name="Video streaming services"),
        graph_summary=GraphDigest(
            node_count=3, node_labels=labels, longest_chain_labels=labels, longest_chain_types=types
        ),
    )
    text = offline_closing(req, repgrid)
    if said is None:
        assert "lead to" not in text and "leads to" not in text, text
        assert "what you shared about no adverts and constant adverts" in text, text
    else:
        assert said in text, text


def test_a_ladder_is_the_longest_run_of_steps_up(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    labels = ("a", "b", "c", "d", "e")
    types = (
        "attribute",
        "functional_consequence",
        "functional_consequence",
        "psychosocial_consequence",
        "terminal_value",
    )
    assert ladder(labels, types, mec) == ["c", "d", "e"]
    # a type the ontology lacks (an older graph): the chain as it is
    assert ladder(labels, ("attribute", "x", "y", "z", "w"), mec) == list(labels)


@pytest.mark.parametrize(
    ("methodology", "strategy", "focus"),
    [
        ("customer_journey_mapping", "validate_journey", FocusNode()),
        (
            "critical_incident",
            "verify_account",
            FocusNode(node_id="i", label="delivery slot", node_type="incident"),
        ),
    ],
)
def test_a_sequence_is_said_back_with_its_articles(
    methodologies: MethodologyRegistry,
    spoken: SpokenLabels,
    methodology: str,
    strategy: str,
    focus: FocusNode,
) -> None:
    # "first planning the weekly shop, then delivery slot, then app": the steps that are things
    # keep the article their labels dropped, in the closing and in a follow-up's {chain}
    cfg = methodologies.get(methodology)
    labels = ("plan the weekly shop", "delivery slot", "sunday evening", "app")
    graph = GraphDigest(node_count=4, node_labels=labels, longest_chain_labels=labels)
    said = "first planning the weekly shop, then the delivery slot, then sunday evening, then the app"
    request = ClosingRequest(
        session_id="s1", methodology=methodology, concept=ConceptBrief(name="Groceries"), graph_summary=graph
    )
    closing = offline_closing(request, cfg, spoken)
    assert said in closing, closing
    asked = asked_over_turns(
        methodologies, spoken, methodology, strategy, focus, range(3, 30), graph_summary=graph
    )
    assert any(said in q for q in asked), asked


def test_a_ladder_says_its_attribute_as_a_thing(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "secure fit leads to …", "detailing sound leads to …": the attribute the ladder starts from
    # keeps its article and is a property; the value above it takes none
    mec = methodologies.get("means_end_chain")
    labels = ("detailed sound", "enjoy my music", "happiness")
    graph = GraphDigest(
        node_count=3,
        node_labels=labels,
        longest_chain_labels=labels,
        longest_chain_types=("attribute", "functional_consequence", "terminal_value"),
    )
    said = "the detailed sound leads to enjoying your music, and that leads to happiness"
    request = ClosingRequest(
        session_id="s1", methodology=mec.name, concept=ConceptBrief(name="Headphones"), graph_summary=graph
    )
    assert said in offline_closing(request, mec, spoken)
    asked = asked_over_turns(
        methodologies, spoken, mec.name, "reflect", FocusNode(), range(3, 30), graph_summary=graph
    )
    assert any(said in q for q in asked), asked


def test_closing_without_chain_names_labels(methodologies: MethodologyRegistry) -> None:
    req = ClosingRequest(
        session_id="s1",
        methodology="jobs_to_be_done",
        concept=ConceptBrief(name="Meal kits"),
        graph_summary=GraphDigest(node_count=2, node_labels=("saving time", "less waste")),
    )
    text = offline_closing(req, methodologies.get("jobs_to_be_done"))
    assert "what you shared about saving time and less waste" in text


@pytest.mark.parametrize(
    ("question", "contains"),
    [
        (
            "In what way does the price ultimately matter to you?",
            "how does the price in the end matter to you?",
        ),
        ("What are the consequences of the circumstances you described?", "results of the situation"),
        ("Thanks for that. Why is it important to you?", "why is it important to you?"),
        (
            "You mentioned the price. Why does it matter to you?",
            "you mentioned the price. Why does it matter to you?",
        ),
    ],
)
def test_rephrase_is_simpler_and_differs(question: str, contains: str) -> None:
    text = offline_rephrase(
        RephraseRequest(session_id="s1", methodology="means_end_chain", question=question)
    )
    assert contains in text
    assert normalise_question(text) != normalise_question(question)
    assert text.count("?") == 1 and text.endswith("?")
    assert "Thanks for that" not in text


def test_a_rewording_of_the_opening_asks_its_question_without_the_welcome(
    methodologies: MethodologyRegistry,
) -> None:
    # Every welcome with every opening question of every method: the respondent who asks what the
    # opening means hears its question again, not "In other words, thank you for …" (the JTBD
    # opening says "it" of its own topic, which kept the welcome as if the question pointed back).
    reworded = set()
    for methodology in methodologies.all():
        for seed in range(24):
            req = OpeningRequest(
                session_id=f"open-{seed}",
                methodology=methodology.name,
                concept=ConceptBrief(name="Meal Kits"),
            )
            opening = offline_opening(req, methodology)
            asked = opening.split(". ")[-1]  # the question after the welcome sentence
            text = offline_rephrase(
                RephraseRequest(session_id=f"open-{seed}", methodology=methodology.name, question=opening)
            )
            assert_well_formed(text)
            assert not re.search(r"thank|great to have you|to begin|to start", text, re.IGNORECASE), text
            assert text.rstrip("?").split()[-3:] == asked.rstrip("?").split()[-3:], (opening, text)
            reworded.add(without_lead_in(text))
    assert len(reworded) >= 8  # every method's openings, not one fallback


def test_a_lead_with_content_stays_beside_a_question_that_points_back_at_it() -> None:
    text = offline_rephrase(
        RephraseRequest(
            session_id="s1",
            methodology="means_end_chain",
            question="Thanks for that. You said the battery died twice. Why did that matter to you?",
        )
    )
    assert text.endswith("you said the battery died twice. Why did that matter to you?"), text
    assert "Thanks" not in text


TWO_PART = "Which streaming service have you stopped using, and which one do you use most today?"


def _rephrase(question: str, attempt: int = 1) -> str:
    return offline_rephrase(
        RephraseRequest(session_id="s1", methodology="repertory_grid", question=question, attempt=attempt)
    )


def _leads(question: str) -> int:
    return sum(question.lower().count(lead.strip().lower()) for lead in (*REPHRASE_LEADS, *NARROW_LEADS))


def test_a_rewording_is_reworded_from_its_own_text_without_stacking_lead_ins() -> None:
    first = _rephrase(TWO_PART)
    again = _rephrase(first)  # the respondent asked again; the orchestrator sends attempt 2 (below)
    for text in (first, again):
        assert _leads(text) == 1, text
        assert_well_formed(text)
    assert normalise_question(again) != normalise_question(first)


@pytest.mark.parametrize(
    ("question", "part"),
    [
        (TWO_PART, "Which streaming service have you stopped using?"),
        (
            "Thinking about the commute, which end do you prefer, and why is that important to you?",
            "Thinking about the commute, which end do you prefer?",
        ),
        ("Which one stands apart from the other two, and why?", "Which one stands apart from the other two?"),
        ("What happened next, or did you give up?", "What happened next?"),
        ("What do you like about apples and oranges?", None),
        ("Why does it matter to you?", None),
        ("Yes, and why?", None),  # too little left to ask
    ],
)
def test_first_part_of_a_question_that_asks_two_things(question: str, part: str | None) -> None:
    assert first_part(question) == part


def test_a_second_attempt_asks_only_the_first_part() -> None:
    first = _rephrase(TWO_PART)
    second = _rephrase(first, attempt=2)
    assert_well_formed(second)
    assert _leads(second) == 1
    assert "which one do you use most" not in second.lower()
    assert second.lower().endswith("which streaming service have you stopped using?")
    assert len(second) < len(first)


def test_later_attempts_never_repeat_the_wording_the_respondent_just_heard() -> None:
    one_part = "Why does the price matter to you?"
    heard = _rephrase(one_part)
    for attempt in (2, 3, 4):
        nxt = _rephrase(heard, attempt=attempt)
        assert_well_formed(nxt)
        assert normalise_question(nxt) != normalise_question(heard)
        assert without_lead_in(nxt).lower() == "why does the price matter to you?"
        heard = nxt


def test_a_follow_up_after_a_clarification_request_says_it_moves_on(
    methodologies: MethodologyRegistry,
) -> None:
    mec = methodologies.get("means_end_chain")
    strategy = mec.strategy("deepen")
    assert strategy is not None
    plain = FollowUpComposer(follow_up(turn=5), mec, strategy).compose()
    moved = FollowUpComposer(
        follow_up(turn=5, respondent_intent=RespondentIntent.CLARIFICATION_REQUEST), mec, strategy
    ).compose()
    # the same question behind a lead-in that tells the respondent the unclear one is left
    assert moved != plain and moved.endswith(plain[1:])
    assert without_lead_in(moved) == plain


def test_a_question_asked_behind_a_lead_in_is_not_asked_again(methodologies: MethodologyRegistry) -> None:
    mec = methodologies.get("means_end_chain")
    deepen = mec.strategy("deepen")
    assert deepen is not None
    first = FollowUpComposer(follow_up(turn=5), mec, deepen).compose()
    earlier = "Thanks for sharing that. Coming back to wireless headphones, " + first[0].lower() + first[1:]
    again = FollowUpComposer(follow_up(turn=5, previous_questions=(earlier,)), mec, deepen).compose()
    assert normalise_question(again) != normalise_question(first)


def test_a_job_statement_does_not_read_the_focus_as_its_situation(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "When the barista course, I want to …" does not parse: only a situation completes "When …"
    focus = FocusNode(node_id="s", label="barista course", node_type="solution")
    asked = asked_over_turns(methodologies, spoken, "jobs_to_be_done", "validate_job", focus, range(3, 15))
    sentence = [q for q in asked if "finish the sentence" in q]
    assert sentence, asked
    assert not any(re.search(r"'When (?:the )?barista course", q) for q in sentence), sentence
    assert all("barista course" in q for q in sentence), sentence


@pytest.mark.parametrize(
    ("methodology", "strategy", "node_type"),
    [
        ("jobs_to_be_done", "validate_job", "solution"),
        ("means_end_chain", "validate", "attribute"),
        ("critical_incident", "verify_account", "incident"),
    ],
)
def test_a_chain_is_said_back_about_a_focus_only_when_it_holds_it(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, methodology: str, strategy: str, node_type: str
) -> None:
    # The chain said back is the graph's longest, which need not hold the focus: "About the café,
    # from what you've told me: fitting on your tiny kitchen counter leads to …" (the capsule machine's)
    chain = ("fits on our tiny kitchen counter", "spend less time getting out of the door")
    digest = GraphDigest(node_count=3, node_labels=("café", *chain), longest_chain_labels=chain)

    def asked(label: str) -> set[str]:
        focus = FocusNode(node_id="f", label=label, node_type=node_type)
        return asked_over_turns(
            methodologies, spoken, methodology, strategy, focus, range(3, 40), graph_summary=digest
        )

    off_chain, on_chain = asked("café"), asked(chain[0])
    assert not [q for q in off_chain if "kitchen counter" in q], off_chain
    assert [q for q in on_chain if "spending less time getting out of the door" in q], on_chain


@pytest.mark.parametrize(
    ("methodology", "strategy"),
    [("critical_incident", "verify_account"), ("customer_journey_mapping", "validate_journey")],
)
def test_a_check_back_outside_laddering_speaks_of_no_choice(
    methodologies: MethodologyRegistry, spoken: SpokenLabels, methodology: str, strategy: str
) -> None:
    # an incident or a journey involved no choice to be driven
    node_type = methodologies.get(methodology).ontology.nodes[0].name
    focus = FocusNode(node_id="i", label="the hospital was full", node_type=node_type)
    asked = asked_over_turns(
        methodologies, spoken, methodology, strategy, focus, range(3, 30), focus_mode=FocusMode.RECENT_NODE
    )
    assert len(asked) >= 4, asked
    assert not any("choice" in q for q in asked), asked


def test_a_doing_with_its_own_subject_follows_when_as_a_clause(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "what did you need when the driver turning up …?" does not parse; "when planning …" does
    def asked(label: str) -> set[str]:
        focus = FocusNode(node_id="a", label=label, node_type="action")
        return asked_over_turns(methodologies, spoken, "customer_journey_mapping", "identify_need", focus)

    with_subject = asked("driver turns up with the crates")
    assert any("when the driver turned up with the crates" in q.lower() for q in with_subject), with_subject
    assert not any("when the driver turning" in q.lower() for q in with_subject), with_subject
    plain = asked("plan the weekly shop")
    assert any("when planning the weekly shop" in q.lower() for q in plain), plain
    state = asked("anxious")
    assert any("when you were anxious" in q.lower() for q in state), state
    assert not any("when being anxious" in q.lower() for q in state), state


def test_an_incident_sequence_is_said_without_who_took_part(methodologies: MethodologyRegistry) -> None:
    # "first ward nurse, then going through …": the actor is no step of the account
    cit = methodologies.get("critical_incident")
    graph = GraphDigest(
        node_count=4,
        longest_chain_labels=("ward nurse", "went through all my tablets", "felt safe going home"),
        longest_chain_types=("actor", "action", "outcome"),
    )
    assert chain_to_say(graph, cit) == ["went through all my tablets", "felt safe going home"]
    # without types (an older graph store) every label is said
    untyped = GraphDigest(node_count=2, longest_chain_labels=("waited six hours", "missed the pickup"))
    assert chain_to_say(untyped, cit) == ["waited six hours", "missed the pickup"]
    # types that do not pair with the labels are not guessed at: no label is lost
    short = GraphDigest(
        node_count=3,
        longest_chain_labels=("ward nurse", "waited six hours", "missed the pickup"),
        longest_chain_types=("actor",),
    )
    assert chain_to_say(short, cit) == ["ward nurse", "waited six hours", "missed the pickup"]


@pytest.mark.parametrize("methodology", ["means_end_chain", "jobs_to_be_done", "critical_incident"])
def test_a_plural_focus_takes_plural_verbs(methodologies: MethodologyRegistry, methodology: str) -> None:
    # "It sounds like earbuds plays a big part", "why the energy drinks matters to you"
    cfg = methodologies.get(methodology)
    focus = FocusNode(node_id="a", label="energy drinks", node_type="solution")
    asked: set[str] = set()
    for strategy in cfg.strategies:
        if strategy.node_binding.value == "required":
            asked |= asked_over_turns(
                methodologies, SpokenLabels(), methodology, strategy.name, focus, range(3, 40)
            )
    assert len(asked) > 20, asked
    wrong = re.compile(r"energy drinks (is|was|has|does|plays|matters|means)\b")
    assert not [q for q in asked if wrong.search(q)], sorted(q for q in asked if wrong.search(q))
    # "What drew you to the energy drinks, or pushed you away from it?"
    assert not [q for q in asked if re.search(r"energy drinks\b.*\b(it|its)\?", q)], asked
    if methodology == "jobs_to_be_done":
        assert [q for q in asked if q.endswith("energy drinks, or pushed you away from them?")], sorted(asked)


def test_a_state_is_not_made_right(methodologies: MethodologyRegistry, spoken: SpokenLabels) -> None:
    # "What would have made being furious right for you?"
    for label, node_type in (("furious", "emotion"), ("at the weekend", "stage")):
        focus = FocusNode(node_id="s", label=label, node_type=node_type)
        asked = asked_over_turns(methodologies, spoken, "customer_journey_mapping", "identify_need", focus)
        assert len(asked) >= 2, asked
        assert not any("made being" in q for q in asked), asked


def test_a_journey_summary_keeps_the_articles_of_its_things(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "with driver, friendly driver and delivery driver on it"
    labels = ("driver", "supermarket app", "check out in the app", "anxious")
    asked = asked_over_turns(
        methodologies,
        spoken,
        "customer_journey_mapping",
        "validate_journey",
        FocusNode(),
        graph_summary=GraphDigest(node_count=4, node_labels=labels),
    )
    lists = [q for q in asked if "driver" in q or "supermarket app" in q]
    assert lists, asked
    assert all(
        ("the driver" in q or "driver" not in q)
        and ("the supermarket app" in q or "supermarket app" not in q)
        for q in lists
    ), lists
    assert not any("the checking" in q or "the being" in q for q in asked), asked  # doings take none


def test_a_journey_playback_calls_what_it_lists_no_stages(
    methodologies: MethodologyRegistry, spoken: SpokenLabels
) -> None:
    # "Looking at the stages you've described, there being no evening slots left, feeling relieved …":
    # the summary lists the latest items of any kind, not stages
    labels = ("no evening slots left", "relieved it takes five minutes", "need the weekdays to be easier")
    graph = GraphDigest(node_count=3, node_labels=labels)
    asked = asked_over_turns(
        methodologies,
        spoken,
        "customer_journey_mapping",
        "validate_journey",
        FocusNode(),
        range(3, 40),
        graph_summary=graph,
    )
    assert any("there being no evening slots left" in q for q in asked), asked
    assert not any("stages" in q for q in asked), asked


def test_a_journey_is_said_without_where_its_steps_happen(methodologies: MethodologyRegistry) -> None:
    # "…, then the driver turning up with the crates, then the driver": a touchpoint is no step
    journey = methodologies.get("customer_journey_mapping")
    graph = GraphDigest(
        node_count=3,
        longest_chain_labels=("plan the weekly shop", "delivery arrives on tuesday", "driver"),
        longest_chain_types=("stage", "stage", "touchpoint"),
    )
    assert chain_to_say(graph, journey) == ["plan the weekly shop", "delivery arrives on tuesday"]


def test_a_jobs_solution_is_not_said_as_a_cause(methodologies: MethodologyRegistry) -> None:
    # "the capsule machine leads to under 100 euros" read a `decided_by` edge as a consequence
    jtbd = methodologies.get("jobs_to_be_done")
    graph = GraphDigest(
        node_count=4,
        longest_chain_labels=("capsule machine", "under 100 euros", "proper coffee at home", "a calm start"),
        longest_chain_types=("solution", "hiring_criterion", "desired_outcome", "job"),
    )
    assert chain_to_say(graph, jtbd) == ["under 100 euros", "proper coffee at home", "a calm start"]


_ANOTHER = re.compile(r"\b(?:another|besides|apart from)\b", re.IGNORECASE)


def test_an_incident_asked_for_once_one_was_told_is_another_one(methodologies: MethodologyRegistry) -> None:
    """After the respondent has told something, the topic question asks for another occasion; it
    does not ask for "one particular time" as if nothing had been said."""

    def asked(graph: GraphDigest) -> set[str]:
        return asked_over_turns(
            methodologies,
            SpokenLabels(),
            "critical_incident",
            "elicit_incident",
            FocusNode(),
            range(1, 30),
            graph_summary=graph,
        )

    fresh = asked(GraphDigest())
    told = asked(GraphDigest(node_count=2, node_labels=("waited five hours for transport", "porter")))
    assert len(fresh) > 1 and len(told) > 1
    assert not any(_ANOTHER.search(q) for q in fresh), fresh
    assert all(_ANOTHER.search(q) for q in told), told
    for question in told:
        assert_well_formed(question)
        assert "wireless headphones" in question, question


def _walk(
    methodologies: MethodologyRegistry,
    methodology: str,
    strategy: str,
    turns: range,
    graph: GraphDigest,
    session_id: str = "sess-1",
) -> list[str]:
    """The topic questions `strategy` asks over `turns` of one interview, each turn knowing the
    questions asked before it."""
    cfg = methodologies.get(methodology)
    chosen = cfg.strategy(strategy)
    assert chosen is not None, strategy
    asked: list[str] = []
    for turn in turns:
        request = follow_up(
            methodology=methodology,
            strategy=strategy,
            label="",
            turn=turn,
            session_id=session_id,
            previous_questions=tuple(asked),
            graph_summary=graph,
        )
        asked.append(FollowUpComposer(request, cfg, chosen).compose())
    return asked


def _timeline_walk(methodologies: MethodologyRegistry, graph: GraphDigest, session_id: str) -> list[str]:
    """The topic questions of `reconstruct_timeline` over six turns."""
    return _walk(
        methodologies,
        "jobs_to_be_done",
        "reconstruct_timeline",
        range(2, 8),
        graph,
        session_id=session_id,
    )


def test_a_switch_timeline_is_walked_in_its_order(methodologies: MethodologyRegistry) -> None:
    """Once the respondent has answered the opening (which asks for the first thought), the timeline
    questions go on from it in the switch's order, in every session; with nothing told yet, the
    first thought is what they ask for."""
    told = GraphDigest(node_count=2, node_labels=("ten minutes between the school run", "missed my train"))
    walk = _timeline_walk(methodologies, told, "sess-a")
    assert walk == _timeline_walk(methodologies, told, "sess-b")
    steps = [
        "after that first thought",
        "before you started actively looking",
        "when did you start actively looking",
        "finally made you decide",
        "first time you used",
        "after that first use",
    ]
    positions = [next(i for i, q in enumerate(walk) if step in q.lower()) for step in steps]
    assert positions == sorted(positions), walk
    assert not any("first start thinking" in q or "very beginning" in q for q in walk), walk
    first = _timeline_walk(methodologies, GraphDigest(), "sess-a")[0]
    assert "first start thinking" in first or "very beginning" in first, first


def test_each_triad_is_put_before_one_is_put_again(methodologies: MethodologyRegistry) -> None:
    """With four elements there are four triads: four turns of triad elicitation name each once,
    instead of falling back to a triad in general terms when a turn's first pick was asked."""
    elements = ("Netflix", "BBC iPlayer", "Disney+", "YouTube")
    graph = GraphDigest(node_count=4, node_labels=elements)
    asked = _walk(methodologies, "repertory_grid", "triad_elicitation", range(1, 5), graph)
    triads = [frozenset(e for e in elements if e in q) for q in asked]
    assert all(len(t) == 3 for t in triads), asked
    assert len(set(triads)) == 4, asked


def test_a_methods_own_topic_questions_replace_the_shared_ones(methodologies: MethodologyRegistry) -> None:
    """Laddering words its broad questions itself; the shared family's rewordings of them ("… the
    ones you'd turn down?" beside "… the ones you'd reject?") never come up in its interviews."""
    own = tpl.templates_for("explore", "means_end_chain")[0].topic
    shared = tpl.FAMILIES["explore"].topic
    topic = "wireless headphones"
    rendered = {t.format(topic=topic, kind="wireless headphone") for t in own}
    graph = GraphDigest(node_count=2, node_labels=("long battery life", "noise cancelling"))
    asked = _walk(methodologies, "means_end_chain", "explore", range(2, 2 + len(own)), graph)
    assert set(asked) == rendered, asked
    assert not {t.format(topic=topic) for t in set(shared) - set(own)} & set(asked)


def test_a_journey_walked_through_asks_for_what_is_missing_not_for_options(
    methodologies: MethodologyRegistry,
) -> None:
    # Past its six "what happened next?" questions the journey used to fall back to the shared
    # explore family: "what makes the online grocery shopping you like different from the ones
    # you'd turn down?" in the middle of a walk through one shopping trip.
    journey = methodologies.get("customer_journey_mapping")
    walk = journey.strategy("walk_journey")
    assert walk is not None
    concept = ConceptBrief(id="grocery", name="Online grocery shopping")
    digest = GraphDigest(node_count=8, edge_count=5, max_depth=3, node_labels=("delivery slot", "checkout"))
    nexts = tpl.templates_for("journey_next", journey.name)[0].topic
    gaps = tpl.templates_for("journey_gaps", journey.name)[0].topic
    asked: list[str] = []
    for turn in range(2, 2 + len(nexts) + len(gaps)):
        request = follow_up(
            methodology=journey.name,
            strategy=walk.name,
            label="",
            turn=turn,
            concept=concept,
            graph_summary=digest,
            previous_questions=tuple(asked),
        )
        asked.append(FollowUpComposer(request, journey, walk).compose())
    topic = topic_phrase(concept)
    assert asked[: len(nexts)] and {normalise_question(q) for q in asked[: len(nexts)]} == {
        normalise_question(t.format(topic=topic)) for t in nexts
    }
    assert {normalise_question(q) for q in asked[len(nexts) :]} == {
        normalise_question(t.format(topic=topic)) for t in gaps
    }
    explore = {t.format(topic=topic) for t in tpl.FAMILIES["explore"].topic}
    assert not explore & set(asked)


@pytest.mark.parametrize(
    ("label", "cleaned"),
    [
        # the "about" of the sentence a label was cut from: "Thinking about about the energy drinks"
        ("about the energy drinks from the vending machine", "the energy drinks from the vending machine"),
        ("About the price.", "the price"),
        ("about to leave", "about to leave"),  # "about to" is when, not what
        ("about time", "about time"),  # too short to be a cut
        ('"no adverts"', "no adverts"),
    ],
)
def test_a_label_reads_inside_a_sentence(label: str, cleaned: str) -> None:
    assert clean_label(label) == cleaned
