"""`GraphStore.warm_up` runs the write path at start-up and leaves the database untouched."""

from __future__ import annotations

import pytest

from services.graph_store.store import GraphStore
from shared.errors import InvalidArgumentError
from shared.methodology import MethodologyRegistry

from .support import concept, extraction, new_session, rel, row_counts


async def test_warm_up_writes_nothing_for_any_methodology(
    any_store: tuple[GraphStore, str], registry: MethodologyRegistry
) -> None:
    store, url = any_store
    for name in registry.names():
        await store.warm_up(name)
    assert set((await row_counts(url)).values()) == {0}


async def test_the_store_works_normally_after_a_warm_up(sqlite_store: GraphStore, sqlite_url: str) -> None:
    await sqlite_store.warm_up("means_end_chain")
    sid = new_session()
    result = await sqlite_store.apply_extraction(
        extraction(
            sid,
            "battery life means fewer worries",
            [concept("battery life"), concept("fewer worries", "functional_consequence")],
            [rel("battery life", "fewer worries")],
        )
    )
    assert [n.label for n in result.nodes_created] == ["battery life", "fewer worries"]
    assert len(result.edges_created) == 1
    counts = await row_counts(sqlite_url)
    assert counts == await row_counts(sqlite_url, sid)  # only the real session's rows exist


async def test_warm_up_rejects_an_unknown_methodology(sqlite_store: GraphStore) -> None:
    with pytest.raises(InvalidArgumentError, match="unknown methodology"):
        await sqlite_store.warm_up("no_such_method")
