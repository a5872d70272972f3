"""Page sizes and opaque page tokens."""

from __future__ import annotations

import pytest

from services.graph_store.pagination import decode_page_token, encode_page_token, page_size
from shared.errors import InvalidArgumentError


def test_page_size_default_and_cap() -> None:
    assert page_size(0) == 50
    assert page_size(7) == 7
    assert page_size(10_000) == 500
    with pytest.raises(InvalidArgumentError) as err:
        page_size(-1)
    assert err.value.violations[0].field == "page_size"


def test_token_round_trip() -> None:
    token = encode_page_token("nodes", "s1", "attribute", 42)
    assert "s1" not in token  # opaque, not a readable structure
    assert decode_page_token(token, kind="nodes", session_id="s1", filter_value="attribute") == 42
    assert decode_page_token("", kind="nodes", session_id="s1", filter_value="") == 0


@pytest.mark.parametrize(
    ("kind", "session", "filter_value"),
    [("edges", "s1", "attribute"), ("nodes", "s2", "attribute"), ("nodes", "s1", "")],
)
def test_token_of_another_listing_is_rejected(kind: str, session: str, filter_value: str) -> None:
    token = encode_page_token("nodes", "s1", "attribute", 42)
    with pytest.raises(InvalidArgumentError) as err:
        decode_page_token(token, kind=kind, session_id=session, filter_value=filter_value)
    assert err.value.violations[0].field == "page_token"


@pytest.mark.parametrize("token", ["%%%", "bm90IGpzb24", "e30"])  # bad base64, not JSON, {}
def test_corrupt_token_is_rejected(token: str) -> None:
    with pytest.raises(InvalidArgumentError):
        decode_page_token(token, kind="nodes", session_id="s1", filter_value="")
