"""Settings of the LLM layer: three logical clients, provider keys and URLs, retries, pricing.

Everything is env-overridable (pydantic-settings, prefix `LLM_`):

    LLM_EXTRACTION_PROVIDER=openai  LLM_SCORING_MODEL=deepseek-chat  LLM_GENERATION_TIMEOUT_S=10
    LLM_GENERATION_BASE_URL=http://127.0.0.1:8080      LLM_MAX_RETRIES=1  LLM_RETRY_INITIAL_BACKOFF_S=1
    LLM_PRICING='{"gpt-4o": {"input_per_mtok": 2.5, "output_per_mtok": 10}}'

Provider keys keep their conventional names (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `KIMI_API_KEY`,
`DEEPSEEK_API_KEY`). A client whose provider has no key resolves to the offline `local` provider.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.llm.base import LLMClientName

Provider = Literal["anthropic", "openai", "kimi", "deepseek", "local"]
HttpBackend = Literal["aiohttp", "httpx"]
Effort = Literal["low", "medium", "high", "xhigh", "max"]

# Providers served by the OpenAI SDK (chat completions) through their OpenAI-compatible base URLs.
OPENAI_COMPATIBLE: frozenset[str] = frozenset({"openai", "kimi", "deepseek"})


class LLMClientSettings(BaseModel):
    """One logical client: which provider and model, and its sampling and time limits."""

    provider: Provider = Field(
        default="anthropic", description="anthropic | openai | kimi | deepseek | local"
    )
    model: str = Field(default="claude-sonnet-4-6", description="Provider model name.")
    temperature: float | None = Field(
        default=0.3,
        ge=0.0,
        le=2.0,
        description=(
            "Default sampling temperature; None (env value `null`) omits it, which Anthropic models "
            "released after claude-opus-4-6 require (they reject `temperature`)."
        ),
    )
    max_tokens: int = Field(default=1024, gt=0, description="Maximum output tokens per call.")
    timeout_s: float = Field(default=30.0, gt=0, description="Per-attempt request timeout, seconds.")
    base_url: str | None = Field(
        default=None, description="Override of the provider's base URL (e.g. a proxy or the test fake)."
    )
    effort: Effort | None = Field(
        default=None, description="Anthropic `output_config.effort` (seed: Sonnet 4.6); None sends nothing."
    )


# One subclass per client so that a partial env override (e.g. only LLM_SCORING_MODEL) keeps the
# *client's* defaults: pydantic-settings rebuilds a nested model from the class defaults, not from
# the field default instance.
class ExtractionClientSettings(LLMClientSettings):
    """Defaults of the `extraction` client (seed: anthropic claude-sonnet-4-6, 0.3, 2048, 30 s)."""

    provider: Provider = "anthropic"
    model: str = "claude-sonnet-4-6"
    temperature: float | None = 0.3
    max_tokens: int = 2048
    effort: Effort | None = "medium"  # seed: complex structured output


class ScoringClientSettings(LLMClientSettings):
    """Defaults of the `scoring` client (seed: kimi kimi-k2-0905-preview, 0.3, 512, 30 s)."""

    provider: Provider = "kimi"
    model: str = "kimi-k2-0905-preview"
    temperature: float | None = 0.3
    max_tokens: int = 512


class GenerationClientSettings(LLMClientSettings):
    """Defaults of the `generation` client (seed: anthropic claude-sonnet-4-6, 0.7, 1024, 30 s)."""

    provider: Provider = "anthropic"
    model: str = "claude-sonnet-4-6"
    temperature: float | None = 0.7
    max_tokens: int = 1024
    effort: Effort | None = "low"  # seed: conversational, speed matters


class ModelPrice(BaseModel):
    """USD per million tokens."""

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


def _default_pricing() -> dict[str, ModelPrice]:
    return {
        "claude-sonnet": ModelPrice(input_per_mtok=3.0, output_per_mtok=15.0),
        "kimi-k2": ModelPrice(input_per_mtok=0.60, output_per_mtok=2.50),
        "deepseek-chat": ModelPrice(input_per_mtok=0.14, output_per_mtok=0.28),
    }


def _key_field(env_name: str, description: str) -> SecretStr | None:
    # The keys keep their conventional unprefixed names; the lowercase alias allows init kwargs.
    return Field(
        default=None,
        validation_alias=AliasChoices(env_name, env_name.lower()),
        description=description,
    )


class LLMSettings(BaseSettings):
    """Configuration of the LLM layer, passed to `shared.llm.factory.build_llm_clients`."""

    model_config = SettingsConfigDict(
        env_prefix="LLM_",
        env_nested_delimiter="_",
        env_nested_max_split=1,
        extra="ignore",
        populate_by_name=True,
        env_parse_none_str="null",
    )

    extraction: ExtractionClientSettings = Field(
        default_factory=ExtractionClientSettings, description="Client for node/edge extraction."
    )
    scoring: ScoringClientSettings = Field(
        default_factory=ScoringClientSettings, description="Client for rubric signal scoring."
    )
    generation: GenerationClientSettings = Field(
        default_factory=GenerationClientSettings, description="Client for question generation."
    )

    anthropic_api_key: SecretStr | None = _key_field("ANTHROPIC_API_KEY", "Anthropic API key.")
    openai_api_key: SecretStr | None = _key_field("OPENAI_API_KEY", "OpenAI API key.")
    kimi_api_key: SecretStr | None = _key_field("KIMI_API_KEY", "Moonshot (Kimi) API key.")
    deepseek_api_key: SecretStr | None = _key_field("DEEPSEEK_API_KEY", "DeepSeek API key.")

    anthropic_base_url: str | None = Field(default=None, description="None = the SDK default.")
    openai_base_url: str | None = Field(default=None, description="None = the SDK default.")
    kimi_base_url: str = Field(default="https://api.moonshot.ai/v1", description="Kimi endpoint.")
    deepseek_base_url: str = Field(default="https://api.deepseek.com", description="DeepSeek endpoint.")

    http_backend: HttpBackend = Field(
        default="aiohttp",
        description="HTTP transport of the provider SDKs: `aiohttp` (the SDKs' DefaultAioHttpClient; "
        "0.1-0.6 ms less CPU per call than httpx's own in bench/README's measurement) or `httpx` (the SDKs' "
        "DefaultAsyncHttpxClient). Both honour the proxy environment variables and the timeouts.",
    )
    max_retries: int = Field(default=1, ge=0, description="Retries after the first attempt (timeout/429).")
    retry_initial_backoff_s: float = Field(
        default=1.0, ge=0, description="First retry delay; doubles per retry (seed: 1 s)."
    )
    retry_max_backoff_s: float = Field(default=8.0, ge=0, description="Cap of one retry delay, seconds.")

    pricing: dict[str, ModelPrice] = Field(
        default_factory=_default_pricing,
        description="USD per million tokens by model name or model-name prefix (longest prefix wins).",
    )

    def client(self, name: LLMClientName | str) -> LLMClientSettings:
        """The settings of one logical client."""
        value: LLMClientSettings = getattr(self, LLMClientName(name).value)
        return value

    def api_key(self, provider: str) -> str | None:
        """The configured key of a provider (None when unset or blank; `local` needs none)."""
        secret: SecretStr | None = {
            "anthropic": self.anthropic_api_key,
            "openai": self.openai_api_key,
            "kimi": self.kimi_api_key,
            "deepseek": self.deepseek_api_key,
        }.get(provider)
        if secret is None:
            return None
        value = secret.get_secret_value().strip()
        return value or None

    def resolved_provider(self, name: LLMClientName | str) -> str:
        """The provider actually used: the configured one, or `local` when it has no key."""
        provider = self.client(name).provider
        if provider == "local" or self.api_key(provider) is None:
            return "local"
        return provider

    def base_url(self, name: LLMClientName | str) -> str | None:
        """The client's override, else the provider's configured URL (None = SDK default)."""
        cfg = self.client(name)
        if cfg.base_url:
            return cfg.base_url
        return {
            "anthropic": self.anthropic_base_url,
            "openai": self.openai_base_url,
            "kimi": self.kimi_base_url,
            "deepseek": self.deepseek_base_url,
        }.get(cfg.provider)

    def price_for(self, model: str) -> ModelPrice | None:
        """Exact model match first, then the longest pricing key that prefixes the model name."""
        if model in self.pricing:
            return self.pricing[model]
        matches = [key for key in self.pricing if model.startswith(key)]
        return self.pricing[max(matches, key=len)] if matches else None

    def cost_usd(self, model: str, input_tokens: int, output_tokens: int) -> float:
        """Cost of a call from the pricing table (0.0 for an unpriced model)."""
        price = self.price_for(model)
        if price is None:
            return 0.0
        return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1_000_000
