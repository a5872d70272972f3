"""Synthetic respondents: one interface (`Respondent`), an offline and an LLM engine."""

from __future__ import annotations

from typing import Literal

from shared.errors import FailedPreconditionError
from shared.llm.base import LLMClient
from simulation.personas import Persona
from simulation.respondent.base import Respondent, RespondentTurn
from simulation.respondent.llm import LLMRespondent
from simulation.respondent.offline import OfflineRespondent
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer

Engine = Literal["offline", "llm", "auto"]

__all__ = ["Engine", "LLMRespondent", "OfflineRespondent", "Respondent", "RespondentTurn", "build_respondent"]


def build_respondent(
    engine: Engine,
    persona: Persona,
    scenario: Scenario,
    *,
    seed: int,
    generation: LLMClient | None = None,
    lemmatizer: Lemmatizer | None = None,
) -> Respondent:
    """The respondent for `engine`: `auto` uses the LLM when `generation` is online, else offline."""
    if engine != "offline" and generation is not None and not generation.is_offline:
        return LLMRespondent(persona, scenario, generation, lemmatizer=lemmatizer)
    if engine == "llm":
        raise FailedPreconditionError(
            "engine 'llm' needs an online generation client (set LLM_GENERATION_PROVIDER and its API key)"
        )
    return OfflineRespondent(persona, scenario, seed=seed, lemmatizer=lemmatizer)
