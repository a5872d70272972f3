"""Build the three logical clients from `LLMSettings`, each SDK client created once per process."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
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

# A start-up connection that takes longer than this is left to the first call.
PRECONNECT_TIMEOUT_S = 3.0


@dataclass
class LLMClients:
    """The three logical clients of a process; `aclose()` closes their SDK/HTTP clients."""

    extraction: LLMClient
    scoring: LLMClient
    generation: LLMClient
    _closers: list[Callable[[], Awaitable[None]]] = field(default_factory=list, repr=False)
    # Per networked SDK client: one free request (the model list) that opens its pooled connection.
    _connectors: dict[str, Callable[[], Awaitable[object]]] = field(default_factory=dict, repr=False)

    def get(self, name: LLMClientName | str) -> LLMClient:
        """A client by its logical name."""
        client: LLMClient = getattr(self, LLMClientName(name).value)
        return client

    @property
    def offline(self) -> list[str]:
        """Names of the clients that resolved to the offline `local` provider."""
        return [name.value for name in LLMClientName if self.get(name).is_offline]

    async def warm_up(self, *, connect: Sequence[LLMClientName | str] = ()) -> dict[str, float]:
        """Pay the SDKs' first-call set-up at start-up (in memory: no network, no cost), then open
        the connections of the clients in `connect` (`preconnect`); returns the milliseconds per
        SDK warmed. Offline clients need neither."""
        clients = [self.get(name) for name in LLMClientName]
        timings = await warm_up_sdks(
            anthropic_sdk=any(isinstance(c, AnthropicLLMClient) for c in clients),
            openai_sdk=any(isinstance(c, OpenAICompatibleLLMClient) for c in clients),
        )
        if connect:
            await self.preconnect(connect)
        return timings

    async def preconnect(self, names: Sequence[LLMClientName | str]) -> dict[str, bool]:
        """Open the connections of the named networked clients to their providers: one model-list
        request each (free: no completion, no tokens), all at once, each within a few seconds.

        The first call through a client otherwise opens the connection itself (TCP, and TLS with
        a real provider): ~10 ms to a local server on the benchmark machine, paid by the first
        respondent's turn. A provider that cannot be reached, or that refuses the listing, is
        logged and left to the first call; this never raises. Returns whether each connected
        (offline clients have no connection and are left out)."""
        names = [LLMClientName(n).value for n in names if LLMClientName(n).value in self._connectors]
        if not names:
            return {}
        outcomes = await asyncio.gather(
            *(asyncio.wait_for(self._connectors[n](), PRECONNECT_TIMEOUT_S) for n in names),
            return_exceptions=True,
        )
        results = dict(zip(names, outcomes, strict=True))
        failed = {n: type(o).__name__ for n, o in results.items() if isinstance(o, BaseException)}
        if failed:
            log.warning("llm.preconnect_failed", clients=failed)
        return {n: n not in failed for n in names}

    async def aclose(self) -> None:
        """Close every SDK client (and its connection pool). Safe to call twice."""
        closers, self._closers = self._closers, []
        for close in closers:
            await close()

    async def __aenter__(self) -> LLMClients:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _model_listing(sdk: anthropic.AsyncAnthropic | openai.AsyncOpenAI) -> Callable[[], Awaitable[object]]:
    """The first page of the provider's model list, through `sdk`'s own connection pool (the copy
    `with_options` makes shares it); no retries: it only opens the connection."""

    async def listing() -> object:
        return await sdk.with_options(max_retries=0, timeout=PRECONNECT_TIMEOUT_S).models.list()

    return listing


def _described(client: LLMClient) -> str:
    """`provider:model` for `llm_clients_ready`; just `local` for an offline client, which calls no
    model (it keeps the configured model's name, which would only mislead there)."""
    return client.provider if client.is_offline else f"{client.provider}:{client.model}"


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
    connectors: dict[str, Callable[[], Awaitable[object]]] = {}
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
                http_client=(
                    anthropic.DefaultAioHttpClient(timeout=timeout)
                    if settings.http_backend == "aiohttp"
                    else anthropic.DefaultAsyncHttpxClient(timeout=timeout)
                ),
                # Our own span per request carries the GenAI attributes and the cost; the SDK's
                # built-in span would duplicate the token counts in trace backends.
                open_telemetry=False,
            )
            closers.append(a_sdk.close)
            connectors[name.value] = _model_listing(a_sdk)
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
                http_client=(
                    openai.DefaultAioHttpClient(timeout=timeout)
                    if settings.http_backend == "aiohttp"
                    else openai.DefaultAsyncHttpxClient(timeout=timeout)
                ),
            )
            closers.append(o_sdk.close)
            connectors[name.value] = _model_listing(o_sdk)
            clients[name] = OpenAICompatibleLLMClient(
                name=name, provider=provider, config=config, settings=settings, sdk=o_sdk, tracer=tracer
            )
        else:  # pragma: no cover - the settings Literal rules this out
            raise ValueError(f"unknown LLM provider {provider!r}")
    if offline:
        log.info("llm_clients_offline", clients=offline)
    log.info("llm_clients_ready", clients={name.value: _described(clients[name]) for name in LLMClientName})
    return LLMClients(
        extraction=clients[LLMClientName.EXTRACTION],
        scoring=clients[LLMClientName.SCORING],
        generation=clients[LLMClientName.GENERATION],
        _closers=closers,
        _connectors=connectors,
    )
