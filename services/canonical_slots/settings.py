"""Settings of the canonical_slots service (env prefix `CANONICAL_SLOTS_`)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from shared.settings import EmbeddingServiceSettings


class CanonicalSlotsSettings(EmbeddingServiceSettings):
    """Service settings; e.g. `CANONICAL_SLOTS_PORT=6004`, `CANONICAL_SLOTS_DATABASE_URL=...`."""

    model_config = SettingsConfigDict(env_prefix="CANONICAL_SLOTS_", extra="ignore", validate_default=True)

    service_name: str = Field(default="canonical_slots", min_length=1, description="Logical service name.")
    port: int = Field(default=50054, ge=0, le=65535, description="gRPC port (0 = any free port).")
    database_url: str = Field(
        default="sqlite+aiosqlite:///./data/canonical_slots.db",
        description="SQLAlchemy async URL: SQLite (embedded default) or postgresql+asyncpg://...",
    )
    database_schema: str = Field(
        default="slots", description="PostgreSQL schema holding the service's tables (ignored on SQLite)."
    )
    canonical_similarity_threshold: float = Field(
        default=0.60,
        ge=0.0,
        le=1.0,
        description="Cosine (all-MiniLM-L6-v2, name + description) at or above which a proposal merges "
        "into an existing slot of the same node type.",
    )
    min_support: int = Field(
        default=2, ge=1, description="Distinct surface nodes a candidate slot needs to become active."
    )
    batch_size: int = Field(default=8, ge=1, le=64, description="Maximum nodes per slot-proposal LLM call.")
    offline_cluster_threshold: float = Field(
        default=0.70,
        ge=0.0,
        le=1.0,
        description="Offline proposer: label cosine at or above which two nodes share a slot.",
    )
    offline_head_threshold: float = Field(
        default=0.45,
        ge=0.0,
        le=1.0,
        description="Offline proposer: label cosine two nodes with the same lemmatised head term need "
        "to share a slot (keeps 'battery life' apart from 'social life').",
    )
    llm_fallback_offline: bool = Field(
        default=True,
        description="When a proposal batch's LLM call fails, group that batch offline (with a warning "
        "in the result) instead of failing the run, so every node still gets mapped.",
    )
    max_nodes_per_request: int = Field(default=500, ge=1, description="Largest DiscoverSlots node list.")
