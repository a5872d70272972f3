"""`GraphStore.apply_extraction`: idempotency, provenance, cross-turn links, quotes, ontology."""

from __future__ import annotations

import pytest

from services.graph_store.domain import ExtractionInput, MatchKind, WarningCode
from services.graph_store.store import GraphStore
from shared.errors import InvalidArgumentError

from .support import concept, extraction, new_session, rel, row_counts

TEXT1 = "They are lightweight, so I can wear them all day, and that makes me feel relaxed."
TEXT2 = "Because they're so light I wear them all day; noise cancellation helps me focus too."


def _turn1(sid: str, utterance_id: str = "u-1") -> ExtractionInput:
    return extraction(
        sid,
        TEXT1,
        [
            concept("lightweight", quote="lightweight"),
            concept("wear them all day", "functional_consequence", quote="I can wear them all day"),
            concept("feel relaxed", "psychosocial_consequence", quote="makes me FEEL relaxed"),
        ],
        [
            rel("lightweight", "wear them all day", quote="lightweight, so I can wear them all day"),
            rel("wear them all day", "feel relaxed"),
        ],
        utterance_id=utterance_id,
    )


async def test_apply_twice_returns_the_same_result_and_writes_nothing(
    any_store: tuple[GraphStore, str],
) -> None:
    store, url = any_store
    sid = new_session()
    first = await store.apply_extraction(_turn1(sid))
    counts = await row_counts(url)
    assert counts == {"nodes": 3, "edges": 2, "node_mentions": 3, "edge_mentions": 2, "applied_utterances": 1}
    again = await store.apply_extraction(_turn1(sid))
    assert again.replayed is True and first.replayed is False
    assert again.model_dump(exclude={"replayed"}) == first.model_dump(exclude={"replayed"})
    # A repeat with a different payload (e.g. a re-run extraction) is still the stored answer.
    other = _turn1(sid)
    other.concepts = [concept("something else entirely")]
    third = await store.apply_extraction(other)
    assert [n.id for n in third.nodes_created] == [n.id for n in first.nodes_created]
    assert await row_counts(url) == counts


async def test_utterance_id_of_another_session_is_rejected(sqlite_store: GraphStore) -> None:
    await sqlite_store.apply_extraction(_turn1(new_session(), utterance_id="shared-id"))
    with pytest.raises(InvalidArgumentError) as err:
        await sqlite_store.apply_extraction(_turn1(new_session(), utterance_id="shared-id"))
    assert err.value.violations[0].field == "utterance_id"


async def test_result_separates_created_from_rementioned_and_reinforced(
    any_store: tuple[GraphStore, str],
) -> None:
    store, url = any_store
    sid = new_session()
    r1 = await store.apply_extraction(_turn1(sid))
    ids = {n.label: n.id for n in r1.nodes_created}
    r2 = await store.apply_extraction(
        extraction(
            sid,
            TEXT2,
            [
                concept("Lightweight", quote="so light", confidence=0.6),
                concept(
                    "wear them all day", "functional_consequence", quote="I wear them all day", confidence=0.9
                ),
                concept("noise cancellation", quote="noise cancellation"),
            ],
            [rel("lightweight", "wear them all day", quote="so light I wear them all day")],
            turn=2,
            utterance_id="u-2",
        )
    )
    assert [n.label for n in r2.nodes_created] == ["noise cancellation"]
    mentioned = {m.node.id: m for m in r2.nodes_mentioned}
    assert set(mentioned) == {ids["lightweight"], ids["wear them all day"]}
    assert mentioned[ids["lightweight"]].kind is MatchKind.EXACT
    node = mentioned[ids["wear them all day"]].node
    assert node.source_utterance_ids == ["u-1", "u-2"]
    assert [(q.utterance_id, q.text) for q in node.quotes] == [
        ("u-1", "I can wear them all day"),
        ("u-2", "I wear them all day"),
    ]
    assert node.confidence == 1.0  # highest seen, not the latest
    assert r2.edges_created == []
    assert [e.id for e in r2.edges_reinforced] == [r1.edges_created[0].id]
    assert r2.edges_reinforced[0].source_utterance_ids == ["u-1", "u-2"]
    assert r2.edges_reinforced[0].quotes[1].text == "so light I wear them all day"
    counts = await row_counts(url, sid)
    assert counts["nodes"] == 4 and counts["edges"] == 2
    assert counts["node_mentions"] == 6 and counts["edge_mentions"] == 3


async def test_cross_turn_edges_resolve_earlier_nodes_by_label_and_embedding(
    any_store: tuple[GraphStore, str],
) -> None:
    store, _ = any_store
    sid = new_session()
    r1 = await store.apply_extraction(_turn1(sid))
    ids = {n.label: n.id for n in r1.nodes_created}
    r2 = await store.apply_extraction(
        extraction(
            sid,
            "Feeling relaxed gives me peace of mind. Being lightweight also means I can travel light.",
            [concept("peace of mind", "terminal_value"), concept("travel light", "functional_consequence")],
            [
                rel("feeling relaxed", "peace of mind"),  # earlier node, by embedding ("feel relaxed")
                rel("Lightweight", "travel light"),  # earlier node, by exact label
                rel("battery life", "peace of mind"),  # nothing matches: skipped with a warning
            ],
            turn=2,
        )
    )
    new = {n.label: n.id for n in r2.nodes_created}
    assert set(new) == {"peace of mind", "travel light"}  # no duplicate of an earlier node
    pairs = {(e.source_node_id, e.target_node_id) for e in r2.edges_created}
    assert pairs == {(ids["feel relaxed"], new["peace of mind"]), (ids["lightweight"], new["travel light"])}
    assert [(w.code, w.field) for w in r2.warnings] == [(WarningCode.UNRESOLVED_ENDPOINT, "relationships[2]")]
    state = r2.graph_state
    assert state.depth.max_depth == 4  # lightweight → wear all day → feel relaxed → peace of mind
    # The chain's nodes are named (the question's graph summary needs no lookup of its own).
    assert state.depth.longest_chain_labels == [
        "lightweight",
        "wear them all day",
        "feel relaxed",
        "peace of mind",
    ]
    nodes = {n.id: n for n in await store.batch_get_nodes(sid, state.depth.longest_chain_path)}
    assert state.depth.longest_chain_labels == [nodes[i].label for i in state.depth.longest_chain_path]
    # and typed, in the same order (a question tells a ladder from a contrast by them)
    assert state.depth.longest_chain_node_types == [
        nodes[i].node_type for i in state.depth.longest_chain_path
    ]
    assert state.depth.longest_chain_node_types[0] == "attribute"
    # and each step's edge type, one fewer than the nodes
    assert state.depth.longest_chain_edge_types == ["leads_to"] * 3
    assert state.chain_completion.has_complete is True
    assert state == await store.graph_state(sid, "means_end_chain")


async def test_quote_not_in_utterance_is_rejected_with_a_warning(sqlite_store: GraphStore) -> None:
    sid = new_session()
    r = await sqlite_store.apply_extraction(
        extraction(
            sid,
            "I like that it is cheap.",
            [concept("low price", quote="it costs almost nothing"), concept("quality", quote="")],
            [rel("low price", "quality", "conflicts_with", quote="cheap but bad")],
        )
    )
    assert [n.label for n in r.nodes_created] == ["low price", "quality"]  # the items themselves are kept
    assert all(n.quotes == [] for n in r.nodes_created)
    assert r.edges_created and r.edges_created[0].quotes == []
    assert [(w.code, w.field) for w in r.warnings] == [
        (WarningCode.QUOTE_NOT_FOUND, "concepts[0].quote"),
        (WarningCode.QUOTE_NOT_FOUND, "relationships[0].quote"),
    ]
    nodes, edges = await sqlite_store.get_graph(sid, include_embeddings=False)
    assert all(n.quotes == [] for n in nodes) and edges[0].quotes == []


async def test_ontology_rejects_unknown_edge_types_forbidden_pairs_and_self_loops(
    sqlite_store: GraphStore,
) -> None:
    sid = new_session()
    r = await sqlite_store.apply_extraction(
        extraction(
            sid,
            "Long battery life saves time, and saving time means freedom.",
            [
                concept("long battery life"),
                concept("saves time", "functional_consequence"),
                concept("freedom", "terminal_value"),
            ],
            [
                rel("long battery life", "saves time", "causes"),  # not an MEC edge type
                rel("freedom", "long battery life"),  # terminal → attribute is not permitted
                rel("saves time", "saving time"),  # both resolve to one node: self-loop
                rel("saves time", "freedom"),  # fine
            ],
        )
    )
    assert [(w.code, w.field) for w in r.warnings] == [
        (WarningCode.UNKNOWN_EDGE_TYPE, "relationships[0]"),
        (WarningCode.CONNECTION_NOT_PERMITTED, "relationships[1]"),
        (WarningCode.SELF_LOOP, "relationships[2]"),
    ]
    assert len(r.edges_created) == 1 and r.edges_created[0].edge_type == "leads_to"
    _, edges = await sqlite_store.get_graph(sid, include_embeddings=False)
    assert len(edges) == 1


async def test_revises_edge_supersedes_the_old_node(sqlite_store: GraphStore) -> None:
    sid = new_session()
    r1 = await sqlite_store.apply_extraction(extraction(sid, "It is cheap.", [concept("cheap")]))
    r2 = await sqlite_store.apply_extraction(
        extraction(
            sid,
            "Actually, it is mid-priced, not cheap.",
            [concept("mid-priced")],
            [rel("mid-priced", "cheap", "revises")],
            turn=2,
        )
    )
    old = (await sqlite_store.batch_get_nodes(sid, [r1.nodes_created[0].id]))[0]
    assert old.superseded_by == r2.nodes_created[0].id
    assert r2.nodes_created[0].superseded_by is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"turn_number": -1}, "turn_number"),
        ({"session_id": ""}, "session_id"),
        ({"utterance_id": " "}, "utterance_id"),
        ({"methodology": "no_such_method"}, "methodology"),
        ({"concepts": [concept("ok"), concept("value", "not_a_type")]}, "concepts[1].node_type"),
        ({"concepts": [concept("  ...  ")]}, "concepts[0].label"),
        ({"concepts": [concept("x", stance=2)]}, "concepts[0].stance"),
        ({"concepts": [concept("x", confidence=1.5)]}, "concepts[0].confidence"),
        ({"relationships": [rel("", "x")]}, "relationships[0].source_label"),
        ({"concepts": [concept("x", source_utterance_id="another")]}, "concepts[0].source_utterance_id"),
        ({"utterance_text": ""}, "utterance_text"),
    ],
)
async def test_bad_input_is_invalid_argument_and_writes_nothing(
    any_store: tuple[GraphStore, str], change: dict[str, object], field: str
) -> None:
    store, url = any_store
    inp = _turn1(new_session()).model_copy(update=change)
    with pytest.raises(InvalidArgumentError) as err:
        await store.apply_extraction(inp)
    assert field in [v.field for v in err.value.violations]
    assert set((await row_counts(url)).values()) == {0}


async def test_every_violation_is_reported_at_once(sqlite_store: GraphStore) -> None:
    inp = extraction("", "text", [concept("", "nope")], turn=-3)
    with pytest.raises(InvalidArgumentError) as err:
        await sqlite_store.apply_extraction(inp)
    fields = {v.field for v in err.value.violations}
    assert {"session_id", "turn_number", "concepts[0].label", "concepts[0].node_type"} <= fields


async def test_extraction_without_items_is_recorded(sqlite_store: GraphStore) -> None:
    sid = new_session()
    r = await sqlite_store.apply_extraction(extraction(sid, "", [], utterance_id="empty-1"))
    assert (r.nodes_created, r.warnings, r.graph_state.node_count) == ([], [], 0)
    assert (await sqlite_store.apply_extraction(extraction(sid, "", [], utterance_id="empty-1"))).replayed


async def test_the_created_nodes_and_edges_returned_are_what_a_read_returns(
    any_store: tuple[GraphStore, str],
) -> None:
    # The result is built from the write plan, not read back: it must equal a read of the writes.
    store, _ = any_store
    sid = new_session()
    await store.apply_extraction(extraction(sid, "It is cheap.", [concept("cheap")]))
    text = "Actually it is mid-priced and mid priced is fine, and the light weight means comfort."
    result = await store.apply_extraction(
        extraction(
            sid,
            text,
            [
                concept("mid-priced", quote="mid-priced", confidence=0.7, properties={"unit": "eur"}),
                concept("mid priced", quote="mid priced is fine", confidence=0.9),  # same node, 2nd quote
                concept("light weight", quote="the light weight"),
                concept("comfort", "functional_consequence", quote="not in the answer"),
                concept("price level", quote=""),  # no quote at all
            ],
            [
                rel("mid-priced", "cheap", "revises"),  # an earlier node superseded
                rel("light weight", "comfort", quote="light weight means comfort"),
                rel("light weight", "comfort", quote="the light weight means comfort"),  # 2nd quote
                rel("price level", "mid-priced", "revises"),  # a node of this answer superseded
            ],
            turn=2,
        )
    )
    assert len(result.nodes_created) == 4 and len(result.edges_created) == 3
    nodes, edges = await store.get_graph(sid, include_embeddings=True)
    stored_nodes = {n.id: n for n in nodes}
    stored_edges = {e.id: e for e in edges}
    for node in result.nodes_created:
        assert node.model_dump() == stored_nodes[node.id].model_dump()
    for edge in result.edges_created:
        assert edge.model_dump() == stored_edges[edge.id].model_dump()
    # The cases the comparison covers did occur.
    by_label = {n.label: n for n in result.nodes_created}
    assert len(by_label["mid-priced"].quotes) == 2
    assert by_label["mid-priced"].superseded_by == by_label["price level"].id
    assert by_label["comfort"].quotes == []
    assert by_label["comfort"].source_utterance_ids == [result.utterance_id]
