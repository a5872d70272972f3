"""ServiceSettings: defaults, env overrides per service prefix, validation, documentation."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import Field, ValidationError
from pydantic_settings import SettingsConfigDict

from shared.settings import ServiceSettings


class DemoSettings(ServiceSettings):
    """A service's settings, as each service writes them."""

    model_config = SettingsConfigDict(env_prefix="DEMO_SVC_")

    service_name: str = Field(default="demo_svc", description="Service name.")
    port: int = Field(default=50099, ge=0, le=65535, description="Port.")
    database_url: str = Field(default="sqlite+aiosqlite:///./data/demo.db", description="Database URL.")


def test_defaults() -> None:
    settings = DemoSettings()
    assert (settings.service_name, settings.port, settings.host) == ("demo_svc", 50099, "0.0.0.0")
    assert settings.log_json is True and settings.log_respondent_text is False
    assert settings.otel_exporter == "none"
    assert settings.max_text_chars == 5000
    assert settings.config_dir == Path("config")


def test_env_overrides_use_the_service_prefix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_SVC_PORT", "6001")
    monkeypatch.setenv("DEMO_SVC_LOG_JSON", "false")
    monkeypatch.setenv("DEMO_SVC_OTEL_EXPORTER", "console")
    monkeypatch.setenv("DEMO_SVC_MAX_TEXT_CHARS", "42")
    monkeypatch.setenv("DEMO_SVC_DATABASE_URL", "postgresql+asyncpg://postgres@db/interview")
    monkeypatch.setenv("PORT", "7000")  # unprefixed variables are not ours
    settings = DemoSettings()
    assert settings.port == 6001
    assert settings.log_json is False
    assert settings.otel_exporter == "console"
    assert settings.max_text_chars == 42
    assert settings.database_url == "postgresql+asyncpg://postgres@db/interview"


def test_constructor_arguments_win_over_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_SVC_PORT", "6001")
    assert DemoSettings(port=0).port == 0


@pytest.mark.parametrize(
    ("name", "value"),
    [("DEMO_SVC_PORT", "70000"), ("DEMO_SVC_OTEL_EXPORTER", "jaeger"), ("DEMO_SVC_LOG_LEVEL", "LOUD")],
)
def test_invalid_env_values_are_rejected(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ValidationError) as info:
        DemoSettings()
    assert info.value.errors()[0]["loc"][0] == name.removeprefix("DEMO_SVC_").lower()


@pytest.mark.parametrize("value", ["debug", " Debug", "DEBUG"])
def test_log_level_is_read_in_any_case(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("DEMO_SVC_LOG_LEVEL", value)
    assert DemoSettings().log_level == "DEBUG"


def test_every_field_is_documented() -> None:
    undocumented = [name for name, field in ServiceSettings.model_fields.items() if not field.description]
    assert undocumented == []


def test_grpc_options_carry_the_message_limit() -> None:
    options = dict(DemoSettings(max_message_bytes=1234).grpc_options())
    assert options == {"grpc.max_send_message_length": 1234, "grpc.max_receive_message_length": 1234}


def test_embedding_threads_come_from_the_service_prefix_and_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from services.graph_store.settings import GraphStoreSettings

    assert GraphStoreSettings().embedding_threads == 2
    monkeypatch.setenv("GRAPH_STORE_EMBEDDING_THREADS", "1")
    assert GraphStoreSettings().embedding_threads == 1
    monkeypatch.setenv("GRAPH_STORE_EMBEDDING_THREADS", "3")
    assert GraphStoreSettings().stored_vector_threads == 3
    monkeypatch.setenv("GRAPH_STORE_EMBEDDING_BACKEND", "torch")
    assert GraphStoreSettings().stored_vector_threads == 1  # torch's OpenMP workers spin
    monkeypatch.delenv("GRAPH_STORE_EMBEDDING_BACKEND")
    monkeypatch.setenv("GRAPH_STORE_EMBEDDING_THREADS", "0")
    with pytest.raises(ValidationError, match="embedding_threads"):
        GraphStoreSettings()
