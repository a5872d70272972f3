"""Choosing which existing node labels the extractor sees (all of them up to a limit)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from spacy.lang.en.stop_words import STOP_WORDS

from services.extraction.models import ExistingNode


def rank_existing(
    nodes: Sequence[ExistingNode],
    *,
    text: str,
    question: str,
    limit: int,
    lemmatize: Callable[[str], list[str]],
) -> list[ExistingNode]:
    """All nodes when there are at most `limit`; else the `limit` most relevant.

    Relevance is the share of a label's content lemmas that occur in the answer or the question;
    ties keep the caller's order (the orchestrator sends nodes most recent first, or pre-ranked by
    embedding similarity). Labels repeated with the same type are sent once.
    """
    unique: list[ExistingNode] = []
    seen: set[tuple[str, str]] = set()
    for node in nodes:
        key = (node.label.strip().lower(), node.node_type)
        if key[0] and key not in seen:
            seen.add(key)
            unique.append(node)
    if len(unique) <= limit:
        return unique
    context = {lem for lem in lemmatize(f"{question} {text}") if lem not in STOP_WORDS}

    def score(pair: tuple[int, ExistingNode]) -> tuple[float, int]:
        order, node = pair
        words = {lem for lem in lemmatize(node.label) if lem not in STOP_WORDS}
        share = len(words & context) / len(words) if words else 0.0
        return (-share, order)

    ranked = sorted(enumerate(unique), key=score)
    return [node for _, node in ranked[:limit]]
