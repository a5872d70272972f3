"""Concurrent `apply_extraction` calls on one session: no lost update, no duplicate node."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from services.graph_store import repository
from services.graph_store.app import open_store
from services.graph_store.settings import GraphStoreSettings
from services.graph_store.store import GraphStore
from shared.embeddings import Embedder, FloatMatrix

from .conftest import OpenStore
from .support import concept, extraction, rel, row_counts

SHARED = ["noise cancelling", "long battery life", "lightweight"]
# Pairwise cosine < 0.46 (measured), so none of these merge with each other or with SHARED.
OWN = [
    "bright colours",
    "sturdy case",
    "warranty",
    "touch controls",
    "voice assistant",
    "water resistance",
    "spare ear tips",
    "carrying pouch",
    "app support",
    "fast pairing",
    "replaceable battery",
    "recycled plastic",
]


async def _burst(store: GraphStore, sid: str, n: int) -> list[str]:
    """n utterances at once; each mentions the shared labels plus one label of its own."""
    inputs = [
        extraction(
            sid,
            f"reply {i}",
            [concept(lbl) for lbl in SHARED] + [concept(OWN[i])],
            [rel("lightweight", "long battery life")],
            turn=i + 1,
            utterance_id=f"{sid}-u{i}",
        )
        for i in range(n)
    ]
    results = await asyncio.gather(*(store.apply_extraction(inp) for inp in inputs))
    assert sum(len(r.nodes_created) for r in results) == len(SHARED) + n
    assert sum(len(r.edges_created) for r in results) == 1
    return [inp.utterance_id for inp in inputs]


async def test_concurrent_applies_on_postgres_lose_nothing(open_graph: OpenStore, pg_url: str) -> None:
    async with open_graph(pg_url) as store:
        sid = "concurrent-pg"
        utterances = await _burst(store, sid, 12)
        await _check(store, pg_url, sid, utterances)


async def test_concurrent_applies_on_sqlite_lose_nothing(sqlite_store: GraphStore, sqlite_url: str) -> None:
    sid = "concurrent-sqlite"
    utterances = await _burst(sqlite_store, sid, 6)
    await _check(sqlite_store, sqlite_url, sid, utterances)


async def _check(store: GraphStore, url: str, sid: str, utterances: list[str]) -> None:
    nodes, edges = await store.get_graph(sid, include_embeddings=False)
    assert len(nodes) == len(SHARED) + len(utterances)
    for node in nodes:
        if node.label in SHARED:  # every utterance's mention survived
            assert sorted(node.source_utterance_ids) == sorted(utterances)
    assert len(edges) == 1 and sorted(edges[0].source_utterance_ids) == sorted(utterances)
    counts = await row_counts(url, sid)
    assert counts["applied_utterances"] == len(utterances)


async def test_concurrent_duplicates_of_one_utterance_apply_once(open_graph: OpenStore, pg_url: str) -> None:
    async with open_graph(pg_url) as store:
        sid = "concurrent-dup"
        inp = extraction(sid, "same", [concept("sound quality"), concept("comfort")], utterance_id="dup-1")
        results = await asyncio.gather(*(store.apply_extraction(inp) for _ in range(6)))
        assert sum(not r.replayed for r in results) == 1
        assert {tuple(n.id for n in r.nodes_created) for r in results} == {
            tuple(n.id for n in results[0].nodes_created)
        }
        counts = await row_counts(pg_url, sid)
        assert (counts["nodes"], counts["node_mentions"], counts["applied_utterances"]) == (2, 2, 1)


# Pairwise cosine >= 0.86 (measured): whichever is applied first, the others must merge into it.
# The unique constraint cannot catch these (different labels): only serialisation per session does.
PARAPHRASES = [
    "noise cancelling",
    "noise cancellation",
    "noise canceling",
    "noise-cancelling",
    "noise cancelling feature",
]


async def test_concurrent_paraphrases_make_one_node(any_store: tuple[GraphStore, str]) -> None:
    store, _ = any_store
    for round_ in range(3):  # several rounds: interleavings vary
        sid = f"paraphrases-{round_}"
        inputs = [
            extraction(sid, f"said {p}", [concept(p)], turn=i + 1, utterance_id=f"{sid}-{i}")
            for i, p in enumerate(PARAPHRASES)
        ]
        results = await asyncio.gather(*(store.apply_extraction(inp) for inp in inputs))
        assert sum(len(r.nodes_created) for r in results) == 1
        nodes, _ = await store.get_graph(sid, include_embeddings=False)
        assert len(nodes) == 1
        assert sorted(nodes[0].source_utterance_ids) == sorted(inp.utterance_id for inp in inputs)


class HeldEncoder:
    """The real embedder, except that encoding any of `held` labels waits for `release`."""

    def __init__(self, inner: Embedder, held: set[str], release: asyncio.Event) -> None:
        self._inner, self._held, self._release = inner, held, release
        self.waiting = asyncio.Event()

    def encode(self, texts: Sequence[str]) -> FloatMatrix:
        return self._inner.encode(texts)

    async def aencode(self, texts: Sequence[str]) -> FloatMatrix:
        if self._held & set(texts):
            self.waiting.set()
            await self._release.wait()
        return await self._inner.aencode(texts)


async def test_a_slow_encoding_holds_up_no_other_session(embedder: Any, registry: Any, db_url: str) -> None:
    # Session A's labels are still being encoded while session B applies an answer: B's write
    # must not queue behind A (on SQLite the write lock is one for all sessions).
    release = asyncio.Event()
    encoder = HeldEncoder(embedder, {"bright colours"}, release)
    async with open_store(
        GraphStoreSettings(database_url=db_url), embedder=encoder, methodologies=registry
    ) as store:
        slow = asyncio.ensure_future(
            store.apply_extraction(extraction("held-a", "reply", [concept("bright colours")], []))
        )
        try:
            await asyncio.wait_for(encoder.waiting.wait(), 10)
            other = await asyncio.wait_for(
                store.apply_extraction(extraction("free-b", "reply", [concept("sturdy case")], [])), 10
            )
            assert [n.label for n in other.nodes_created] == ["sturdy case"]
            assert not slow.done()
        finally:
            release.set()
        held = await slow
        assert [n.label for n in held.nodes_created] == ["bright colours"]


async def test_a_search_encodes_its_query_while_it_reads_the_stored_nodes(
    embedder: Any, registry: Any, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The read of the stored embeddings waits until the query's encoding has started: a search
    # that encoded only after the read would run the wait out instead.
    query = "battery lasts a long time"
    released = asyncio.Event()
    released.set()  # nothing is held: `waiting` only tells that the query's encoding started
    encoder = HeldEncoder(embedder, {query}, released)
    overlapped: list[bool] = []
    read = repository.session_nodes

    async def read_once_the_encoding_started(db: Any, session_id: str) -> Any:
        try:
            await asyncio.wait_for(encoder.waiting.wait(), 5)
            overlapped.append(True)
        except TimeoutError:
            overlapped.append(False)
        return await read(db, session_id)

    monkeypatch.setattr(repository, "session_nodes", read_once_the_encoding_started)
    async with open_store(
        GraphStoreSettings(database_url=db_url), embedder=encoder, methodologies=registry
    ) as store:
        await store.apply_extraction(
            extraction("s", "reply", [concept("long battery life"), concept("sturdy case")])
        )
        hits = await store.search_nodes("s", query, 2)
        encoder.waiting.clear()
        assert await store.search_nodes("empty", query, 2) == []
    assert overlapped == [True, True]
    assert [h.node.label for h in hits] == ["long battery life", "sturdy case"]
