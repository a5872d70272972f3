"""Typed node candidates from cue matches, concept vocabulary and noun-phrase chunks."""

from __future__ import annotations

from dataclasses import dataclass, field

from spacy.tokens import Doc, Span, Token

from services.extraction.local.cues import CueLexicon, CueMatch, CueMode
from services.extraction.local.labels import (
    MAX_LABEL_WORDS,
    POSSESSIVES,
    TIME_NOUNS,
    after_is_particle,
    is_time_adverb,
    opens_time_phrase,
    shape_label,
)
from services.extraction.local.segment import Clause, strip_frames
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
_STOP_AFTER = frozenset(
    {
        "without",
        "when",
        "while",
        "if",
        "until",
        "before",
        "after",
        "because",
        "since",
        "whenever",
        "unless",
        "although",
        "though",
        "instead",
    }
)


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


_NOMINAL = frozenset({CueMode.PHRASE, CueMode.NOUNS, CueMode.CHUNK_AFTER})


# Stop words that make an ignored noun an item: "their own series", "the same shows everywhere",
# "no ads at all" are poles; "the series", "ads" alone are not.
_QUALIFIERS = frozenset({"own", "same", "no"})


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
                m.cue.mode in _NOMINAL,
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
            if _negated_alternative(doc, m.start):
                continue  # "calm instead of stressed": the rejected alternative is not an item
            if m.cue.mode is CueMode.NOUNS and _inside_idiom(doc, m, inside):
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
            if m.cue.mode in _NOMINAL and cand.from_noun:
                hard.update(range(m.start, m.end))
                hard.update(cand.label_tokens)
            elif m.cue.mode is CueMode.PHRASE:  # an event phrase: participants may nest in it
                soft.update((i, cand.node_type) for i in range(m.start, m.end))
            else:
                hard.update(range(m.start, m.end))
                soft.update((i, cand.node_type) for i in cand.label_tokens)
        vocab_type = self.lexicon.spec.vocabulary_type
        starts = _predicate_cue_starts(inside)
        for span in vocab:
            if vocab_type is None:
                break
            region = _enclosing(chunks, span) or span
            inside_clause = clause.start <= span.start and span.end <= clause.end
            if not inside_clause or not free(list(range(region.start, region.end)), vocab_type, True):
                continue
            # "earbuds | that never fall out": the clause says which earbuds
            end = _relative_end(doc, region, clause, starts, subject_only=True)
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

        out = [c for c in out if not describes_earlier_noun(c) and not inside_predicate(c)]
        return sorted(out, key=lambda c: c.label_tokens[0])

    def _from_match(
        self,
        doc: Doc,
        clause: Clause,
        prev: Clause | None,
        m: CueMatch,
        matches: list[CueMatch],
        chunks: list[Span],
    ) -> Candidate | None:
        mode = m.cue.mode
        conf = _MODE_CONFIDENCE[mode]
        source = f"{mode.value}:{m.cue.text}"
        node_type = m.cue.node_type
        if mode is CueMode.PHRASE:
            chunk = _enclosing(chunks, doc[m.start : m.end])
            if m.end - m.start == 1 and doc[m.start].pos_ == "ADJ" and chunk is not None:
                # "soft ear cushions": the adjective names a property of the noun phrase's item
                tokens = list(range(chunk.start, chunk.end))
                return self._make(
                    doc, clause, tokens, chunk.start, chunk.end, node_type, conf, source, from_noun=True
                )
            # "the pharmacist" is a participant; "driver carried the bags" is an event
            nominal = doc[m.end - 1].pos_ in {"NOUN", "PROPN"} and all(
                doc[i].pos_ not in {"VERB", "AUX"} for i in range(m.start, m.end)
            )
            return self._make(
                doc,
                clause,
                list(range(m.start, m.end)),
                m.start,
                m.end,
                node_type,
                conf,
                source,
                from_noun=nominal,
            )
        if mode is CueMode.NOUNS:
            region = _enclosing(chunks, doc[m.start : m.end])
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
            # "dad | going home after …": a verb after the cue noun starts its predicate, not its name
            verb = next((i for i in range(m.end, region.end) if _verb_like(doc[i])), None)
            if verb is not None:
                region = doc[region.start : verb]
            # "a few machines | one evening": a time after the cue noun says when, not which
            when = next((i for i in range(m.end, region.end - 1) if _starts_time(doc, i)), None)
            if when is not None:
                region = doc[region.start : when]
            return self._make(
                doc,
                clause,
                list(range(region.start, region.end)),
                region.start,
                region.end,
                node_type,
                conf,
                source,
                from_noun=True,
            )
        if mode is CueMode.AFTER:
            end = _after_end(doc, clause, m, matches)
            if end == m.end:
                return None
            if m.cue.weak and doc[m.end].lemma_.lower() in _MENTAL_VERBS:
                return None  # "I can see why people like it": a thought, not what "I can" do
            # "feeling calm | is what matters to me": a frame after the item is not part of it
            rest = strip_frames(doc, list(range(m.end, end)), lead=False)
            if not rest:
                return None
            subject = _cue_subject(doc, clause, m, matches, chunks, bool(self.lexicon.spec.edges.participant))
            cand = self._make(
                doc,
                clause,
                subject + m.kept + rest,
                subject[0] if subject else m.start,
                m.end,
                node_type,
                conf,
                source,
            )
            if cand is not None and subject and doc[subject[0]].lower_ in _PERSON_PRONOUNS:
                # a pronoun doer gives way when the label then has no room for the end of the doing
                # ("she showed me how to use | the new inhalers")
                bare = self._make(doc, clause, m.kept + rest, m.start, m.end, node_type, conf, source)
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
        if mode is CueMode.BEFORE:
            start = _before_start(doc, clause, m, matches, chunks)
            if start >= m.start:
                return None
            return self._make(
                doc, clause, list(range(start, m.start)) + m.kept, start, m.end, node_type, conf, source
            )
        if mode is CueMode.CLAUSE:
            return self._make(
                doc,
                clause,
                list(range(clause.start, clause.end)),
                clause.start,
                clause.end,
                node_type,
                conf,
                source,
            )
        if mode is CueMode.PREVIOUS:
            if prev is None:
                return None
            return self._make(
                doc, prev, list(range(prev.start, prev.end)), prev.start, m.end, node_type, conf, source
            )
        # CHUNK_AFTER: the first noun phrase after the cue, close to it
        nxt = next((c for c in chunks if m.end <= c.start < min(clause.end, m.end + 4)), None)
        if nxt is None or nxt.end > clause.end:
            return None
        if any(
            o.cue.mode is CueMode.NOUNS and o.cue.node_type != node_type and nxt.start <= o.start < nxt.end
            for o in matches
        ):
            return None  # "I pay attention to Netflix": a named element stays an element, not a pole
        end = _relative_end(doc, nxt, clause, _predicate_cue_starts(matches))
        return self._make(
            doc,
            clause,
            m.kept + list(range(nxt.start, end)),
            nxt.start,
            end,
            node_type,
            conf,
            source,
            from_noun=True,
        )

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
        lemmas = frozenset(doc[i].lemma_.lower() for i in kept if doc[i].is_alpha or "-" in doc[i].text)
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


def is_content(tok: Token) -> bool:
    """A word that can carry a label: not a stop word, or a noun spaCy lists as one ("call", "side")."""
    return not tok.is_stop or (tok.pos_ in {"NOUN", "PROPN"} and len(tok.text) > 3)


def _after_end(doc: Doc, clause: Clause, m: CueMatch, matches: list[CueMatch]) -> int:
    """Where an `after` label stops: punctuation, a subordinator, a new predicate, or the next cue."""

    def content_between(a: int, b: int) -> bool:
        return any(doc[i].pos_ in {"NOUN", "PROPN", "VERB"} for i in range(a, b))

    # the next cue of another type ends the label, unless only function words or modifiers precede
    # it ("nobody explained …", "learned to check …", "compared three capsule machines" keep going;
    # "bought a machine to impress" stops): a number or adjective belongs to the phrase it precedes
    next_cue = min(
        (
            o.start
            for o in matches
            if o.start >= m.end
            and o.cue.mode is not CueMode.NOUNS
            and o.cue.node_type != m.cue.node_type
            and content_between(m.end, o.start)
            # "saw a colleague's | capsule machine": a possessor belongs to the phrase it owns
            and doc[o.start - 1].lower_.replace("’", "'") != "'s"
        ),
        default=clause.end,
    )
    end = m.end
    limit = min(clause.end, next_cue)
    if next_cue < clause.end:
        # "feeling relaxed | gives me | peace of mind": the verb leading into the next cue is not ours
        while limit > m.end and doc[limit - 1].pos_ in {"VERB", "AUX", "PRON", "PART", "ADP", "DET"}:
            limit -= 1
    while end < limit:
        tok = doc[end]
        if tok.is_punct or (
            tok.lower_ in _STOP_AFTER
            and not is_time_adverb(doc, end)
            and not (end > m.end and opens_time_phrase(doc, end))
            and not (end > m.end and after_is_particle(doc, end))
        ):
            # "phoned me the day | before he came home": the time phrase belongs to the clause cut off
            end = _without_dangling_time(doc, m.end, end) if tok.lower_ in {"before", "after"} else end
            break
        nxt = doc[end + 1] if end + 1 < clause.end else None
        if tok.pos_ == "CCONJ" and nxt is not None and _new_clause_after(doc, end + 1, clause.end):
            break  # "... and ended up back in hospital", "... and the ward was short-staffed"
        end += 1
    return end


def _verb_like(tok: Token) -> bool:
    """A verb, or a verb's -ing form the lookup tagger read as an adjective ("dad going home")."""
    word = tok.lower_
    return tok.pos_ in {"VERB", "AUX"} or (word.endswith("ing") and tok.lemma_.lower() != word)


def _cue_subject(
    doc: Doc, clause: Clause, m: CueMatch, matches: list[CueMatch], chunks: list[Span], participants: bool
) -> list[int]:
    """The subject a kept cue needs, when it stands right before the cue: the noun phrase a
    "was/were …" cue describes, or who did what a verb cue names.

    "all the good slots | were gone by sunday night": without its subject the state reads as a doing
    ("gone by sunday night" said back as "going by sunday night"); "my wife | lost half a day's
    pay" without its doer reads as the respondent's own doing. `participants`: whether the
    methodology joins a doing to its doer by an edge (so a doer that is an item of its own may stay
    in the doing's label too).
    """
    if not m.kept or m.kept[0] != m.start:
        return []
    cue = doc[m.start]
    if cue.lemma_.lower() != "be" and (cue.pos_ == "VERB" or cue.lemma_.lower() != cue.lower_):
        # "my wife | lost half a day's pay": someone else's doing keeps its doer, else it is said
        # back as the respondent's own ("how did losing half a day's pay affect you?"). A doer that
        # is an item of its own stays one where no participant edge would join the two ("instant
        # coffee | tasted burnt" links the solution to its firing criterion)
        if m.start > clause.start and doc[m.start - 1].lower_ in _PERSON_PRONOUNS:
            return [m.start - 1]  # "she | watched me use the inhaler": her doing, not the respondent's
        start = m.start
        while start > clause.start and m.start - start < 3 and _in_doer(doc[start - 1]):
            start -= 1
        if not _is_doer(doc, start, m.start):
            return []
        own = any(o is not m and o.start < m.start and start < o.end for o in matches)
        return [] if own and not participants else list(range(start, m.start))
    if cue.lemma_.lower() != "be":
        return []
    chunk = next((c for c in chunks if c.end == m.start and c.start >= clause.start), None)
    if chunk is None or doc[chunk.end - 1].pos_ not in {"NOUN", "PROPN"}:
        return []
    if any(o is not m and o.start < chunk.end and chunk.start < o.end for o in matches):
        return []  # "YouTube is mostly …": a subject that is an item of its own stays one
    return list(range(chunk.start, chunk.end))


# Pronouns that stand for a person other than the respondent.
_PERSON_PRONOUNS = frozenset({"she", "he"})
# Pronouns that name nothing after a cue verb ("(someone else had) explained | it").
_BARE_OBJECTS = frozenset({"it", "them"})
# a doer may be the interviewer's word said back ("your daughter") as well as the respondent's own
_POSSESSIVES = POSSESSIVES | {"your"}
# Verbs of seeing or thinking: after a generic cue ("I can …") they open a thought, not a doing.
_MENTAL_VERBS = frozenset(
    {"see", "tell", "imagine", "remember", "understand", "think", "guess", "say", "believe"}
)


# What opens a relative clause after a noun phrase ("earbuds | that weigh almost nothing").
_RELATIVE_OPENERS = frozenset({"that", "which", "who"})
# What ends one: a new clause or a reason joined to the chosen thing, not part of it.
_RELATIVE_STOPS = frozenset({"and", "but", "because", "so", "since", "as", "when", "while", "or"})


def _predicate_cue_starts(matches: list[CueMatch]) -> frozenset[int]:
    """Where cues that are not noun phrases begin (a noun cue may lie inside a relative clause)."""
    return frozenset(o.start for o in matches if o.cue.mode not in _NOMINAL)


def _relative_end(
    doc: Doc, chunk: Span, clause: Clause, cue_starts: frozenset[int], *, subject_only: bool = False
) -> int:
    """Where a chosen noun phrase ends, with the relative clause that describes it when one follows.

    "I go for earbuds | that weigh almost nothing": "earbuds" alone names nothing the respondent
    chose; the clause is the attribute. A relative clause too long for a label is left out whole
    rather than cut ("a case | which …" stays "case"), and a predicate's cue ends it ("earbuds that
    never fall out | matter to me"). `subject_only`: only a clause whose subject is the noun ("that never
    fall out", not "that I get"), for a noun found without a cue.
    """
    if chunk.end + 1 >= clause.end or doc[chunk.end].lower_ not in _RELATIVE_OPENERS:
        return chunk.end
    if subject_only and doc[chunk.end + 1].pos_ not in {"VERB", "AUX", "ADV", "PART"}:
        return chunk.end
    end = chunk.end + 1
    while (
        end < clause.end
        and end not in cue_starts
        and not doc[end].is_punct
        and doc[end].lower_ not in _RELATIVE_STOPS
    ):
        end += 1
    if end - chunk.start > MAX_LABEL_WORDS + 1 or not any(
        doc[i].pos_ in {"VERB", "AUX"} for i in range(chunk.end + 1, end)
    ):
        return chunk.end
    return end


def _in_doer(tok: Token) -> bool:
    return tok.pos_ in {"DET", "ADJ", "NOUN", "PROPN"} or tok.lower_ in _POSSESSIVES


def _is_doer(doc: Doc, start: int, end: int) -> bool:
    """Whether tokens [start, end) are a short noun phrase naming someone or something other than
    the respondent ("my wife", "the ward pharmacist"): not "I", "it", nor a clause of its own."""
    if not 1 <= end - start <= 3 or doc[end - 1].pos_ not in {"NOUN", "PROPN"}:
        return False
    return all(_in_doer(doc[i]) for i in range(start, end))


def _new_clause_after(doc: Doc, start: int, end: int) -> bool:
    """Whether doc[start:end], right after "and"/"but", starts a clause of its own.

    A verb opens one ("and ended up back in hospital"); so does a determiner or pronoun with a verb
    after it ("and the ward was short-staffed"). Without a verb it is the second half of a noun
    phrase ("between the school run and my train").
    """
    first = doc[start]
    if first.pos_ in {"VERB", "AUX"}:
        return True
    if first.pos_ not in {"DET", "PRON"}:
        return False
    return any(doc[i].pos_ in {"VERB", "AUX"} for i in range(start + 1, end))


def _starts_time(doc: Doc, i: int) -> bool:
    """Whether tokens i, i+1 are a count or determiner and a time noun ("one evening", "that day")."""
    return doc[i].pos_ in {"DET", "NUM"} and doc[i + 1].lemma_.lower() in TIME_NOUNS


def _without_dangling_time(doc: Doc, start: int, end: int) -> int:
    """`end` moved back over a time phrase ("the day", "a week") that ends just before it."""
    if end - 1 > start and doc[end - 1].lemma_.lower() in TIME_NOUNS and doc[end - 2].pos_ in {"DET", "NUM"}:
        return end - 2
    return end


def _before_start(doc: Doc, clause: Clause, m: CueMatch, matches: list[CueMatch], chunks: list[Span]) -> int:
    """Where a `before` label starts: after an opening prepositional phrase or an earlier cue."""
    start = max(
        [clause.start]
        + [
            o.end
            for o in matches
            if clause.start <= o.start and o.end <= m.start and o.cue.mode not in _NOMINAL
        ]
    )
    if start == clause.start and doc[start].pos_ == "ADP":
        chunk = next((c for c in chunks if start < c.start <= start + 2), None)
        if chunk is not None and chunk.end < m.start:
            start = (
                chunk.end
            )  # "At checkout the delivery fee doubled": the label starts at "the delivery fee"
    while start < m.start and doc[start].is_punct:
        start += 1
    return start


def _inside_idiom(doc: Doc, m: CueMatch, matches: list[CueMatch]) -> bool:
    """Whether a noun cue's word lies inside a phrase cue of another type that opens with a
    preposition ("in control", "at ease"): such a phrase is an idiom whose noun names nothing,
    where an event phrase ("rang the helpline") names its participants."""
    return any(
        o.cue.mode is CueMode.PHRASE
        and o.cue.node_type != m.cue.node_type
        and o.start <= m.start
        and m.end <= o.end
        and doc[o.start].pos_ == "ADP"
        for o in matches
    )


def _negated_alternative(doc: Doc, i: int) -> bool:
    before = " ".join(t.lower_ for t in doc[max(0, i - 2) : i])
    return before.endswith(("instead of", "rather than")) or before in {"not", "never"}


def _enclosing(chunks: list[Span], span: Span) -> Span | None:
    for c in chunks:
        if c.start <= span.start and span.end <= c.end:
            return c
    return None
