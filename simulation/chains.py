"""Hidden chains walked through the graph: completed, or where the walk stopped and why.

A chain is completed when the graph holds it as one walk: a node for each element, each joined to
the next by an edge (either direction) wherever the chain has a hidden link. A chain-completion
figure alone does not say what to fix, so each chain that stops gets a reason, read at the first
step the walk could not take:

* `not_revealed`: the respondent never said the element (the interviewer did not get there);
* `not_recovered`: it was said, but no graph node matches it (extraction missed it);
* `split`: an edge joins the two elements, but from another node of the element reached than the
  one the walk came through: the element was told twice in other words (or typed two ways) and
  the graph holds it as two nodes, each with one of its links;
* `link_not_revealed` / `link_not_recovered`: both elements are in the graph with no edge between
  them, and the respondent never told the link / told it and extraction missed it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from simulation.records import ChainBreakReason, ChainOutcome
from simulation.scenarios import Chain, HiddenLink, Scenario

NodesOf = Mapping[str, Collection[str]]
Pairs = Mapping[tuple[str, str], str]


def links_along(scenario: Scenario, chain: Chain) -> list[HiddenLink | None]:
    """The hidden link between each element of `chain` and the next (None where there is none)."""
    return [scenario.link_between(a, b) for a, b in zip(chain.elements, chain.elements[1:], strict=False)]


def _joined(a: str, b: str, pairs: Pairs) -> bool:
    return (a, b) in pairs or (b, a) in pairs


def _walk(
    elements: Sequence[str], links: Sequence[HiddenLink | None], nodes_of: NodesOf, pairs: Pairs
) -> tuple[int, set[str]]:
    """(index of the element the walk could not reach, or len(elements) when it went through;
    the nodes it had reached of the element before)."""
    reached = set(nodes_of.get(elements[0], ()))
    if not reached:
        return 0, set()
    for i, link in enumerate(links, start=1):
        candidates = set(nodes_of.get(elements[i], ()))
        if link is not None:
            candidates = {b for b in candidates if any(_joined(a, b, pairs) for a in reached)}
        if not candidates:
            return i, reached
        reached = candidates
    return len(elements), reached


def walks(
    elements: Sequence[str], links: Sequence[HiddenLink | None], nodes_of: NodesOf, pairs: Pairs
) -> bool:
    """Whether the graph holds the chain as one walk (see the module docstring). An element split
    over two nodes, one holding the link below and the other the link above, does not complete it."""
    stop, _ = _walk(elements, links, nodes_of, pairs)
    return stop == len(elements)


def outcome(
    scenario: Scenario,
    chain: Chain,
    nodes_of: NodesOf,
    pairs: Pairs,
    labels: Mapping[str, tuple[str, str]],
    revealed_elements: Collection[str],
    revealed_links: Collection[str],
) -> ChainOutcome:
    """`chain` walked through the graph: completed, or the first step it could not take and why.

    `labels`: node id → (label, node type), to name the nodes of a split element."""
    elements, links = chain.elements, links_along(scenario, chain)
    stop, reached = _walk(elements, links, nodes_of, pairs)
    if stop == len(elements):
        return ChainOutcome(chain_id=chain.id, kind=chain.kind, completed=True)
    target = elements[stop]
    before = elements[stop - 1] if stop else None
    nodes: list[str] = []
    reason: ChainBreakReason
    if not nodes_of.get(target):
        reason = "not_recovered" if target in revealed_elements else "not_revealed"
    else:
        link = links[stop - 1]
        assert before is not None and link is not None  # a step without a link stops only on a missing node
        held = set(nodes_of.get(before, ()))
        if any(_joined(a, b, pairs) for a in held - reached for b in nodes_of[target]):
            reason = "split"
            nodes = sorted(f"{labels[n][0]} ({labels[n][1]})" for n in held if n in labels)
        else:
            reason = "link_not_recovered" if link.id in revealed_links else "link_not_revealed"
    return ChainOutcome(
        chain_id=chain.id,
        kind=chain.kind,
        completed=False,
        reached=before,
        stopped_at=target,
        reason=reason,
        nodes=nodes,
    )
