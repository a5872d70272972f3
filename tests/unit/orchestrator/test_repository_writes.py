"""SQLite: the repository's write transactions queue behind each other in the process instead of
meeting in SQLite's busy handler (which polls with sleeps of several milliseconds)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.server import MIGRATIONS
from shared.db import create_engine
from shared.gen.interview.common.v1 import common_pb2
from shared.migrations import upgrade
from tests.sqlite import never_wait_for_the_write_lock
from tests.unit.orchestrator.support import session_row


async def _turn(repo: OrchestratorRepository, session_id: str) -> None:
    await repo.create_session(session_row(session_id), "Why?")
    await repo.begin_turn(session_id, 1, "an answer", None)
    writes = [repo.save_checkpoints(session_id, 1, [(f"stage-{i}", "{}")]) for i in range(4)]
    respondent = common_pb2.SPEAKER_RESPONDENT
    await asyncio.gather(*writes, repo.save_utterance(session_id, 1, respondent, "an answer"))
    values = {"current_question": "And then?"}
    await repo.complete_turn(session_id, 1, b"result", values, question="And then?")


async def test_concurrent_writes_never_wait_in_sqlites_busy_handler(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'orchestrator.db'}"
    await upgrade(url, schema=None, script_location=MIGRATIONS)
    engine = create_engine(url, schema=None)
    try:
        await never_wait_for_the_write_lock(engine)
        repo = OrchestratorRepository(engine)
        sessions = [f"s-{i}" for i in range(12)]
        outcomes = await asyncio.gather(*(_turn(repo, s) for s in sessions), return_exceptions=True)
        assert [o for o in outcomes if o is not None] == []
        for session_id in sessions:
            row = await repo.get_session(session_id)
            assert (row.turn_count, row.current_question) == (1, "And then?")
            assert await repo.load_checkpoints(session_id, 1) == {}
            texts = [u.text for u in await repo.list_utterances(session_id)]
            assert texts == ["Why?", "an answer", "And then?"]
    finally:
        await engine.dispose()
