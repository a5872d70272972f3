"""Request validation: collect every field violation, then raise one `InvalidArgumentError`.

    v = Violations()
    v.require_id(req.session_id, "session_id")
    v.require_text(req.text, "text", settings.max_text_chars)
    v.check(req.turn_number >= 1, "turn_number", "must be >= 1")
    v.raise_if_any()          # -> INVALID_ARGUMENT + google.rpc.BadRequest field violations

Validation happens before anything is changed, so bad input never has side effects.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from shared.errors import FieldViolation, InvalidArgumentError

MAX_ID_CHARS = 128
# Ids travel in URLs, logs and metadata: keep them to a safe alphabet.
_ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:\-]*$")


def is_valid_id(value: str, *, max_chars: int = MAX_ID_CHARS) -> bool:
    """Whether `value` is an identifier as `Violations.require_id` accepts one."""
    return 0 < len(value) <= max_chars and _ID_PATTERN.match(value) is not None


class Violations:
    """Collects field violations of one request; `raise_if_any()` raises them all at once."""

    def __init__(self, prefix: str = "") -> None:
        self._items: list[FieldViolation] = []
        self._prefix = prefix

    # -- core -----------------------------------------------------------------------------------
    def _path(self, field: str) -> str:
        return f"{self._prefix}.{field}" if self._prefix and field else (self._prefix or field)

    def add(self, field: str, description: str) -> None:
        """Record one violation of `field` (a dotted path, e.g. `concepts[2].label`)."""
        self._items.append(FieldViolation(self._path(field), description))

    def check(self, condition: bool, field: str, description: str) -> bool:
        """Record a violation when `condition` is false; returns `condition`."""
        if not condition:
            self.add(field, description)
        return condition

    @contextmanager
    def nested(self, prefix: str) -> Iterator[Violations]:
        """A collector whose field paths start with `prefix` (e.g. `concepts[2]`), sharing this list."""
        child = Violations(self._path(prefix))
        child._items = self._items
        yield child

    @property
    def violations(self) -> list[FieldViolation]:
        """The violations recorded so far (a copy)."""
        return list(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def raise_if_any(self, message: str | None = None) -> None:
        """Raise `InvalidArgumentError` carrying every recorded violation, if there is any."""
        if not self._items:
            return
        if message is None:
            listed = "; ".join(f"{v.field}: {v.description}" for v in self._items)
            message = f"invalid request: {listed}"
        raise InvalidArgumentError(message, self._items)

    # -- common rules ---------------------------------------------------------------------------
    def require_id(self, value: str, field: str, *, max_chars: int = MAX_ID_CHARS) -> bool:
        """An identifier: non-empty, at most `max_chars`, letters/digits and `._:-` only."""
        if not value or not value.strip():
            self.add(field, "must not be empty")
            return False
        if len(value) > max_chars:
            self.add(field, f"must be at most {max_chars} characters")
            return False
        if not _ID_PATTERN.match(value):
            self.add(field, "may contain only letters, digits and . _ : -")
            return False
        return True

    def require_uuid(self, value: str, field: str, *, optional: bool = False) -> bool:
        """A UUID in canonical text form; empty is accepted when `optional`."""
        if not value:
            if optional:
                return True
            self.add(field, "must not be empty")
            return False
        try:
            uuid.UUID(value)
        except ValueError:
            self.add(field, "must be a UUID")
            return False
        return True

    def require_text(self, value: str, field: str, max_chars: int, *, allow_empty: bool = False) -> bool:
        """Free text: non-blank (unless `allow_empty`) and at most `max_chars` characters."""
        if not value or not value.strip():
            if allow_empty and not value:
                return True
            self.add(field, "must not be empty")
            return False
        if len(value) > max_chars:
            self.add(field, f"must be at most {max_chars} characters (got {len(value)})")
            return False
        return True

    def require_range(
        self, value: float, field: str, *, minimum: float | None = None, maximum: float | None = None
    ) -> bool:
        """A number within [minimum, maximum] (either bound optional)."""
        if minimum is not None and value < minimum:
            self.add(field, f"must be >= {minimum:g}")
            return False
        if maximum is not None and value > maximum:
            self.add(field, f"must be <= {maximum:g}")
            return False
        return True

    def require_enum(self, value: int, field: str, allowed: set[int] | None = None) -> bool:
        """A protobuf enum value: not `*_UNSPECIFIED` (0) and, when given, one of `allowed`."""
        if value == 0:
            self.add(field, "must be specified")
            return False
        if allowed is not None and value not in allowed:
            self.add(field, f"unknown value {value}")
            return False
        return True

    def require_page_size(self, value: int, field: str = "page_size", *, maximum: int = 1000) -> bool:
        """A page size: 0 (server default) up to `maximum`."""
        return self.require_range(value, field, minimum=0, maximum=maximum)
