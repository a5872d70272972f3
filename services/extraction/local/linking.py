"""Edges between candidates: from discourse relations, within clauses, in sequence, to an anchor.

Which items a connective links comes from the text; the edge's direction and type come from the
ontology: among the preferred edge types, the first whose permitted connections allow the pair
(either way round), oriented from the lower ontology level to the higher one, and for equal
levels from cause to effect.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from services.extraction.models import ConversationTurn, ExistingNode, Speaker
from shared.methodology_models import MethodologyConfig


@dataclass(frozen=True)
class Endpoint:
    """An edge end: a new candidate (with its char span) or an existing node (span None)."""

    label: str
    node_type: str
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class LinkedEdge:
    """A chosen edge with the char span of its evidence (None for anchor-only evidence)."""

    source: Endpoint
    target: Endpoint
    edge_type: str
    confidence: float
    span: tuple[int, int] | None


class EdgeChooser:
    """Picks edge type and direction for two endpoints from the methodology's ontology."""

    def __init__(self, methodology: MethodologyConfig) -> None:
        self._levels = {n.name: n.level for n in methodology.ontology.nodes}
        self._permitted = {e.name: set(e.permitted_connections) for e in methodology.ontology.edges}
        pairs = [(a, b) for e in methodology.ontology.edges for a, b in e.permitted_connections if a != b]
        terminal = {n.name for n in methodology.ontology.nodes if n.terminal}
        sources = {a for a, _ in pairs}
        # types only ever pointed at (a critical incident's `actor`): people around an event, not events
        self.participants = frozenset(b for _, b in pairs if b not in sources and b not in terminal)

    def node_types(self) -> list[str]:
        """Every node type of the ontology, in YAML order."""
        return list(self._levels)

    def level(self, node_type: str) -> int:
        """Ontology level of `node_type` (0 if unknown)."""
        return self._levels.get(node_type, 0)

    def permitted(self, edge_type: str, source_type: str, target_type: str) -> bool:
        """Whether the ontology allows `edge_type` from `source_type` to `target_type`."""
        return (source_type, target_type) in self._permitted.get(edge_type, set())

    def sources(self, edge_types: Collection[str], target_type: str) -> frozenset[str]:
        """The node types an edge of `edge_types` may run from into `target_type`."""
        return frozenset(
            a for edge in edge_types for a, b in self._permitted.get(edge, set()) if b == target_type
        )

    def choose(
        self,
        cause: Endpoint,
        effect: Endpoint,
        preferences: list[str],
        confidence: float,
        *,
        orient_by_level: bool = True,
    ) -> LinkedEdge | None:
        """The best permitted edge between the two (`cause` → `effect` is the textual direction)."""
        if cause.label == effect.label:
            return None
        options: list[tuple[int, int, Endpoint, Endpoint, str]] = []
        for rank, edge in enumerate(preferences):
            for src, dst in ((cause, effect), (effect, cause)):
                if not self.permitted(edge, src.node_type, dst.node_type):
                    continue
                options.append((rank, self._penalty(src, dst, cause, orient_by_level), src, dst, edge))
        if not options:
            return None
        _, _, src, dst, edge = min(options, key=lambda o: (o[0], o[1]))
        return LinkedEdge(src, dst, edge, confidence, _span(src, dst))

    def _penalty(self, src: Endpoint, dst: Endpoint, cause: Endpoint, orient_by_level: bool) -> int:
        ls, ld = self.level(src.node_type), self.level(dst.node_type)
        if orient_by_level and ls != ld:
            return 0 if ls < ld else 1
        return 0 if src is cause else 1


def _span(a: Endpoint, b: Endpoint) -> tuple[int, int] | None:
    spans = [(e.start, e.end) for e in (a, b) if e.start is not None and e.end is not None]
    if not spans:
        return None
    return min(s for s, _ in spans), max(e for _, e in spans)


def find_anchor(
    question: str,
    existing: tuple[ExistingNode, ...],
    lemmatize: Callable[[str], list[str]],
    stop: frozenset[str],
) -> ExistingNode | None:
    """The existing node the question is about (most of its label's content words in the question).

    None when the question names several nodes whole and none of them more than the others
    ("Looking back at punchy bass, the detachable microphone and enjoying your music, which of these
    matters most?"): the answer may be about any of them."""
    qset = {lem for lem in lemmatize(question) if lem not in stop}
    best: tuple[float, int, ExistingNode] | None = None
    whole = 0
    for node in existing:
        words = {lem for lem in lemmatize(node.label) if lem not in stop}
        if not words:
            continue
        share = len(words & qset) / len(words)
        whole += share == 1.0
        if share >= 0.33 and (best is None or (share, len(words)) > (best[0], best[1])):
            best = (share, len(words), node)
    if best is None or (best[0] == 1.0 and whole > 1 and _lists_options(question)):
        return None
    return best[2]


def told_last(
    recent_turns: Sequence[ConversationTurn],
    existing: tuple[ExistingNode, ...],
    node_types: Collection[str],
    lemmatize: Callable[[str], list[str]],
    stop: frozenset[str],
) -> ExistingNode | None:
    """The existing node of `node_types` the previous answer told last: every content word of its
    label is in that answer, the last of them furthest on. An answer that opens with "Then …" goes
    on from there when the question named nothing to go on from ("What happened next?")."""
    answer = next((t for t in reversed(recent_turns) if t.speaker is Speaker.RESPONDENT), None)
    if answer is None:
        return None
    told = lemmatize(answer.text)
    last = {lem: i for i, lem in enumerate(told)}
    best: tuple[int, int, ExistingNode] | None = None
    for node in existing:
        words = {lem for lem in lemmatize(node.label) if lem not in stop}
        if node.node_type not in node_types or not words or not words <= last.keys():
            continue
        key = (max(last[w] for w in words), len(words))
        if best is None or key > best[:2]:
            best = (*key, node)
    return best[2] if best is not None else None


def _lists_options(question: str) -> bool:
    """Whether the question asks the respondent to choose among the items it names."""
    q = question.lower()
    return any(p in q for p in ("which of these", "which one of", "which matters most", "of those"))
