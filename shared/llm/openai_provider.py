"""The OpenAI-compatible provider (`openai`, `kimi`, `deepseek`): chat completions, JSON mode."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, TypeVar

import openai
from openai.types.chat import ChatCompletion
from opentelemetry.trace import Tracer
from pydantic import BaseModel

from shared.errors import LLMInvalidOutputError
from shared.llm.base import LLMClientName, LLMResult, LLMUsage, TextDelta, TextResult
from shared.llm.network import NetworkClientBase
from shared.llm.observe import CallMeta, add_usage, get_llm_tracer, observed_call
from shared.llm.settings import LLMClientSettings, LLMSettings
from shared.llm.structured import json_instructions, parse_json_text, repair_message

T = TypeVar("T", bound=BaseModel)


def _temperature(value: float | None) -> dict[str, float]:
    return {} if value is None else {"temperature": value}


class OpenAICompatibleLLMClient(NetworkClientBase):
    """A logical client backed by one shared `AsyncOpenAI` (base URL + key select the vendor)."""

    def __init__(
        self,
        *,
        name: LLMClientName,
        provider: str,
        config: LLMClientSettings,
        settings: LLMSettings,
        sdk: openai.AsyncOpenAI,
        tracer: Tracer | None = None,
    ) -> None:
        self.name = name
        self.provider = provider
        self.model = config.model
        self._config = config
        self._settings = settings
        self._sdk = sdk
        self._tracer = tracer or get_llm_tracer()

    async def _create(
        self, meta: CallMeta, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[str | None, LLMUsage]:
        with observed_call(meta, self._settings, self._tracer) as record:
            params: dict[str, Any] = {
                "model": self.model,
                "messages": messages,
                "max_tokens": self._config.max_tokens,
                **_temperature(meta.temperature),
                **kwargs,
            }
            # Through the SDK's `post`, its documented call of an endpoint with the body as given:
            # `chat.completions.create` first walks the body against its parameter annotations
            # (`async_maybe_transform`, for aliases and file or date fields), which leaves a body of
            # plain strings and numbers like this one unchanged, for ~0.5 ms of CPU per call (the
            # rubric's and the question's calls are on a turn's critical path).
            completion = await self._sdk.post("/chat/completions", body=params, cast_to=ChatCompletion)
            if completion.usage is not None:
                record.set_tokens(completion.usage.prompt_tokens, completion.usage.completion_tokens)
            record.response_model = completion.model
            content = completion.choices[0].message.content if completion.choices else None
        return content, record.finish()

    async def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        tool_name: str = "respond",
        session_id: str | None = None,
    ) -> LLMResult[T]:
        """JSON mode with the schema stated in the system prompt; validate; repair once."""
        del tool_name  # JSON mode has no tool; the name only matters to tool-use providers
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": json_instructions(system, schema)},
            {"role": "user", "content": user},
        ]
        temperature = self._config.temperature
        meta = self._meta("json", temperature, session_id, len(system) + len(user))
        total: LLMUsage | None = None
        problem = "no reply"
        for attempt in range(2):  # the answer, then the single repair attempt
            if attempt == 1:
                meta = self._meta("json_repair", temperature, session_id, meta.prompt_chars)
            try:
                content, usage = await self._create(meta, messages, response_format={"type": "json_object"})
            except LLMInvalidOutputError as exc:  # unreadable HTTP body: ask again unchanged
                problem = exc.public_message
                continue
            total = usage if total is None else add_usage(total, usage)
            parsed = parse_json_text(schema, content)
            if parsed.value is not None:
                return LLMResult(value=parsed.value, usage=total)
            problem = parsed.problem or "invalid output"
            messages = [
                *messages,
                {"role": "assistant", "content": content or ""},
                {"role": "user", "content": repair_message(problem)},
            ]
        raise LLMInvalidOutputError(
            f"{self.provider} ({self.name.value} client) returned invalid {schema.__name__} "
            f"after one repair: {problem}"
        )

    async def complete_text(
        self,
        *,
        system: str,
        user: str,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> TextResult:
        """A free-text completion (an empty reply is an error, never a silent empty string)."""
        temp = self._config.temperature if temperature is None else temperature
        meta = self._meta("text", temp, session_id, len(system) + len(user))
        content, usage = await self._create(
            meta, [{"role": "system", "content": system}, {"role": "user", "content": user}]
        )
        text = (content or "").strip()
        if not text:
            raise LLMInvalidOutputError(
                f"{self.provider} ({self.name.value} client) returned an empty completion"
            )
        return TextResult(text=text, usage=usage)

    async def stream_text(
        self,
        *,
        system: str,
        user: str,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> AsyncIterator[TextDelta]:
        """Relay content deltas in order, then one `TextDelta(done=True, usage=...)`."""
        temp = self._config.temperature if temperature is None else temperature
        meta = self._meta("stream", temp, session_id, len(system) + len(user))
        produced = False
        with observed_call(meta, self._settings, self._tracer, current=False) as record:
            params: dict[str, Any] = {
                "model": self.model,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
                "max_tokens": self._config.max_tokens,
                **_temperature(temp),
                "stream_options": {"include_usage": True},
            }
            stream = await self._sdk.chat.completions.create(**params, stream=True)
            async with stream:
                async for chunk in stream:
                    if chunk.usage is not None:
                        record.set_tokens(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
                    if chunk.model:
                        record.response_model = chunk.model
                    for choice in chunk.choices:
                        if choice.delta.content:
                            produced = True
                            yield TextDelta(text=choice.delta.content)
            if not produced:
                raise LLMInvalidOutputError(f"{self.provider} ({self.name.value} client) streamed no text")
        yield TextDelta(text="", done=True, usage=record.finish())
