"""Settings of the scoring service (env prefix `SCORING_`, e.g. `SCORING_PORT=6055`).

LLM provider settings are separate (`shared.llm.LLMSettings`, prefix `LLM_`): the service uses the
`scoring` client for the rubric, and the offline lexical scorer whenever that client is `local`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.scoring.models import SelectionMode
from shared.settings import InternalServiceSettings


class ScoringSettings(InternalServiceSettings):
    """Scoring service settings: port, default ranking mode and response size limits."""

    model_config = SettingsConfigDict(env_prefix="SCORING_", extra="ignore", validate_default=True)

    service_name: str = Field(default="scoring", min_length=1, description="Service name in logs and traces.")
    port: int = Field(default=50055, ge=0, le=65535, description="TCP port of the gRPC server.")
    selection_mode: Literal["joint", "two_stage"] = Field(
        default="joint",
        description=(
            "Ranking used when a request leaves the mode unspecified: `joint` ranks every (strategy, node) "
            "pair (D1, SPEC default); `two_stage` picks the strategy on global signals, then the node."
        ),
    )
    alternatives_limit: int = Field(
        default=10, ge=0, description="How many ranked alternatives SelectStrategy returns (0 = all)."
    )
    decomposition_limit: int = Field(
        default=50,
        ge=0,
        description=(
            "How many scored candidates (best first) SelectStrategy returns with their full decomposition "
            "(0 = every candidate). The cap keeps a turn's cost flat as the graph grows: with 150 nodes the "
            "full decomposition is ~1,000 candidates (~450 KB a turn, carried into the turn result)."
        ),
    )

    @property
    def default_mode(self) -> SelectionMode:
        """The configured default ranking mode."""
        return SelectionMode(self.selection_mode)
