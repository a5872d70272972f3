"""SQLAlchemy 2 declarative models of the canonical_slots tables.

Tables carry no schema name: on PostgreSQL the engine from `shared.db.create_engine` places them
in the `slots` schema; on SQLite there are no schemas. Every table is keyed by `session_id` first,
since every query is per session.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

ID_LEN = 128


class Base(DeclarativeBase):
    """Declarative base with a naming convention (stable constraint names for Alembic)."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class SlotRow(Base):
    """A canonical slot of one session."""

    __tablename__ = "canonical_slots"
    __table_args__ = (
        # Lemmatised-name merging means a (type, name key) pair never occurs twice in a session.
        UniqueConstraint("session_id", "node_type", "name_key", name="uq_canonical_slots_session_type_key"),
        CheckConstraint("status IN ('candidate', 'active')", name="status"),
        CheckConstraint("support_count >= 0", name="support_nonnegative"),
        Index("ix_canonical_slots_session_turn", "session_id", "first_seen_turn", "id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(ID_LEN), nullable=False)
    slot_name: Mapped[str] = mapped_column(String(64), nullable=False)
    name_key: Mapped[str] = mapped_column(String(128), nullable=False)
    description: Mapped[str] = mapped_column(Text, nullable=False, default="")
    node_type: Mapped[str] = mapped_column(String(64), nullable=False)
    status: Mapped[str] = mapped_column(String(16), nullable=False, default="candidate")
    support_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    first_seen_turn: Mapped[int] = mapped_column(Integer, nullable=False)
    promoted_turn: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # float32 bytes of the L2-normalised embedding of "name words: description".
    embedding: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )


class SlotMappingRow(Base):
    """Surface node → slot; a surface node maps to exactly one slot per session."""

    __tablename__ = "slot_mappings"
    __table_args__ = (Index("ix_slot_mappings_slot", "slot_id"),)

    session_id: Mapped[str] = mapped_column(String(ID_LEN), primary_key=True)
    surface_node_id: Mapped[str] = mapped_column(String(ID_LEN), primary_key=True)
    slot_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("canonical_slots.id", ondelete="CASCADE"), nullable=False
    )
    surface_label: Mapped[str] = mapped_column(Text, nullable=False, default="")
    similarity: Mapped[float] = mapped_column(Float, nullable=False)
    assigned_turn: Mapped[int] = mapped_column(Integer, nullable=False)


class CanonicalEdgeRow(Base):
    """A canonical edge aggregated from surface edges (support = distinct surface edges)."""

    __tablename__ = "canonical_edges"
    __table_args__ = (
        UniqueConstraint(
            "session_id", "source_slot_id", "target_slot_id", "edge_type", name="uq_canonical_edges_key"
        ),
        CheckConstraint("source_slot_id <> target_slot_id", name="no_self_loop"),
        Index("ix_canonical_edges_session_turn", "session_id", "first_seen_turn", "id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(ID_LEN), nullable=False)
    source_slot_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("canonical_slots.id", ondelete="CASCADE"), nullable=False
    )
    target_slot_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("canonical_slots.id", ondelete="CASCADE"), nullable=False
    )
    edge_type: Mapped[str] = mapped_column(String(64), nullable=False)
    support_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    surface_edge_ids: Mapped[list[str]] = mapped_column(JSON, nullable=False, default=list)
    first_seen_turn: Mapped[int] = mapped_column(Integer, nullable=False)
    updated_turn: Mapped[int] = mapped_column(Integer, nullable=False)


class SurfaceEdgeRow(Base):
    """Every surface edge the service was sent, so an edge whose endpoint is not mapped yet is
    aggregated later instead of lost, and a re-sent edge never counts twice."""

    __tablename__ = "surface_edges"
    __table_args__ = (
        CheckConstraint("state IN ('pending', 'aggregated', 'self_loop')", name="state"),
        Index("ix_surface_edges_session_state", "session_id", "state"),
    )

    session_id: Mapped[str] = mapped_column(String(ID_LEN), primary_key=True)
    surface_edge_id: Mapped[str] = mapped_column(String(ID_LEN), primary_key=True)
    source_node_id: Mapped[str] = mapped_column(String(ID_LEN), nullable=False)
    target_node_id: Mapped[str] = mapped_column(String(ID_LEN), nullable=False)
    edge_type: Mapped[str] = mapped_column(String(64), nullable=False)
    turn_number: Mapped[int] = mapped_column(Integer, nullable=False)
    state: Mapped[str] = mapped_column(String(16), nullable=False, default="pending")
    canonical_edge_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("canonical_edges.id", ondelete="SET NULL"), nullable=True
    )


class DiscoveryRunRow(Base):
    """One completed discovery run; its stored result answers repeats of (session, turn)."""

    __tablename__ = "discovery_runs"

    session_id: Mapped[str] = mapped_column(String(ID_LEN), primary_key=True)
    turn_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    result: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
