"""Structured-output helpers: schema prompts, parsing, validation and the repair message."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)
_MAX_ERROR_CHARS = 1500


@dataclass(frozen=True)
class Parsed(Generic[T]):
    """Either a validated value or the reason it is invalid (fed back in the repair request)."""

    value: T | None
    problem: str | None


@functools.lru_cache(maxsize=128)
def _schema_text(schema: type[BaseModel]) -> str:
    # Generating a model's JSON schema walks all its fields: a third of the extraction service's
    # own CPU per request before it was remembered. A schema class does not change at run time.
    return json.dumps(schema.model_json_schema(), separators=(",", ":"))


def schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema given to the model (tool `input_schema` or system-prompt instructions); a
    fresh dict each call, so a caller may change it."""
    value: dict[str, Any] = json.loads(_schema_text(schema))
    return value


def json_instructions(system: str, schema: type[BaseModel]) -> str:
    """System prompt for JSON mode (OpenAI-compatible): JSON mode takes no schema, so state it."""
    return (
        f"{system}\n\nRespond with a single JSON object, and nothing else, that validates against "
        f"this JSON schema:\n{_schema_text(schema)}"
    )


def describe_validation_error(exc: ValidationError) -> str:
    """A compact `path: message` list, short enough to send back to the model."""
    parts = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)[:_MAX_ERROR_CHARS]


def validate_data(schema: type[T], data: object) -> Parsed[T]:
    """Validate already-decoded data (e.g. an Anthropic tool input)."""
    if not isinstance(data, dict):
        return Parsed(None, f"expected a JSON object, got {type(data).__name__}")
    try:
        return Parsed(schema.model_validate(data), None)
    except ValidationError as exc:
        return Parsed(None, f"the object does not match the schema: {describe_validation_error(exc)}")


def parse_json_text(schema: type[T], text: str | None) -> Parsed[T]:
    """Decode a JSON text (tolerating a Markdown code fence) and validate it."""
    if text is None or not text.strip():
        return Parsed(None, "the reply was empty")
    match = _FENCE.match(text)
    body = match.group(1) if match else text
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        return Parsed(None, f"the reply is not valid JSON ({exc.msg} at {where})")
    return validate_data(schema, data)


def repair_message(problem: str) -> str:
    """The follow-up user message of the single repair attempt."""
    return (
        f"Your previous reply was invalid: {problem}. "
        "Reply again with only the corrected JSON object that validates against the schema."
    )
