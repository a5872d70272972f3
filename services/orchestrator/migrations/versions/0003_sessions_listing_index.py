"""An index for ListSessions: newest first, then by id (the keyset its page tokens continue from).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Index `sessions` on (created_at, id): a page is read from the index instead of a sort of
    every session."""
    op.create_index("ix_sessions_created_at_id", "sessions", ["created_at", "id"])


def downgrade() -> None:
    """Drop the index."""
    op.drop_index("ix_sessions_created_at_id", table_name="sessions")
