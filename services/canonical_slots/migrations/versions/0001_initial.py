"""Initial schema: slots, mappings, canonical edges, surface edges, discovery runs.

Revision ID: 0001
Revises:
Create Date: 2026-02-10
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_NOW = sa.text("CURRENT_TIMESTAMP")


def upgrade() -> None:
    """Create the five tables (in the `slots` schema on PostgreSQL, via the search_path)."""
    op.create_table(
        "canonical_slots",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("slot_name", sa.String(length=64), nullable=False),
        sa.Column("name_key", sa.String(length=128), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("node_type", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("support_count", sa.Integer(), nullable=False),
        sa.Column("first_seen_turn", sa.Integer(), nullable=False),
        sa.Column("promoted_turn", sa.Integer(), nullable=True),
        sa.Column("embedding", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_NOW, nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), server_default=_NOW, nullable=False),
        sa.CheckConstraint("status IN ('candidate', 'active')", name=op.f("ck_canonical_slots_status")),
        sa.CheckConstraint("support_count >= 0", name=op.f("ck_canonical_slots_support_nonnegative")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_canonical_slots")),
        sa.UniqueConstraint(
            "session_id", "node_type", "name_key", name="uq_canonical_slots_session_type_key"
        ),
    )
    op.create_index(
        "ix_canonical_slots_session_turn", "canonical_slots", ["session_id", "first_seen_turn", "id"]
    )
    op.create_table(
        "discovery_runs",
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("turn_number", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=_NOW, nullable=False),
        sa.PrimaryKeyConstraint("session_id", "turn_number", name=op.f("pk_discovery_runs")),
    )
    op.create_table(
        "canonical_edges",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("source_slot_id", sa.String(length=36), nullable=False),
        sa.Column("target_slot_id", sa.String(length=36), nullable=False),
        sa.Column("edge_type", sa.String(length=64), nullable=False),
        sa.Column("support_count", sa.Integer(), nullable=False),
        sa.Column("surface_edge_ids", sa.JSON(), nullable=False),
        sa.Column("first_seen_turn", sa.Integer(), nullable=False),
        sa.Column("updated_turn", sa.Integer(), nullable=False),
        sa.CheckConstraint("source_slot_id <> target_slot_id", name=op.f("ck_canonical_edges_no_self_loop")),
        sa.ForeignKeyConstraint(
            ["source_slot_id"],
            ["canonical_slots.id"],
            name=op.f("fk_canonical_edges_source_slot_id_canonical_slots"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["target_slot_id"],
            ["canonical_slots.id"],
            name=op.f("fk_canonical_edges_target_slot_id_canonical_slots"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_canonical_edges")),
        sa.UniqueConstraint(
            "session_id", "source_slot_id", "target_slot_id", "edge_type", name="uq_canonical_edges_key"
        ),
    )
    op.create_index(
        "ix_canonical_edges_session_turn", "canonical_edges", ["session_id", "first_seen_turn", "id"]
    )
    op.create_table(
        "slot_mappings",
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("surface_node_id", sa.String(length=128), nullable=False),
        sa.Column("slot_id", sa.String(length=36), nullable=False),
        sa.Column("surface_label", sa.Text(), nullable=False),
        sa.Column("similarity", sa.Float(), nullable=False),
        sa.Column("assigned_turn", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["slot_id"],
            ["canonical_slots.id"],
            name=op.f("fk_slot_mappings_slot_id_canonical_slots"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "surface_node_id", name=op.f("pk_slot_mappings")),
    )
    op.create_index("ix_slot_mappings_slot", "slot_mappings", ["slot_id"])
    op.create_table(
        "surface_edges",
        sa.Column("session_id", sa.String(length=128), nullable=False),
        sa.Column("surface_edge_id", sa.String(length=128), nullable=False),
        sa.Column("source_node_id", sa.String(length=128), nullable=False),
        sa.Column("target_node_id", sa.String(length=128), nullable=False),
        sa.Column("edge_type", sa.String(length=64), nullable=False),
        sa.Column("turn_number", sa.Integer(), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("canonical_edge_id", sa.String(length=36), nullable=True),
        sa.CheckConstraint(
            "state IN ('pending', 'aggregated', 'self_loop')", name=op.f("ck_surface_edges_state")
        ),
        sa.ForeignKeyConstraint(
            ["canonical_edge_id"],
            ["canonical_edges.id"],
            name=op.f("fk_surface_edges_canonical_edge_id_canonical_edges"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("session_id", "surface_edge_id", name=op.f("pk_surface_edges")),
    )
    op.create_index("ix_surface_edges_session_state", "surface_edges", ["session_id", "state"])


def downgrade() -> None:
    """Drop the tables (children first)."""
    op.drop_index("ix_surface_edges_session_state", table_name="surface_edges")
    op.drop_table("surface_edges")
    op.drop_index("ix_slot_mappings_slot", table_name="slot_mappings")
    op.drop_table("slot_mappings")
    op.drop_index("ix_canonical_edges_session_turn", table_name="canonical_edges")
    op.drop_table("canonical_edges")
    op.drop_table("discovery_runs")
    op.drop_index("ix_canonical_slots_session_turn", table_name="canonical_slots")
    op.drop_table("canonical_slots")
