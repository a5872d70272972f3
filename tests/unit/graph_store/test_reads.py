"""Listings, pagination, export, batch get, similarity search and deletion."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from services.graph_store.store import GraphStore
from shared.embeddings import Embedder, from_bytes
from shared.errors import InvalidArgumentError

from .support import concept, extraction, new_session, rel, row_counts

LABELS = ["noise cancelling", "long battery life", "lightweight", "foldable design", "low price"]


async def _seed(store: GraphStore, sid: str) -> list[str]:
    r = await store.apply_extraction(
        extraction(
            sid,
            "stuff",
            [concept(lbl) for lbl in LABELS] + [concept("can focus on the train", "functional_consequence")],
            [rel("noise cancelling", "can focus on the train"), rel("lightweight", "long battery life")],
        )
    )
    return [n.id for n in r.nodes_created]


async def test_list_nodes_pages_through_everything_in_creation_order(
    any_store: tuple[GraphStore, str],
) -> None:
    store, _ = any_store
    sid = new_session()
    ids = await _seed(store, sid)
    await _seed(store, new_session())  # another session's nodes never show up
    seen: list[str] = []
    token = ""
    pages = 0
    while True:
        page = await store.list_nodes(sid, 4, token)
        assert page.total_size == 6
        seen += [n.id for n in page.nodes]
        pages += 1
        token = page.next_page_token
        if not token:
            break
    assert (seen, pages) == (ids, 2)
    attrs = await store.list_nodes(sid, 0, "", node_type="attribute")
    assert [n.label for n in attrs.nodes] == LABELS and attrs.total_size == 5 and attrs.next_page_token == ""
    with pytest.raises(InvalidArgumentError):
        await store.list_nodes(new_session(), 4, (await store.list_nodes(sid, 4, "")).next_page_token)


async def test_list_edges_and_get_graph(sqlite_store: GraphStore) -> None:
    sid = new_session()
    await _seed(sqlite_store, sid)
    first = await sqlite_store.list_edges(sid, 1, "")
    second = await sqlite_store.list_edges(sid, 1, first.next_page_token)
    assert first.total_size == 2 and second.next_page_token == ""
    assert {e.id for e in first.edges + second.edges} == {
        e.id for e in (await sqlite_store.get_graph(sid, include_embeddings=False))[1]
    }
    assert (await sqlite_store.list_edges(sid, 10, "", edge_type="conflicts_with")).edges == []
    nodes, _ = await sqlite_store.get_graph(sid, include_embeddings=True)
    vec = from_bytes(nodes[0].embedding)
    assert vec.shape == (384,) and np.linalg.norm(vec) == pytest.approx(1.0, abs=1e-5)
    bare, _ = await sqlite_store.get_graph(sid, include_embeddings=False)
    assert all(n.embedding == b"" for n in bare)


async def test_batch_get_keeps_request_order_and_omits_unknown_or_foreign_ids(
    sqlite_store: GraphStore,
) -> None:
    sid = new_session()
    ids = await _seed(sqlite_store, sid)
    foreign = (await _seed(sqlite_store, new_session()))[0]
    got = await sqlite_store.batch_get_nodes(sid, [ids[3], "nope", ids[0], foreign, ids[3]])
    assert [n.id for n in got] == [ids[3], ids[0]]


async def test_search_ranks_by_similarity(sqlite_store: GraphStore) -> None:
    sid = new_session()
    await _seed(sqlite_store, sid)
    hits = await sqlite_store.search_nodes(sid, "battery lasts a long time", 3)
    assert len(hits) == 3
    assert hits[0].node.label == "long battery life"
    assert hits[0].similarity >= hits[1].similarity >= hits[2].similarity
    assert await sqlite_store.search_nodes(new_session(), "anything", 3) == []


async def test_search_returns_the_stored_nodes_from_one_read(sqlite_store: GraphStore) -> None:
    sid = new_session()
    ids = await _seed(sqlite_store, sid)
    statements: list[str] = []

    def record(conn: object, cursor: object, statement: str, *args: object) -> None:
        statements.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    try:
        plain = await sqlite_store.search_nodes(sid, "battery lasts a long time", 4, provenance=False)
    finally:
        event.remove(Engine, "before_cursor_execute", record)
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1
    full = await sqlite_store.search_nodes(sid, "battery lasts a long time", 4)
    stored = {n.id: n for n in await sqlite_store.batch_get_nodes(sid, ids)}
    assert [h.node.id for h in plain] == [h.node.id for h in full]
    for hit in full:
        assert hit.node == stored[hit.node.id]
    for hit in plain:
        assert hit.node == stored[hit.node.id].model_copy(update={"source_utterance_ids": [], "quotes": []})


async def test_delete_session_graph_removes_only_that_session(any_store: tuple[GraphStore, str]) -> None:
    store, url = any_store
    sid, other = new_session(), new_session()
    await _seed(store, sid)
    await _seed(store, other)
    before = await row_counts(url, other)
    result = await store.delete_session_graph(sid)
    assert (result.nodes_deleted, result.edges_deleted) == (6, 2)
    assert set((await row_counts(url, sid)).values()) == {0}
    assert await row_counts(url, other) == before
    again = await store.delete_session_graph(sid)
    assert (again.nodes_deleted, again.edges_deleted) == (0, 0)


async def test_unknown_session_reads_as_an_empty_graph(sqlite_store: GraphStore) -> None:
    sid = new_session()
    state = await sqlite_store.graph_state(sid, "means_end_chain")
    assert (state.node_count, state.edge_count, state.depth.max_depth) == (0, 0, 0)
    page = await sqlite_store.list_nodes(sid, 0, "")
    assert (page.nodes, page.total_size, page.next_page_token) == ([], 0, "")
    with pytest.raises(InvalidArgumentError):
        await sqlite_store.graph_state(sid, "no_such_methodology")


ATTRIBUTES = [
    "noise cancelling",
    "long battery life",
    "lightweight",
    "foldable design",
    "low price",
    "bass",
    "ear cushions",
    "touch controls",
    "braided cable",
    "quick charge",
    "carrying case",
    "microphone",
    "bluetooth range",
    "sound quality",
    "comfortable headband",
    "water resistance",
    "app equaliser",
    "transparency mode",
    "auto pause",
    "multipoint pairing",
]
CONSEQUENCES = [
    "can focus on the train",
    "sleep on flights",
    "no tangled wires",
    "calls sound clear",
    "wear them all day",
    "fewer charging worries",
    "music feels alive",
    "fits in my bag",
    "hear announcements",
    "switch between laptop and phone",
    "run in the rain",
    "less ear fatigue",
]
QUERIES = [
    "The battery lasts a week so I never worry about charging before a trip.",
    "Honestly the bass makes my music feel alive and I forget the commute.",
    "They fold into the case and fit in my bag, which matters when I travel light.",
    "On calls people hear me clearly, even outside in the wind.",
    "I can wear them the whole day at the office without sore ears.",
]


async def test_the_int8_query_model_ranks_like_the_fp32_model(
    open_graph: Any, sqlite_url: str, query_embedder: Embedder
) -> None:
    sid = new_session()
    async with open_graph(sqlite_url) as exact:
        await exact.apply_extraction(
            extraction(
                sid,
                "stuff",
                [concept(lbl) for lbl in ATTRIBUTES]
                + [concept(lbl, "functional_consequence") for lbl in CONSEQUENCES],
            )
        )
        expected = [await exact.search_nodes(sid, q, 10, provenance=False) for q in QUERIES]
    async with open_graph(sqlite_url, query_encoder=query_embedder) as quick:
        found = [await quick.search_nodes(sid, q, 10, provenance=False) for q in QUERIES]
    for want, got in zip(expected, found, strict=True):
        # Only near-ties swap: the best match is among the two best, and the ten best differ by
        # at most one node at the boundary.
        assert got[0].node.id in {w.node.id for w in want[:2]}
        assert len({h.node.id for h in got} & {h.node.id for h in want}) >= 9
        assert max(abs(g.similarity - w.similarity) for g, w in zip(got, want, strict=True)) < 0.05


async def test_the_search_embeds_its_query_with_the_query_model_only(
    open_graph: Any, sqlite_url: str, embedder: Any
) -> None:
    asked: list[list[str]] = []

    class Recording:
        async def aencode(self, texts: list[str]) -> Any:
            asked.append(list(texts))
            return await embedder.aencode(texts)

    sid = new_session()
    async with open_graph(sqlite_url, query_encoder=Recording()) as store:
        await _seed(store, sid)  # labels: the store's own (fp32) model
        assert asked == []
        hits = await store.search_nodes(sid, "battery lasts a long time", 3)
    assert asked == [["battery lasts a long time"]]
    assert hits[0].node.label == "long battery life"
