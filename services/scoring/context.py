"""The read-only context detectors compute from: the inputs, the methodology and the rubric."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy import sparse

from services.scoring.models import SignalInputs
from services.scoring.rubric.models import Rubric
from shared.methodology_models import MethodologyConfig
from shared.node_tracker import NodeStateTracker

_LABEL_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script
_LABEL_STOP = frozenset({"a", "an", "the", "of", "to", "and", "or", "for", "in", "on", "with", "my", "it"})


@lru_cache(maxsize=8192)
def _label_terms(label: str) -> frozenset[str]:
    """Content words of a label, crudely singularised ("cars" ~ "car"). Cached: every turn sends
    every node's label again, and all but the turn's new ones were seen before."""
    terms = set()
    for word in _LABEL_WORD.findall(label.lower()):
        if word in _LABEL_STOP:
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        terms.add(word)
    return frozenset(terms)


def label_novelty(labels: dict[str, str]) -> dict[str, float]:
    """`graph.node.novelty` per key: 1 − the highest Jaccard overlap of its label terms with any other.

    Lexical, because the request carries no embeddings (scoring.proto has no per-node similarity).
    The shared-term counts of every pair are one sparse product of the node × term incidence matrix
    with its transpose, so the cost follows the pairs that actually share a term, in compiled code:
    a Python loop per node made this a quarter of SelectStrategy's time at 150 nodes, and it runs
    on every turn's critical path. A label with no content words is 0; one sharing no term, 1.
    """
    keys = list(labels)
    terms = [_label_terms(labels[k]) for k in keys]
    vocab: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for i, words in enumerate(terms):
        for word in words:
            rows.append(i)
            cols.append(vocab.setdefault(word, len(vocab)))
    n = len(keys)
    incidence = sparse.csr_matrix(
        (np.ones(len(rows), dtype=np.float64), (rows, cols)), shape=(n, max(len(vocab), 1))
    )
    shared = (incidence @ incidence.T).tocoo()
    off_diagonal = shared.row != shared.col
    i, j, common = shared.row[off_diagonal], shared.col[off_diagonal], shared.data[off_diagonal]
    sizes = np.asarray([len(t) for t in terms], dtype=np.float64)
    best = np.zeros(n, dtype=np.float64)
    np.maximum.at(best, i, common / (sizes[i] + sizes[j] - common))
    return {key: (1.0 - float(best[k]) if terms[k] else 0.0) for k, key in enumerate(keys)}


@dataclass
class DetectionContext:
    """Inputs + methodology + the rubric for this answer (None when no LLM signal is planned)."""

    inputs: SignalInputs
    methodology: MethodologyConfig
    rubric: Rubric | None = None

    @property
    def tracker(self) -> NodeStateTracker:
        """The node tracker (read-only by convention)."""
        return self.inputs.tracker

    @cached_property
    def level_count(self) -> int:
        """Number of distinct ontology levels (normalises depth signals)."""
        return self.methodology.level_count

    @cached_property
    def node_novelty(self) -> dict[str, float]:
        """Lexical novelty of every tracked node (computed once per detection)."""
        return label_novelty({key: state.label for key, state in self.tracker.states.items()})

    def require_rubric(self) -> Rubric:
        """The rubric; a missing one here is a programming error (the engine resolves it first)."""
        if self.rubric is None:
            raise RuntimeError("an LLM signal was planned but no rubric was resolved")
        return self.rubric
