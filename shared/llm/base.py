"""The LLM client interface every service codes against.

Three logical clients (`extraction`, `scoring`, `generation`) are built from settings by
`shared.llm.factory.build_llm_clients`. A client whose provider is `local` is *offline*: it makes
no network call and each service uses its own deterministic engine instead
(`if client.is_offline: ...`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Generic, Protocol, TypeVar

from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


class LLMClientName(StrEnum):
    """The three logical clients of the seed's three-client table."""

    EXTRACTION = "extraction"
    SCORING = "scoring"
    GENERATION = "generation"


class LLMUsage(BaseModel):
    """Tokens and cost of one call (or a sum of calls), returned to the caller for the ledger."""

    client: str = ""
    provider: str = ""
    model: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms: int = 0
    calls: int = 0


@dataclass(frozen=True)
class LLMResult(Generic[T]):
    """A validated structured result and what it cost."""

    value: T
    usage: LLMUsage


@dataclass(frozen=True)
class TextResult:
    """A free-text completion and what it cost."""

    text: str
    usage: LLMUsage


@dataclass(frozen=True)
class TextDelta:
    """One streamed piece of text; the final event has `done=True` and the usage."""

    text: str
    done: bool = False
    usage: LLMUsage | None = None


class LLMClient(Protocol):
    """A configured logical client (provider + model + limits)."""

    name: LLMClientName
    provider: str
    model: str

    @property
    def is_offline(self) -> bool:
        """True for the `local` provider: callers must use their offline engine."""
        ...

    async def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        tool_name: str = "respond",
        session_id: str | None = None,
    ) -> LLMResult[T]:
        """Structured output validated against `schema` (one repair attempt, then LLMInvalidOutputError)."""
        ...

    async def complete_text(
        self,
        *,
        system: str,
        user: str,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> TextResult:
        """A free-text completion."""
        ...

    def stream_text(
        self,
        *,
        system: str,
        user: str,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> AsyncIterator[TextDelta]:
        """Text deltas in order, then one final `TextDelta(done=True, usage=...)`."""
        ...
