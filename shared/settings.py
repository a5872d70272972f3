"""Settings common to every service (pydantic-settings, env-overridable).

Each service subclasses `ServiceSettings` with its own env prefix and defaults::

    class GraphStoreSettings(ServiceSettings):
        model_config = SettingsConfigDict(env_prefix="GRAPH_STORE_")

        service_name: str = Field(default="graph_store", description="...")
        port: int = Field(default=50053, ge=0, le=65535, description="...")
        database_url: str = Field(default="sqlite+aiosqlite:///./data/graph_store.db", description="...")

so `GRAPH_STORE_PORT=6000` overrides the port. Settings objects are built once in `main()` and passed
down (constructor injection); nothing else reads the environment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]
OtelExporter = Literal["otlp", "console", "none"]
RequestIdEcho = Literal["headers", "trailers"]  # see ServiceSettings.request_id_echo


class ServiceSettings(BaseSettings):
    """Settings every gRPC service has; subclass per service with `env_prefix="<SVC>_"`."""

    model_config = SettingsConfigDict(env_prefix="SERVICE_", extra="ignore", validate_default=True)

    service_name: str = Field(
        default="interview",
        min_length=1,
        description="Logical service name: the `service` field of every log line and the OTel service.name.",
    )
    host: str = Field(default="0.0.0.0", description="Interface the gRPC server binds to.")
    port: int = Field(
        default=0, ge=0, le=65535, description="TCP port of the gRPC server; 0 picks a free port (tests)."
    )
    log_level: LogLevel = Field(default="INFO", description="Minimum level of emitted log lines.")
    log_json: bool = Field(
        default=True, description="One JSON object per log line (True) or human-readable console output."
    )
    log_respondent_text: bool = Field(
        default=False,
        description="Include respondent answer text in INFO logs; off by default (privacy).",
    )
    otel_exporter: OtelExporter = Field(
        default="none",
        description=(
            "Trace exporter: `otlp` (gRPC to otel_endpoint), `console` (stdout) or `none` (spans keep"
            " their ids for the logs and the next service, but are not recorded)."
        ),
    )
    otel_endpoint: str = Field(
        default="http://localhost:4317", description="OTLP/gRPC collector endpoint used when exporter=otlp."
    )
    shutdown_grace_s: float = Field(
        default=5.0,
        ge=0.0,
        description="Seconds in-flight RPCs may take to finish after SIGTERM before they are cancelled.",
    )
    max_message_bytes: int = Field(
        default=16 * 1024 * 1024,
        gt=0,
        description="Maximum gRPC message size (send and receive), for servers and client channels.",
    )
    max_text_chars: int = Field(
        default=5000, gt=0, description="Maximum length of free-text request fields (e.g. an answer)."
    )
    request_id_echo: RequestIdEcho = Field(
        default="headers",
        description="Where the server echoes each RPC's request id: `headers` (initial metadata, sent "
        "at once, so a caller has it before the first message; one more write per RPC) or `trailers` "
        "(with the status, no write of its own). Internal services, whose only caller sent the id "
        "itself, use trailers.",
    )
    max_connection_age_s: int = Field(
        default=300, gt=0, description="Servers close connections older than this (clients re-resolve DNS)."
    )
    config_dir: Path = Field(
        default=Path("config"), description="Directory holding methodologies/ and concepts/ YAML."
    )

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_in_capitals(cls, value: object) -> object:
        # `LOG_LEVEL=debug` is how most tools spell it; the logging module wants capitals.
        return value.strip().upper() if isinstance(value, str) else value

    def grpc_options(self) -> list[tuple[str, int]]:
        """Channel/server options derived from these settings (message size limits)."""
        return [
            ("grpc.max_send_message_length", self.max_message_bytes),
            ("grpc.max_receive_message_length", self.max_message_bytes),
        ]

    def server_options(self) -> list[tuple[str, int]]:
        """Server options: message limits plus a maximum connection age, so clients using DNS
        round-robin re-resolve and reach replicas added after they connected; and no SO_REUSEPORT
        (gRPC's default on Linux), so a port another process listens on fails this server's start
        instead of silently splitting the connections between the two."""
        return [
            *self.grpc_options(),
            ("grpc.max_connection_age_ms", self.max_connection_age_s * 1000),
            ("grpc.max_connection_age_grace_ms", 30_000),
            ("grpc.so_reuseport", 0),
        ]


class InternalServiceSettings(ServiceSettings):
    """Settings of a service only the orchestrator calls: it echoes the request id in the trailers
    (the caller sent the id itself, so the headers' write of their own would buy nothing)."""

    request_id_echo: RequestIdEcho = Field(
        default="trailers", description=ServiceSettings.model_fields["request_id_echo"].description
    )


class EmbeddingServiceSettings(InternalServiceSettings):
    """Settings of a service that embeds texts with all-MiniLM-L6-v2 (graph_store, canonical_slots)."""

    embedding_backend: Literal["onnx", "torch"] = Field(
        default="onnx",
        description="Runtime of the embedding model: `onnx` (ONNX Runtime, same weights, 2-3x faster "
        "per call) or `torch` (sentence-transformers).",
    )
    embedding_cache_dir: Path = Field(
        default=Path("data/models"),
        description="Where the ONNX export of the model is kept (made on first start when missing; "
        "the container image ships one).",
    )
    embedding_threads: int = Field(
        default=2,
        ge=1,
        le=64,
        description="Threads of one fp32 ONNX forward pass (the stored vectors). They sleep instead "
        "of spinning between passes: next to busy processes a pass takes as long as with one, with "
        "a free core three labels take ~30% less (bench/bench_embeddings.py). The torch backend "
        "and the int8 query model use one.",
    )

    @property
    def stored_vector_threads(self) -> int:
        """The threads of the embedder whose vectors are stored: `embedding_threads` on ONNX, one
        on torch (its OpenMP workers spin)."""
        return self.embedding_threads if self.embedding_backend == "onnx" else 1
