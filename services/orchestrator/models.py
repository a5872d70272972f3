"""SQLAlchemy tables owned by the orchestrator: sessions, utterances, turns and their checkpoints."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    DateTime,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the orchestrator's tables."""


class SessionRow(Base):
    """An interview session and the state every turn loads at its start."""

    __tablename__ = "sessions"
    # ListSessions pages newest first by (created_at, id) (migration 0003).
    __table_args__ = (Index("ix_sessions_created_at_id", "created_at", "id"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    concept_id: Mapped[str] = mapped_column(String(128))
    concept_name: Mapped[str] = mapped_column(String(256))
    concept: Mapped[dict[str, Any]] = mapped_column(JSON)
    methodology: Mapped[str] = mapped_column(String(128))
    status: Mapped[str] = mapped_column(String(16), index=True)
    max_turns: Mapped[int] = mapped_column(Integer)
    turn_count: Mapped[int] = mapped_column(Integer, default=0)
    phase: Mapped[int] = mapped_column(Integer, default=0)
    termination_reason: Mapped[int] = mapped_column(Integer, default=0)
    metadata_: Mapped[dict[str, str]] = mapped_column("metadata", JSON, default=dict)
    current_question: Mapped[str] = mapped_column(Text, default="")
    state: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    node_tracker_state: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    canonical_enabled: Mapped[bool] = mapped_column(default=True)
    create_request_id: Mapped[str | None] = mapped_column(String(128), unique=True, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class UtteranceRow(Base):
    """One utterance; (session, turn, speaker) is unique so saving it again is a no-op."""

    __tablename__ = "utterances"
    __table_args__ = (UniqueConstraint("session_id", "turn_number", "speaker", name="uq_utterance_turn"),)

    id: Mapped[str] = mapped_column(String(96), primary_key=True)
    session_id: Mapped[str] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), index=True)
    turn_number: Mapped[int] = mapped_column(Integer)
    speaker: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class TurnRow(Base):
    """A turn attempt: the answer, its status and the final result (checkpoints: `TurnCheckpointRow`)."""

    __tablename__ = "turns"

    session_id: Mapped[str] = mapped_column(ForeignKey("sessions.id", ondelete="CASCADE"), primary_key=True)
    turn_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    answer_text: Mapped[str] = mapped_column(Text)
    # in_progress | failed | completed
    status: Mapped[str] = mapped_column(String(16))
    result: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    error_code: Mapped[str | None] = mapped_column(String(32), nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=1)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class TurnCheckpointRow(Base):
    """One completed stage's output (JSON) of an unfinished turn; deleted once the turn completes."""

    __tablename__ = "turn_checkpoints"
    __table_args__ = (
        ForeignKeyConstraint(
            ["session_id", "turn_number"],
            ["turns.session_id", "turns.turn_number"],
            name="fk_turn_checkpoints_turn",
            ondelete="CASCADE",
        ),
    )

    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    turn_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    stage: Mapped[str] = mapped_column(String(32), primary_key=True)
    payload: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
