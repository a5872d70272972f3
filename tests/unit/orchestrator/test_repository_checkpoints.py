"""Checkpoint rows on both databases: one statement that keeps a stage's first output."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest

from services.orchestrator.contracts import ContextLoadingOutput
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.server import MIGRATIONS
from shared.db import create_engine
from shared.errors import FailedPreconditionError
from shared.gen.interview.common.v1 import common_pb2
from shared.migrations import upgrade
from tests.unit.orchestrator.support import context_output, session_row


@pytest.fixture
async def repo(db_url: str) -> AsyncIterator[OrchestratorRepository]:
    """A repository on a migrated, empty database (each back-end in turn)."""
    schema = "orchestrator" if db_url.startswith("postgresql") else None
    await upgrade(db_url, schema=schema, script_location=MIGRATIONS)
    engine = create_engine(db_url, schema=schema)
    try:
        yield OrchestratorRepository(engine)
    finally:
        await engine.dispose()


async def test_a_stored_stage_keeps_its_first_output(repo: OrchestratorRepository) -> None:
    await repo.create_session(session_row("s-ckpt"), "Why?")
    await repo.begin_turn("s-ckpt", 1, "an answer", None)
    await repo.save_checkpoints("s-ckpt", 1, [("srl", '{"v": 1}'), ("rubric", '{"v": 1}')])
    # A concurrent resume of the same turn writes the same stages again, plus a new one.
    await repo.save_checkpoints("s-ckpt", 1, [("srl", '{"v": 2}'), ("extraction", '{"v": 2}')])
    await repo.save_checkpoints("s-ckpt", 1, [])
    assert await repo.load_checkpoints("s-ckpt", 1) == {
        "srl": '{"v": 1}',
        "rubric": '{"v": 1}',
        "extraction": '{"v": 2}',
    }
    assert await repo.load_checkpoints("s-ckpt", 2) == {}


def test_context_checkpoints_from_before_the_node_lookup_still_load() -> None:
    # Written before context loading looked up the existing nodes: no such field. Extraction must
    # see "not looked up" (None, so it looks them up itself), not "the graph is empty" ([]).
    loaded = context_output(existing_nodes=[])
    old = json.loads(loaded.model_dump_json(exclude={"existing_nodes"}))
    assert ContextLoadingOutput.model_validate({**old, "tracker": {}}).existing_nodes is None
    new = json.loads(loaded.model_dump_json())
    assert ContextLoadingOutput.model_validate({**new, "tracker": {}}).existing_nodes == []


async def test_the_question_is_written_with_the_turn_completion_once(repo: OrchestratorRepository) -> None:
    await repo.create_session(session_row("s-q"), "Why?")
    await repo.begin_turn("s-q", 1, "an answer", None)
    # A turn resumed from an older run that had saved its question as a stage of its own.
    await repo.save_utterance("s-q", 1, common_pb2.SPEAKER_INTERVIEWER, "What else?")
    await repo.complete_turn("s-q", 1, b"result-1", {}, question="What else?")
    await repo.begin_turn("s-q", 2, "another answer", None)
    await repo.complete_turn("s-q", 2, b"result-2", {}, question="And then?")
    transcript = [(u.turn_number, u.speaker, u.text) for u in await repo.list_utterances("s-q")]
    interviewer = common_pb2.SPEAKER_INTERVIEWER
    assert [t for t in transcript if t[1] == interviewer] == [
        (0, interviewer, "Why?"),
        (1, interviewer, "What else?"),
        (2, interviewer, "And then?"),
    ]
    # A completion that fails (the turn was completed already) writes no utterance either.
    await repo.begin_turn("s-q", 4, "out of order", None)
    with pytest.raises(FailedPreconditionError):
        await repo.complete_turn("s-q", 4, b"result-4", {}, question="Never shown?")
    texts = [u.text for u in await repo.list_utterances("s-q")]
    assert "Never shown?" not in texts
