"""Scoring extractions against hand-labelled gold answers (`tests/data/extraction/gold_*.yaml`).

An expected node matches a predicted one when the types are equal and every keyword is the start
of some word (or of its lemma) of the predicted label; an expected edge matches when the edge
types are equal and both endpoint labels match their keywords. Matching is one-to-one (greedy in
file order). Precision and recall are micro-averaged.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import yaml
from pydantic import BaseModel, Field

from services.extraction.models import ConceptBrief, ExistingNode, ExtractionRequest, ExtractionResult

if TYPE_CHECKING:
    from services.extraction.engine import ExtractionEngine
    from shared.methodology import ConceptRegistry


class GoldNode(BaseModel):
    """An expected node."""

    keywords: list[str]
    type: str


class GoldEdge(BaseModel):
    """An expected edge (endpoints by keywords; they may be existing nodes)."""

    source: list[str]
    target: list[str]
    type: str


class GoldItem(BaseModel):
    """One answer with what a careful coder would extract from it."""

    id: str
    text: str
    question: str = ""
    existing: list[ExistingNode] = Field(default_factory=list)
    nodes: list[GoldNode] = Field(default_factory=list)
    edges: list[GoldEdge] = Field(default_factory=list)
    split: str = "dev"


class GoldSet(BaseModel):
    """A gold file."""

    methodology: str
    concept: str
    items: list[GoldItem]


def load_gold(path: Path) -> GoldSet:
    """Parse one gold YAML file."""
    return GoldSet.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))


@dataclass
class Counts:
    """True positives and totals for nodes and edges."""

    node_tp: int = 0
    node_pred: int = 0
    node_gold: int = 0
    edge_tp: int = 0
    edge_pred: int = 0
    edge_gold: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        """Accumulate another item's counts."""
        self.node_tp += other.node_tp
        self.node_pred += other.node_pred
        self.node_gold += other.node_gold
        self.edge_tp += other.edge_tp
        self.edge_pred += other.edge_pred
        self.edge_gold += other.edge_gold
        self.misses += other.misses

    @staticmethod
    def _ratio(a: int, b: int) -> float:
        return a / b if b else 1.0

    @property
    def node_precision(self) -> float:
        """Matched predicted nodes / predicted nodes."""
        return self._ratio(self.node_tp, self.node_pred)

    @property
    def node_recall(self) -> float:
        """Matched gold nodes / gold nodes."""
        return self._ratio(self.node_tp, self.node_gold)

    @property
    def edge_precision(self) -> float:
        """Matched predicted edges / predicted edges."""
        return self._ratio(self.edge_tp, self.edge_pred)

    @property
    def edge_recall(self) -> float:
        """Matched gold edges / gold edges."""
        return self._ratio(self.edge_tp, self.edge_gold)


_WORD = re.compile(r"[^\W_]+(?:[-+][^\W_]+)*", re.UNICODE)


class Matcher:
    """Keyword matching with a lemmatizer (lemma or surface prefix)."""

    def __init__(self, lemma: Callable[[str], str]) -> None:
        self._lemma = lemma

    def words(self, label: str) -> set[str]:
        """Surface words and lemmas of a label, lower-cased."""
        out: set[str] = set()
        for w in _WORD.findall(label.lower()):
            out.add(w)
            out.add(self._lemma(w))
            out.update(part for part in w.split("-") if part)
        return out

    def matches(self, keywords: list[str], label: str) -> bool:
        """Every keyword starts some word (or lemma) of `label`."""
        words = self.words(label)
        return all(
            any(w.startswith(k.lower()) or w.startswith(self._lemma(k.lower())) for w in words)
            for k in keywords
        )


def score_item(item: GoldItem, result: ExtractionResult, matcher: Matcher) -> Counts:
    """Counts for one answer (misses are listed for the verbose report)."""
    counts = Counts(
        node_pred=len(result.concepts),
        node_gold=len(item.nodes),
        edge_pred=len(result.relationships),
        edge_gold=len(item.edges),
    )
    used: set[int] = set()
    for gold in item.nodes:
        hit = next(
            (
                i
                for i, c in enumerate(result.concepts)
                if i not in used and c.node_type == gold.type and matcher.matches(gold.keywords, c.label)
            ),
            None,
        )
        if hit is None:
            counts.misses.append(f"{item.id}: missed node {gold.type} {gold.keywords}")
        else:
            used.add(hit)
            counts.node_tp += 1
    counts.misses += [
        f"{item.id}: extra node {c.node_type} {c.label!r}"
        for i, c in enumerate(result.concepts)
        if i not in used
    ]
    used_e: set[int] = set()
    for edge in item.edges:
        hit = next(
            (
                i
                for i, r in enumerate(result.relationships)
                if i not in used_e
                and r.edge_type == edge.type
                and matcher.matches(edge.source, r.source_label)
                and matcher.matches(edge.target, r.target_label)
            ),
            None,
        )
        if hit is None:
            counts.misses.append(f"{item.id}: missed edge {edge.source} -{edge.type}-> {edge.target}")
        else:
            used_e.add(hit)
            counts.edge_tp += 1
    counts.misses += [
        f"{item.id}: extra edge {r.source_label!r} -{r.edge_type}-> {r.target_label!r}"
        for i, r in enumerate(result.relationships)
        if i not in used_e
    ]
    return counts


async def evaluate_set(
    engine: ExtractionEngine,
    concepts: ConceptRegistry,
    gold: GoldSet,
    split: str | None = None,
    *,
    check: Callable[[ExtractionResult], None] | None = None,
) -> Counts:
    """Run `engine` on every item of `gold` (optionally one split) and sum the counts; `check`, when
    given, sees every result first (the gold test asserts there that no LLM was called)."""
    concept = concepts.get(gold.concept)
    brief = ConceptBrief(
        id=concept.id, name=concept.name, objective=concept.objective, vocabulary=concept.vocabulary
    )
    matcher = Matcher(engine.pre.pipeline.lemma)
    total = Counts()
    for item in gold.items:
        if split is not None and item.split != split:
            continue
        request = ExtractionRequest(
            session_id="gold",
            utterance_id=item.id,
            text=item.text,
            question=item.question,
            methodology=gold.methodology,
            concept=brief,
            existing_nodes=tuple(item.existing),
        )
        result = await engine.extract(request)
        if check is not None:
            check(result)
        total.add(score_item(item, result, matcher))
    return total
