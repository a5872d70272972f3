"""add notes.tag

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("notes") as batch:
        batch.add_column(sa.Column("tag", sa.String(50), nullable=False, server_default="none"))
        batch.create_index("ix_notes_tag", ["tag"])


def downgrade() -> None:
    with op.batch_alter_table("notes") as batch:
        batch.drop_index("ix_notes_tag")
        batch.drop_column("tag")
