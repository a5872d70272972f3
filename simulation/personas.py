"""Synthetic respondent personas (`config/personas/*.yaml`): the model, the loader, validation.

A persona describes *how* a person answers, independent of *what* they know (the scenario):
traits and speech pattern (for the LLM prompt), an answer-length profile, how often they hedge,
deflect, drift off topic, question the question or colour answers with strong feelings, a fatigue
curve, fixation on one topic, and rationalisation (withholding emotional reasons until probed).
The offline respondent reads the numbers; the LLM respondent gets them rendered as instructions.

Every problem in a file raises `PersonaError` naming the file and each bad field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shared.errors import NotFoundError
from simulation.yamlio import ConfigFileError, read_yaml_mapping, violations_of

Probability = Annotated[float, Field(ge=0.0, le=1.0)]


class PersonaError(ConfigFileError):
    """An invalid persona file; the message names the file and every bad field."""

    kind = "persona"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SpeechPattern(_Strict):
    """How the person talks: a prose description for prompts, plus sentence openers."""

    description: str = Field(min_length=1)
    openers: tuple[str, ...] = ()


class AnswerLength(_Strict):
    """Answer-length profile: word range and how much is revealed per answer."""

    min_words: int = Field(
        ge=3, description="Answers are padded with detail up to this length when possible."
    )
    max_words: int = Field(ge=3, description="Optional sentences are dropped beyond this length.")
    elements_per_answer: int = Field(
        ge=1, le=3, description="Hidden elements revealed by one laddering answer."
    )
    extra_element_probability: Probability = 0.0
    detail_probability: Probability = 0.0
    restate_focus: bool = Field(default=True, description="Name the item asked about before answering.")

    @model_validator(mode="after")
    def _range(self) -> AnswerLength:
        if self.min_words > self.max_words:
            raise ValueError("min_words must not exceed max_words")
        return self


class PhraseBehaviour(_Strict):
    """A behaviour that fires with `probability` and then uses one of `phrases`."""

    probability: Probability = 0.0
    phrases: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _phrases(self) -> PhraseBehaviour:
        if self.probability > 0 and not self.phrases:
            raise ValueError("phrases must not be empty when probability > 0")
        return self


class Scepticism(PhraseBehaviour):
    """Questions the question: a prefix before answering, or (rarely) only a counter-question."""

    question_only_probability: Probability = 0.0
    counter_questions: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _counter(self) -> Scepticism:
        if self.question_only_probability > 0 and not self.counter_questions:
            raise ValueError("counter_questions must not be empty when question_only_probability > 0")
        return self


class Valence(_Strict):
    """Emotional colouring: how often a strong positive/negative sentence is added."""

    intensity: Probability = 0.0
    positive: tuple[str, ...] = ()
    negative: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _words(self) -> Valence:
        if self.intensity > 0 and not (self.positive and self.negative):
            raise ValueError("positive and negative must not be empty when intensity > 0")
        return self


class Fatigue(_Strict):
    """Engagement over the interview: 1.0 until `onset_turn`, then down by `decay_per_turn` to `floor`."""

    onset_turn: int = Field(default=0, ge=0, description="0 = never tires.")
    decay_per_turn: float = Field(default=0.0, ge=0.0, le=1.0)
    floor: Probability = 1.0
    deflection_boost: Probability = Field(
        default=0.0, description="Added to the deflection probability at full fatigue (scaled by tiredness)."
    )

    def energy(self, turn: int) -> float:
        """Engagement in [floor, 1] at `turn` (1-based)."""
        if self.onset_turn == 0 or turn < self.onset_turn:
            return 1.0
        return max(self.floor, 1.0 - self.decay_per_turn * (turn - self.onset_turn + 1))


class Fixation(PhraseBehaviour):
    """Keeps returning to the first chain they talked about; `{focus}` in a phrase names its first item."""


class Rationalisation(_Strict):
    """Practical reasons first: emotional levels are withheld until the item was probed this often."""

    emotional_probe_threshold: int = Field(
        default=0, ge=0, le=5, description="Probes of one item needed before an emotional level is revealed."
    )
    practical_phrases: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _phrases(self) -> Rationalisation:
        if self.emotional_probe_threshold > 1 and not self.practical_phrases:
            raise ValueError("practical_phrases must not be empty when emotional_probe_threshold > 1")
        return self


class LlmPrompting(_Strict):
    """Extra settings for the LLM persona."""

    temperature: float = Field(default=0.8, ge=0.0, le=2.0)
    instructions: tuple[str, ...] = ()


class Persona(_Strict):
    """One synthetic respondent behaviour (SPEC: nine of them)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    title: str = Field(min_length=1)
    description: str = Field(min_length=1)
    traits: tuple[str, ...] = Field(min_length=1)
    speech_pattern: SpeechPattern
    answer_length: AnswerLength
    hedging: PhraseBehaviour = PhraseBehaviour()
    deflection: PhraseBehaviour = PhraseBehaviour()
    tangents: PhraseBehaviour = PhraseBehaviour()
    scepticism: Scepticism = Scepticism()
    valence: Valence = Valence()
    fatigue: Fatigue = Fatigue()
    fixation: Fixation = Fixation()
    rationalisation: Rationalisation = Rationalisation()
    llm: LlmPrompting = LlmPrompting()


def load_persona_file(path: Path) -> Persona:
    """Load and validate one persona file; its `name` must equal the file stem."""
    data = read_yaml_mapping(path, PersonaError)
    try:
        persona = Persona.model_validate(data)
    except ValidationError as exc:
        raise PersonaError(path, violations_of(exc)) from exc
    if persona.name != path.stem:
        raise PersonaError.single(path, "name", f"must equal the file name {path.stem!r}")
    return persona


class PersonaRegistry:
    """The personas of `<config_dir>/personas/`, loaded and validated once."""

    def __init__(self, config_dir: Path) -> None:
        self.directory = config_dir / "personas"
        self._personas = {p.stem: load_persona_file(p) for p in sorted(self.directory.glob("*.yaml"))}

    def names(self) -> list[str]:
        """Persona names, sorted."""
        return sorted(self._personas)

    def get(self, name: str) -> Persona:
        """The persona called `name` (NotFoundError when there is none)."""
        try:
            return self._personas[name]
        except KeyError:
            raise NotFoundError("persona", name) from None

    def all(self) -> list[Persona]:
        """Every persona, sorted by name."""
        return [self._personas[n] for n in self.names()]
