"""Persona shaping of the offline respondent: mood at a turn, and the final wording of an answer.

`mood_at` folds the fatigue curve into the persona's numbers for one turn. `AnswerDraft` holds
the planned sentences (essential ones carry the revealed content; optional ones are detail,
tangents, feelings) and `render` applies hedges and an opener, trims optional sentences to the
persona's word budget and capitalises.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from simulation.personas import Persona
from simulation.text import capitalise, decapitalise, word_count


@dataclass(frozen=True)
class Mood:
    """The persona's effective behaviour at one turn."""

    energy: float
    elements_per_answer: int
    extra_element_probability: float
    detail_probability: float
    deflection_probability: float
    restate_focus: bool
    shortest: bool
    min_words: int
    max_words: int


def mood_at(persona: Persona, turn: int) -> Mood:
    """`persona` at `turn`: fatigue scales depth, detail and length down and deflection up."""
    energy = persona.fatigue.energy(turn)
    length = persona.answer_length
    tired = 1.0 - energy
    return Mood(
        energy=energy,
        elements_per_answer=max(1, round(length.elements_per_answer * energy)),
        extra_element_probability=length.extra_element_probability * energy,
        detail_probability=length.detail_probability * energy,
        deflection_probability=min(
            1.0, persona.deflection.probability + persona.fatigue.deflection_boost * tired
        ),
        restate_focus=length.restate_focus and energy >= 0.5,
        shortest=not length.restate_focus or energy < 0.5,
        min_words=max(3, round(length.min_words * energy)),
        max_words=max(8, round(length.max_words * energy)),
    )


@dataclass
class Sentence:
    """One planned sentence."""

    text: str
    essential: bool = True
    hedgeable: bool = True


@dataclass
class AnswerDraft:
    """Sentences of an answer under construction, plus the behaviours that fired."""

    sentences: list[Sentence] = field(default_factory=list)
    behaviours: list[str] = field(default_factory=list)
    # the answer says nothing of what was asked is left (see RespondentTurn.nothing_left)
    nothing_left: bool = False

    def add(self, text: str | None, *, essential: bool = True, hedgeable: bool = True) -> Sentence | None:
        """Append a sentence (None is ignored); returns it so a later level can extend it."""
        if not text:
            return None
        sentence = Sentence(text, essential, hedgeable)
        self.sentences.append(sentence)
        return sentence

    def note(self, behaviour: str) -> None:
        """Record that a persona behaviour fired."""
        if behaviour not in self.behaviours:
            self.behaviours.append(behaviour)


def _hedge(text: str, phrase: str) -> str:
    if phrase in {"kind of", "sort of"}:
        body = text.rstrip(".!?")
        return f"{body}, {phrase}."
    if phrase in {"maybe", "probably"}:
        return f"{phrase}, {decapitalise(text)}"
    return f"{phrase} {decapitalise(text)}"


# Openers that claim the answer was given before: said only when the answer returns to something.
_SAID_BEFORE = ("like i said", "as i said", "again", "as i mentioned", "like i mentioned")


def render(draft: AnswerDraft, persona: Persona, mood: Mood, rng: random.Random) -> str:
    """The final answer text of `draft` in the persona's voice."""
    sentences = list(draft.sentences)
    hedging = persona.hedging
    for s in sentences:
        if s.hedgeable and s.essential and hedging.probability and rng.random() < hedging.probability:
            s.text = _hedge(s.text, rng.choice(hedging.phrases))
            draft.note("hedge")
    # trim optional sentences (from the end) to the word budget; essential content always stays
    while word_count(" ".join(s.text for s in sentences)) > mood.max_words:
        optional = [i for i, s in enumerate(sentences) if not s.essential]
        if not optional:
            break
        sentences.pop(optional[-1])
    texts = [capitalise(s.text.strip()) for s in sentences if s.text.strip()]
    openers = persona.speech_pattern.openers
    if texts and openers and rng.random() < 0.35 * mood.energy:
        opener = rng.choice(openers)
        if texts[0].lower().startswith(opener.lower().rstrip(",.!?: ")):
            opener = ""  # "Like I said, like I said, …": the answer already opens that way
        elif opener.lower().startswith(_SAID_BEFORE) and "fixation" not in draft.behaviours:
            opener = ""  # "Like I said, I ordered a thermos": only what comes back can be "said" before
        if opener:
            # "Well, because ..." runs on; "Good question. Because ..." starts a new sentence
            first = texts[0] if opener.endswith((".", "!", "?", ":")) else decapitalise(texts[0])
            texts[0] = f"{opener} {first}"
    return " ".join(texts)
