"""Structured output through the real SDKs against the fake: prompt sent, validation, one repair."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import openai
import pytest
from pydantic import BaseModel

from shared.errors import LLMInvalidOutputError
from shared.llm.structured import json_instructions, schema_of
from tests.fakes.llm_server import FakeLLMServer, RecordedRequest, Reply, fake_llm_settings
from tests.unit.llm.conftest import BuildClients
from tests.unit.llm.models import INVALID, VALID, Extraction

PROVIDERS = ["anthropic", "openai", "kimi", "deepseek"]


def _system_text(request: RecordedRequest) -> str:
    body = request.body
    if request.api == "anthropic":
        return str(body["system"])
    return str(next(m["content"] for m in body["messages"] if m["role"] == "system"))


async def test_anthropic_forces_one_tool_with_the_models_schema(
    fake_llm: FakeLLMServer, build_clients: BuildClients
) -> None:
    fake_llm.enqueue(Reply.structured(VALID, input_tokens=120, output_tokens=30))
    clients = await build_clients(fake_llm_settings(fake_llm, "anthropic"))
    result = await clients.extraction.complete_json(
        system="You extract concepts.", user="I like oat milk", schema=Extraction, tool_name="record_concepts"
    )
    assert result.value == Extraction.model_validate(VALID)
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.calls) == (120, 30, 1)
    [request] = fake_llm.requests
    body = request.body
    assert request.path == "/v1/messages"
    # this SDK generation sends the API key as a bearer token
    assert "test-anthropic-key" in (
        request.headers.get("x-api-key"),
        request.headers.get("authorization", "")[7:],
    )
    assert request.headers["user-agent"].startswith("AsyncAnthropic/Python")
    assert body["system"] == "You extract concepts."
    assert body["messages"] == [{"role": "user", "content": "I like oat milk"}]
    assert body["tool_choice"] == {"type": "tool", "name": "record_concepts"}
    [tool] = body["tools"]
    assert tool["name"] == "record_concepts"
    assert tool["input_schema"] == Extraction.model_json_schema()
    assert body["max_tokens"] == 2048 and body["temperature"] == 0.3  # extraction client defaults
    assert body["output_config"] == {"effort": "medium"}


@pytest.mark.parametrize("provider", ["openai", "kimi", "deepseek"])
async def test_openai_compatible_uses_json_mode_and_states_the_schema(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    fake_llm.enqueue(Reply.structured(VALID))
    clients = await build_clients(fake_llm_settings(fake_llm, provider, model="kimi-k2-0905-preview"))
    result = await clients.scoring.complete_json(
        system="You score answers.", user="answer", schema=Extraction
    )
    assert result.value.concepts[0].label == "oat milk"
    assert result.usage.provider == provider
    [request] = fake_llm.requests
    assert request.path == "/chat/completions"
    assert request.headers["authorization"] == f"Bearer test-{provider}-key"
    assert request.headers["user-agent"].startswith("AsyncOpenAI/Python")
    body = request.body
    assert body["response_format"] == {"type": "json_object"}
    assert body["model"] == "kimi-k2-0905-preview"
    assert body["messages"][1] == {"role": "user", "content": "answer"}
    system = _system_text(request)
    assert system.startswith("You score answers.")
    assert json.dumps(Extraction.model_json_schema(), separators=(",", ":")) in system
    assert "output_config" not in body  # effort is Anthropic-only


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_invalid_output_is_repaired_once_with_the_validation_error(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    fake_llm.enqueue(
        Reply.structured(INVALID, input_tokens=100, output_tokens=10),
        Reply.structured(VALID, input_tokens=150, output_tokens=20),
    )
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    result = await clients.extraction.complete_json(system="sys", user="text", schema=Extraction)
    assert result.value == Extraction.model_validate(VALID)
    assert (result.usage.calls, result.usage.input_tokens, result.usage.output_tokens) == (2, 250, 30)
    first, repair = fake_llm.requests
    assert repair.retry_count == 0  # a new request, not an SDK retry
    assert len(repair.body["messages"]) == len(first.body["messages"]) + 2
    assistant, feedback = repair.body["messages"][-2:]
    assert assistant["role"] == "assistant" and feedback["role"] == "user"
    feedback_text = json.dumps(feedback)
    assert "concepts.0.node_type" in feedback_text and "confidence" in feedback_text
    if provider == "anthropic":  # tool-use protocol: the failed call is answered with an error result
        assert assistant["content"][0]["type"] == "tool_use"
        assert feedback["content"][0]["type"] == "tool_result"
        assert feedback["content"][0]["is_error"] is True
        assert feedback["content"][0]["tool_use_id"] == assistant["content"][0]["id"]
    else:
        assert json.loads(assistant["content"]) == INVALID


@pytest.mark.parametrize("provider", ["anthropic", "kimi"])
async def test_second_invalid_output_raises_after_exactly_two_requests(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    fake_llm.enqueue(
        Reply.structured(INVALID), Reply.structured({"concepts": "nope"}), Reply.structured(VALID)
    )
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    with pytest.raises(LLMInvalidOutputError, match="invalid Extraction after one repair"):
        await clients.extraction.complete_json(system="sys", user="text", schema=Extraction)
    assert len(fake_llm.requests) == 2
    assert fake_llm.pending == 1  # the valid third reply was never asked for


async def test_openai_reply_that_is_not_json_gets_repaired(
    fake_llm: FakeLLMServer, build_clients: BuildClients
) -> None:
    fake_llm.enqueue(Reply.text("Sure! Here are the concepts: oat milk"), Reply.text(json.dumps(VALID)))
    clients = await build_clients(fake_llm_settings(fake_llm, "openai"))
    result = await clients.extraction.complete_json(system="sys", user="text", schema=Extraction)
    assert result.value.confidence == 0.8
    repair = fake_llm.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": "Sure! Here are the concepts: oat milk"}
    assert "not valid JSON" in repair[-1]["content"]


async def test_openai_json_inside_a_code_fence_is_accepted(
    fake_llm: FakeLLMServer, build_clients: BuildClients
) -> None:
    fake_llm.enqueue(Reply.text(f"```json\n{json.dumps(VALID)}\n```"))
    clients = await build_clients(fake_llm_settings(fake_llm, "deepseek"))
    result = await clients.extraction.complete_json(system="sys", user="text", schema=Extraction)
    assert result.value.concepts[0].node_type == "attribute"
    assert len(fake_llm.requests) == 1


async def test_anthropic_text_instead_of_the_tool_gets_repaired(
    fake_llm: FakeLLMServer, build_clients: BuildClients
) -> None:
    fake_llm.enqueue(Reply.text("I would rather chat."), Reply.structured(VALID))
    clients = await build_clients(fake_llm_settings(fake_llm, "anthropic"))
    result = await clients.extraction.complete_json(
        system="sys", user="text", schema=Extraction, tool_name="record"
    )
    assert result.usage.calls == 2
    assistant, feedback = fake_llm.requests[1].body["messages"][-2:]
    assert assistant == {"role": "assistant", "content": [{"type": "text", "text": "I would rather chat."}]}
    assert "did not call the `record` tool" in feedback["content"][0]["text"]


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
async def test_malformed_http_body_counts_as_the_repair_attempt(
    fake_llm: FakeLLMServer, build_clients: BuildClients, provider: str
) -> None:
    fake_llm.enqueue(Reply.malformed(), Reply.structured(VALID))
    clients = await build_clients(fake_llm_settings(fake_llm, provider))
    result = await clients.extraction.complete_json(system="sys", user="text", schema=Extraction)
    assert result.value == Extraction.model_validate(VALID)
    assert len(fake_llm.requests) == 2
    assert fake_llm.requests[1].body["messages"] == fake_llm.requests[0].body["messages"]

    fake_llm.enqueue(Reply.malformed(), Reply.malformed())
    with pytest.raises(LLMInvalidOutputError, match="unreadable response body"):
        await clients.extraction.complete_json(system="sys", user="text", schema=Extraction)
    assert len(fake_llm.requests) == 4


def test_a_models_schema_is_generated_once_and_handed_out_as_a_fresh_copy() -> None:
    class Counted(BaseModel):
        generated: ClassVar[int] = 0
        label: str

        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            Counted.generated += 1
            return super().model_json_schema(*args, **kwargs)

    first = schema_of(Counted)
    assert first == BaseModel.model_json_schema.__func__(Counted)  # type: ignore[attr-defined]
    first["properties"]["label"]["type"] = "integer"  # a caller changing its copy
    assert schema_of(Counted)["properties"]["label"]["type"] == "string"
    stated = json_instructions("Extract.", Counted)
    assert stated.endswith(json.dumps(schema_of(Counted), separators=(",", ":")))
    assert Counted.generated == 1


@pytest.mark.parametrize("kind", ["json", "text"])
async def test_openai_request_is_what_the_sdks_create_sends(
    fake_llm: FakeLLMServer, build_clients: BuildClients, kind: str
) -> None:
    """The provider posts its body through the SDK's `post` (skipping `create`'s parameter walk):
    the request must be the one `chat.completions.create` sends for the same parameters."""
    clients = await build_clients(fake_llm_settings(fake_llm, "openai"))
    if kind == "json":
        fake_llm.enqueue(Reply.structured(VALID))
        await clients.scoring.complete_json(system="You score answers.", user="answer", schema=Extraction)
    else:
        fake_llm.enqueue(Reply.text("And why does that matter?"))
        await clients.generation.complete_text(system="Ask one question.", user="context")
    [ours] = fake_llm.requests
    assert {"model", "messages", "max_tokens", "temperature"} <= set(ours.body)
    assert ("response_format" in ours.body) == (kind == "json")
    fake_llm.enqueue(Reply.structured(VALID) if kind == "json" else Reply.text("And why?"))
    sdk = openai.AsyncOpenAI(base_url=fake_llm.url, api_key="test-openai-key", max_retries=0)
    try:
        await sdk.chat.completions.create(**ours.body)
    finally:
        await sdk.close()
    reference = fake_llm.requests[1]
    assert (ours.path, ours.body) == (reference.path, reference.body)
    varying = {"x-stainless-retry-count", "x-stainless-read-timeout", "content-length", "user-agent"}
    assert {k: v for k, v in ours.headers.items() if k.startswith("x-") and k not in varying} == {
        k: v for k, v in reference.headers.items() if k.startswith("x-") and k not in varying
    }
    assert ours.headers["content-type"] == reference.headers["content-type"] == "application/json"
