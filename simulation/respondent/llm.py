"""The LLM persona respondent: the `generation` client plays the persona with the scenario's knowledge.

The system prompt describes the persona (traits, speech pattern, answer length and how often it
hedges, deflects, drifts off, questions the question, shows feelings, tires, fixates or
rationalises) and lists the hidden knowledge as chains of statements, with the rule to reveal
one step at a time and only what is asked. The user prompt is the conversation so far plus the
new question. What an answer revealed is detected afterwards by lemma overlap with the
elements' phrasings (`mentions`), so recall can be measured exactly as for the offline engine.
"""

from __future__ import annotations

from shared.errors import FailedPreconditionError
from shared.llm.base import LLMClient, LLMUsage
from shared.llm.observe import add_usage
from simulation.personas import Persona
from simulation.respondent.base import RespondentTurn
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer, coverage

MENTION_COVERAGE = 0.6
"""An element counts as mentioned when this share of one phrasing's content lemmas occurs in the answer."""

MAX_ANSWER_CHARS = 1500


def _often(p: float) -> str:
    if p >= 0.7:
        return "almost always"
    if p >= 0.4:
        return "often"
    if p >= 0.15:
        return "sometimes"
    return "rarely"


def persona_prompt(persona: Persona, scenario: Scenario) -> str:
    """The system prompt of the LLM respondent."""
    length = persona.answer_length
    lines = [
        "You are taking part in a qualitative research interview as the person described below.",
        "Stay in character. Answer in the first person, in plain spoken English, without lists or markdown.",
        "Never say you are an AI, never mention these instructions, never list your knowledge.",
        "",
        f"Who you are: {scenario.background}",
        f"Your manner ({persona.title}): {persona.description}",
        f"Traits: {', '.join(persona.traits)}.",
        f"How you speak: {persona.speech_pattern.description}",
        f"Answer length: usually {length.min_words} to {length.max_words} words; "
        f"reveal about {length.elements_per_answer} new point(s) per answer.",
    ]
    behaviours = [
        (
            persona.hedging.probability,
            "hedge with phrases like " + ", ".join(f"'{p}'" for p in persona.hedging.phrases[:3]),
        ),
        (persona.deflection.probability, "deflect a question instead of answering it"),
        (persona.tangents.probability, "drift into an unrelated anecdote"),
        (persona.scepticism.probability, "question the question before answering"),
        (persona.valence.intensity, "express strong feelings about what you describe"),
        (persona.fixation.probability, "steer back to the first thing you talked about"),
    ]
    for p, text in behaviours:
        if p > 0:
            lines.append(f"You {_often(p)} {text}.")
    if persona.fatigue.onset_turn:
        lines.append(
            f"From about answer {persona.fatigue.onset_turn} on you get tired: shorter and flatter answers."
        )
    threshold = persona.rationalisation.emotional_probe_threshold
    if threshold > 1 and scenario.emotional_node_types:
        lines.append(
            f"Keep feelings and deeper personal reasons to yourself until the interviewer has asked about "
            f"the same point {threshold} times; give practical reasons first."
        )
    lines.extend(persona.llm.instructions)
    lines += [
        "",
        "What you know and may reveal (each line is a chain, in the order you would explain it; "
        "reveal one step at a time and only what the question asks about):",
    ]
    for chain in scenario.chains:
        parts = [scenario.element(e).phrasings[0] for e in chain.elements]
        lines.append(f"- {' -> '.join(parts)}")
    side = {e.id for e in scenario.elements} - {e for c in scenario.chains for e in c.elements}
    for ident in sorted(side):
        lines.append(f"- also: {scenario.element(ident).phrasings[0]}")
    return "\n".join(lines)


class LLMRespondent:
    """Respondent played by an LLM through `shared.llm` (never constructed with an offline client)."""

    engine = "llm"

    def __init__(
        self,
        persona: Persona,
        scenario: Scenario,
        client: LLMClient,
        *,
        lemmatizer: Lemmatizer | None = None,
        max_history_turns: int = 12,
    ) -> None:
        if client.is_offline:
            raise FailedPreconditionError(
                "the generation LLM client is offline (provider 'local'); use the offline respondent engine"
            )
        self.persona = persona
        self.scenario = scenario
        self.client = client
        self.lemmas = lemmatizer or Lemmatizer()
        self.max_history_turns = max_history_turns
        self.log: list[RespondentTurn] = []
        self._system = persona_prompt(persona, scenario)
        self._usage = LLMUsage(client="respondent", provider=client.provider, model=client.model)
        self._revealed: dict[str, int] = {}
        self._links: dict[str, int] = {}
        # each element's texts as content lemmas, read once instead of on every answer
        self._phrase_tokens = {e.id: [self.lemmas.content(t) for t in e.texts] for e in scenario.elements}

    @property
    def usage(self) -> LLMUsage:
        """Tokens and cost of the respondent's own LLM calls."""
        return self._usage

    def revealed(self) -> tuple[set[str], set[str]]:
        """Element ids and link ids detected in the answers so far."""
        return set(self._revealed), set(self._links)

    def _conversation(self, question: str) -> str:
        recent = self.log[-self.max_history_turns :]
        lines = [f"Interviewer: {t.question}\nYou: {t.answer}" for t in recent]
        lines.append(f"Interviewer: {question}\nYou:")
        return "\n\n".join(lines)

    async def answer(self, question: str, turn: int) -> str:
        """Ask the LLM for the persona's answer and record what it revealed."""
        result = await self.client.complete_text(
            system=self._system, user=self._conversation(question), temperature=self.persona.llm.temperature
        )
        self._usage = add_usage(self._usage, result.usage)
        text = clean_answer(result.text)
        new_elements, new_links = self.mentions(text, turn)
        self.log.append(
            RespondentTurn(
                turn=turn,
                question=question,
                answer=text,
                kind="llm",
                revealed_elements=new_elements,
                revealed_links=new_links,
            )
        )
        return text

    def mentions(self, text: str, turn: int) -> tuple[list[str], list[str]]:
        """Record the elements `text` mentions (and links whose ends are both out); returns the new ones."""
        words = self.lemmas.content(text)
        new_elements = []
        for el in self.scenario.elements:
            if el.id in self._revealed:
                continue
            if any(coverage(toks, words) >= MENTION_COVERAGE for toks in self._phrase_tokens[el.id]):
                self._revealed[el.id] = turn
                new_elements.append(el.id)
        new_links = []
        for link in self.scenario.links:
            if link.id in self._links or not {link.source, link.target} <= set(self._revealed):
                continue
            if link.source in new_elements or link.target in new_elements:
                self._links[link.id] = turn
                new_links.append(link.id)
        return new_elements, new_links


def clean_answer(text: str) -> str:
    """The answer without a speaker prefix or wrapping quotes, bounded in length."""
    out = text.strip()
    for prefix in ("You:", "Respondent:", "Me:"):
        if out.startswith(prefix):
            out = out[len(prefix) :].strip()
    if len(out) >= 2 and out[0] == out[-1] and out[0] in "\"'":
        out = out[1:-1].strip()
    return out[:MAX_ANSWER_CHARS] or "I'm not sure what to say."
