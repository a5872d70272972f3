"""The services' protobuf conversion of times against protobuf's own `FromDatetime`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from shared.timestamps import to_timestamp


def _reference(value: datetime) -> Timestamp:
    ts = Timestamp()
    ts.FromDatetime(value)
    return ts


@pytest.mark.parametrize(
    "value",
    [
        datetime(2026, 11, 29, 21, 5, 7, 123456, tzinfo=UTC),
        datetime(2026, 11, 29, 21, 5, 7, 999999, tzinfo=timezone(timedelta(hours=5, minutes=30))),
        datetime(2026, 3, 1, 0, 0, 0, 1, tzinfo=timezone(timedelta(hours=-8))),
        datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC),  # before the epoch: negative seconds
        datetime(1900, 1, 1, tzinfo=UTC),
        datetime(2026, 11, 29, 21, 5, 7, 42),  # naive: read as UTC, as FromDatetime does
    ],
)
def test_timestamp_matches_from_datetime(value: datetime) -> None:
    got = to_timestamp(value)
    assert got == _reference(value)
    assert 0 <= got.nanos < 1_000_000_000
    assert got.ToDatetime(tzinfo=UTC) == (value if value.tzinfo else value.replace(tzinfo=UTC))
