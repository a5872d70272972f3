"""Builders for scoring tests: small methodologies (as real YAML files), inputs and trackers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from services.scoring.detectors import build_default_registry
from services.scoring.engine import ScoringEngine
from services.scoring.models import SelectionMode
from services.scoring.rubric.models import Rubric, RubricScorer
from shared.methodology import MethodologyRegistry, load_methodology_file

ONTOLOGY: dict[str, Any] = {
    "nodes": [
        {"name": "attribute", "level": 1},
        {"name": "consequence", "level": 2},
        {"name": "value", "level": 3, "terminal": True},
    ],
    "edges": [
        {
            "name": "leads_to",
            "permitted_connections": [["attribute", "consequence"], ["consequence", "value"]],
        }
    ],
}


def methodology_dict(
    name: str,
    strategies: list[dict[str, Any]],
    *,
    signals: dict[str, list[str]] | None = None,
    phases: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A methodology document; `signals` defaults to every signal the weights name, per pool."""
    if signals is None:
        from shared.signal_catalog import SIGNAL_CATALOG, resolve_weight_key

        signals = {}
        for strategy in strategies:
            for key in strategy["signal_weights"]:
                sig, _ = resolve_weight_key(key)
                pool = SIGNAL_CATALOG[sig].pool.value
                if sig not in signals.setdefault(pool, []):
                    signals[pool].append(sig)
    doc: dict[str, Any] = {
        "method": {"name": name, "goal": "test goal"},
        "ontology": ONTOLOGY,
        "signals": signals,
        "strategies": strategies,
    }
    if phases:
        doc["phases"] = phases
    return doc


def write_methodology(config_dir: Path, doc: dict[str, Any]) -> Path:
    """Write `doc` as `<config_dir>/methodologies/<name>.yaml` and check it loads."""
    folder = config_dir / "methodologies"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{doc['method']['name']}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    load_methodology_file(path)
    return path


class CountingScorer:
    """A rubric scorer that returns a fixed rubric and records each call (question, answer)."""

    def __init__(self, rubric: Rubric) -> None:
        self.rubric = rubric
        self.calls: list[tuple[str, str]] = []

    async def score(self, question: str, answer: str, *, session_id: str | None = None) -> Rubric:
        self.calls.append((question, answer))
        return self.rubric


def engine_for(
    config_dir: Path, scorer: RubricScorer, mode: SelectionMode = SelectionMode.JOINT
) -> ScoringEngine:
    """An engine over the methodologies in `config_dir`."""
    return ScoringEngine(MethodologyRegistry(config_dir), build_default_registry(), scorer, default_mode=mode)


def rubric(
    depth: int = 3,
    specificity: int = 3,
    certainty: int = 3,
    valence: int = 3,
    engagement: int = 3,
    intellectual: int = 3,
) -> Rubric:
    """A rubric from bare scores."""
    return Rubric.from_scores(
        {
            "response_depth": depth,
            "specificity": specificity,
            "certainty": certainty,
            "valence": valence,
            "engagement": engagement,
            "intellectual_engagement": intellectual,
        }
    )
