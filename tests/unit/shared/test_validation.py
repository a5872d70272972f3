"""Violations: every bad field is collected, then raised once as InvalidArgumentError."""

from __future__ import annotations

import uuid

import pytest

from shared.errors import FieldViolation, InvalidArgumentError
from shared.validation import Violations


def test_no_violation_raises_nothing() -> None:
    v = Violations()
    assert v.require_id("session-1", "session_id")
    assert v.require_text("I like coffee.", "text", 100)
    assert v.check(True, "turn_number", "must be >= 1")
    v.raise_if_any()
    assert not v and len(v) == 0


def test_all_violations_are_collected_and_raised_together() -> None:
    v = Violations()
    v.require_id("", "session_id")
    v.require_text("x" * 11, "text", 10)
    v.check(False, "turn_number", "must be >= 1")
    with pytest.raises(InvalidArgumentError) as info:
        v.raise_if_any()
    assert info.value.violations == [
        FieldViolation("session_id", "must not be empty"),
        FieldViolation("text", "must be at most 10 characters (got 11)"),
        FieldViolation("turn_number", "must be >= 1"),
    ]
    assert "session_id" in info.value.public_message and "turn_number" in info.value.public_message


@pytest.mark.parametrize(
    ("value", "description"),
    [
        ("", "must not be empty"),
        ("   ", "must not be empty"),
        ("a" * 129, "must be at most 128 characters"),
        ("has space", "may contain only letters, digits and . _ : -"),
        ("../etc/passwd", "may contain only letters, digits and . _ : -"),
    ],
)
def test_require_id_rejects(value: str, description: str) -> None:
    v = Violations()
    assert not v.require_id(value, "node_id")
    assert v.violations == [FieldViolation("node_id", description)]


def test_require_text_rejects_blank_and_oversize_but_allows_optional_empty() -> None:
    v = Violations()
    assert not v.require_text(" \n ", "text", 10)
    assert v.require_text("", "note", 10, allow_empty=True)
    assert v.require_text("x" * 10, "exact", 10)
    assert [x.field for x in v.violations] == ["text"]


def test_require_uuid_enum_range_page_size() -> None:
    v = Violations()
    assert v.require_uuid(str(uuid.uuid4()), "request_id")
    assert v.require_uuid("", "request_id", optional=True)
    assert not v.require_uuid("not-a-uuid", "request_id")
    assert not v.require_enum(0, "status")
    assert not v.require_enum(7, "status", allowed={1, 2})
    assert v.require_enum(2, "status", allowed={1, 2})
    assert not v.require_range(1.5, "weight", minimum=0.0, maximum=1.0)
    assert not v.require_page_size(5000)
    assert [(x.field, x.description) for x in v.violations] == [
        ("request_id", "must be a UUID"),
        ("status", "must be specified"),
        ("status", "unknown value 7"),
        ("weight", "must be <= 1"),
        ("page_size", "must be <= 1000"),
    ]


def test_nested_paths() -> None:
    v = Violations()
    for index, label in enumerate(["ok", ""]):
        with v.nested(f"concepts[{index}]") as item:
            item.require_text(label, "label", 50)
    assert v.violations == [FieldViolation("concepts[1].label", "must not be empty")]


def test_custom_message() -> None:
    v = Violations()
    v.add("text", "must not be empty")
    with pytest.raises(InvalidArgumentError, match=r"^answer rejected$"):
        v.raise_if_any("answer rejected")
