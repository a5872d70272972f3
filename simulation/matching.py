"""Matching graph node labels to hidden elements (ground truth).

A node matches an element when, for at least one of the element's texts (its label and every
phrasing):

* the Dice overlap of content lemmas is at least `TOKEN_THRESHOLD` (0.5) — e.g. "comfortable" vs
  "comfortable ear cushions" = 2·1/(1+3) = 0.5; or
* the cosine similarity of all-MiniLM-L6-v2 embeddings is at least `COSINE_THRESHOLD` (0.70),
  when an `Embedder` is given (it catches paraphrases: "calm at work" ~ "feel less stressed").

Each node is assigned to its best-scoring element (score = the larger of the two measures), so one
node never recovers two elements; several nodes may recover the same element.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from simulation.scenarios import Scenario
from simulation.text import Lemmatizer, token_f1

if TYPE_CHECKING:
    from shared.embeddings import Embedder

TOKEN_THRESHOLD = 0.5
COSINE_THRESHOLD = 0.70


@dataclass(frozen=True)
class Match:
    """A node assigned to a hidden element."""

    node_id: str
    label: str
    node_type: str
    element_id: str
    score: float
    method: str  # "tokens" or "embedding"


class ElementMatcher:
    """Scores labels against a scenario's elements."""

    def __init__(
        self,
        scenario: Scenario,
        lemmatizer: Lemmatizer,
        embedder: Embedder | None = None,
        *,
        token_threshold: float = TOKEN_THRESHOLD,
        cosine_threshold: float = COSINE_THRESHOLD,
    ) -> None:
        self.scenario = scenario
        self.lemmas = lemmatizer
        self.embedder = embedder
        self.token_threshold = token_threshold
        self.cosine_threshold = cosine_threshold
        self._texts = [(i, t) for i, e in enumerate(scenario.elements) for t in e.texts]
        self._text_tokens = [lemmatizer.content(t) for _, t in self._texts]
        self._text_vectors = embedder.encode([t for _, t in self._texts]) if embedder is not None else None

    def _per_element(self, per_text: np.ndarray) -> np.ndarray:
        """Max over each element's texts: (n, texts) → (n, elements)."""
        out = np.zeros((per_text.shape[0], len(self.scenario.elements)), dtype=np.float32)
        for col, (el_index, _) in enumerate(self._texts):
            np.maximum(out[:, el_index], per_text[:, col], out=out[:, el_index])
        return out

    def scores(self, labels: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Token-overlap and cosine matrices, shape (len(labels), elements); cosine is 0 without embedder."""
        tokens = np.array(
            [[token_f1(self.lemmas.content(label), toks) for toks in self._text_tokens] for label in labels],
            dtype=np.float32,
        ).reshape(len(labels), len(self._texts))
        cosine = np.zeros_like(tokens)
        if self.embedder is not None and self._text_vectors is not None and labels:
            from shared.embeddings import cosine_matrix

            cosine = cosine_matrix(self.embedder.encode(list(labels)), self._text_vectors)
        return self._per_element(tokens), self._per_element(cosine)

    def assign(self, nodes: Sequence[tuple[str, str, str]]) -> list[Match]:
        """Best element per node `(id, label, node_type)`, for nodes that match any element."""
        if not nodes:
            return []
        tok, cos = self.scores([label for _, label, _ in nodes])
        accepted = (tok >= self.token_threshold) | (cos >= self.cosine_threshold)
        best = np.where(accepted, np.maximum(tok, cos), -1.0)
        out = []
        for row, (node_id, label, node_type) in enumerate(nodes):
            col = int(np.argmax(best[row]))
            if best[row, col] < 0:
                continue
            method = "tokens" if tok[row, col] >= self.token_threshold else "embedding"
            out.append(
                Match(
                    node_id, label, node_type, self.scenario.elements[col].id, float(best[row, col]), method
                )
            )
        return out
