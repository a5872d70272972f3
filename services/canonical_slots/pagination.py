"""Opaque keyset page tokens: base64url(JSON of the last row's sort key)."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from shared.errors import InvalidArgumentError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


@dataclass(frozen=True)
class PageKey:
    """Sort key of a row: (turn, id) — every list is ordered by turn, then id."""

    turn: int
    ident: str


def encode_token(key: PageKey | None) -> str:
    """The token for the page after `key` ("" when there is no further page)."""
    if key is None:
        return ""
    raw = json.dumps([key.turn, key.ident], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_token(token: str) -> PageKey | None:
    """The key encoded in `token`; INVALID_ARGUMENT (field page_token) when it is not ours."""
    if not token:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        turn, ident = json.loads(raw)
    except (binascii.Error, ValueError, TypeError) as exc:
        raise InvalidArgumentError.for_field("page_token", "is not a token from a previous response") from exc
    if not isinstance(turn, int) or not isinstance(ident, str):
        raise InvalidArgumentError.for_field("page_token", "is not a token from a previous response")
    return PageKey(turn, ident)


def page_size(requested: int) -> int:
    """0 → the default; otherwise as requested (validated ≤ MAX_PAGE_SIZE beforehand)."""
    return DEFAULT_PAGE_SIZE if requested <= 0 else min(requested, MAX_PAGE_SIZE)
