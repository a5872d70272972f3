"""The rubric through a networked LLM: one batched structured call per answer, never cached.

Invalid structured output is the LLM client's business (one repair attempt, then
`LLMInvalidOutputError`, which the server maps to a clear status): a malformed reply is never
turned into an empty or default rubric.
"""

from __future__ import annotations

from services.scoring.rubric.models import Rubric, RubricOutput
from services.scoring.rubric.prompt import system_prompt, user_prompt
from shared.llm.base import LLMClient


class LLMRubricScorer:
    """Scores an answer with the `scoring` LLM client (question and answer both in the prompt)."""

    def __init__(self, client: LLMClient) -> None:
        if client.is_offline:
            raise ValueError("LLMRubricScorer needs a networked client; use LocalRubricScorer offline")
        self._client = client
        self._system = system_prompt()

    async def score(self, question: str, answer: str, *, session_id: str | None = None) -> Rubric:
        """One `complete_json` call validated against `RubricOutput`."""
        result = await self._client.complete_json(
            system=self._system,
            user=user_prompt(question, answer),
            schema=RubricOutput,
            tool_name="score_rubric",
            session_id=session_id,
        )
        return result.value.to_rubric(result.usage)
