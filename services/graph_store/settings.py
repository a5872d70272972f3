"""Settings of the graph_store service (env prefix `GRAPH_STORE_`)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from shared.settings import EmbeddingServiceSettings


class GraphStoreSettings(EmbeddingServiceSettings):
    """graph_store settings; e.g. `GRAPH_STORE_DATABASE_URL`, `GRAPH_STORE_PORT`."""

    model_config = SettingsConfigDict(env_prefix="GRAPH_STORE_", extra="ignore", validate_default=True)

    service_name: str = Field(
        default="graph_store", min_length=1, description="Service name in logs and traces."
    )
    port: int = Field(
        default=50053, ge=0, le=65535, description="TCP port of the gRPC server (0 = any free port)."
    )
    database_url: str = Field(
        default="sqlite+aiosqlite:///./data/graph_store.db",
        description="SQLAlchemy async URL: SQLite (embedded default) or postgresql+asyncpg://...",
    )
    database_schema: str = Field(
        default="graph", description="PostgreSQL schema holding the tables (ignored on SQLite)."
    )
    surface_similarity_threshold: float = Field(
        default=0.80,
        gt=0.0,
        le=1.0,
        description="Cosine similarity (all-MiniLM-L6-v2) at or above which a concept merges into an "
        "existing node of the same node_type.",
    )
    search_query_precision: Literal["int8", "fp32"] = Field(
        default="int8",
        description="Model of the search query's embedding (SearchNodes ranks the session's stored "
        "fp32 node vectors against it): `int8`, the quantised copy of all-MiniLM-L6-v2 (~2.5x faster "
        "on an answer; its ranking agrees with fp32 but for near-ties), or `fp32`. Stored vectors and "
        "dedup always use fp32. The torch backend has fp32 only.",
    )
    run_migrations: bool = Field(
        default=True, description="Upgrade the database schema to the latest revision at start-up."
    )
