"""The six-dimension rubric: dimension names, the per-answer result, and the LLM output schema."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from shared.llm.base import LLMUsage

RUBRIC_DIMENSIONS: tuple[str, ...] = (
    "response_depth",
    "specificity",
    "certainty",
    "valence",
    "engagement",
    "intellectual_engagement",
)
"""The rubric dimensions; each becomes the signal `llm.<dimension>`."""


class RubricScore(BaseModel):
    """One dimension: a 1–5 score and a short rationale."""

    model_config = ConfigDict(frozen=True)

    name: str
    score: int = Field(ge=1, le=5)
    rationale: str = ""


class Rubric(BaseModel):
    """The rubric of one answer: every dimension scored, plus what it cost."""

    model_config = ConfigDict(frozen=True)

    scores: dict[str, RubricScore]
    usage: LLMUsage = Field(default_factory=LLMUsage)

    def score(self, dimension: str) -> int:
        """The 1–5 score of `dimension` (KeyError when absent)."""
        return self.scores[dimension].score

    @classmethod
    def from_scores(cls, scores: Mapping[str, int], usage: LLMUsage | None = None) -> Rubric:
        """A rubric from bare scores (rationales empty) — handy for tests and replays."""
        return cls(
            scores={name: RubricScore(name=name, score=value) for name, value in scores.items()},
            usage=usage or LLMUsage(),
        )


class DimensionAssessment(BaseModel):
    """What the LLM returns for one dimension."""

    model_config = ConfigDict(extra="forbid")

    score: int = Field(ge=1, le=5, description="1-5 on the dimension's rubric")
    rationale: str = Field(min_length=1, max_length=400, description="one short sentence")


class RubricOutput(BaseModel):
    """The structured output of the batched rubric call (one object, all six dimensions)."""

    model_config = ConfigDict(extra="forbid")

    response_depth: DimensionAssessment
    specificity: DimensionAssessment
    certainty: DimensionAssessment
    valence: DimensionAssessment
    engagement: DimensionAssessment
    intellectual_engagement: DimensionAssessment

    def to_rubric(self, usage: LLMUsage) -> Rubric:
        """As a `Rubric`, in dimension order."""
        scores = {}
        for name in RUBRIC_DIMENSIONS:
            item: DimensionAssessment = getattr(self, name)
            scores[name] = RubricScore(name=name, score=item.score, rationale=item.rationale)
        return Rubric(scores=scores, usage=usage)


class RubricScorer(Protocol):
    """Scores one answer on the six dimensions (one batched LLM call, or the offline lexical engine)."""

    async def score(self, question: str, answer: str, *, session_id: str | None = None) -> Rubric:
        """The rubric of `answer` given the interviewer's `question`."""
        ...
