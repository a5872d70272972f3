"""The offline ground-truth respondent: reveals a scenario's hidden knowledge, shaped by a persona.

For each question it (1) finds the hidden element the question is about (lemma overlap with the
phrasings of what it has said so far), (2) reads what the question asks for
(`questions.classify`), (3) plans what to reveal (`planner.Planner`), and (4) lets the persona
shape the answer: question the question, deflect, hedge, add feelings, detail or a tangent,
drift back to a favourite topic, tire (`style`). It records which hidden elements and links
each answer revealed, and which elements it named only in passing (the whole label or phrasing
of one element inside what it said of another: "a capsule machine" in "I saw a capsule machine at
a colleague's desk"), since the graph may hold those too.

Deterministic: every choice comes from one `random.Random` seeded with (seed, persona,
scenario), so the same questions always get the same answers.
"""

from __future__ import annotations

import random
from dataclasses import replace

from shared.llm.base import LLMUsage
from simulation.personas import Persona
from simulation.respondent.base import RespondentTurn
from simulation.respondent.knowledge import KnowledgeState, Step
from simulation.respondent.naming import Namer
from simulation.respondent.phrasing import continue_sentence, detail_sentence, link_sentence, opener_sentence
from simulation.respondent.planner import Planner
from simulation.respondent.questions import QuestionKind, QuestionReading, classify
from simulation.respondent.style import AnswerDraft, Mood, Sentence, mood_at, render
from simulation.scenarios import HiddenElement, Scenario
from simulation.text import Lemmatizer, word_count


class OfflineRespondent:
    """Rule-based respondent driven by a scenario's hidden knowledge."""

    engine = "offline"

    def __init__(
        self,
        persona: Persona,
        scenario: Scenario,
        *,
        seed: int,
        lemmatizer: Lemmatizer | None = None,
    ) -> None:
        self.persona = persona
        self.scenario = scenario
        self.seed = seed
        self.rng = random.Random(f"{seed}:{persona.name}:{scenario.id}")
        self.state = KnowledgeState(scenario, lemmatizer or Lemmatizer(), self.rng)
        self.planner = Planner(persona, self.state, self.rng)
        self.log: list[RespondentTurn] = []

    @property
    def usage(self) -> LLMUsage:
        """No LLM is used."""
        return LLMUsage(client="respondent", provider="offline", calls=0)

    def revealed(self) -> tuple[set[str], set[str]]:
        """Element ids (revealed by a step or named in passing) and link ids revealed so far."""
        return self.state.said(), set(self.state.revealed_links)

    async def answer(self, question: str, turn: int) -> str:
        """The answer to `question` in `turn` (see `respond`)."""
        return self.respond(question, turn)

    def respond(self, question: str, turn: int) -> str:
        """Synchronous core of `answer`: read, plan, shape, record."""
        mood = mood_at(self.persona, turn)
        naming = self.state.named(question)
        named = naming.element if naming is not None else None
        reading = classify(question, self.scenario.methodology, names_something=named is not None)
        # the focus, as the question named it, is said again in the question's own words
        focus = Namer.voiced(naming) if naming is not None else self.state.current
        told = self.state.told_in(question)
        named_any = self.state.namer.named_in(question) | {e.id for e in told}
        if named is not None:
            named_any.add(named.id)
        draft = AnswerDraft()
        steps = self._respond(reading, focus, named_any, mood, draft, told)
        new_elements, new_links = self.state.mark(steps, turn)
        if not steps and focus is not None:
            self.state.current = self.scenario.element(focus.id)
        text = render(draft, self.persona, mood, self.rng)
        mentioned = self.state.mention(text, turn)
        self.log.append(
            RespondentTurn(
                turn=turn,
                question=question,
                answer=text,
                kind=reading.kind.value,
                type_hints=list(reading.type_hints),
                focus_element=focus.id if focus else None,
                revealed_elements=new_elements,
                revealed_links=new_links,
                mentioned_elements=mentioned,
                behaviours=draft.behaviours,
                nothing_left=draft.nothing_left,
            )
        )
        return text

    def _respond(
        self,
        reading: QuestionReading,
        focus: HiddenElement | None,
        named_any: set[str],
        mood: Mood,
        draft: AnswerDraft,
        told: list[HiddenElement],
    ) -> list[Step]:
        persona, rng = self.persona, self.rng
        scepticism = persona.scepticism
        if scepticism.question_only_probability and rng.random() < scepticism.question_only_probability:
            draft.add(rng.choice(scepticism.counter_questions), hedgeable=False)
            draft.note("counter_question")
            return []
        if scepticism.probability and rng.random() < scepticism.probability:
            draft.add(rng.choice(scepticism.phrases), essential=False, hedgeable=False)
            draft.note("sceptical")
        answerable = reading.kind not in (QuestionKind.CLOSING, QuestionKind.VALIDATE)
        if answerable and mood.deflection_probability and rng.random() < mood.deflection_probability:
            draft.add(rng.choice(persona.deflection.phrases), hedgeable=False)
            draft.note("deflect")
            return []
        steps = self.planner.plan(reading, focus, named_any, mood, draft, told)
        self._write(steps, focus, mood, draft)
        if steps and steps[0].chain is not None and self.planner.fixation is None:
            self.planner.fixation = self.scenario.element(steps[0].chain.elements[0])
        return steps

    # ------------------------------------------------------------------ writing

    def _write(self, steps: list[Step], focus: HiddenElement | None, mood: Mood, draft: AnswerDraft) -> None:
        rng, method = self.rng, self.scenario.methodology
        previous: Sentence | None = None
        if focus is not None:
            # a step from the focus speaks of it as the question did (`KnowledgeState.voiced`)
            steps = [
                replace(s, source=focus) if s.source is not None and s.source.id == focus.id else s
                for s in steps
            ]
        for i, step in enumerate(steps):
            follows = i > 0 and step.source is not None and step.source.id == steps[i - 1].element.id
            if step.source is None or step.link is None:
                nxt = steps[i + 1] if i + 1 < len(steps) else None
                if (
                    nxt is not None
                    and nxt.link is not None
                    and nxt.source is not None
                    and nxt.source.id == step.element.id
                ):
                    continue  # said together with the next level: "S, so T"
                previous = draft.add(opener_sentence(step.element, method, rng, shortest=mood.shortest))
                continue
            if follows and previous is not None:
                continued = continue_sentence(
                    previous.text, step.element, step.link, method, rng, shortest=mood.shortest
                )
                if continued is not None:
                    previous.text = continued
                    continue
                # a sentence of its own right after the one that said the source: "The opposite
                # would be …", "That meant dealing with the delivery driver." point back at it
                previous = draft.add(
                    link_sentence(
                        step.source,
                        step.element,
                        step.link,
                        method,
                        rng,
                        restate=False,
                        shortest=mood.shortest,
                    )
                )
                continue
            restate = follows or mood.restate_focus or focus is None or step.source.id != focus.id
            previous = draft.add(
                link_sentence(
                    step.source, step.element, step.link, method, rng, restate=restate, shortest=mood.shortest
                )
            )
        if steps:
            self._colour(steps[-1].element, steps, mood, draft)

    def _colour(self, last: HiddenElement, steps: list[Step], mood: Mood, draft: AnswerDraft) -> None:
        """Feelings, detail, fixation and tangents around the content."""
        rng, persona = self.rng, self.persona
        valence = persona.valence
        if valence.intensity and rng.random() < valence.intensity:
            sign = last.valence or (1 if rng.random() < 0.6 else -1)
            draft.add(
                rng.choice(valence.positive if sign > 0 else valence.negative),
                essential=False,
                hedgeable=False,
            )
            draft.note("valence")
        detail = detail_sentence(last, rng)
        if mood.detail_probability and rng.random() < mood.detail_probability:
            draft.add(detail, essential=False)
        elif word_count(" ".join(s.text for s in draft.sentences)) < mood.min_words:
            draft.add(detail, essential=False)  # pad a short answer up to the persona's length
        fixation = self.planner.fixation
        if (
            fixation is not None
            and persona.fixation.probability
            and rng.random() < persona.fixation.probability / 2
        ):
            elsewhere = steps[0].chain is None or fixation.id not in steps[0].chain.elements
            if elsewhere:  # talking about something else: drift back to the favourite topic
                draft.add(rng.choice(persona.fixation.phrases).format(focus=fixation.label), essential=False)
                draft.note("fixation")
        if persona.tangents.probability and rng.random() < persona.tangents.probability:
            draft.add(rng.choice(persona.tangents.phrases), essential=False, hedgeable=False)
            draft.note("tangent")
