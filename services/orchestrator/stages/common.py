"""What every stage may use: internal service stubs, the repository and settings."""

from __future__ import annotations

from dataclasses import dataclass

from services.orchestrator.clients import Dependencies
from services.orchestrator.repository import OrchestratorRepository
from services.orchestrator.rules import TerminationRules
from services.orchestrator.settings import OrchestratorSettings
from shared.gen.interview.common.v1 import common_pb2
from shared.methodology import MethodologyRegistry


@dataclass(frozen=True)
class StageDeps:
    """Injected into every stage's constructor."""

    deps: Dependencies
    repo: OrchestratorRepository
    settings: OrchestratorSettings
    methodologies: MethodologyRegistry
    rules: TerminationRules


def depth_score(rubric_scores: list[common_pb2.RubricScore]) -> int:
    """The rubric's response_depth score (3 = moderate when absent)."""
    for score in rubric_scores:
        if score.name == "response_depth":
            return max(1, min(5, score.score))
    return 3
