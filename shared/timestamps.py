"""datetime → protobuf Timestamp, for every service that answers with times."""

from __future__ import annotations

from datetime import UTC, datetime

from google.protobuf.timestamp_pb2 import Timestamp

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def to_timestamp(value: datetime) -> Timestamp:
    """`Timestamp.FromDatetime` by arithmetic (a naive value is UTC, as there): the same result at a
    third of the cost, paid for every node of a graph listing."""
    delta = (value if value.tzinfo is not None else value.replace(tzinfo=UTC)) - _EPOCH
    return Timestamp(seconds=delta.days * 86_400 + delta.seconds, nanos=delta.microseconds * 1000)
