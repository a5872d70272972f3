"""Per-stage turn checkpoints in their own table (one row per completed stage).

The turn row used to hold every completed stage's output in one JSON column, rewritten after each
stage: a turn late in a long interview re-encoded and rewrote about a megabyte thirteen times.
Now each stage's output is inserted once. Checkpoints of unfinished turns are carried over.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

import json
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Move unfinished turns' checkpoints into `turn_checkpoints` and drop the old column.

    The rows are read first and the column dropped before the new table exists: on SQLite the
    batch drop recreates `turns`, and dropping the old table would cascade to checkpoint rows."""
    bind = op.get_bind()
    turns = sa.table(
        "turns",
        sa.column("session_id", sa.String),
        sa.column("turn_number", sa.Integer),
        sa.column("status", sa.String),
        sa.column("checkpoints", sa.JSON),
    )
    now = datetime.now(UTC)
    rows = bind.execute(
        sa.select(turns.c.session_id, turns.c.turn_number, turns.c.checkpoints).where(
            turns.c.status != "completed"
        )
    ).all()
    moved = [
        {
            "session_id": sid,
            "turn_number": turn,
            "stage": stage,
            "payload": json.dumps(output),
            "created_at": now,
        }
        for sid, turn, stored in rows
        for stage, output in (stored or {}).items()
    ]
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("checkpoints")
    checkpoints = op.create_table(
        "turn_checkpoints",
        sa.Column("session_id", sa.String(64), primary_key=True),
        sa.Column("turn_number", sa.Integer(), primary_key=True),
        sa.Column("stage", sa.String(32), primary_key=True),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id", "turn_number"],
            ["turns.session_id", "turns.turn_number"],
            name="fk_turn_checkpoints_turn",
            ondelete="CASCADE",
        ),
    )
    if moved:
        op.bulk_insert(checkpoints, moved)


def downgrade() -> None:
    """Put the checkpoints back into the turn rows' JSON column (read, drop the table, then alter)."""
    bind = op.get_bind()
    stored: dict[tuple[str, int], dict[str, object]] = {}
    for sid, turn, stage, payload in bind.execute(
        sa.text("SELECT session_id, turn_number, stage, payload FROM turn_checkpoints")
    ):
        stored.setdefault((sid, turn), {})[stage] = json.loads(payload)
    op.drop_table("turn_checkpoints")
    with op.batch_alter_table("turns") as batch:
        batch.add_column(sa.Column("checkpoints", sa.JSON(), nullable=False, server_default="{}"))
    turns = sa.table(
        "turns",
        sa.column("session_id", sa.String),
        sa.column("turn_number", sa.Integer),
        sa.column("checkpoints", sa.JSON),
    )
    for (sid, turn), outputs in stored.items():
        bind.execute(
            sa.update(turns)
            .where(turns.c.session_id == sid, turns.c.turn_number == turn)
            .values(checkpoints=outputs)
        )
