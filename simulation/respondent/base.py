"""The respondent interface both engines implement, and what each answer records."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from shared.llm.base import LLMUsage


class RespondentTurn(BaseModel):
    """One answer and what it gave away of the hidden knowledge."""

    turn: int
    question: str
    answer: str
    kind: str = Field(description="How the question was read (offline) or 'llm'.")
    type_hints: list[str] = Field(default_factory=list)
    focus_element: str | None = Field(default=None, description="The hidden element the question was about.")
    revealed_elements: list[str] = Field(
        default_factory=list, description="Element ids revealed for the first time."
    )
    revealed_links: list[str] = Field(
        default_factory=list, description="Link ids (`source->target`) first stated."
    )
    mentioned_elements: list[str] = Field(
        default_factory=list,
        description="Element ids first named only in passing, inside what the answer said of another "
        "element (the offline engine; the LLM engine lists every detected mention as revealed).",
    )
    behaviours: list[str] = Field(default_factory=list, description="Persona behaviours that fired.")
    nothing_left: bool | None = Field(
        default=None,
        description="The respondent said it had nothing left of what the question asked for (another "
        "incident, another thread): a question of the same kind asked later can only get that again. "
        "None when the engine does not know (the LLM engine).",
    )


class Respondent(Protocol):
    """A synthetic respondent: `await answer(question, turn)` returns the answer text.

    The method is a coroutine because the LLM engine awaits its provider; the offline engine
    answers at once. `log` lists every answer with what it revealed; `usage` sums LLM usage
    (zero calls for the offline engine).
    """

    engine: str
    log: list[RespondentTurn]

    @property
    def usage(self) -> LLMUsage:
        """LLM usage of the respondent itself (not the interviewer's)."""
        ...

    async def answer(self, question: str, turn: int) -> str:
        """The answer to `question`, asked in interview turn `turn` (1-based)."""
        ...

    def revealed(self) -> tuple[set[str], set[str]]:
        """Element ids and link ids revealed so far (elements named in passing included)."""
        ...
