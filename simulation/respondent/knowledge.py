"""The respondent's view of its hidden knowledge: what is revealed, where each chain stands.

`KnowledgeState` answers the questions the offline respondent asks itself: which revealed item
is the interviewer asking about (through `Namer`, on lemmas weighted by how specific a word is),
what is the next level above it, which side items hang off it, and which chain is still untouched.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from simulation.respondent.naming import Namer, Naming
from simulation.scenarios import Chain, ChainKind, HiddenElement, HiddenLink, Scenario
from simulation.text import Lemmatizer, coverage

# Relations beside a ladder rather than up it: said when a question asks for them (a hint), never as
# the answer to "what does X give you?"
_SIDEWAYS = frozenset({"contrasts_with", "conflicts_with"})

# Links a new thread may open with, from something told (see `KnowledgeState._cause_told`).
# A placement is a rating's business: a triad answered "I'd put Netflix firmly on the 'lots of
# original shows' side. The opposite would be …" lost more links in the graph than it told.
_OPENING = frozenset({"leads_to", "precedes", "gives_rise_to"})

# Chains told step by step in their own order (`next_timeline` walks them on).
_IN_ORDER: tuple[ChainKind, ...] = ("timeline", "journey")


@dataclass(frozen=True)
class Step:
    """One element to reveal, said in relation to `source` through `link` (both None for an opener)."""

    element: HiddenElement
    source: HiddenElement | None = None
    link: HiddenLink | None = None
    chain: Chain | None = None


class KnowledgeState:
    """Revealed elements and links of one scenario, plus per-element probe counts."""

    def __init__(self, scenario: Scenario, lemmatizer: Lemmatizer, rng: random.Random) -> None:
        self.scenario = scenario
        self.lemmas = lemmatizer
        self.namer = Namer(scenario, lemmatizer)
        # Chains are opened in a seeded order, so different seeds tell the story differently.
        self.chain_order = list(scenario.chains)
        rng.shuffle(self.chain_order)
        self.revealed: dict[str, int] = {}
        self.revealed_links: dict[str, int] = {}
        # Elements an answer named in full before any step revealed them, e.g. the solution inside a
        # timeline event's phrasing ("I saw a colleague's capsule machine"). Kept apart from
        # `revealed`, which the planner reads, so the story still tells them (and their links).
        self.mentioned: dict[str, int] = {}
        self._said_tokens = {e.id: [lemmatizer.content(t) for t in e.texts] for e in scenario.elements}
        self.opened: list[str] = []
        self.probes: Counter[str] = Counter()
        self.current: HiddenElement | None = None
        self.current_chain: Chain | None = None

    # ------------------------------------------------------------------ matching

    def named(self, question: str, *, revealed_only: bool = True) -> Naming | None:
        """The element the question names best (`Namer.named`), with its phrasing, or None.

        With `revealed_only`, only what the respondent has said is a candidate: revealed, or named
        in passing ("I saw a colleague's capsule machine" names the machine, which the interviewer
        may then ask about); ties go to the most recently said."""
        said = self.said_at()
        if revealed_only:
            return self.namer.named(question, said)
        return self.namer.named(question, {e.id: said.get(e.id, -1) for e in self.scenario.elements})

    def told_in(self, question: str) -> list[HiddenElement]:
        """Said elements a question names one by one (the items of a summary; `Namer.told_in`)."""
        return self.namer.told_in(question, self.said_at())

    def link_among(self, elements: Sequence[HiddenElement]) -> Step | None:
        """A link not said yet between two of `elements` (told ones), as its source would say it;
        a placement on a construct is a rating's business, not a summary's."""
        ids = {e.id for e in elements}
        link = self._unsaid(lambda lk: lk.source in ids and lk.target in ids and lk.edge_type != "placed_at")
        if link is None:
            return None
        return Step(
            self.scenario.element(link.target),
            self.scenario.element(link.source),
            link,
            self.scenario.chain_holding(link.source, link.target),
        )

    def contrast_told(self) -> Step | None:
        """A contrast not said yet between two told elements (two incidents that went opposite
        ways), said from its source."""
        said = self.said()
        link = self._unsaid(
            lambda lk: lk.edge_type.startswith("contrast") and lk.source in said and lk.target in said
        )
        if link is None:
            return None
        return Step(self.scenario.element(link.target), self.scenario.element(link.source), link, None)

    def _unsaid(self, keep: Callable[[HiddenLink], bool]) -> HiddenLink | None:
        """The first link, in file order, not said yet that `keep` accepts."""
        return next((lk for lk in self.scenario.links if lk.id not in self.revealed_links and keep(lk)), None)

    # ------------------------------------------------------------------ navigation

    def chains_for(self, element: HiddenElement) -> list[Chain]:
        """Chains through `element`, the current chain first."""
        chains = self.scenario.chains_with(element.id)
        if self.current_chain in chains:
            chains.remove(self.current_chain)
            chains.insert(0, self.current_chain)
        return chains

    def ladder(self, focus: HiddenElement, hints: tuple[str, ...], depth: int) -> list[Step]:
        """Up to `depth` steps up from `focus` along a chain whose next link is not yet said.

        Links already said are skipped ("why is X important?" asked again continues where the
        chain stands); a hinted node type within two levels pulls the answer towards it.
        """
        options: list[tuple[int, list[Step]]] = []
        for chain in self.chains_for(focus):
            if chain.kind == "elements":
                continue
            idx = j = chain.elements.index(focus.id)
            while j + 1 < len(chain.elements):
                link = self.scenario.link_between(chain.elements[j], chain.elements[j + 1])
                if link is None or link.id not in self.revealed_links:
                    break
                j += 1
            if j + 1 >= len(chain.elements):
                continue
            path: list[Step] = []
            prev = self.scenario.element(chain.elements[j])
            for nxt_id in chain.elements[j + 1 : j + 1 + max(depth, 2)]:
                nxt = self.scenario.element(nxt_id)
                path.append(Step(nxt, prev, self.scenario.link_between(prev.id, nxt.id), chain))
                prev = nxt
            options.append((j - idx, path))
        options.sort(key=lambda o: o[0])  # stable: the current chain first among equals
        for _, path in options:
            for i, step in enumerate(path[:2]):
                if step.element.node_type in hints:
                    return path[: max(i + 1, depth)]
        return options[0][1][:depth] if options else []

    def side(self, focus: HiddenElement, hints: tuple[str, ...]) -> Step | None:
        """An unrevealed element linked to `focus` of a hinted type (any type when there is no hint)."""
        for link in self.scenario.links_of(focus.id):
            other_id = link.target if link.source == focus.id else link.source
            if other_id in self.revealed:
                continue
            if self._adjacent(focus.id, other_id):
                continue  # a chain neighbour is the next level, not a side detail
            other = self.scenario.element(other_id)
            if not hints or other.node_type in hints:
                return Step(other, focus, link, None)
        return None

    def _others_of_type(self, focus: HiddenElement) -> list[HiddenElement]:
        """The scenario's other elements of `focus`'s node type, in file order."""
        return [e for e in self.scenario.elements if e.node_type == focus.node_type and e.id != focus.id]

    def alternative(self, focus: HiddenElement, hints: tuple[str, ...]) -> list[Step]:
        """Another element of `focus`'s own type, for a question that asks for one ("before the hand
        grinder, what did you use instead, and what made you stop?" asks for another solution):
        the first one not revealed yet (opening the chain it starts), said with a side element of
        the question's other hinted types (why it was dropped); once every other one is out, such a
        side element of one of them. Empty when the scenario holds no other."""
        rest = hints[1:]
        for other in self._others_of_type(focus):
            if other.id in self.revealed:
                continue
            chain = next(
                (c for c in self.scenario.chains_with(other.id) if c.elements[0] == other.id),
                None,
            )
            side = self.side(other, rest) if rest else None
            return [Step(other, None, None, chain), *([side] if side is not None else [])]
        side = self.side_of_alternative(focus, rest) if rest else None
        return [side] if side is not None else []

    def side_of_alternative(self, focus: HiddenElement, hints: tuple[str, ...]) -> Step | None:
        """An unrevealed element of a hinted type beside another element of `focus`'s own type:
        asked what worried them about changing when the old solution is in focus, a person names
        the worry that held back the new one."""
        for other in self._others_of_type(focus):
            side = self.side(other, hints)
            if side is not None:
                return side
        return None

    def unsaid_link(
        self, focus: HiddenElement, hints: tuple[str, ...], *, onward: bool = False
    ) -> Step | None:
        """A link of `focus` not said yet whose other end is out already, of a hinted type when there
        are hints: asked about X once its neighbours are told, a person says how X bears on one of
        them ("the queue, that started when I missed my train"). Without this, a link between two
        elements told apart (each opening a chain of its own) could never be said, whatever the
        interviewer asked. An unhinted question does not bring out an opposite, a conflict or a
        placement: asked how X makes a difference, "the trouble is X conflicts with a low price" is
        beside the point; those answer a question about the construct (`contrast_of`, `placements`).

        The link runs from `focus`, as it is said ("that gave me…", "that's why…"); said against its
        direction, "Y. That was because X" got causes and effects the wrong way round where the link
        runs from an effect to its cause (an outcome attributed to a reason). The one exception is an
        actor asked about, who is said with the incident they took part in, unless `onward` (a
        question about what X leads to: "what does feeling relaxed give you?")."""
        said = self.said()
        for link in self.scenario.links_of(focus.id):
            if link.source != focus.id and (onward or link.edge_type != "involves"):
                continue
            other_id = link.target if link.source == focus.id else link.source
            if link.id in self.revealed_links or other_id not in said or link.edge_type == "placed_at":
                continue
            other = self.scenario.element(other_id)
            if hints and other.node_type not in hints:
                continue
            if not hints and link.edge_type in _SIDEWAYS:
                continue
            return Step(other, focus, link, self.scenario.chain_holding(focus.id, other_id))
        return None

    def contrast_of(self, focus: HiddenElement, hints: tuple[str, ...]) -> Step | None:
        """The other pole of `focus`, said or not, for a question that asks for a pole only (every
        hinted type is a pole's): asked for the opposite of X, a person names it, and says it again
        if they already have. None for other questions ("which end do you prefer, and why?" asks
        for more than the pole)."""
        contrasts = [lk for lk in self.scenario.links if lk.edge_type.startswith("contrast")]
        poles = {self.scenario.element(e).node_type for lk in contrasts for e in (lk.source, lk.target)}
        if not hints or not set(hints) <= poles:
            return None
        for link in contrasts:
            if focus.id in (link.source, link.target):
                other = self.scenario.element(link.target if link.source == focus.id else link.source)
                return Step(other, focus, link, None)
        return None

    def placements(self, focus: HiddenElement, limit: int) -> list[Step]:
        """Up to `limit` unsaid links placing an element on the construct `focus` belongs to.

        A construct is its chain (pole → superordinate construct → value) with the sides of its
        members (the implicit pole); an element is a member of an `elements` chain. A rating
        question places the elements whether or not they were named before: what is new is where
        they fall ("YouTube is a good example of easy to find").
        """
        listed = {e for c in self.scenario.chains if c.kind == "elements" for e in c.elements}
        members = {focus.id}
        for chain in self.scenario.chains_with(focus.id):
            if chain.kind != "elements":
                members.update(chain.elements)
        members |= {
            other
            for link in self.scenario.links
            for end, other in ((link.source, link.target), (link.target, link.source))
            if end in members and other not in listed and not self.scenario.chains_with(other)
        }
        steps: list[Step] = []
        for link in self.scenario.links:
            if link.id in self.revealed_links:
                continue
            if link.source in listed and link.target in members:
                element, pole = link.source, link.target
            elif link.target in listed and link.source in members:
                element, pole = link.target, link.source
            else:
                continue
            steps.append(Step(self.scenario.element(element), self.scenario.element(pole), link, None))
        return steps[:limit]

    def path_to_hint(self, start: HiddenElement, hints: tuple[str, ...], max_new: int = 2) -> list[Step]:
        """Steps towards the nearest unrevealed element of a hinted type, over links in either direction.

        Walking through elements already said is free; at most `max_new` new elements are said
        ("what were you really trying to get done?" about a timeline event reaches the job through
        the pull it gave rise to). The steps start at the last element on the way that was said.
        """
        if not hints:
            return []
        best: dict[str, int] = {start.id: 0}
        came: dict[str, tuple[str, HiddenLink]] = {}
        frontier = [(0, start.id)]
        while frontier:
            frontier.sort()
            cost, current = frontier.pop(0)
            if cost > best.get(current, cost):
                continue
            if (
                current != start.id
                and current not in self.revealed
                and self.scenario.element(current).node_type in hints
            ):
                return self._steps_along(current, came)
            for link in self.scenario.links_of(current):
                other = link.target if link.source == current else link.source
                step_cost = cost + (0 if other in self.revealed else 1)
                if step_cost <= max_new and step_cost < best.get(other, max_new + 1):
                    best[other] = step_cost
                    came[other] = (current, link)
                    frontier.append((step_cost, other))
        return []

    def _steps_along(self, target: str, came: dict[str, tuple[str, HiddenLink]]) -> list[Step]:
        path: list[Step] = []
        node = target
        while node in came:
            prev, link = came[node]
            chain = self.scenario.chain_holding(prev, node)
            path.append(Step(self.scenario.element(node), self.scenario.element(prev), link, chain))
            if node != target and node in self.revealed:
                break
            node = prev
        path.reverse()
        # start from the last element already said: "S (said), so A (new), so T (new)"
        first_new = next((i for i, s in enumerate(path) if s.element.id not in self.revealed), 0)
        return path[first_new:]

    def _adjacent(self, a: str, b: str) -> bool:
        for chain in self.scenario.chains:
            if chain.kind == "elements":
                continue
            pairs = zip(chain.elements, chain.elements[1:], strict=False)
            if any({x, y} == {a, b} for x, y in pairs):
                return True
        return False

    def next_timeline(self) -> list[Step]:
        """The next unrevealed step of a timeline/journey chain already opened, else an opener of one."""
        for chain in self.chain_order:
            if chain.kind not in _IN_ORDER or chain.id not in self.opened:
                continue
            for i, ident in enumerate(chain.elements):
                if ident not in self.revealed:
                    el = self.scenario.element(ident)
                    prev = self.scenario.element(chain.elements[i - 1]) if i else None
                    link = self.scenario.link_between(prev.id, ident) if prev else None
                    return [Step(el, prev, link, chain)]
        fresh = self.new_chain(_IN_ORDER, ())
        return self.open_steps(fresh, ()) if fresh else []

    def new_chain(
        self,
        kinds: tuple[str, ...],
        hints: tuple[str, ...],
        *,
        exclude: set[str] | None = None,
    ) -> Chain | None:
        """A chain not opened yet whose first element is unrevealed (preferred kinds, then hints).

        Chains starting with an element in `exclude` come last (the question named it).
        """
        skip = exclude or set()
        fresh = [
            c for c in self.chain_order if c.id not in self.opened and c.elements[0] not in self.revealed
        ]
        if not fresh:
            fresh = [
                c
                for c in self.chain_order
                if c.id not in self.opened and any(e not in self.revealed for e in c.elements)
            ]
        if not fresh:
            return None

        def rank(chain: Chain) -> tuple[int, int, int]:
            types = [self.scenario.element(e).node_type for e in chain.elements[:2]]
            return (
                1 if chain.elements[0] in skip else 0,
                0 if chain.kind in kinds else 1,
                0 if any(t in hints for t in types) else 1,
            )

        return min(fresh, key=rank)

    def headless_chain(self, hints: tuple[str, ...], *, exclude: set[str] | None = None) -> Chain | None:
        """An opened chain whose first element is not out yet: one entered midway.

        A chain is opened by whichever of its elements comes out first, and that need not be its
        head: "my friends can actually understand me on voice chat", told as the reason for keeping
        up with them, opens the microphone's ladder without the microphone. Asked later what else
        they look for, the person still has the microphone to name; `new_chain` has no chain left
        for them, and without this they would say nothing else comes to mind. Lists, timelines and
        journeys have their own ways on (`continue_list`, `next_timeline`). Ranked as `new_chain`
        ranks: chains headed by an element the question named last, hinted types first."""
        skip = exclude or set()
        said = self.said()
        entered = [
            c
            for c in self.chain_order
            if c.id in self.opened
            and c.kind != "elements"
            and c.kind not in _IN_ORDER
            and c.elements[0] not in said
            and any(e in said for e in c.elements[1:])
        ]
        if not entered:
            return None

        def rank(chain: Chain) -> tuple[int, int]:
            head = self.scenario.element(chain.elements[0])
            return (1 if head.id in skip else 0, 0 if head.node_type in hints else 1)

        return min(entered, key=rank)

    def anchor_of(self, element: HiddenElement) -> HiddenElement:
        """`element` if it is on a chain, else the chain element it hangs off (an actor's incident)."""
        if any(element.id in c.elements for c in self.scenario.chains if c.kind != "elements"):
            return element
        for link in self.scenario.links_of(element.id):
            other = link.target if link.source == element.id else link.source
            if any(other in c.elements for c in self.scenario.chains if c.kind != "elements"):
                return self.scenario.element(other)
        return element

    def continue_list(self, hints: tuple[str, ...]) -> list[Step]:
        """The next unrevealed item of an opened `elements` chain of a hinted type (repertory grid)."""
        for chain in self.chain_order:
            if chain.kind != "elements" or chain.id not in self.opened:
                continue
            for ident in chain.elements:
                el = self.scenario.element(ident)
                if ident not in self.revealed and (not hints or el.node_type in hints):
                    return [Step(el, None, None, chain)]
        return []

    def open_steps(self, chain: Chain, hints: tuple[str, ...]) -> list[Step]:
        """The first unrevealed level of `chain` (two levels when the second one is what was asked for)."""
        start = next((i for i, e in enumerate(chain.elements) if e not in self.revealed), None)
        if start is None:
            return []
        steps = []
        prev = self.scenario.element(chain.elements[start - 1]) if start else None
        for ident in chain.elements[start : start + 2]:
            el = self.scenario.element(ident)
            link = self.scenario.link_between(prev.id, ident) if prev is not None else None
            if prev is None:
                link = self._cause_told(ident)
            source = self.scenario.element(link.source) if link is not None else None
            steps.append(Step(el, source, link, chain))
            prev = el
        if (
            len(steps) == 2
            and steps[1].element.node_type in hints
            and steps[0].element.node_type not in hints
        ):
            return steps
        return steps[:1]

    def _cause_told(self, ident: str) -> HiddenLink | None:
        """A link not said yet into `ident` from something told: a person opening a new thread says
        where it came from when that is out already ("after I saw the machine at a colleague's
        desk, I wanted really fresh coffee"). Only links that read forward as a cause or a sequence;
        a sideways relation, a placement or a worry holding something back is no way to open a point."""
        said = self.said()
        return self._unsaid(lambda lk: lk.target == ident and lk.source in said and lk.edge_type in _OPENING)

    # ------------------------------------------------------------------ bookkeeping

    def mark(self, steps: list[Step], turn: int) -> tuple[list[str], list[str]]:
        """Record `steps` as said in `turn`; returns the newly revealed element and link ids."""
        new_elements: list[str] = []
        new_links: list[str] = []
        for step in steps:
            if step.element.id not in self.revealed:
                self.revealed[step.element.id] = turn
                if step.element.id not in self.mentioned:  # already out, named in passing
                    new_elements.append(step.element.id)
            if step.link is not None and step.link.id not in self.revealed_links:
                self.revealed_links[step.link.id] = turn
                new_links.append(step.link.id)
            if step.chain is not None and step.chain.id not in self.opened:
                self.opened.append(step.chain.id)
            self.current = step.element
            self.current_chain = step.chain or self.current_chain
        # a link between two revealed elements stated in one answer counts once both are out
        return new_elements, new_links

    def mention(self, answer: str, turn: int) -> list[str]:
        """Record the elements `answer` names in full (every content lemma of the label or of one
        phrasing) that neither a step nor an earlier answer has brought out; returns them."""
        words = self.lemmas.content(answer)
        new: list[str] = []
        for el in self.scenario.elements:
            if el.id in self.revealed or el.id in self.mentioned:
                continue
            if any(coverage(toks, words) == 1.0 for toks in self._said_tokens[el.id]):
                self.mentioned[el.id] = turn
                new.append(el.id)
        return new

    def said_at(self) -> dict[str, int]:
        """Element ids that are out, each with the turn it came out in (a step's turn before a mention's)."""
        return {**self.mentioned, **self.revealed}

    def said(self) -> set[str]:
        """Element ids that are out: revealed by a step or named in passing."""
        return set(self.revealed) | set(self.mentioned)

    def unrevealed_count(self) -> int:
        """Elements not revealed yet."""
        return sum(1 for e in self.scenario.elements if e.id not in self.revealed)
