"""Settings of the extraction service (env prefix `EXTRACTION_`)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from shared.settings import InternalServiceSettings


class ExtractionSettings(InternalServiceSettings):
    """Extraction service settings; e.g. `EXTRACTION_PORT`, `EXTRACTION_SPACY_MODEL`."""

    model_config = SettingsConfigDict(env_prefix="EXTRACTION_", extra="ignore", validate_default=True)

    service_name: str = Field(
        default="extraction", min_length=1, description="Service name in logs and traces."
    )
    port: int = Field(default=50052, ge=0, le=65535, description="TCP port of the gRPC server.")
    enable_srl: bool = Field(
        default=True,
        description="Stage 2.5 master switch: when false, Preprocess always answers DISABLED (a request's "
        "enable_srl can only turn it off, not on).",
    )
    spacy_model: str | None = Field(
        default=None,
        # the design's documented name SPACY_MODEL works too
        validation_alias=AliasChoices("EXTRACTION_SPACY_MODEL", "SPACY_MODEL", "spacy_model"),
        description="Trained spaCy pipeline to load (e.g. en_core_web_sm) for dependency-parse frames; "
        "unset or not installed → the blank English pipeline with rule-based frames.",
    )
    max_existing_nodes: int = Field(
        default=80,
        gt=0,
        description="Existing node labels shown to the extractor; beyond this the most relevant are kept "
        "(lexical overlap with the answer and question, then the caller's order).",
    )
    min_words: int = Field(
        default=3,
        ge=1,
        description="Answers with fewer words skip extraction (no LLM call), as do bare yes/no/ok replies.",
    )
