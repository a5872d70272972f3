"""The offline `local` provider: makes no network call; services use their own offline engine."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import NoReturn, TypeVar

from pydantic import BaseModel

from shared.errors import LLMUnavailableError
from shared.llm.base import LLMClientName, LLMResult, TextDelta, TextResult

T = TypeVar("T", bound=BaseModel)


class LLMOfflineError(LLMUnavailableError):
    """A completion was requested from an offline client: the caller must use its offline engine."""


class LocalLLMClient:
    """Offline client (`is_offline` True). Its `complete_*` methods raise `LLMOfflineError`."""

    provider = "local"

    def __init__(
        self, *, name: LLMClientName, model: str = "local", configured_provider: str = "local"
    ) -> None:
        self.name = name
        self.model = model
        # The provider the settings asked for (e.g. "anthropic" without a key); for logs and reports.
        self.configured_provider = configured_provider

    @property
    def is_offline(self) -> bool:
        """Always True: check it and use the service's deterministic engine instead."""
        return True

    def _refuse(self) -> NoReturn:
        why = "" if self.configured_provider == "local" else f", no API key for {self.configured_provider!r}"
        raise LLMOfflineError(
            f"LLM client {self.name.value!r} is offline (provider 'local'{why}); "
            "check `client.is_offline` and use the offline engine"
        )

    async def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        tool_name: str = "respond",
        session_id: str | None = None,
    ) -> LLMResult[T]:
        """Never answers: raises `LLMOfflineError`."""
        self._refuse()

    async def complete_text(
        self,
        *,
        system: str,
        user: str,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> TextResult:
        """Never answers: raises `LLMOfflineError`."""
        self._refuse()

    def stream_text(
        self,
        *,
        system: str,
        user: str,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> AsyncIterator[TextDelta]:
        """Raises `LLMOfflineError` at once (not on first iteration), so the mistake is obvious."""
        self._refuse()
