"""Which of the respondent's hidden elements a question names.

`Namer` matches a question against every element's label and phrasings on content lemmas, each
shared lemma weighted by how specific it is (inverse document frequency over the scenario's
elements). `KnowledgeState` asks it with the elements said so far; the respondent then answers
about the element named, in the phrasing the question took up.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from simulation.scenarios import ElementForm, HiddenElement, Scenario
from simulation.text import QUESTION_WORDS, Lemmatizer

# Where one item of a question's list ends and the next begins.
_ITEMS = re.compile(r"[,.;:?!]|\band\b|\bor\b", re.IGNORECASE)


@dataclass(frozen=True)
class Naming:
    """An element a question names: (score, share named, turn said) and its best text's index in
    `element.texts` (0: the label)."""

    element: HiddenElement
    key: tuple[float, float, int]
    phrasing: int


def _names_the_thing(event: list[str], words: frozenset[str], thing: frozenset[str]) -> bool:
    """Whether a question whose content lemmas are `words` asks about a thing named inside an
    event's phrasing (`event`: its lemmas in word order) rather than about the event: the thing is
    part of the phrasing and the question leaves out the phrasing's first word, its verb in the
    scenarios' "I ordered a good thermos flask". "Comparing the capsule machines online" names the
    comparison; "the good thermos flask" names the flask."""
    return bool(event) and thing <= set(event) and event[0] not in thing and event[0] not in words


class Namer:
    """The lemmas of one scenario's element texts, and the questions' matching against them."""

    def __init__(self, scenario: Scenario, lemmatizer: Lemmatizer) -> None:
        self.scenario = scenario
        self.lemmas = lemmatizer
        self._tokens = {
            e.id: [lemmatizer.content(t, QUESTION_WORDS) for t in e.texts] for e in scenario.elements
        }
        # every content lemma in word order (question words kept), to tell an event from a thing in it
        self._ordered = {e.id: [lemmatizer.content_sequence(t) for t in e.texts] for e in scenario.elements}
        df: Counter[str] = Counter()
        for sets in self._tokens.values():
            df.update(frozenset().union(*sets))
        n = len(scenario.elements)
        self._idf = {tok: math.log(1 + n / count) for tok, count in df.items()}

    @staticmethod
    def voiced(named: Naming) -> HiddenElement:
        """The element a question names, speaking only in the phrasing the question took up: a
        person asked about "ads every ten minutes" says "ads every ten minutes" again, not "constant
        adverts", so the answer bears on the interviewer's node rather than on a twin of it that the
        graph holds apart. Named by a label that is none of its phrasings, the element keeps them all."""
        text = named.element.texts[named.phrasing]
        if text not in named.element.phrasings:
            return named.element
        return named.element.model_copy(update={"phrasings": (text,)})

    def named(self, question: str, candidates: Mapping[str, int]) -> Naming | None:
        """The element the question names best (idf-weighted shared lemmas), with its phrasing, or None.

        `candidates` maps the elements that may be named to the turn each was said in (-1: not
        said). Between equal scores, the element the question names most fully
        wins ("the capsule machine" is the machine, not "compared three capsule machines online"),
        then the most recently said one. A thing the question names in full also wins over an event
        that holds it and that the question names only in part: "what drew you to the good thermos
        flask?" asks about the thermos, not about "I ordered a good thermos flask", while "around
        the time of ordering the thermos" names the whole event and asks about it."""
        words = self.lemmas.content(question, QUESTION_WORDS)
        scored: list[Naming] = []
        for el in self.scenario.elements:
            at_turn = candidates.get(el.id)
            if at_turn is None:
                continue
            # fsum: exactly rounded whatever the order, and a set's order changes with each process's
            # hash seed; a plain sum broke ties between equally named elements differently per run
            score, share_named, at = 0.0, 0.0, -1
            for i, toks in enumerate(self._tokens[el.id]):
                shared = math.fsum(self._idf.get(t, 0.0) for t in words & toks)
                whole = math.fsum(self._idf.get(t, 0.0) for t in toks)
                share = shared / whole if whole else 0.0
                if (shared, share) > (score, share_named):
                    score, share_named, at = shared, share, i
            # ties go to the most recently said element (what the interviewer most likely picked up)
            if score > 0:
                scored.append(Naming(el, (score, share_named, at_turn), at))
        if not scored:
            return None
        best = max(scored, key=lambda c: c.key)
        if best.element.form is ElementForm.CLAUSE and best.key[1] < 1.0:
            event = self._ordered[best.element.id][best.phrasing]
            asked = self.lemmas.content(question)
            things = [
                c
                for c in scored
                if c.element.form is ElementForm.NP
                and c.key[1] == 1.0
                and _names_the_thing(event, asked, self._tokens[c.element.id][c.phrasing])
            ]
            if things:
                return max(things, key=lambda c: (c.key[0], c.key[2]))
        return best

    def told_in(self, question: str, said: Mapping[str, int]) -> list[HiddenElement]:
        """Said elements a question names one by one, in the order it names them: the items of a
        summary ("You've mentioned A, B and C. How do these connect for you?"), each matched on its
        own (`named`) and kept when the item names most of one of the element's texts."""
        told: list[HiddenElement] = []
        for item in _ITEMS.split(question):
            named = self.named(item, said) if item.strip() else None
            if named is not None and named.key[1] >= 0.5 and named.element not in told:
                told.append(named.element)
        return told

    def named_in(self, question: str) -> set[str]:
        """Elements whose whole label (content lemmas) occurs in `question`, said or not."""
        words = self.lemmas.content(question)
        return {
            e.id for e in self.scenario.elements if (toks := self.lemmas.content(e.label)) and toks <= words
        }
