"""Print the offline rubric scorer's agreement with the hand-labelled answers.

    python -m services.scoring.rubric.calibrate [tests/data/rubric/labelled_answers.yaml] [--details]

For each dimension: mean absolute error, exact agreement and exact-or-adjacent (|error| ≤ 1).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from services.scoring.rubric.local_scorer import LocalRubricScorer
from services.scoring.rubric.models import RUBRIC_DIMENSIONS

DEFAULT_PATH = Path("tests/data/rubric/labelled_answers.yaml")
SHORT = {
    "d": "response_depth",
    "s": "specificity",
    "c": "certainty",
    "v": "valence",
    "e": "engagement",
    "i": "intellectual_engagement",
}


@dataclass(frozen=True)
class LabelledAnswer:
    """One hand-labelled answer."""

    id: str
    question: str
    answer: str
    expected: dict[str, int]


@dataclass(frozen=True)
class Agreement:
    """Agreement figures of one dimension."""

    dimension: str
    n: int
    mean_abs_error: float
    exact: float
    within_one: float


def load_labelled(path: Path = DEFAULT_PATH) -> list[LabelledAnswer]:
    """Read the labelled set (short dimension keys expanded)."""
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    items = []
    for raw in data["items"]:
        expected = {SHORT[k]: int(v) for k, v in raw["expected"].items()}
        items.append(LabelledAnswer(raw["id"], raw["question"], raw["answer"], expected))
    return items


def agreement(items: list[LabelledAnswer]) -> dict[str, Agreement]:
    """Per-dimension agreement of the local scorer with the labels."""
    scorer = LocalRubricScorer()
    errors: dict[str, list[int]] = {d: [] for d in RUBRIC_DIMENSIONS}
    for item in items:
        rubric = scorer.score_sync(item.question, item.answer)
        for dim in RUBRIC_DIMENSIONS:
            errors[dim].append(rubric.score(dim) - item.expected[dim])
    out = {}
    for dim, errs in errors.items():
        n = len(errs)
        out[dim] = Agreement(
            dimension=dim,
            n=n,
            mean_abs_error=sum(abs(e) for e in errs) / n,
            exact=sum(1 for e in errs if e == 0) / n,
            within_one=sum(1 for e in errs if abs(e) <= 1) / n,
        )
    return out


def main(argv: list[str]) -> int:
    """Print the table (and, with --details, every disagreement larger than one point)."""
    args = [a for a in argv if not a.startswith("--")]
    path = Path(args[0]) if args else DEFAULT_PATH
    items = load_labelled(path)
    print(f"{len(items)} labelled answers from {path}")
    print(f"{'dimension':<26}{'MAE':>6}{'exact':>8}{'±1':>8}")
    for a in agreement(items).values():
        print(f"{a.dimension:<26}{a.mean_abs_error:>6.2f}{a.exact:>8.0%}{a.within_one:>8.0%}")
    if "--details" in argv:
        scorer = LocalRubricScorer()
        for item in items:
            rubric = scorer.score_sync(item.question, item.answer)
            for dim in RUBRIC_DIMENSIONS:
                got, want = rubric.score(dim), item.expected[dim]
                if got != want:
                    print(f"  {item.id:<28}{dim:<24} got {got} want {want}  ({rubric.scores[dim].rationale})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
