"""Build the three logical clients from `LLMSettings`, each SDK client created once per process."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anthropic
import httpx2
import openai
import structlog
from opentelemetry.trace import TracerProvider

from shared.llm.anthropic_provider import AnthropicLLMClient
from shared.llm.base import LLMClient, LLMClientName
from shared.llm.local import LocalLLMClient
from shared.llm.observe import get_llm_tracer
from shared.llm.openai_provider import OpenAICompatibleLLMClient
from shared.llm.retry import RetryPolicy, SeedRetryAsyncAnthropic, SeedRetryAsyncOpenAI
from shared.llm.settings import OPENAI_COMPATIBLE, LLMSettings
from shared.llm.warmup import warm_up_sdks

log = structlog.get_logger("shared.llm")


@dataclass
class LLMClients:
    """The three logical clients of a process; `aclose()` closes their SDK/HTTP clients."""

    extraction: LLMClient
    scoring: LLMClient
    generation: LLMClient
    _closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list, repr=False)

    def get(self, name: LLMClientName | str) -> LLMClient:
        """A client by its logical name."""
        client: LLMClient = getattr(self, LLMClientName(name).value)
        return client

    @property
    def offline(self) -> list[str]:
        """Names of the clients that resolved to the offline `local` provider."""
        return [name.value for name in LLMClientName if self.get(name).is_offline]

    async def warm_up(self) -> dict[str, float]:
        """Pay the SDKs' first-call set-up at start-up (in memory: no network, no cost); returns
        the milliseconds per SDK warmed. Offline clients need none."""
        clients = [self.get(name) for name in LLMClientName]
        return await warm_up_sdks(
            anthropic_sdk=any(isinstance(c, AnthropicLLMClient) for c in clients),
            openai_sdk=any(isinstance(c, OpenAICompatibleLLMClient) for c in clients),
        )

    async def aclose(self) -> None:
        """Close every SDK client (and its connection pool). Safe to call twice."""
        closers, self._closers = self._closers, []
        for close in closers:
            await close()

    async def __aenter__(self) -> LLMClients:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def build_llm_clients(settings: LLMSettings, *, tracer_provider: TracerProvider | None = None) -> LLMClients:
    """Create the `extraction`, `scoring` and `generation` clients.

    A client whose provider has no API key resolves to `local` (offline); which ones did is logged
    once here. Each networked client gets its own SDK instance (its own timeout, retry policy and
    connection pool), created here and reused for every call. `tracer_provider` defaults to the
    global one (tests pass their own with an in-memory exporter).
    """
    tracer = get_llm_tracer(tracer_provider)
    clients: dict[LLMClientName, LLMClient] = {}
    closers: list[Callable[[], Awaitable[None]]] = []
    offline: dict[str, str] = {}
    for name in LLMClientName:
        config = settings.client(name)
        provider = settings.resolved_provider(name)
        if provider == "local":
            clients[name] = LocalLLMClient(name=name, model=config.model, configured_provider=config.provider)
            offline[name.value] = (
                "provider local" if config.provider == "local" else f"no API key for {config.provider}"
            )
            continue
        api_key = settings.api_key(provider)
        base_url = settings.base_url(name)
        policy = RetryPolicy(
            client=name.value,
            provider=provider,
            model=config.model,
            initial_backoff_s=settings.retry_initial_backoff_s,
            max_backoff_s=settings.retry_max_backoff_s,
        )
        timeout = httpx2.Timeout(config.timeout_s, connect=min(config.timeout_s, 10.0))
        if provider == "anthropic":
            a_sdk = SeedRetryAsyncAnthropic(
                retry_policy=policy,
                api_key=api_key,
                base_url=base_url,
                timeout=timeout,
                max_retries=settings.max_retries,
                http_client=anthropic.DefaultAsyncHttpxClient(timeout=timeout),
                # Our own span per request carries the GenAI attributes and the cost; the SDK's
                # built-in span would duplicate the token counts in trace backends.
                open_telemetry=False,
            )
            closers.append(a_sdk.close)
            clients[name] = AnthropicLLMClient(
                name=name, config=config, settings=settings, sdk=a_sdk, tracer=tracer
            )
        elif provider in OPENAI_COMPATIBLE:
            o_sdk = SeedRetryAsyncOpenAI(
                retry_policy=policy,
                api_key=api_key,
                base_url=base_url,
                timeout=timeout,
                max_retries=settings.max_retries,
                http_client=openai.DefaultAsyncHttpxClient(timeout=timeout),
            )
            closers.append(o_sdk.close)
            clients[name] = OpenAICompatibleLLMClient(
                name=name, provider=provider, config=config, settings=settings, sdk=o_sdk, tracer=tracer
            )
        else:  # pragma: no cover - the settings Literal rules this out
            raise ValueError(f"unknown LLM provider {provider!r}")
    if offline:
        log.info("llm_clients_offline", clients=offline)
    log.info(
        "llm_clients_ready",
        clients={name.value: f"{clients[name].provider}:{clients[name].model}" for name in LLMClientName},
    )
    return LLMClients(
        extraction=clients[LLMClientName.EXTRACTION],
        scoring=clients[LLMClientName.SCORING],
        generation=clients[LLMClientName.GENERATION],
        _closers=closers,
    )
