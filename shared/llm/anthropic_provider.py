"""The `anthropic` provider: Messages API, structured output through one forced tool."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, TypeVar

import anthropic
from opentelemetry.trace import Tracer
from pydantic import BaseModel

from shared.errors import LLMInvalidOutputError
from shared.llm.base import LLMClientName, LLMResult, LLMUsage, TextDelta, TextResult
from shared.llm.network import NetworkClientBase
from shared.llm.observe import CallMeta, add_usage, get_llm_tracer, observed_call
from shared.llm.settings import LLMClientSettings, LLMSettings
from shared.llm.structured import Parsed, repair_message, schema_of, validate_data

T = TypeVar("T", bound=BaseModel)


class AnthropicLLMClient(NetworkClientBase):
    """A logical client backed by one shared `AsyncAnthropic` (created once by the factory)."""

    provider = "anthropic"

    def __init__(
        self,
        *,
        name: LLMClientName,
        config: LLMClientSettings,
        settings: LLMSettings,
        sdk: anthropic.AsyncAnthropic,
        tracer: Tracer | None = None,
    ) -> None:
        self.name = name
        self.model = config.model
        self._config = config
        self._settings = settings
        self._sdk = sdk
        self._tracer = tracer or get_llm_tracer()

    def _options(self, temperature: float | None) -> dict[str, Any]:
        options: dict[str, Any] = {}
        if self._config.effort:
            options["output_config"] = {"effort": self._config.effort}
        if temperature is not None:
            # anthropic>=1 dropped `temperature` from the typed signature (newer models reject it);
            # the SDK's migration guide sends it through `extra_body`, same wire payload.
            options["extra_body"] = {"temperature": temperature}
        return options

    async def _create(
        self, meta: CallMeta, *, system: str, messages: list[dict[str, Any]], **kwargs: Any
    ) -> tuple[anthropic.types.Message, LLMUsage]:
        with observed_call(meta, self._settings, self._tracer) as record:
            params: dict[str, Any] = {
                "model": self.model,
                "system": system,
                "messages": messages,
                "max_tokens": self._config.max_tokens,
                **self._options(meta.temperature),
                **kwargs,
            }
            message = await self._sdk.messages.create(**params)
            record.set_tokens(message.usage.input_tokens, message.usage.output_tokens)
            record.response_model = message.model
        return message, record.finish()

    async def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: type[T],
        tool_name: str = "respond",
        session_id: str | None = None,
    ) -> LLMResult[T]:
        """Force one tool whose `input_schema` is the model's schema; validate; repair once."""
        tool = {
            "name": tool_name,
            "description": f"Record the result; the input must validate against the {schema.__name__} "
            "schema.",
            "input_schema": schema_of(schema),
        }
        tools_kwargs: dict[str, Any] = {"tools": [tool], "tool_choice": {"type": "tool", "name": tool_name}}
        messages: list[dict[str, Any]] = [{"role": "user", "content": user}]
        temperature = self._config.temperature
        meta = self._meta("json", temperature, session_id, len(system) + len(user))
        total: LLMUsage | None = None
        problem = "no reply"
        for attempt in range(2):  # the answer, then the single repair attempt
            if attempt == 1:
                meta = self._meta("json_repair", temperature, session_id, meta.prompt_chars)
            try:
                message, usage = await self._create(meta, system=system, messages=messages, **tools_kwargs)
            except LLMInvalidOutputError as exc:  # unreadable HTTP body: ask again unchanged
                problem = exc.public_message
                continue
            total = usage if total is None else add_usage(total, usage)
            parsed = self._tool_input(message, schema, tool_name)
            if parsed.value is not None:
                return LLMResult(value=parsed.value, usage=total)
            problem = parsed.problem or "invalid output"
            messages = [*messages, *self._repair_turns(message, problem)]
        raise LLMInvalidOutputError(
            f"anthropic ({self.name.value} client) returned invalid {schema.__name__} "
            f"after one repair: {problem}"
        )

    @staticmethod
    def _tool_input(message: anthropic.types.Message, schema: type[T], tool_name: str) -> Parsed[T]:
        for block in message.content:
            if block.type == "tool_use" and block.name == tool_name:
                return validate_data(schema, block.input)
        return Parsed(None, f"you did not call the `{tool_name}` tool")

    @staticmethod
    def _repair_turns(message: anthropic.types.Message, problem: str) -> list[dict[str, Any]]:
        assistant: list[dict[str, Any]] = []
        tool_use_id: str | None = None
        for block in message.content:
            if block.type == "text" and block.text:
                assistant.append({"type": "text", "text": block.text})
            elif block.type == "tool_use":
                assistant.append(
                    {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
                )
                tool_use_id = tool_use_id or block.id
        if not assistant:
            return [{"role": "user", "content": repair_message(problem)}]
        if tool_use_id is None:
            feedback: list[dict[str, Any]] = [{"type": "text", "text": repair_message(problem)}]
        else:  # the tool-use protocol: answer the call with an error result
            feedback = [
                {
                    "type": "tool_result",
                    "tool_use_id": tool_use_id,
                    "is_error": True,
                    "content": repair_message(problem),
                }
            ]
        return [{"role": "assistant", "content": assistant}, {"role": "user", "content": feedback}]

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
        message, usage = await self._create(meta, system=system, messages=[{"role": "user", "content": user}])
        text = "".join(block.text for block in message.content if block.type == "text").strip()
        if not text:
            raise LLMInvalidOutputError(f"anthropic ({self.name.value} client) returned an empty completion")
        return TextResult(text=text, usage=usage)

    async def stream_text(
        self,
        *,
        system: str,
        user: str,
        temperature: float | None = None,
        session_id: str | None = None,
    ) -> AsyncIterator[TextDelta]:
        """Relay `text_delta` events in order, then one `TextDelta(done=True, usage=...)`."""
        temp = self._config.temperature if temperature is None else temperature
        meta = self._meta("stream", temp, session_id, len(system) + len(user))
        produced = False
        with observed_call(meta, self._settings, self._tracer, current=False) as record:
            params: dict[str, Any] = {
                "model": self.model,
                "system": system,
                "messages": [{"role": "user", "content": user}],
                "max_tokens": self._config.max_tokens,
                **self._options(temp),
            }
            stream = await self._sdk.messages.create(**params, stream=True)
            async with stream:
                async for event in stream:
                    if event.type == "message_start":
                        record.set_tokens(event.message.usage.input_tokens, event.message.usage.output_tokens)
                        record.response_model = event.message.model
                    elif event.type == "content_block_delta" and event.delta.type == "text_delta":
                        if event.delta.text:
                            produced = True
                            yield TextDelta(text=event.delta.text)
                    elif event.type == "message_delta":
                        record.set_tokens(event.usage.input_tokens, event.usage.output_tokens)
            if not produced:
                raise LLMInvalidOutputError(f"anthropic ({self.name.value} client) streamed no text")
        yield TextDelta(text="", done=True, usage=record.finish())
