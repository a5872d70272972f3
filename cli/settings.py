"""Client settings from the environment (defaults of the command-line options)."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class ClientSettings(BaseSettings):
    """Where and how to connect; every field is overridable by an option of the same name."""

    model_config = SettingsConfigDict(env_prefix="INTERVIEW_", extra="ignore")

    target: str = Field(default="127.0.0.1:50051", description="host:port of the InterviewService.")
    token: SecretStr | None = Field(
        default=None,
        # The orchestrator's own variable too, so `make run` works when it sets a token.
        validation_alias=AliasChoices("INTERVIEW_TOKEN", "ORCHESTRATOR_AUTH_TOKEN"),
        description="Bearer token sent as `authorization: Bearer <token>`.",
    )
    tls: bool = Field(default=False, description="Connect with TLS (system roots unless ca_file is set).")
    ca_file: Path | None = Field(default=None, description="PEM root certificate(s) for TLS.")
    timeout_s: float = Field(default=30.0, gt=0, description="Deadline of every call except turns.")
    turn_timeout_s: float = Field(default=600.0, gt=0, description="Deadline of one turn.")
    wait_s: float = Field(
        default=60.0, ge=0, description="How long the interactive client waits for the service to be healthy."
    )


class EnvironmentHints(BaseSettings):
    """What the client's own environment says: LLM keys (for the offline notice) and NO_COLOR."""

    model_config = SettingsConfigDict(extra="ignore")

    anthropic_api_key: SecretStr | None = Field(default=None, description="Anthropic API key, if any.")
    openai_api_key: SecretStr | None = Field(default=None, description="OpenAI API key, if any.")
    kimi_api_key: SecretStr | None = Field(default=None, description="Kimi API key, if any.")
    deepseek_api_key: SecretStr | None = Field(default=None, description="DeepSeek API key, if any.")
    no_color: str | None = Field(
        default=None, validation_alias="NO_COLOR", description="Any non-empty value disables colours."
    )

    def any_llm_key(self) -> bool:
        """Whether any provider key is set (a local server would then use that provider)."""
        keys = (self.anthropic_api_key, self.openai_api_key, self.kimi_api_key, self.deepseek_api_key)
        return any(k is not None and k.get_secret_value() for k in keys)
