"""ExportSession of a long session through a real server and a client with gRPC's default 4 MB
receive limit (as grpcurl has). Every TurnResult in whole made a 50-turn offline interview's JSON
export 7-8 MB: RESOURCE_EXHAUSTED at the client."""

from __future__ import annotations

import json
from pathlib import Path

from shared.embeddings import Embedder
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from tests.integration.answers import ANSWERS
from tests.integration.helpers import answer, create
from tests.integration.suite import running_suite

CONCEPT = "headphones_mec"
MAX_TURNS = 45


def _answers() -> list[str]:
    """The concept's answers, then every other concept's: new material keeps the interview going
    (the concept's eight alone saturate it within a few more turns)."""
    own = ANSWERS[CONCEPT]
    return own + [a for name in sorted(ANSWERS) if name != CONCEPT for a in ANSWERS[name]]


async def test_json_export_of_a_long_session_fits_a_default_client(
    tmp_path: Path, embedder: Embedder
) -> None:
    async with running_suite(None, tmp_path, embedder=embedder) as suite:
        session_id = (await create(suite.stub, CONCEPT, MAX_TURNS)).session.session_id
        texts = _answers()
        results: list[pb.TurnResult] = []
        for turn in range(1, MAX_TURNS + 1):
            results.append(await answer(suite.stub, session_id, turn, texts[(turn - 1) % len(texts)]))
            if not results[-1].should_continue:
                break
        assert len(results) >= 30
        # What the export used to carry: the turns' results whole.
        assert sum(r.ByteSize() for r in results) > 4 * 1024 * 1024 / 3

        exported: pb.ExportSessionResponse = await suite.stub.ExportSession(
            pb.ExportSessionRequest(session_id=session_id, format=pb.EXPORT_FORMAT_JSON)
        )
        transcript = (await suite.stub.GetSession(pb.GetSessionRequest(session_id=session_id))).transcript

    assert exported.content_type == "application/json"
    assert exported.ByteSize() < 1024 * 1024  # about 8 KB a turn at the offline engine's growth
    document = json.loads(exported.content)
    records = document["turns"]
    answers = {u.turn_number: u.text for u in transcript if u.speaker == common_pb2.SPEAKER_RESPONDENT}
    for result, record in zip(results, records, strict=True):
        assert record["turn_number"] == result.turn_number
        assert record["answer"] == answers[result.turn_number]
        assert record["next_question"] == result.next_question
        assert record["strategy_selected"] == result.strategy_selected
        assert record.get("focus_node_id", "") == result.focus_node_id
        selected = [c for c in result.score_decomposition if c.selected]
        if selected:
            assert record["selected_candidate"]["strategy"] == selected[0].strategy
            assert record["selected_candidate"]["contributions"]
        assert "score_decomposition" not in record and "node_signals" not in record
    assert records[1]["question"] == results[0].next_question
    assert len(document["graph"]["nodes"]) == sum(len(r.nodes_added) for r in results)
