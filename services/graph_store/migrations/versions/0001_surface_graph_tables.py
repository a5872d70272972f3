"""Surface graph tables: nodes, edges, their provenance, and the applied-utterance record.

Revision ID: 0001
Revises:
Create Date: 2026-11-20
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PK = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _mention_columns(owner: str) -> list[sa.Column[Any]]:
    return [
        sa.Column("pk", _PK, autoincrement=True, nullable=False),
        sa.Column(f"{owner}_id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("utterance_id", sa.String(length=128), nullable=False),
        sa.Column("turn_number", sa.Integer(), nullable=False),
        sa.Column("extracted_label", sa.Text(), nullable=False),
        sa.Column("quote_text", sa.Text(), nullable=True),
        sa.Column("quote_start", sa.Integer(), nullable=True),
        sa.Column("quote_end", sa.Integer(), nullable=True),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
    ]


def upgrade() -> None:
    """Create the graph_store tables."""
    op.create_table(
        "applied_utterances",
        sa.Column("utterance_id", sa.String(length=128), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("turn_number", sa.Integer(), nullable=False),
        sa.Column("result_json", sa.Text(), nullable=False),
        sa.Column("applied_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("utterance_id", name=op.f("pk_applied_utterances")),
    )
    op.create_index(op.f("ix_applied_utterances_session_id"), "applied_utterances", ["session_id"])

    op.create_table(
        "nodes",
        sa.Column("pk", _PK, autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("label_norm", sa.String(length=500), nullable=False),
        sa.Column("node_type", sa.String(length=100), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("stance", sa.SmallInteger(), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("is_terminal", sa.Boolean(), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=False),
        sa.Column("created_turn", sa.Integer(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("superseded_by", sa.String(length=36), nullable=True),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_nodes")),
        sa.UniqueConstraint("id", name=op.f("uq_nodes_id")),
        sa.UniqueConstraint("session_id", "label_norm", "node_type", name="uq_nodes_session_label_type"),
    )
    op.create_index("ix_nodes_session_pk", "nodes", ["session_id", "pk"])

    op.create_table(
        "edges",
        sa.Column("pk", _PK, autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("source_node_id", sa.String(length=36), nullable=False),
        sa.Column("target_node_id", sa.String(length=36), nullable=False),
        sa.Column("edge_type", sa.String(length=100), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("properties", sa.JSON(), nullable=False),
        sa.Column("created_turn", sa.Integer(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["source_node_id"], ["nodes.id"], name=op.f("fk_edges_source_node_id_nodes"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["target_node_id"], ["nodes.id"], name=op.f("fk_edges_target_node_id_nodes"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_edges")),
        sa.UniqueConstraint("id", name=op.f("uq_edges_id")),
        sa.UniqueConstraint(
            "session_id",
            "source_node_id",
            "target_node_id",
            "edge_type",
            name="uq_edges_session_endpoints_type",
        ),
    )
    op.create_index("ix_edges_session_pk", "edges", ["session_id", "pk"])
    op.create_index(op.f("ix_edges_source_node_id"), "edges", ["source_node_id"])
    op.create_index(op.f("ix_edges_target_node_id"), "edges", ["target_node_id"])

    op.create_table(
        "node_mentions",
        *_mention_columns("node"),
        sa.ForeignKeyConstraint(
            ["node_id"], ["nodes.id"], name=op.f("fk_node_mentions_node_id_nodes"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_node_mentions")),
    )
    op.create_index("ix_node_mentions_node_id", "node_mentions", ["node_id"])
    op.create_index(op.f("ix_node_mentions_session_id"), "node_mentions", ["session_id"])

    op.create_table(
        "edge_mentions",
        *_mention_columns("edge"),
        sa.ForeignKeyConstraint(
            ["edge_id"], ["edges.id"], name=op.f("fk_edge_mentions_edge_id_edges"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("pk", name=op.f("pk_edge_mentions")),
    )
    op.create_index("ix_edge_mentions_edge_id", "edge_mentions", ["edge_id"])
    op.create_index(op.f("ix_edge_mentions_session_id"), "edge_mentions", ["session_id"])


def downgrade() -> None:
    """Drop the graph_store tables."""
    for table in ("edge_mentions", "node_mentions", "edges", "nodes", "applied_utterances"):
        op.drop_table(table)
