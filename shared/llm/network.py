"""What the two networked providers share: they are never offline, and how a call is described."""

from __future__ import annotations

from shared.llm.base import LLMClientName
from shared.llm.observe import CallMeta
from shared.llm.settings import LLMClientSettings


class NetworkClientBase:
    """Base of the SDK-backed clients (anthropic, OpenAI-compatible)."""

    name: LLMClientName
    provider: str
    model: str
    _config: LLMClientSettings

    @property
    def is_offline(self) -> bool:
        """Always False: this client calls the network."""
        return False

    def _meta(self, purpose: str, temperature: float | None, session_id: str | None, chars: int) -> CallMeta:
        return CallMeta(
            client=self.name.value,
            provider=self.provider,
            model=self.model,
            temperature=temperature,
            max_tokens=self._config.max_tokens,
            purpose=purpose,
            session_id=session_id,
            prompt_chars=chars,
        )
