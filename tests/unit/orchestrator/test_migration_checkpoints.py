"""Migration 0002: unfinished turns' checkpoints move to `turn_checkpoints` and back on downgrade."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from alembic import command
from alembic.config import Config

MIGRATIONS = Path(__file__).resolve().parents[3] / "services" / "orchestrator" / "migrations"


def _config(path: Path) -> Config:
    url = f"sqlite+aiosqlite:///{path}"
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url)
    cfg.attributes["database_url"] = url
    return cfg


def test_unfinished_checkpoints_survive_upgrade_and_downgrade(tmp_path: Path) -> None:
    path = tmp_path / "orchestrator.db"
    cfg = _config(path)
    command.upgrade(cfg, "0001")
    with sqlite3.connect(path) as db:
        db.execute(
            "INSERT INTO sessions (id, concept_id, concept_name, concept, methodology, status, max_turns,"
            " turn_count, phase, termination_reason, metadata, current_question, state, canonical_enabled,"
            " created_at, updated_at) VALUES ('s1', 'c', 'c', '{}', 'm', 'active', 5, 1, 0, 0, '{}', 'q',"
            " '{}', 1, '2026-01-01', '2026-01-01')"
        )
        turn = (
            "INSERT INTO turns (session_id, turn_number, answer_text, status, checkpoints, attempts,"
            " started_at)"
        )
        db.execute(
            f"{turn} VALUES ('s1', 1, 'a', 'completed', ?, 1, '2026-01-01')", (json.dumps({"srl": {"x": 1}}),)
        )
        db.execute(
            f"{turn} VALUES ('s1', 2, 'b', 'failed', ?, 2, '2026-01-01')", (json.dumps({"srl": {"x": 2}}),)
        )

    command.upgrade(cfg, "head")
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT session_id, turn_number, stage, payload FROM turn_checkpoints").fetchall()
        columns = [r[1] for r in db.execute("PRAGMA table_info(turns)")]
    # Only the unfinished turn had anything left to resume.
    assert [(s, t, stage, json.loads(p)) for s, t, stage, p in rows] == [("s1", 2, "srl", {"x": 2})]
    assert "checkpoints" not in columns

    command.downgrade(cfg, "0001")
    with sqlite3.connect(path) as db:
        back = dict(db.execute("SELECT turn_number, checkpoints FROM turns").fetchall())
    assert json.loads(back[2]) == {"srl": {"x": 2}} and json.loads(back[1]) == {}
