"""Surface dedup at the real threshold (0.80) with the real all-MiniLM-L6-v2 model.

The pairs were chosen by measuring their cosine similarity (shown per pair). Paraphrases above
0.80 must merge into one node whichever is said first; near misses — related but different
concepts — must stay two nodes. Pairs close to 0.80 on both sides pin the threshold itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from services.graph_store.app import open_store
from services.graph_store.domain import MatchKind
from services.graph_store.settings import GraphStoreSettings
from services.graph_store.store import GraphStore
from services.graph_store.text import normalise_label
from shared.embeddings import cosine_matrix
from shared.methodology import MethodologyRegistry

from .support import concept, extraction, new_session

THRESHOLD = 0.80

# (label A, label B, node type, measured cosine)
MERGE = [
    ("noise cancelling", "noise cancellation", "attribute", 0.942),
    ("sound quality", "audio quality", "attribute", 0.918),
    ("less stress", "reduced stress", "psychosocial_consequence", 0.881),
    ("quick charging", "fast charging", "attribute", 0.877),
    ("concentrate on work", "focus on work", "functional_consequence", 0.856),
    ("comfortable fit", "fits comfortably", "attribute", 0.831),
    ("being independent", "independence", "instrumental_value", 0.826),
    ("fast car", "quick car", "attribute", 0.812),
    ("easy to use", "ease of use", "attribute", 0.808),
]
NEAR_MISS = [
    ("lightweight", "light weight", "attribute", 0.792),  # just below: pins the threshold
    ("comfortable", "uncomfortable", "attribute", 0.751),
    ("premium build", "premium price", "attribute", 0.705),
    ("save time", "save money", "functional_consequence", 0.692),
    ("feel stressed", "feel relaxed", "psychosocial_consequence", 0.672),
    ("wireless", "wired", "attribute", 0.661),
    ("listen to music", "listen to podcasts", "functional_consequence", 0.603),
    ("sound quality", "call quality", "attribute", 0.521),
]


def _ids(pairs: list[tuple[str, str, str, float]]) -> list[Any]:
    out = []
    for a, b, t, s in pairs:
        out.append(pytest.param(a, b, t, s, id=f"{a}|{b}"))
        out.append(pytest.param(b, a, t, s, id=f"{b}|{a}"))  # both directions
    return out


@pytest_asyncio.fixture(scope="module", loop_scope="session")
async def store(
    embedder: Any, registry: MethodologyRegistry, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[GraphStore]:
    """One store for the module (each case uses its own session)."""
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('dedup') / 'graph.db'}"
    settings = GraphStoreSettings(database_url=url)
    async with open_store(settings, embedder=embedder, methodologies=registry) as st:
        yield st


def _cosine(embedder: Any, a: str, b: str) -> float:
    va, vb = embedder.encode([normalise_label(a), normalise_label(b)])
    return float(cosine_matrix(va, vb)[0, 0])


@pytest.mark.parametrize(("first", "second", "node_type", "measured"), _ids(MERGE))
async def test_paraphrase_merges_across_turns(
    store: GraphStore, embedder: Any, first: str, second: str, node_type: str, measured: float
) -> None:
    assert _cosine(embedder, first, second) == pytest.approx(measured, abs=0.005)
    sid = new_session()
    r1 = await store.apply_extraction(
        extraction(sid, f"I said {first}.", [concept(first, node_type)], turn=1)
    )
    r2 = await store.apply_extraction(extraction(sid, f"Now {second}.", [concept(second, node_type)], turn=2))
    assert r2.nodes_created == []
    assert len(r2.nodes_mentioned) == 1
    mention = r2.nodes_mentioned[0]
    assert mention.node.id == r1.nodes_created[0].id
    assert mention.kind is MatchKind.EMBEDDING
    assert mention.similarity >= THRESHOLD
    assert mention.extracted_label == second
    assert mention.node.label == first  # the first wording stays the node's label
    assert mention.node.source_utterance_ids == [r1.utterance_id, r2.utterance_id]
    assert r2.graph_state.node_count == 1


@pytest.mark.parametrize(("first", "second", "node_type", "measured"), _ids(NEAR_MISS))
async def test_near_miss_stays_separate(
    store: GraphStore, embedder: Any, first: str, second: str, node_type: str, measured: float
) -> None:
    assert _cosine(embedder, first, second) == pytest.approx(measured, abs=0.005)
    sid = new_session()
    await store.apply_extraction(extraction(sid, f"I said {first}.", [concept(first, node_type)], turn=1))
    r2 = await store.apply_extraction(extraction(sid, f"Now {second}.", [concept(second, node_type)], turn=2))
    assert [n.label for n in r2.nodes_created] == [second]
    assert r2.nodes_mentioned == []
    assert r2.graph_state.node_count == 2


async def test_paraphrases_in_one_utterance_make_one_node(store: GraphStore) -> None:
    sid = new_session()
    text = "Noise cancelling is key; good noise cancellation means quiet."
    r = await store.apply_extraction(
        extraction(
            sid,
            text,
            [
                concept("noise cancelling", quote="Noise cancelling"),
                concept("noise cancellation", quote="noise cancellation"),
            ],
        )
    )
    assert [n.label for n in r.nodes_created] == ["noise cancelling"]
    assert r.nodes_mentioned == []  # created in this very utterance: yield, not a re-mention
    assert [q.text for q in r.nodes_created[0].quotes] == ["Noise cancelling", "noise cancellation"]


async def test_same_label_of_another_node_type_is_a_different_node(store: GraphStore) -> None:
    sid = new_session()
    await store.apply_extraction(
        extraction(sid, "less stress", [concept("less stress", "psychosocial_consequence")])
    )
    r = await store.apply_extraction(
        extraction(sid, "reduced stress", [concept("reduced stress", "functional_consequence")], turn=2)
    )
    assert [n.node_type for n in r.nodes_created] == ["functional_consequence"]
    assert r.graph_state.node_count == 2


async def test_exact_match_ignores_case_and_punctuation(store: GraphStore) -> None:
    sid = new_session()
    r1 = await store.apply_extraction(extraction(sid, "x", [concept("Peace of mind", "terminal_value")]))
    r2 = await store.apply_extraction(
        extraction(sid, "y", [concept("  peace of MIND.", "terminal_value")], turn=2)
    )
    assert r2.nodes_created == []
    assert r2.nodes_mentioned[0].node.id == r1.nodes_created[0].id
    assert r2.nodes_mentioned[0].kind is MatchKind.EXACT
    assert r2.nodes_mentioned[0].similarity == 1.0
