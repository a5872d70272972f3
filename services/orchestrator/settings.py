"""Orchestrator settings (env prefix `ORCHESTRATOR_`)."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import SettingsConfigDict

from shared.settings import ServiceSettings


class OrchestratorSettings(ServiceSettings):
    """Settings of the public InterviewService and its turn pipeline."""

    model_config = SettingsConfigDict(env_prefix="ORCHESTRATOR_", extra="ignore", validate_default=True)

    service_name: str = Field(default="orchestrator", description="Service name in logs and traces.")
    port: int = Field(default=50051, ge=0, le=65535, description="Public gRPC port.")
    database_url: str = Field(
        default="sqlite+aiosqlite:///./data/orchestrator.db",
        description="Sessions, utterances and turn checkpoints (SQLite file or postgresql+asyncpg DSN).",
    )
    database_schema: str = Field(default="orchestrator", description="PostgreSQL schema of the tables.")
    extraction_target: str = Field(default="127.0.0.1:50052", description="host:port of extraction.")
    graph_store_target: str = Field(default="127.0.0.1:50053", description="host:port of graph_store.")
    canonical_slots_target: str = Field(
        default="127.0.0.1:50054", description="host:port of canonical_slots."
    )
    scoring_target: str = Field(default="127.0.0.1:50055", description="host:port of scoring.")
    question_target: str = Field(default="127.0.0.1:50056", description="host:port of question.")
    internal_timeout_s: float = Field(
        default=60.0,
        gt=0,
        description="Upper bound of one internal call (the client's deadline also bounds it).",
    )
    enable_srl: bool = Field(default=True, description="Run stage 2.5 (linguistic preprocessing).")
    enable_canonical_slots: bool = Field(
        default=True, description="Run stage 4.5 and report canonical state."
    )
    canonical_slots_mode: Literal["inline", "deferred"] = Field(
        default="deferred",
        description=(
            "inline: slot discovery on the critical path; deferred: in the background once the "
            "turn's canonical reads are done, completed by the next turn (canonical signals lag one turn)."
        ),
    )
    selection_mode: Literal["joint", "two_stage"] = Field(
        default="joint", description="Ranking mode for scoring."
    )
    default_max_turns: int = Field(
        default=20, ge=1, le=200, description="max_turns when neither request nor concept set it."
    )
    max_answer_chars: int = Field(default=5000, gt=0, description="Longest accepted answer.")
    recent_turns: int = Field(
        default=8, ge=2, description="Utterances of context sent to extraction and question."
    )
    max_concurrent_turns: int = Field(
        default=64, ge=1, description="PostgreSQL connections reserved for per-session turn locks."
    )
    background_grace_s: float = Field(
        default=10.0,
        ge=0,
        description="At shutdown, how long work a turn left behind (deferred slot discovery) may still run.",
    )
    max_rephrasings: int = Field(
        default=2,
        ge=0,
        le=9,
        description=(
            "Rewordings of one question in a row; a further clarification request moves on to "
            "another question, as a skip request does."
        ),
    )
    min_turn_for_saturation: int = Field(
        default=5, ge=1, description="Saturation rules apply from this turn."
    )
    graph_saturated_turns: int = Field(default=5, ge=1, description="Consecutive zero-yield turns that end.")
    quality_degraded_turns: int = Field(default=6, ge=1, description="Consecutive shallow answers that end.")
    depth_plateau_turns: int = Field(
        default=6, ge=1, description="Zero-yield turns at one max depth that end."
    )
    node_exhausted_turns: int = Field(
        default=3, ge=1, description="Turns without yield after which a focused node counts as exhausted."
    )
    auth_token: SecretStr | None = Field(
        default=None, description="When set, every public call needs `authorization: Bearer <token>`."
    )
    tls_cert_file: str | None = Field(default=None, description="PEM certificate for TLS on the public port.")
    tls_key_file: str | None = Field(default=None, description="PEM private key for TLS on the public port.")

    @model_validator(mode="after")
    def _tls_needs_both_files(self) -> Self:
        # One of the two alone would serve plaintext on a port its operator meant to protect.
        if bool(self.tls_cert_file) != bool(self.tls_key_file):
            given, missing = (
                ("tls_cert_file", "tls_key_file") if self.tls_cert_file else ("tls_key_file", "tls_cert_file")
            )
            raise ValueError(f"{given} is set but {missing} is not: TLS needs both files")
        return self
