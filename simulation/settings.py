"""Settings of the simulation CLI (pydantic-settings, `SIMULATION_` prefix; options override them)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class SimulationSettings(BaseSettings):
    """Where the interview service is and how the simulation talks to it."""

    model_config = SettingsConfigDict(env_prefix="SIMULATION_", extra="ignore")

    target: str = Field(default="127.0.0.1:50051", description="host:port of the public InterviewService.")
    token: SecretStr | None = Field(
        default=None,
        # The orchestrator's own variable too: `make simulate` starts the services with it.
        validation_alias=AliasChoices("SIMULATION_TOKEN", "ORCHESTRATOR_AUTH_TOKEN"),
        description="Bearer token, when the orchestrator requires one.",
    )
    config_dir: Path = Field(
        default=Path("config"), description="Holds methodologies/, concepts/, personas/, scenarios/."
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Deadline of session and graph reads.")
    turn_timeout_s: float = Field(
        default=300.0, gt=0, description="Deadline of one CreateSession or SubmitTurn."
    )
    wait_s: float = Field(default=180.0, ge=0, description="How long `wait` and the runs wait for SERVING.")
    use_embeddings: bool = Field(
        default=True,
        description="Also match graph labels to hidden elements by all-MiniLM-L6-v2 cosine (else lemmas).",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", description="Log level of `python -m simulation` (human-readable lines on stdout)."
    )
    turn_cap: int = Field(
        default=200, ge=1, description="Runner-side safety net: EndSession after this many turns."
    )
