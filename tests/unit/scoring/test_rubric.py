"""The rubric: the offline lexical scorer against the labelled set, and the LLM path through the fake
provider (real SDKs, real HTTP): one call that sees question and answer; malformed output is an error."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from services.scoring.rubric.calibrate import agreement, load_labelled
from services.scoring.rubric.llm_scorer import LLMRubricScorer
from services.scoring.rubric.local_scorer import LocalRubricScorer, extract_features, score_depth
from services.scoring.rubric.models import RUBRIC_DIMENSIONS
from services.scoring.server import build_scorer
from shared.errors import LLMInvalidOutputError
from shared.llm import LLMClients, build_llm_clients
from tests.fakes.llm_server import FakeLLMServer, RecordedRequest, Reply, fake_llm_settings

LABELLED = Path(__file__).parents[2] / "data" / "rubric" / "labelled_answers.yaml"


# -- offline scorer -----------------------------------------------------------------------------------


def test_labelled_set_is_large_enough_and_complete() -> None:
    items = load_labelled(LABELLED)
    assert len(items) >= 40
    assert all(set(i.expected) == set(RUBRIC_DIMENSIONS) for i in items)
    assert all(1 <= s <= 5 for i in items for s in i.expected.values())


@pytest.mark.parametrize("dimension", RUBRIC_DIMENSIONS)
def test_local_scorer_agrees_with_the_hand_labels(dimension: str) -> None:
    figures = agreement(load_labelled(LABELLED))[dimension]
    assert figures.mean_abs_error <= 1.0, figures
    assert figures.within_one >= 0.80, figures


def test_local_scorer_overall_agreement() -> None:
    figures = agreement(load_labelled(LABELLED)).values()
    assert sum(f.within_one for f in figures) / len(figures) >= 0.9
    assert sum(f.mean_abs_error for f in figures) / len(figures) <= 0.6


@pytest.mark.parametrize(
    ("hedged", "plain"),
    [
        ("It's kind of better for me, I guess.", "It's better for me."),
        ("Maybe it saves time, sort of.", "It saves time."),
    ],
)
def test_hedges_lower_certainty(hedged: str, plain: str) -> None:
    scorer = LocalRubricScorer()
    assert scorer.score_sync("Why?", hedged).score("certainty") < scorer.score_sync("Why?", plain).score(
        "certainty"
    )


def test_conversational_i_think_is_not_a_hedge() -> None:
    scorer = LocalRubricScorer()
    with_i_think = scorer.score_sync("Why?", "I think it is better for the environment and cheaper overall.")
    without = scorer.score_sync("Why?", "It is better for the environment and cheaper overall.")
    assert with_i_think.score("certainty") == without.score("certainty") == 5


def test_doubt_deflection_and_detail_move_the_right_dimensions() -> None:
    scorer = LocalRubricScorer()
    doubt = scorer.score_sync("Why?", "I don't know.")
    assert (doubt.score("certainty"), doubt.score("response_depth")) == (1, 1)
    assert scorer.score_sync("What would help?", "Whatever, can we move on?").score("engagement") == 1
    rich = scorer.score_sync(
        "Tell me about your last purchase.",
        "Last Saturday I bought running shoes at Decathlon for 80 euros because my old pair hurt my knees, "
        "but I also wanted something lighter for the 10k race in May, so I compared three models first.",
    )
    assert rich.score("specificity") >= 4 and rich.score("intellectual_engagement") >= 4
    assert rich.score("response_depth") >= 4
    assert scorer.score_sync("How was it?", "Absolutely awful, I hate it.").score("valence") <= 2
    assert scorer.score_sync("How was it?", "I love it, it's wonderful!").score("valence") >= 4


def test_nothing_more_and_a_restated_point_add_no_depth() -> None:
    # the top of a ladder: a long answer that adds nothing must not read as deep, or laddering
    # (which gains on deep answers) keeps asking "why?" where there is no rung left
    scorer = LocalRubricScorer()
    question = "What is it about concentrating during your commute that matters to you?"
    top = scorer.score_sync(
        question,
        "I don't think there's anything deeper than that, it's simply what I care about. "
        "Like I said, I can focus even when the carriage is noisy.",
    )
    fresh = scorer.score_sync(
        question,
        "It means I arrive at the office calm, and I can clear my inbox before I even get there.",
    )
    assert top.score("response_depth") <= 2 < fresh.score("response_depth")
    assert top.score("engagement") == 2
    # a restated point followed by a new one keeps the new one
    built_on = scorer.score_sync(
        "Why is being able to focus on the train important to you?",
        "Like I said, I can focus on the train, and that means I arrive at the office calm, not frazzled.",
    )
    assert built_on.score("response_depth") == 3 and built_on.score("engagement") >= 3
    # the same words without the lead-in are two ideas; after it, one point said again
    said = "it's about peace of mind and feeling calm at work."
    assert extract_features("Why?", said).idea_units == 2
    assert extract_features("Why?", f"Like I said, {said}").idea_units == 1
    assert extract_features("Why?", f"Like I said, {said} And it saves me money.").idea_units == 2


async def test_local_scorer_is_deterministic_and_reports_no_calls() -> None:
    scorer = LocalRubricScorer()
    first = await scorer.score("Why?", "Because it is creamy and I like the taste.")
    second = await scorer.score("Why?", "Because it is creamy and I like the taste.")
    assert first == second
    assert (first.usage.provider, first.usage.calls) == ("local", 0)
    assert all(s.rationale.startswith("offline lexical") for s in first.scores.values())


# -- LLM path -----------------------------------------------------------------------------------------

VALID = {
    "response_depth": {"score": 4, "rationale": "Several reasons."},
    "specificity": {"score": 2, "rationale": "General."},
    "certainty": {"score": 5, "rationale": "No hedging."},
    "valence": {"score": 4, "rationale": "Positive."},
    "engagement": {"score": 3, "rationale": "Answers the question."},
    "intellectual_engagement": {"score": 5, "rationale": "Trade-offs."},
}


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest_asyncio.fixture
async def clients(fake_llm: FakeLLMServer, request: pytest.FixtureRequest) -> AsyncIterator[LLMClients]:
    built = build_llm_clients(fake_llm_settings(fake_llm, request.param))
    yield built
    await built.aclose()


def _prompt_text(request: RecordedRequest) -> str:
    body = request.body
    if request.api == "anthropic":
        return str(body["system"]) + "\n" + "\n".join(str(m["content"]) for m in body["messages"])
    return "\n".join(str(m["content"]) for m in body["messages"])


@pytest.mark.parametrize("clients", ["anthropic", "openai"], indirect=True)
async def test_llm_rubric_is_one_call_that_sees_question_and_answer(
    fake_llm: FakeLLMServer, clients: LLMClients
) -> None:
    fake_llm.enqueue(Reply.structured(VALID, input_tokens=300, output_tokens=90))
    scorer = build_scorer(clients.scoring)
    assert isinstance(scorer, LLMRubricScorer)
    rubric = await scorer.score("Why does the battery matter to you?", "I travel a lot, so I hate charging.")
    assert {name: s.score for name, s in rubric.scores.items()} == {k: v["score"] for k, v in VALID.items()}
    assert rubric.scores["intellectual_engagement"].rationale == "Trade-offs."
    assert (rubric.usage.calls, rubric.usage.input_tokens, rubric.usage.output_tokens) == (1, 300, 90)
    [request] = fake_llm.requests
    prompt = _prompt_text(request)
    assert "Why does the battery matter to you?" in prompt
    assert "I travel a lot, so I hate charging." in prompt
    assert "kind of" in prompt and "intellectual_engagement" in prompt  # the rubric definitions are sent


@pytest.mark.parametrize("clients", ["anthropic"], indirect=True)
async def test_malformed_llm_output_is_an_error_not_an_empty_rubric(
    fake_llm: FakeLLMServer, clients: LLMClients
) -> None:
    out_of_range = {**VALID, "certainty": {"score": 9, "rationale": "?"}}
    fake_llm.enqueue(Reply.structured(out_of_range), Reply.structured({"response_depth": {"score": 3}}))
    with pytest.raises(LLMInvalidOutputError):
        await LLMRubricScorer(clients.scoring).score("Q?", "A.")
    assert len(fake_llm.requests) == 2  # one repair attempt, then the error


def test_offline_client_selects_the_local_scorer(fake_llm: FakeLLMServer) -> None:
    offline = build_llm_clients(fake_llm_settings(fake_llm, "local"))
    assert isinstance(build_scorer(offline.scoring), LocalRubricScorer)
    assert isinstance(build_scorer(None), LocalRubricScorer)
    with pytest.raises(ValueError, match="networked"):
        LLMRubricScorer(offline.scoring)


def test_words_of_any_script_are_counted() -> None:
    # "0 idea unit(s) in 0 words" was the offline rubric of a Russian answer.
    features = extract_features("Why?", "Я начал искать кофемолку, потому что молотый кофе казался несвежим.")
    assert features.word_count == 10
    assert extract_features("Why?", "Le café crème, toujours.").word_count == 4


@pytest.mark.parametrize(
    ("question", "answer", "depth"),
    [
        # A terse respondent's rungs of a ladder: a reason, a motive.
        ("Why does hearing the traffic matter?", "Because I can hear cars and cyclists coming.", 3),
        ("What does that give you?", "It means I feel safe running on the road.", 3),
        ("Why?", "So that I can relax.", 3),
        # Short and explaining nothing: still shallow, or surface.
        ("What do you look for?", "Battery life.", 2),
        ("What do you look for?", "Battery life and the price, mostly.", 2),
        ("Anything else?", "Nothing really.", 1),
    ],
)
def test_a_short_answer_that_explains_is_moderate(question: str, answer: str, depth: int) -> None:
    score, rationale = score_depth(extract_features(question, answer))
    assert score == depth, rationale


@pytest.mark.parametrize(
    ("answer", "depth"),
    [
        # A repertory grid's construct, both poles in one short sentence: two ideas set against
        # each other (six answers read as shallow in a row ended a brief respondent's grid at turn 6).
        ("Some have good recommendations, whereas others have endless scrolling.", 3),
        ("It was fine, though the app crashed.", 3),
        # One idea, or none, with a contrast word in it: no second idea to relate.
        ("I always go for no adverts.", 2),
        ("Yes, but not really.", 1),
    ],
)
def test_two_short_ideas_set_against_each_other_are_moderate(answer: str, depth: int) -> None:
    features = extract_features("Of Disney+, YouTube and Netflix, which two belong together?", answer)
    score, rationale = score_depth(features)
    assert score == depth, rationale


def test_chinese_characters_count_as_words() -> None:
    # "1 idea unit(s) in 2 words" was the rubric of this 16-character answer (as shared.words counts).
    features = extract_features("Why?", "我每天早上都喝咖啡，因为它让我清醒。")
    assert features.word_count == 16
