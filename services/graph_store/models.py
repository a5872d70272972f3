"""SQLAlchemy 2 models of the surface graph (schema `graph` on PostgreSQL; one file on SQLite).

Every row carries `session_id`; no table is read by another service. Rows are ordered by an
integer surrogate key `pk` (creation order: stable pagination and the order of node embeddings),
while the public ids are UUID strings. Embeddings are raw little-endian float32 bytes
(`shared.embeddings.to_bytes`). Provenance is one row per (node or edge, utterance, quote).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL gets a BIGINT identity.
PkType = BigInteger().with_variant(Integer(), "sqlite")

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    """Declarative base of the graph_store tables."""

    metadata = MetaData(naming_convention=NAMING)


class NodeRow(Base):
    """A surface node. (session_id, label_norm, node_type) is unique: the backstop against duplicates."""

    __tablename__ = "nodes"
    __table_args__ = (
        UniqueConstraint("session_id", "label_norm", "node_type", name="uq_nodes_session_label_type"),
        Index("ix_nodes_session_pk", "session_id", "pk"),
    )

    pk: Mapped[int] = mapped_column(PkType, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True)
    session_id: Mapped[str] = mapped_column(String(128))
    label: Mapped[str] = mapped_column(Text)
    label_norm: Mapped[str] = mapped_column(String(500))
    node_type: Mapped[str] = mapped_column(String(100))
    confidence: Mapped[float] = mapped_column(Float)
    stance: Mapped[int] = mapped_column(SmallInteger)
    properties: Mapped[dict[str, str]] = mapped_column(JSON)
    level: Mapped[int] = mapped_column(Integer)
    is_terminal: Mapped[bool] = mapped_column(Boolean)
    embedding: Mapped[bytes] = mapped_column(LargeBinary)
    created_turn: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    superseded_by: Mapped[str | None] = mapped_column(String(36), nullable=True)


class NodeMentionRow(Base):
    """Provenance of a node: an utterance that stated it, with the verbatim quote if one was found."""

    __tablename__ = "node_mentions"
    __table_args__ = (Index("ix_node_mentions_node_id", "node_id"),)

    pk: Mapped[int] = mapped_column(PkType, primary_key=True, autoincrement=True)
    node_id: Mapped[str] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"))
    session_id: Mapped[str] = mapped_column(String(128), index=True)
    utterance_id: Mapped[str] = mapped_column(String(128))
    turn_number: Mapped[int] = mapped_column(Integer)
    extracted_label: Mapped[str] = mapped_column(Text)
    quote_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    quote_start: Mapped[int | None] = mapped_column(Integer, nullable=True)
    quote_end: Mapped[int | None] = mapped_column(Integer, nullable=True)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EdgeRow(Base):
    """A directed surface edge; one row per (source, target, edge_type) in a session."""

    __tablename__ = "edges"
    __table_args__ = (
        UniqueConstraint(
            "session_id",
            "source_node_id",
            "target_node_id",
            "edge_type",
            name="uq_edges_session_endpoints_type",
        ),
        Index("ix_edges_session_pk", "session_id", "pk"),
    )

    pk: Mapped[int] = mapped_column(PkType, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True)
    session_id: Mapped[str] = mapped_column(String(128))
    source_node_id: Mapped[str] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"), index=True)
    target_node_id: Mapped[str] = mapped_column(ForeignKey("nodes.id", ondelete="CASCADE"), index=True)
    edge_type: Mapped[str] = mapped_column(String(100))
    confidence: Mapped[float] = mapped_column(Float)
    properties: Mapped[dict[str, str]] = mapped_column(JSON)
    created_turn: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class EdgeMentionRow(Base):
    """Provenance of an edge: an utterance that stated it, with the verbatim quote if one was found."""

    __tablename__ = "edge_mentions"
    __table_args__ = (Index("ix_edge_mentions_edge_id", "edge_id"),)

    pk: Mapped[int] = mapped_column(PkType, primary_key=True, autoincrement=True)
    edge_id: Mapped[str] = mapped_column(ForeignKey("edges.id", ondelete="CASCADE"))
    session_id: Mapped[str] = mapped_column(String(128), index=True)
    utterance_id: Mapped[str] = mapped_column(String(128))
    turn_number: Mapped[int] = mapped_column(Integer)
    extracted_label: Mapped[str] = mapped_column(Text)
    quote_text: Mapped[str | None] = mapped_column(Text, nullable=True)
    quote_start: Mapped[int | None] = mapped_column(Integer, nullable=True)
    quote_end: Mapped[int | None] = mapped_column(Integer, nullable=True)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class AppliedUtteranceRow(Base):
    """Idempotency record of `ApplyExtraction`: the serialized result, keyed by utterance id."""

    __tablename__ = "applied_utterances"

    utterance_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(128), index=True)
    turn_number: Mapped[int] = mapped_column(Integer)
    result_json: Mapped[str] = mapped_column(Text)
    applied_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
