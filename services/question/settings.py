"""Settings of the question service (env prefix `QUESTION_`, e.g. `QUESTION_PORT=6056`).

LLM provider settings are separate (`shared.llm.LLMSettings`, prefix `LLM_`): the service uses
the `generation` client, and its offline engine whenever that client is `local`.
"""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from services.question.engine import GenerationOptions
from shared.settings import InternalServiceSettings


class QuestionSettings(InternalServiceSettings):
    """Question service settings: port, temperatures and output limits."""

    model_config = SettingsConfigDict(env_prefix="QUESTION_", extra="ignore", validate_default=True)

    service_name: str = Field(
        default="question", min_length=1, description="Service name in logs and traces."
    )
    port: int = Field(default=50056, ge=0, le=65535, description="TCP port of the gRPC server.")
    opening_temperature: float = Field(
        default=0.9,
        ge=0.0,
        le=2.0,
        description="Sampling temperature of the opening question (creative variety).",
    )
    followup_temperature: float = Field(
        default=0.7,
        ge=0.0,
        le=2.0,
        description="Sampling temperature of follow-up questions (policy-driven).",
    )
    closing_temperature: float = Field(
        default=0.5, ge=0.0, le=2.0, description="Sampling temperature of the closing message."
    )
    rephrase_temperature: float = Field(
        default=0.5, ge=0.0, le=2.0, description="Sampling temperature of rephrased questions."
    )
    max_question_chars: int = Field(
        default=300, ge=40, le=2000, description="Length cap of a question after sanitisation."
    )
    max_message_chars: int = Field(
        default=800, ge=80, le=4000, description="Length cap of the closing message after sanitisation."
    )
    recent_utterance_limit: int = Field(
        default=8, ge=1, le=50, description="How many of the most recent utterances a follow-up prompt shows."
    )
    previous_question_limit: int = Field(
        default=10,
        ge=0,
        le=100,
        description="How many earlier questions a follow-up prompt lists as not to repeat.",
    )
    rationale_top_signals: int = Field(
        default=5, ge=1, le=20, description="How many top contributing signals the prompt's rationale shows."
    )

    def generation_options(self) -> GenerationOptions:
        """The generator's temperatures and limits."""
        return GenerationOptions(
            opening_temperature=self.opening_temperature,
            followup_temperature=self.followup_temperature,
            closing_temperature=self.closing_temperature,
            rephrase_temperature=self.rephrase_temperature,
            max_question_chars=self.max_question_chars,
            max_message_chars=self.max_message_chars,
            max_text_chars=self.max_text_chars,
        )
