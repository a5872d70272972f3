"""Page sizes and opaque page tokens (AIP-158).

A token is URL-safe base64 of a small JSON object naming the listing, the session, the filter and
the last row's key; a token used with a different session, listing or filter is rejected as
INVALID_ARGUMENT rather than silently returning another listing's rows.
"""

from __future__ import annotations

import base64
import binascii
import json

from shared.errors import InvalidArgumentError

DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 500


def page_size(requested: int) -> int:
    """0 → the default (50); above the maximum → the maximum (500); negative → INVALID_ARGUMENT."""
    if requested < 0:
        raise InvalidArgumentError.for_field("page_size", "must not be negative")
    if requested == 0:
        return DEFAULT_PAGE_SIZE
    return min(requested, MAX_PAGE_SIZE)


def encode_page_token(kind: str, session_id: str, filter_value: str, last_key: int) -> str:
    """The opaque token of the page after the row with key `last_key`."""
    raw = json.dumps({"k": kind, "s": session_id, "f": filter_value, "a": last_key}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_page_token(token: str, *, kind: str, session_id: str, filter_value: str) -> int:
    """The last row key a token points after (0 for the first page); INVALID_ARGUMENT if foreign."""
    if not token:
        return 0
    try:
        padded = token + "=" * (-len(token) % 4)
        data = json.loads(base64.urlsafe_b64decode(padded.encode()))
        after = data["a"]
        valid = (
            isinstance(after, int)
            and after >= 0
            and data["k"] == kind
            and data["s"] == session_id
            and data["f"] == filter_value
        )
    except (binascii.Error, ValueError, KeyError, TypeError, UnicodeDecodeError):
        valid = False
    if not valid:
        raise InvalidArgumentError.for_field(
            "page_token", "is not a token of this listing (same session and filter) or is corrupt"
        )
    return int(after)
