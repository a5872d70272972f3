"""Typed node candidates from cue matches, concept vocabulary and noun-phrase chunks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from spacy.tokens import Doc, Span, Token

from services.extraction.local.cues import CueLexicon, CueMatch, CueMode
from services.extraction.local.extent import (
    NOMINAL_MODES,
    after_end,
    before_start,
    cue_subject,
    predicate_cue_starts,
    relative_end,
    starts_time,
    verb_like,
)
from services.extraction.local.labels import shape_label
from services.extraction.local.labelwords import PERSON_PRONOUNS, POSSESSIVES
from services.extraction.local.segment import Clause, narrated_time, strip_frames
from services.extraction.local.spans import (
    earlier_product,
    enclosing,
    inside_idiom,
    negated_alternative,
    the_one,
)
from services.extraction.local.stance import denies_friction, stance_of

_MODE_CONFIDENCE = {
    CueMode.PHRASE: 0.75,
    CueMode.AFTER: 0.7,
    CueMode.BEFORE: 0.7,
    CueMode.CLAUSE: 0.65,
    CueMode.CHUNK_AFTER: 0.65,
    CueMode.NOUNS: 0.6,
    CueMode.PREVIOUS: 0.6,
}
VOCABULARY_CONFIDENCE = 0.65
# Modes whose cue reaches into neighbouring words; ties between equally long cues go to them.
_MODE_ORDER = [
    CueMode.AFTER,
    CueMode.BEFORE,
    CueMode.PREVIOUS,
    CueMode.CHUNK_AFTER,
    CueMode.CLAUSE,
    CueMode.PHRASE,
    CueMode.NOUNS,
]


# Words that take a part of the noun phrase after their "of" ("part of the team", "the rest of
# the staff"); "a member of staff" names a person and stays whole.
_PARTITIVES = frozenset({"part", "rest", "most", "some", "half", "all", "side"})


@dataclass
class Candidate:
    """A node about to be emitted: label, type, the tokens it came from, and its evidence range."""

    label: str
    node_type: str
    label_tokens: list[int]
    quote_start: int  # token index, inclusive
    quote_end: int  # token index, exclusive
    clause: int
    confidence: float
    source: str
    char_start: int
    char_end: int
    stance: int = 0
    from_noun: bool = False
    weak: bool = False
    lemmas: frozenset[str] = field(default_factory=frozenset)
    # whether the type is the interviewer's question's, put over the candidate's own
    asked: bool = False
    # whether an existing node was said in these very words (`remention.kept_types`), whatever the
    # source that found it
    said_before: bool = False


# Stop words that make an ignored noun an item: "their own series", "the same shows everywhere",
# "no ads at all" are poles; "the series", "ads" alone are not.
_QUALIFIERS = frozenset({"own", "same", "no"})

# Pronouns that name nothing after a cue verb ("(someone else had) explained | it").
_BARE_OBJECTS = frozenset({"it", "them"})
# Verbs of seeing or thinking: after a generic cue ("I can …") they open a thought, not a doing.
_MENTAL_VERBS = frozenset(
    {"see", "tell", "imagine", "remember", "understand", "think", "guess", "say", "believe"}
    | {"realise", "realize"}  # "(it) made me | realise I needed a change"
)


class CandidateFinder:
    """Turns one clause's cue matches (and vocabulary hits) into candidates.

    Cues are tried longest first (weak cues last). A cue inside another candidate's cue or noun
    phrase is ignored; a noun phrase (noun cue or vocabulary) may sit inside a predicate-like label
    of another type ("rang the helpline" + the touchpoint "helpline").
    """

    def __init__(self, lexicon: CueLexicon) -> None:
        self.lexicon = lexicon

    def find(
        self,
        doc: Doc,
        clause: Clause,
        prev: Clause | None,
        matches: list[CueMatch],
        vocab: list[Span],
        chunks: list[Span],
    ) -> list[Candidate]:
        """Candidates of `clause` in text order."""
        inside = [m for m in matches if clause.start <= m.start and m.end <= clause.end]
        # predicate-like cues first (a noun phrase may nest in their label), weak cues last
        inside.sort(
            key=lambda m: (
                m.cue.weak,
                m.cue.mode in NOMINAL_MODES,
                -(m.end - m.start),
                _MODE_ORDER.index(m.cue.mode),
                m.cue.rank,
                m.start,
            )
        )
        hard: set[int] = set()  # cue tokens and nominal labels
        soft: dict[int, str] = {}  # predicate-like label tokens -> their node type
        out: list[Candidate] = []

        def free(tokens: list[int], node_type: str, nested_ok: bool) -> bool:
            if any(i in hard for i in tokens):
                return False
            in_soft = [i for i in tokens if i in soft]
            if nested_ok:
                return all(soft[i] != node_type for i in in_soft)
            return len(in_soft) <= len(tokens) // 2

        for m in inside:
            if negated_alternative(doc, m.start):
                continue  # "calm instead of stressed": the rejected alternative is not an item
            if narrated_time(doc, m.start, m.end):
                continue  # "the next time I went home": when it happened, not a lesson
            if m.cue.mode is CueMode.NOUNS and inside_idiom(doc, m, inside):
                continue  # "feel in control of my day": no product control is meant
            nominal = m.cue.mode in (CueMode.NOUNS, CueMode.PHRASE)
            if not free(list(range(m.start, m.end)), m.cue.node_type, nested_ok=nominal):
                continue
            cand = self._from_match(doc, clause, prev, m, inside, chunks)
            if cand is None or not free(cand.label_tokens, cand.node_type, nested_ok=nominal):
                if cand is not None and all(i in soft for i in cand.label_tokens):
                    # "being organised | is what matters to me": the item is found already and the
                    # cue is spent on it; a shorter cue inside ("matters to me") must not relabel it
                    hard.update(range(m.start, m.end))
                continue
            cand.weak = m.cue.weak
            out.append(cand)
            if m.cue.mode in NOMINAL_MODES and cand.from_noun:
                hard.update(range(m.start, m.end))
                hard.update(cand.label_tokens)
            elif m.cue.mode is CueMode.PHRASE:  # an event phrase: participants may nest in it
                soft.update((i, cand.node_type) for i in range(m.start, m.end))
            else:
                hard.update(range(m.start, m.end))
                soft.update((i, cand.node_type) for i in cand.label_tokens)
        vocab_type = self.lexicon.spec.vocabulary_type
        starts = predicate_cue_starts(inside)
        for span in vocab:
            if vocab_type is None:
                break
            region = enclosing(chunks, span) or span
            inside_clause = clause.start <= span.start and span.end <= clause.end
            if not inside_clause or not free(list(range(region.start, region.end)), vocab_type, True):
                continue
            if self._had_before(doc, region, vocab_type):
                continue
            # "earbuds | that never fall out": the clause says which earbuds
            end = relative_end(doc, region, clause, starts, subject_only=True)
            tokens = list(range(region.start, end))
            cand = self._make(
                doc,
                clause,
                tokens,
                region.start,
                end,
                vocab_type,
                VOCABULARY_CONFIDENCE,
                "vocabulary",
                from_noun=True,
            )
            if cand is not None:
                out.append(cand)
                hard.update(tokens)

        def describes_earlier_noun(c: Candidate) -> bool:
            # "the bass is deep and clear": a bare adjective describes a noun node of its type
            return (
                c.source.startswith("phrase:")
                and len(c.label_tokens) == 1
                and doc[c.label_tokens[0]].pos_ == "ADJ"
                and any(
                    n.from_noun and n.node_type == c.node_type and n.quote_end <= c.quote_start for n in out
                )
            )

        def inside_predicate(c: Candidate) -> bool:
            # "so I can relax on long trips": a lone adjective/verb cue inside another item's label
            return (
                c.source.startswith("phrase:")
                and len(c.label_tokens) == 1
                and doc[c.label_tokens[0]].pos_ in {"ADJ", "VERB"}
                and any(o is not c and not o.from_noun and c.label_tokens[0] in o.label_tokens for o in out)
            )

        def carries_earlier_noun(c: Candidate) -> bool:
            # "using the app on my phone", "the tracking on my phone": the device the earlier item
            # was used on, not an item of its own ("what were you expecting from the phone?" was
            # asked in 20 simulated journeys and brought nothing new in 17)
            first = c.label_tokens[0]
            return (
                c.from_noun
                and len(c.label_tokens) == 1
                and first >= 2
                and doc[first - 1].lower_ in POSSESSIVES
                and doc[first - 2].lower_ == "on"
                and any(
                    o is not c and o.from_noun and o.node_type == c.node_type and o.quote_end <= c.quote_start
                    for o in out
                )
            )

        out = [
            c
            for c in out
            if not describes_earlier_noun(c) and not inside_predicate(c) and not carries_earlier_noun(c)
        ]
        return sorted(out, key=lambda c: c.label_tokens[0])

    def _had_before(self, doc: Doc, region: Span, node_type: str) -> bool:
        """Whether `region`, about to become an item of `node_type`, names the product had before
        (`spans.earlier_product`); asked only of the lexicon's `property_type`: in a switch
        interview the old machine is a solution."""
        return node_type == self.lexicon.spec.property_type and earlier_product(
            doc, region, self.lexicon.ignore
        )

    def _from_match(
        self,
        doc: Doc,
        clause: Clause,
        prev: Clause | None,
        m: CueMatch,
        matches: list[CueMatch],
        chunks: list[Span],
    ) -> Candidate | None:
        """The candidate cue match `m` reads, by its cue's mode, if any."""
        r = _Reading(doc, clause, prev, m, matches, chunks)
        return _READERS[m.cue.mode](self, r)

    def _emit(
        self,
        r: _Reading,
        tokens: list[int],
        q_start: int,
        q_end: int,
        *,
        from_noun: bool = False,
        clause: Clause | None = None,
    ) -> Candidate | None:
        """`_make` with the type, confidence and source of the reading's cue."""
        cue = r.m.cue
        return self._make(
            r.doc,
            clause if clause is not None else r.clause,
            tokens,
            q_start,
            q_end,
            cue.node_type,
            _MODE_CONFIDENCE[cue.mode],
            f"{cue.mode.value}:{cue.text}",
            from_noun=from_noun,
        )

    def _phrase(self, r: _Reading) -> Candidate | None:
        doc, m = r.doc, r.m
        chunk = enclosing(r.chunks, doc[m.start : m.end])
        if m.end - m.start == 1 and doc[m.start].pos_ == "ADJ" and chunk is not None:
            # "soft ear cushions": the adjective names a property of the noun phrase's item
            return self._emit(r, list(range(chunk.start, chunk.end)), chunk.start, chunk.end, from_noun=True)
        # "the pharmacist" is a participant; "driver carried the bags" is an event
        nominal = doc[m.end - 1].pos_ in {"NOUN", "PROPN"} and all(
            doc[i].pos_ not in {"VERB", "AUX"} for i in range(m.start, m.end)
        )
        return self._emit(r, list(range(m.start, m.end)), m.start, m.end, from_noun=nominal)

    def _nouns(self, r: _Reading) -> Candidate | None:
        doc, m = r.doc, r.m
        region = enclosing(r.chunks, doc[m.start : m.end])
        if region is None:
            if doc[m.end - 1].pos_ not in {"NOUN", "PROPN"}:
                return None  # "have to charge them": the verb, not the noun
            region = doc[m.start : m.end]
        # "(treated me as) part of the team", "the rest of the staff": the cue noun is the whole
        # the phrase takes a part of; the node is that whole ("the team"), not "part of the team"
        part_of = next(
            (
                i
                for i in range(region.start + 1, m.start)
                if doc[i].lower_ == "of" and doc[i - 1].lemma_.lower() in _PARTITIVES
            ),
            None,
        )
        if part_of is not None:
            region = doc[part_of + 1 : region.end]
        if self._had_before(doc, region, m.cue.node_type):
            return None
        # "dad | going home after …": a verb after the cue noun starts its predicate, not its name
        verb = next((i for i in range(m.end, region.end) if verb_like(doc[i])), None)
        if verb is not None:
            region = doc[region.start : verb]
        # "a few machines | one evening": a time after the cue noun says when, not which
        when = next((i for i in range(m.end, region.end - 1) if starts_time(doc, i)), None)
        if when is not None:
            region = doc[region.start : when]
        return self._emit(r, list(range(region.start, region.end)), region.start, region.end, from_noun=True)

    def _after(self, r: _Reading) -> Candidate | None:
        doc, clause, m = r.doc, r.clause, r.m
        end = after_end(doc, clause, m, r.matches)
        if end == m.end:
            return None
        if m.cue.weak and doc[m.end].lemma_.lower() in _MENTAL_VERBS:
            return None  # "I can see why people like it": a thought, not what "I can" do
        if the_one(doc, m.end, end):
            # "the nurse on the ward was the one who sorted it" says who did it (the person is
            # the item), not how "the ward was"
            return None
        # "feeling calm | is what matters to me": a frame after the item is not part of it
        rest = strip_frames(doc, list(range(m.end, end)), lead=False)
        if not rest:
            return None
        with_doers = bool(self.lexicon.spec.edges.participant)
        subject = cue_subject(doc, clause, m, r.matches, r.chunks, with_doers)
        cand = self._emit(r, subject + m.kept + rest, subject[0] if subject else m.start, m.end)
        if cand is not None and subject and doc[subject[0]].lower_ in PERSON_PRONOUNS:
            # a pronoun doer gives way when the label then has no room for the end of the doing
            # ("she showed me how to use | the new inhalers")
            bare = self._emit(r, m.kept + rest, m.start, m.end)
            if bare is not None and len(set(bare.label_tokens) & set(rest)) > len(
                set(cand.label_tokens) & set(rest)
            ):
                cand = bare
        if cand is not None and not any(
            i in rest and doc[i].lower_ not in _BARE_OBJECTS for i in cand.label_tokens
        ):
            # "(someone else had) explained | it": the label kept nothing of what follows the cue,
            # and the cue word alone names nothing; the clause is left to the other readings
            return None
        return cand

    def _before(self, r: _Reading) -> Candidate | None:
        m = r.m
        start = before_start(r.doc, r.clause, m, r.matches, r.chunks)
        if start >= m.start:
            return None
        return self._emit(r, list(range(start, m.start)) + m.kept, start, m.end)

    def _clause(self, r: _Reading) -> Candidate | None:
        c = r.clause
        return self._emit(r, list(range(c.start, c.end)), c.start, c.end)

    def _previous(self, r: _Reading) -> Candidate | None:
        prev = r.prev
        if prev is None:
            return None
        return self._emit(r, list(range(prev.start, prev.end)), prev.start, r.m.end, clause=prev)

    def _chunk_after(self, r: _Reading) -> Candidate | None:
        """The first noun phrase after the cue, close to it."""
        doc, clause, m = r.doc, r.clause, r.m
        nxt = next((c for c in r.chunks if m.end <= c.start < min(clause.end, m.end + 4)), None)
        if nxt is None or nxt.end > clause.end:
            return None
        if any(
            o.cue.mode is CueMode.NOUNS
            and o.cue.node_type != m.cue.node_type
            and nxt.start <= o.start < nxt.end
            for o in r.matches
        ):
            return None  # "I pay attention to Netflix": a named element stays an element, not a pole
        end = relative_end(doc, nxt, clause, predicate_cue_starts(r.matches))
        start = nxt.start
        if start - 1 >= max(m.end, clause.start) and doc[start - 1].lower_ == "no":
            start -= 1  # "(I pay attention to) no adverts": the pole, not "adverts"
        return self._emit(r, m.kept + list(range(start, end)), start, end, from_noun=True)

    def _make(
        self,
        doc: Doc,
        clause: Clause,
        tokens: list[int],
        q_start: int,
        q_end: int,
        node_type: str,
        confidence: float,
        source: str,
        *,
        from_noun: bool = False,
    ) -> Candidate | None:
        shaped = shape_label(doc, tokens)
        if shaped is None:
            return None
        label, kept = shaped
        lemmas = label_lemmas(doc, kept)
        content = {doc[i].lemma_.lower() for i in kept if is_content(doc[i]) or doc[i].lower_ in _QUALIFIERS}
        if not content or content <= self.lexicon.ignore:
            return None
        if node_type in self.lexicon.spec.friction_types and denies_friction(doc, kept[0], kept[-1] + 1):
            return None  # "there were no problems at all": a friction denied
        q_start = min(q_start, kept[0])
        q_end = max(q_end, kept[-1] + 1)
        return Candidate(
            label=label,
            node_type=node_type,
            label_tokens=kept,
            quote_start=q_start,
            quote_end=q_end,
            clause=clause.index,
            confidence=confidence,
            source=source,
            char_start=doc[q_start].idx,
            char_end=doc[q_end - 1].idx + len(doc[q_end - 1].text),
            stance=stance_of(doc, clause.start, clause.end),
            from_noun=from_noun,
            lemmas=lemmas,
        )


def label_lemmas(doc: Doc, kept: list[int]) -> frozenset[str]:
    """The lemmas of a label's word tokens `kept` (words and hyphenated words, not punctuation)."""
    return frozenset(doc[i].lemma_.lower() for i in kept if doc[i].is_alpha or "-" in doc[i].text)


def is_content(tok: Token) -> bool:
    """A word that can carry a label: not a stop word, or a noun spaCy lists as one ("call", "side")."""
    return not tok.is_stop or (tok.pos_ in {"NOUN", "PROPN"} and len(tok.text) > 3)


@dataclass(frozen=True)
class _Reading:
    """One cue match in its clause, with what reading it needs."""

    doc: Doc
    clause: Clause
    prev: Clause | None
    m: CueMatch
    matches: list[CueMatch]
    chunks: list[Span]


_READERS: dict[CueMode, Callable[[CandidateFinder, _Reading], Candidate | None]] = {
    CueMode.PHRASE: CandidateFinder._phrase,
    CueMode.NOUNS: CandidateFinder._nouns,
    CueMode.AFTER: CandidateFinder._after,
    CueMode.BEFORE: CandidateFinder._before,
    CueMode.CLAUSE: CandidateFinder._clause,
    CueMode.PREVIOUS: CandidateFinder._previous,
    CueMode.CHUNK_AFTER: CandidateFinder._chunk_after,
}
