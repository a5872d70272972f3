"""Sessions, utterances and turns (with per-stage checkpoints).

Revision ID: 0001
Revises:
Create Date: 2026-11-20
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the orchestrator's tables."""
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("concept_id", sa.String(128), nullable=False),
        sa.Column("concept_name", sa.String(256), nullable=False),
        sa.Column("concept", sa.JSON(), nullable=False),
        sa.Column("methodology", sa.String(128), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("max_turns", sa.Integer(), nullable=False),
        sa.Column("turn_count", sa.Integer(), nullable=False),
        sa.Column("phase", sa.Integer(), nullable=False),
        sa.Column("termination_reason", sa.Integer(), nullable=False),
        sa.Column("metadata", sa.JSON(), nullable=False),
        sa.Column("current_question", sa.Text(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("node_tracker_state", sa.JSON(), nullable=True),
        sa.Column("canonical_enabled", sa.Boolean(), nullable=False),
        sa.Column("create_request_id", sa.String(128), nullable=True, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_sessions_status", "sessions", ["status"])
    op.create_table(
        "utterances",
        sa.Column("id", sa.String(96), primary_key=True),
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("turn_number", sa.Integer(), nullable=False),
        sa.Column("speaker", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("session_id", "turn_number", "speaker", name="uq_utterance_turn"),
    )
    op.create_index("ix_utterances_session_id", "utterances", ["session_id"])
    op.create_table(
        "turns",
        sa.Column(
            "session_id", sa.String(64), sa.ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("turn_number", sa.Integer(), primary_key=True),
        sa.Column("request_id", sa.String(128), nullable=True),
        sa.Column("answer_text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("checkpoints", sa.JSON(), nullable=False),
        sa.Column("result", sa.LargeBinary(), nullable=True),
        sa.Column("error_code", sa.String(32), nullable=True),
        sa.Column("error_message", sa.Text(), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
    )


def downgrade() -> None:
    """Drop the orchestrator's tables."""
    op.drop_table("turns")
    op.drop_index("ix_utterances_session_id", table_name="utterances")
    op.drop_table("utterances")
    op.drop_index("ix_sessions_status", table_name="sessions")
    op.drop_table("sessions")
