"""An answer that opens with "Then …" goes on from the event the previous answer ended on."""

from __future__ import annotations

import pytest

from services.extraction.engine import ExtractionEngine
from services.extraction.local.linking import told_last
from services.extraction.models import ConversationTurn, ExistingNode, ExtractionResult, Speaker
from services.extraction.nlp import NlpPipeline
from tests.unit.extraction.support import edges as _edges
from tests.unit.extraction.support import extract

_PREVIOUS = (
    "I saw a capsule machine at a colleague's desk, and then I compared three capsule machines online."
)
_EXISTING = (
    ExistingNode(label="saw a capsule machine at a colleague's desk", node_type="timeline_event"),
    ExistingNode(label="compared three capsule machines online", node_type="timeline_event"),
    ExistingNode(label="capsule machine", node_type="solution"),
)
_STOP = frozenset({"a", "at", "the", "i", "and", "then"})


def _recent(answer: str) -> tuple[ConversationTurn, ...]:
    return (
        ConversationTurn(speaker=Speaker.INTERVIEWER, text="What happened after that?"),
        ConversationTurn(speaker=Speaker.RESPONDENT, text=answer),
        ConversationTurn(speaker=Speaker.INTERVIEWER, text="And what came next?"),
    )


async def _extract(engine: ExtractionEngine, text: str) -> ExtractionResult:
    return await extract(engine, text, existing=_EXISTING, recent=_recent(_PREVIOUS))


@pytest.mark.parametrize(
    "text",
    ["Then I bought the machine that Saturday.", "And after that, I bought the machine that Saturday."],
)
async def test_then_follows_on_from_the_last_event_told(offline_engine: ExtractionEngine, text: str) -> None:
    result = await _extract(offline_engine, text)
    assert (
        "compared three capsule machines online",
        "precedes",
        "bought the machine that Saturday",
    ) in _edges(result)


async def test_an_answer_that_does_not_go_on_links_nothing_back(offline_engine: ExtractionEngine) -> None:
    result = await _extract(offline_engine, "I bought the machine that Saturday.")
    assert not any(s == "compared three capsule machines online" for s, _, _ in _edges(result))


def test_the_event_told_last_is_the_one_whose_words_come_last(pipeline: NlpPipeline) -> None:
    types = {"timeline_event"}
    found = told_last(_recent(_PREVIOUS), _EXISTING, types, pipeline.lemmas, _STOP)
    assert found is not None and found.label == "compared three capsule machines online"
    # told the other way round, the other one
    reversed_answer = (
        "I compared three capsule machines online after I saw a capsule machine at a colleague's desk."
    )
    found = told_last(_recent(reversed_answer), _EXISTING, types, pipeline.lemmas, _STOP)
    assert found is not None and found.label == "saw a capsule machine at a colleague's desk"
    # only the sequence types count, and only a respondent's words
    assert told_last(_recent(_PREVIOUS), _EXISTING, {"solution"}, pipeline.lemmas, _STOP) == _EXISTING[2]
    asked = (ConversationTurn(speaker=Speaker.INTERVIEWER, text=_PREVIOUS),)
    assert told_last(asked, _EXISTING, types, pipeline.lemmas, _STOP) is None


_SETTING = (ExistingNode(label="work from home alone all day", node_type="situation"),)


async def test_then_goes_on_from_the_setting_when_no_event_was_told(offline_engine: ExtractionEngine) -> None:
    # "I work from home alone all day." "After that, I got a barista course …": the switch's timeline
    # starts from the situation, and the course was left unlinked
    result = await extract(
        offline_engine,
        "After that, I got a barista course as a birthday present.",
        existing=_SETTING,
        recent=_recent("I work from home alone all day."),
    )
    assert (
        "work from home alone all day",
        "precedes",
        "got a barista course as a birthday present",
    ) in _edges(result), _edges(result)


async def test_an_event_told_beats_the_setting_told_after_it(offline_engine: ExtractionEngine) -> None:
    previous = "I compared three capsule machines online, since I work from home alone all day."
    result = await extract(
        offline_engine,
        "Then I bought the machine that Saturday.",
        existing=_EXISTING + _SETTING,
        recent=_recent(previous),
    )
    sources = {s for s, _, t in _edges(result) if t == "bought the machine that Saturday"}
    assert sources == {"compared three capsule machines online"}, _edges(result)
