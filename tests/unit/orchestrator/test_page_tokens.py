"""The orchestrator's public page tokens: opaque, bound to their listing and filter, bounded."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta, timezone

import pytest

from services.orchestrator.convert import (
    DEFAULT_PAGE_SIZE,
    MAX_PAGE_OFFSET,
    MAX_PAGE_SIZE,
    SessionCursor,
    next_offset_token,
    offset_page,
    session_cursor,
    session_page_token,
)
from shared.errors import InvalidArgumentError
from tests.unit.orchestrator.support import session_row

QA_TOKEN = "bzo5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OQ=="  # base64 of "o:99999999999999999999999"


def _forged(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode()


def _page_token_violation(exc: pytest.ExceptionInfo[InvalidArgumentError]) -> str:
    [violation] = exc.value.violations
    assert violation.field == "page_token"
    return violation.description


def test_offset_tokens_round_trip_within_their_listing_and_filter() -> None:
    token = next_offset_token(0, 2, 5, listing="ListConcepts", filter_value="means_end_chain")
    assert token and base64.urlsafe_b64decode(token + "==")  # urlsafe base64, no padding needed
    assert "=" not in token
    got = offset_page(
        3, token, listing="ListConcepts", filter_field="methodology", filter_value="means_end_chain"
    )
    assert got == (2, 3)
    assert next_offset_token(4, 2, 5, listing="ListConcepts") == ""  # the last page
    assert offset_page(0, "", listing="ListMethodologies") == (0, DEFAULT_PAGE_SIZE)
    assert offset_page(10**6, "", listing="ListMethodologies") == (0, MAX_PAGE_SIZE)


def test_a_token_of_another_listing_or_filter_is_refused_with_a_clear_message() -> None:
    token = next_offset_token(0, 2, 5, listing="ListConcepts", filter_value="means_end_chain")
    with pytest.raises(InvalidArgumentError) as caught:
        offset_page(2, token, listing="ListConcepts", filter_field="methodology", filter_value="")
    assert "different methodology" in _page_token_violation(caught)
    with pytest.raises(InvalidArgumentError) as caught:
        offset_page(2, token, listing="ListMethodologies")
    assert "another listing, not of ListMethodologies" in _page_token_violation(caught)
    sessions = session_page_token("completed", session_row("s1"))
    with pytest.raises(InvalidArgumentError) as caught:
        session_cursor(sessions, "active")
    assert "different status" in _page_token_violation(caught)
    with pytest.raises(InvalidArgumentError) as caught:
        offset_page(2, sessions, listing="ListConcepts")
    assert "another listing" in _page_token_violation(caught)


@pytest.mark.parametrize(
    "token",
    [
        QA_TOKEN,
        _forged({"v": 1, "l": "ListConcepts", "f": "", "a": MAX_PAGE_OFFSET + 1}),
        _forged({"v": 1, "l": "ListConcepts", "f": "", "a": 10**30}),
        _forged({"v": 1, "l": "ListConcepts", "f": "", "a": True}),
        _forged({"v": 1, "l": "ListConcepts", "f": "", "a": 0}),
        _forged({"v": 1, "l": "ListConcepts", "f": "", "a": 1.5}),
        _forged({"v": 2, "l": "ListConcepts", "f": "", "a": 1}),
        _forged({"v": True, "l": "ListConcepts", "f": "", "a": 1}),  # true == 1 to Python
        _forged({"l": "ListConcepts", "f": "", "a": 1}),
        _forged([1, 2]),
        "%%%",
        "A" * 10_000,
    ],
)
def test_forged_offset_tokens_are_invalid_argument(token: str) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        offset_page(2, token, listing="ListConcepts")
    assert _page_token_violation(caught) == "is not a token from a previous response"


def test_session_cursor_is_the_last_rows_key_in_utc() -> None:
    row = session_row("abc")
    # SQLite reads timestamps back naive (stored in UTC); PostgreSQL aware, in any zone.
    naive = datetime(2024, 5, 1, 12, 0, 0, 123456)
    row.created_at = naive
    assert session_cursor(session_page_token("", row), "") == SessionCursor(naive.replace(tzinfo=UTC), "abc")
    row.created_at = datetime(2024, 5, 1, 14, 0, 0, 123456, tzinfo=timezone(timedelta(hours=2)))
    cursor = session_cursor(session_page_token("paused", row), "paused")
    assert cursor == SessionCursor(naive.replace(tzinfo=UTC), "abc")
    assert cursor.create_time.tzinfo is UTC
    assert session_cursor("", "paused") is None


@pytest.mark.parametrize(
    "after",
    [
        ["0001-01-01T00:00:00+05:00", "x"],  # leaves datetime's range once converted to UTC
        ["2024-01-01T00:00:00", "x"],  # naive
        ["not a time", "x"],
        ["2024-01-01T00:00:00+00:00", ""],
        ["2024-01-01T00:00:00+00:00", "x" * 129],
        ["2024-01-01T00:00:00+00:00", "\ud800"],  # a lone surrogate once reached the query: INTERNAL
        ["2024-01-01T00:00:00+00:00", "id with spaces"],
        ["2024-01-01T00:00:00+00:00", 7],
        ["2024-01-01T00:00:00+00:00", "x", "y"],
        {"2024-01-01T00:00:00+00:00": 1, "x": 2},
        99999999999999999999999,
    ],
)
def test_forged_session_cursors_are_invalid_argument(after: object) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        session_cursor(_forged({"v": 1, "l": "ListSessions", "f": "", "a": after}), "")
    assert _page_token_violation(caught) == "is not a token from a previous response"


def test_negative_page_size_is_invalid_argument() -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        offset_page(-1, "", listing="ListConcepts")
    assert [v.field for v in caught.value.violations] == ["page_size"]
