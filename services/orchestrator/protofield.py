"""Pydantic fields that hold protobuf messages and serialise them as base64 wire bytes.

Stage outputs carry messages received from other services (graph state, node lists, signals...).
Keeping them as protobuf avoids a second model of every message; checkpoints store them losslessly.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any, TypeVar

from google.protobuf.message import Message
from pydantic import PlainSerializer, PlainValidator

M = TypeVar("M", bound=Message)


def proto(cls: type[M]) -> Any:
    """`Annotated[cls, ...]` that validates from a message or base64 and serialises to base64."""

    def validate(value: object) -> M:
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            return cls.FromString(base64.b64decode(value))
        if isinstance(value, bytes):
            return cls.FromString(value)
        raise TypeError(f"expected {cls.__name__} or base64 text, got {type(value).__name__}")

    def serialise(message: M) -> str:
        return base64.b64encode(message.SerializeToString(deterministic=True)).decode("ascii")

    return Annotated[cls, PlainValidator(validate), PlainSerializer(serialise, return_type=str)]


def proto_list(cls: type[M]) -> Any:
    """A list of messages, serialised as a list of base64 strings."""

    def validate(value: object) -> list[M]:
        if not isinstance(value, list | tuple):
            raise TypeError("expected a list")
        out: list[M] = []
        for item in value:
            if isinstance(item, cls):
                out.append(item)
            elif isinstance(item, str):
                out.append(cls.FromString(base64.b64decode(item)))
            else:
                raise TypeError(f"expected {cls.__name__} items")
        return out

    def serialise(messages: list[M]) -> list[str]:
        return [base64.b64encode(m.SerializeToString(deterministic=True)).decode("ascii") for m in messages]

    return Annotated[list[cls], PlainValidator(validate), PlainSerializer(serialise, return_type=list[str])]  # type: ignore[valid-type]
