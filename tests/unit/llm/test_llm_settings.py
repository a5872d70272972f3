"""LLMSettings: seed defaults, env overrides, key → provider resolution, pricing; the local client."""

from __future__ import annotations

import os

import pytest
from structlog.testing import capture_logs

from shared.errors import LLMUnavailableError
from shared.llm import LLMClientName, LLMOfflineError, LLMSettings, ModelPrice
from tests.unit.llm.conftest import BuildClients
from tests.unit.llm.models import Extraction

KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "KIMI_API_KEY", "DEEPSEEK_API_KEY")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No LLM_* variable and no provider key from the machine running the tests."""
    for name in list(os.environ):
        if name.startswith("LLM_") or name in KEY_VARS:
            monkeypatch.delenv(name)
    return monkeypatch


def test_defaults_follow_the_seed_three_client_table(clean_env: pytest.MonkeyPatch) -> None:
    s = LLMSettings()
    assert (
        s.extraction.provider,
        s.extraction.model,
        s.extraction.temperature,
        s.extraction.max_tokens,
        s.extraction.timeout_s,
    ) == ("anthropic", "claude-sonnet-4-6", 0.3, 2048, 30.0)
    assert (
        s.scoring.provider,
        s.scoring.model,
        s.scoring.temperature,
        s.scoring.max_tokens,
        s.scoring.timeout_s,
    ) == ("kimi", "kimi-k2-0905-preview", 0.3, 512, 30.0)
    assert (
        s.generation.provider,
        s.generation.model,
        s.generation.temperature,
        s.generation.max_tokens,
        s.generation.timeout_s,
    ) == ("anthropic", "claude-sonnet-4-6", 0.7, 1024, 30.0)
    assert (s.extraction.effort, s.generation.effort, s.scoring.effort) == ("medium", "low", None)
    assert (s.max_retries, s.retry_initial_backoff_s) == (1, 1.0)
    assert s.base_url("scoring") == "https://api.moonshot.ai/v1"


def test_env_overrides_one_field_and_keeps_the_clients_other_defaults(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("LLM_SCORING_MODEL", "deepseek-chat")
    clean_env.setenv("LLM_EXTRACTION_PROVIDER", "openai")
    clean_env.setenv("LLM_EXTRACTION_MAX_TOKENS", "999")
    clean_env.setenv("LLM_GENERATION_TIMEOUT_S", "7.5")
    clean_env.setenv("LLM_GENERATION_BASE_URL", "http://proxy.internal:8080")
    clean_env.setenv("LLM_GENERATION_TEMPERATURE", "null")
    clean_env.setenv("LLM_RETRY_INITIAL_BACKOFF_S", "0.25")
    clean_env.setenv("LLM_DEEPSEEK_BASE_URL", "http://deepseek.internal")
    s = LLMSettings()
    assert s.scoring.model == "deepseek-chat"
    assert s.scoring.provider == "kimi"  # untouched field keeps the scoring client's own default
    assert s.scoring.max_tokens == 512
    assert (s.extraction.provider, s.extraction.max_tokens, s.extraction.model) == (
        "openai",
        999,
        "claude-sonnet-4-6",
    )
    assert s.generation.timeout_s == 7.5
    assert s.generation.temperature is None
    assert s.base_url("generation") == "http://proxy.internal:8080"
    assert s.retry_initial_backoff_s == 0.25
    assert s.deepseek_base_url == "http://deepseek.internal"


def test_provider_without_key_resolves_to_local(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    s = LLMSettings()
    assert s.anthropic_api_key is not None and "sk-ant-test" not in repr(s)  # SecretStr stays masked
    assert s.resolved_provider(LLMClientName.EXTRACTION) == "anthropic"
    assert s.resolved_provider(LLMClientName.GENERATION) == "anthropic"
    assert s.resolved_provider(LLMClientName.SCORING) == "local"  # kimi has no key
    clean_env.setenv("KIMI_API_KEY", "  ")  # blank counts as missing
    assert LLMSettings().resolved_provider("scoring") == "local"
    clean_env.setenv("KIMI_API_KEY", "kimi-test")
    assert LLMSettings().resolved_provider("scoring") == "kimi"


async def test_factory_builds_offline_clients_and_logs_which_once(
    clean_env: pytest.MonkeyPatch, build_clients: BuildClients
) -> None:
    clean_env.setenv("DEEPSEEK_API_KEY", "ds-test")
    clean_env.setenv("LLM_SCORING_PROVIDER", "deepseek")
    with capture_logs() as logs:
        clients = await build_clients(LLMSettings())
    assert clients.offline == ["extraction", "generation"]
    assert clients.extraction.is_offline and clients.generation.is_offline
    assert not clients.scoring.is_offline
    assert (clients.scoring.provider, clients.scoring.model) == ("deepseek", "kimi-k2-0905-preview")
    offline_events = [e for e in logs if e["event"] == "llm_clients_offline"]
    assert len(offline_events) == 1
    assert offline_events[0]["clients"] == {
        "extraction": "no API key for anthropic",
        "generation": "no API key for anthropic",
    }


async def test_local_client_refuses_completions_with_a_clear_error(
    clean_env: pytest.MonkeyPatch, build_clients: BuildClients
) -> None:
    clients = await build_clients(LLMSettings())
    client = clients.get("extraction")
    assert client.provider == "local" and client.is_offline
    with pytest.raises(LLMOfflineError, match=r"offline.*no API key for 'anthropic'.*is_offline"):
        await client.complete_json(system="s", user="u", schema=Extraction)
    with pytest.raises(LLMUnavailableError):
        await client.complete_text(system="s", user="u")
    with pytest.raises(LLMOfflineError):
        client.stream_text(system="s", user="u")


def test_pricing_exact_then_longest_prefix_and_cost() -> None:
    s = LLMSettings(
        _env_file=None,
        pricing={
            "claude-sonnet": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
            "claude-sonnet-4-6": ModelPrice(input_per_mtok=1.0, output_per_mtok=2.0),
            "gpt": ModelPrice(input_per_mtok=10.0, output_per_mtok=20.0),
        },
    )
    assert s.cost_usd("claude-sonnet-4-6", 1_000_000, 1_000_000) == pytest.approx(3.0)  # exact key wins
    assert s.cost_usd("claude-sonnet-4-5", 2_000, 1_000) == pytest.approx((2_000 * 3 + 1_000 * 15) / 1e6)
    assert s.cost_usd("gpt-4o", 100, 0) == pytest.approx(0.001)
    assert s.cost_usd("mystery-model", 10_000, 10_000) == 0.0


def test_default_pricing_matches_the_seed(clean_env: pytest.MonkeyPatch) -> None:
    s = LLMSettings()
    assert s.cost_usd("claude-sonnet-4-6", 1_000_000, 1_000_000) == pytest.approx(3.0 + 15.0)
    assert s.cost_usd("kimi-k2-0905-preview", 1_000_000, 1_000_000) == pytest.approx(0.60 + 2.50)
    assert s.cost_usd("deepseek-chat", 1_000_000, 1_000_000) == pytest.approx(0.14 + 0.28)


def test_pricing_env_override(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("LLM_PRICING", '{"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10}}')
    s = LLMSettings()
    assert s.cost_usd("gpt-4o-mini", 1_000_000, 0) == pytest.approx(2.5)
    assert s.cost_usd("claude-sonnet-4-6", 1_000, 1_000) == 0.0  # the env table replaces the default
