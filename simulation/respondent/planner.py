"""What the offline respondent reveals for a question (before persona wording is applied).

`Planner.plan` maps the question kind to steps through the hidden knowledge:

* ladder   → the next level(s) of the focused element's chain (a hinted node type within two
             levels pulls the answer there; a hinted *side* element, e.g. the anxiety that held
             a solution back, wins over the chain's next level, and so does a link not said yet
             from it to a told element of the hinted type; unhinted, such a link is said when the
             chain has no next level left); a rationalising persona holds
             back emotional levels until the element has been probed often enough;
* explore  → a chain not opened yet, at its first level, else the head of a chain entered
             midway (a later element told first); a fixating persona returns to its first chain
             instead, or says something new about its favourite when that chain has nothing
             further;
* rate     → where elements fall on the focused construct (its unsaid placement links, also of
             elements named before), else as specific;
* specific → a side element of a hinted type, else the hinted next level, else how the element
             bears on one told before (a link not said yet), else a detail;
* ladder naming several told elements (a summary: "You've mentioned A, B and C. How do these
             connect for you?") → a link between two of them not said yet when it asks how they
             connect; else, if the best-named one is at the top of its ladder, the next level of
             another one named;
* ladder or specific asking first for a solution while one is in focus ("what did you use instead
             of the hand grinder?") → the other solution, with why it was dropped when asked;
* incident / timeline → a new incident or the next step of the timeline; asked for a contrasting
             incident when every one is told, how two told ones differ (a contrast not said yet);
* validate → a confirmation (sometimes extended by the next level); closing → thanks.

A question about a side element (an actor, an implicit pole) navigates from the chain element
that side element hangs off.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from simulation.personas import Persona
from simulation.respondent.knowledge import KnowledgeState, Step
from simulation.respondent.phrasing import (
    confirm_sentence,
    detail_sentence,
    nothing_new_sentence,
    restate_sentence,
    thanks_sentence,
    top_sentence,
)
from simulation.respondent.questions import QuestionKind, QuestionReading
from simulation.respondent.style import AnswerDraft, Mood
from simulation.scenarios import HiddenElement

# Node types asked for as an alternative when one of them is in focus: a solution asked for while a
# solution is in focus is the other one ("what did you use before the hand grinder?"), whereas a
# consequence asked for while a consequence is in focus is the next rung of a ladder.
_ALTERNATIVES = frozenset({"solution"})


class Planner:
    """Chooses the steps of one answer and adds the sentences that reveal nothing new."""

    def __init__(self, persona: Persona, state: KnowledgeState, rng: random.Random) -> None:
        self.persona = persona
        self.state = state
        self.rng = rng
        self.methodology = state.scenario.methodology
        self.fixation: HiddenElement | None = None

    def plan(
        self,
        reading: QuestionReading,
        focus: HiddenElement | None,
        named_any: set[str],
        mood: Mood,
        draft: AnswerDraft,
        told: Sequence[HiddenElement] = (),
    ) -> list[Step]:
        """Steps to reveal for `reading` about `focus` (`named_any`: element ids the question names;
        `told`: the told elements it names one by one, as a summary does)."""
        state, rng, hints = self.state, self.rng, reading.type_hints
        kind = reading.kind
        anchor = state.anchor_of(focus) if focus is not None else None
        if kind is QuestionKind.CLOSING:
            draft.add(thanks_sentence(rng), hedgeable=False)
            chain = state.new_chain((), hints)
            if (
                chain is not None
                and mood.energy >= 0.6
                and rng.random() < 0.3 + mood.extra_element_probability
            ):
                draft.add("One more thing, actually.", hedgeable=False)
                return state.open_steps(chain, hints)
            return []
        if kind is QuestionKind.VALIDATE:
            draft.add(confirm_sentence(rng), hedgeable=False)
            if anchor is not None and rng.random() < 0.5 * mood.energy:
                steps = state.ladder(anchor, hints, 1)
                if steps:
                    draft.add("And actually, there's more to it.", essential=False, hedgeable=False)
                    return steps
            return []
        if kind is QuestionKind.INCIDENT:
            chain = state.new_chain(("incident", "timeline", "journey"), hints)
            if chain is None:
                # asked for a time that went the other way when every one is told: how two told ones
                # differ ("it was very different from the time when …")
                contrast = state.contrast_told() if reading.contrasts else None
                if contrast is not None:
                    return [contrast]
                draft.add(nothing_new_sentence(rng))
                draft.nothing_left = True
                return []
            return state.open_steps(chain, hints)
        if kind is QuestionKind.TIMELINE:
            steps = state.next_timeline()
            if steps:
                return steps
            kind = QuestionKind.LADDER
        if kind is QuestionKind.RATE:
            placed = state.placements(focus, mood.elements_per_answer + 1) if focus is not None else []
            if placed:
                return placed
            kind = QuestionKind.SPECIFIC  # nothing left to place: what it is like, as for a detail
        if (
            kind in (QuestionKind.SPECIFIC, QuestionKind.LADDER)
            and focus is not None
            and focus.node_type in _ALTERNATIVES
            and hints[:1] == (focus.node_type,)
        ):
            # asked for another of what is in focus ("what did you use instead of X?"), not its next level
            other = state.alternative(focus, hints)
            if other:
                return other
        if kind is QuestionKind.SPECIFIC and focus is not None and anchor is not None:
            side = state.side(focus, hints) or (state.side(anchor, hints) if hints else None)
            if side is not None:
                return [side]
            up = state.ladder(anchor, hints, 1) if hints else []
            if up and up[0].element.node_type in hints:
                return up
            towards = state.path_to_hint(anchor, hints, max_new=1)
            if towards:
                return towards
            relink = state.unsaid_link(focus, hints)
            if relink is not None:
                return [relink]
            draft.add(detail_sentence(focus, rng) or restate_sentence(focus, rng))
            return []
        if kind is QuestionKind.LADDER and focus is not None and anchor is not None:
            if len(told) > 1:
                # a summary names several things told ("You've mentioned A, B and C. How do these
                # connect for you?"): how two of them bear on each other when that is asked, else the
                # one with more to say; only once none has, a link between them (or the top of it)
                link = state.link_among(told)
                if link is not None and reading.relates:
                    return [link]
                if not state.ladder(anchor, hints, 1):
                    more = next((e for e in told if state.ladder(state.anchor_of(e), hints, 1)), None)
                    if more is not None:
                        focus, anchor = more, state.anchor_of(more)
                    elif link is not None:
                        return [link]
            return self._ladder(reading, focus, anchor, mood, draft)
        steps = self._explore(hints, named_any, draft)
        if reading.kind is not QuestionKind.EXPLORE:
            # a ladder or detail question about nothing the respondent said ends here too; a later
            # one about something said can still get an answer, so "nothing else" spends nothing
            draft.nothing_left = False
        return steps

    def _ladder(
        self,
        reading: QuestionReading,
        focus: HiddenElement,
        anchor: HiddenElement,
        mood: Mood,
        draft: AnswerDraft,
    ) -> list[Step]:
        state, rng, hints = self.state, self.rng, reading.type_hints
        state.probes[anchor.id] += 1
        depth = mood.elements_per_answer + (1 if rng.random() < mood.extra_element_probability else 0)
        steps = state.ladder(anchor, hints, depth)
        if not steps or (hints and not any(s.element.node_type in hints for s in steps)):
            # "what worried you about X?" asks for X's anxiety, not the next rung of X's chain (this
            # branch runs only for a hinted question or one whose chain has nothing left)
            side = state.side(focus, hints)
            if side is None and hints:
                side = state.contrast_of(focus, hints)
            if side is None:
                # asked what X leads to when that is told already: the link, said again with it
                side = state.unsaid_link(focus, hints, onward=True)
            if side is None and hints and focus.node_type in _ALTERNATIVES:
                # "thinking of the café, what worried you about changing?": the worry about the switch
                # held back the other solution, the one switched to
                side = state.side_of_alternative(focus, hints)
            if side is not None:
                return [side]
            towards = state.path_to_hint(anchor, hints)
            if towards:
                # a terse or tired speaker says only the first thing on the way
                steps = towards[: depth if mood.shortest else max(depth, 2)]
        if not steps:
            draft.add(top_sentence(focus, self.methodology, rng))
            return []
        threshold = self.persona.rationalisation.emotional_probe_threshold
        emotional = set(state.scenario.emotional_node_types)
        if threshold > 1 and state.probes[anchor.id] < threshold:
            keep: list[Step] = []
            for step in steps:
                if step.element.node_type in emotional:
                    break
                keep.append(step)
            if len(keep) < len(steps):
                draft.note("withheld")
                if not keep:
                    draft.add(rng.choice(self.persona.rationalisation.practical_phrases))
                    draft.add(restate_sentence(anchor, rng))
                    return []
                steps = keep
        return steps

    def _explore(self, hints: tuple[str, ...], named_any: set[str], draft: AnswerDraft) -> list[Step]:
        state, rng = self.state, self.rng
        fixation = self.persona.fixation
        if self.fixation is not None and fixation.probability and rng.random() < fixation.probability:
            draft.note("fixation")
            anchor = self.fixation
            for chain in state.scenario.chains_with(anchor.id):
                said = [e for e in chain.elements if e in state.revealed]
                top = state.scenario.element(said[-1]) if said else anchor
                steps = state.ladder(top, (), 1)
                if steps:
                    return steps
            # nothing further up its own chains (a repertory grid's "Netflix" heads only the list of
            # elements): something not said yet about it, as asked ("Netflix has lots of original
            # shows"); only then the favourite topic again with nothing new
            side = state.side(anchor, hints)
            if side is not None:
                return [side]
            draft.add(rng.choice(fixation.phrases).format(focus=anchor.label))
            return []
        listed = state.continue_list(hints) if hints[:1] == ("element",) else []
        if listed:
            return listed
        # "what else did you try instead of X?" asks for something other than X; with every chain
        # opened, a chain entered midway still has its head to tell
        fresh = state.new_chain((), hints, exclude=named_any)
        fresh = fresh or state.headless_chain(hints, exclude=named_any)
        if fresh is None:
            draft.add(nothing_new_sentence(rng))
            draft.nothing_left = True
            return []
        steps = state.open_steps(fresh, hints)
        if steps and hints:
            # "how are two alike, and how is the third different?" asks for both poles at once
            side = state.side(steps[-1].element, hints[1:])
            if side is not None and side.element.node_type in hints:
                steps.append(side)
        return steps
