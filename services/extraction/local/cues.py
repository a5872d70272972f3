"""Cue lexicons of the offline extractor: per methodology, keyed by ontology node type.

A lexicon lives in `services/extraction/local/cues/<methodology>.yaml` (format documented at the
top of `means_end_chain.yaml`). Node types and edge types it names must exist in the
methodology's ontology (checked at load). Each node type's `examples` from the ontology are
added as `phrase` cues, so a methodology without a lexicon file still gets a usable, if weaker,
offline extractor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from services.extraction.nlp import NlpPipeline
from shared.methodology_models import MethodologyConfig

CUES_DIR = Path(__file__).parent / "cues"
# Words that never make a node on their own in any methodology.
GENERIC_IGNORE = (
    "think",
    "guess",
    "know",
    "mean",
    "suppose",
    "say",
    "thing",
    "main",  # "the main thing is still the price": "main thing" names nothing
    "stuff",
    "lot",
    "bit",
    "kind",
    "sort",
    "way",
    "one",
    "something",
    "anything",
    "everything",
    "nothing",
    "question",
    "answer",
    # an answer that only agrees ("yes, that's about right", "that's true") names nothing
    "right",
    "true",
    "correct",
    "exactly",
    "absolutely",
    "sum",  # "that sums it up"
    "happen",  # "it happened because …": the reason is the item, not that something happened
    # exclamations ("oh my goodness", "gosh") say nothing about the topic
    "goodness",
    "gosh",
)


class CueMode(StrEnum):
    """How a matched cue turns into a node label (see the lexicon format)."""

    PHRASE = "phrase"
    AFTER = "after"
    BEFORE = "before"
    CLAUSE = "clause"
    CHUNK_AFTER = "chunk_after"
    NOUNS = "nouns"
    PREVIOUS = "previous"


class TypeCues(BaseModel):
    """The cue lists of one node type."""

    model_config = ConfigDict(extra="forbid")

    phrase: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)
    before: list[str] = Field(default_factory=list)
    clause: list[str] = Field(default_factory=list)
    chunk_after: list[str] = Field(default_factory=list)
    nouns: list[str] = Field(default_factory=list)
    previous: list[str] = Field(default_factory=list)


class EdgePreferences(BaseModel):
    """Edge types to try, in order, for each way two items can be related."""

    model_config = ConfigDict(extra="forbid")

    causal: list[str] = Field(default_factory=list)
    contrast: list[str] = Field(default_factory=list)
    intra: list[str] = Field(default_factory=list)
    sequence: list[str] = Field(default_factory=list)
    # edges from every predicate-like item of a clause to each noun-phrase item of it (actor, touchpoint)
    participant: list[str] = Field(default_factory=list)
    # from what the question asked about to an instance the answer names ("X is a good example of that")
    example: list[str] = Field(default_factory=list)


class OpeningStory(BaseModel):
    """How an occasion's story opens: its setting first, then what the setting brought about."""

    model_config = ConfigDict(extra="forbid")

    # phrases of the interviewer's question that ask for an occasion ("one particular occasion")
    questions: list[str]
    # the type of the first item, told as a state ("dad was being discharged …", "I was back on the
    # ward"), that the answer goes on from with a result ("…, which meant …")
    setting: str
    # the type of what the setting brought about, when a cue gave it one of `retyped`
    event: str
    retyped: list[str] = Field(default_factory=list)
    # the first item's types that may be a setting told as a state (a doing never is)
    from_types: list[str] = Field(default_factory=list)


class LexiconFile(BaseModel):
    """A cue lexicon file as written."""

    model_config = ConfigDict(extra="forbid")

    reason_direction: Literal["up", "down"] = "up"
    vocabulary_type: str | None = None
    ignore: list[str] = Field(default_factory=list)
    edges: EdgePreferences = Field(default_factory=EdgePreferences)
    types: dict[str, TypeCues] = Field(default_factory=dict)
    # node types whose clauses run in sequence ("first … then …") and get `edges.sequence` edges
    sequence_types: list[str] = Field(default_factory=list)
    # node type -> phrases of the interviewer's question that make every predicate-like item of the
    # answer that type ("why do you think …" → attribution)
    question_types: dict[str, list[str]] = Field(default_factory=dict)
    # whether the question's type also overrides an item's own cue type. A switch interview's "why did
    # you stop?" makes what follows a firing criterion whatever its words; an incident's "why do
    # you think it went that way?" is answered by retelling it, and "I was readmitted" stays an
    # outcome (else its explanation links to it as a lesson)
    question_types_override_cues: bool = True
    # question type -> other node types that answer the same question: an item a cue of one of them
    # typed keeps that type even where the question's type overrides cues ("What held you back?"
    # "I always chatted with the barista": a habit holds back as an anxiety does)
    question_type_siblings: dict[str, list[str]] = Field(default_factory=dict)
    # node type -> the type of the other side of a contrast ("whereas …"): emergent → implicit pole
    contrast_types: dict[str, str] = Field(default_factory=dict)
    # an occasion's story told from its setting (critical incidents; see `occasions.opening_setting`)
    opening: OpeningStory | None = None
    # node type of what follows the verb when two or more vocabulary/noun items are its subject
    pair_subject_type: str | None = None
    # node type of the pole named in "on the <pole> side" / "at the <pole> end" (a grid's placements)
    placement_type: str | None = None
    # node type of the subject of "<noun phrase> is <adjective>" ("the clamp is gentle" → attribute)
    property_type: str | None = None
    # a stated causal link between two items of one type that may not link to each other retypes the
    # effect to the nearest type that may ("X, and because of that Y": incident -> action)
    retype_same_type_links: bool = False
    # node types that name something that went wrong: an item of one whose own words read well once
    # negated ("there were no problems", "the van wasn't late") names no friction and is none
    friction_types: list[str] = Field(default_factory=list)
    # node types that speak of people in general ("hospitals should always call the carer"): a
    # participant named by its noun in such a clause is a role, not someone who took part
    general_types: list[str] = Field(default_factory=list)
    # node type -> endings of "<left side> <connective>" that type the clause the connective
    # introduces ("that was because" -> attribution, "what i took from it" -> learning); "*" stands
    # for one to four words ("stopped using * because": whatever was stopped). The respondent's own
    # framing beats the interviewer's question (and, where question types override cues, cues too)
    reason_types: dict[str, list[str]] = Field(default_factory=dict)
    # node type -> heads of a pseudo-cleft ("what put me off" in "What put me off X was that Y"): Y is
    # an item of that type, X (between the head and "was") names only what it is about
    cleft_types: dict[str, list[str]] = Field(default_factory=dict)
    # node type -> edge types tried first between a cleft's focus of that type and what its gap names
    cleft_edges: dict[str, list[str]] = Field(default_factory=dict)


class LexiconError(ValueError):
    """A lexicon file that does not fit its methodology (names the file and the problem)."""


@dataclass(frozen=True)
class Cue:
    """One cue: its node type, mode, lemma/lower sequence and which tokens stay in the label."""

    key: str
    node_type: str
    mode: CueMode
    text: str
    keep: tuple[bool, ...]
    exact: bool
    weak: bool
    rank: int  # position of the node type in the lexicon (earlier = preferred on ties)


@dataclass(frozen=True)
class FrameMatch:
    """A `reason_types` ending found at the end of a connective's lead-in."""

    node_type: str
    words: int  # how many words of the lead-in (connective included) the ending covers


@dataclass(frozen=True)
class CleftHead:
    """A `cleft_types` head found in a doc at tokens [start, end)."""

    node_type: str
    text: str
    start: int
    end: int


@dataclass(frozen=True)
class CueMatch:
    """A cue found in a doc at tokens [start, end)."""

    cue: Cue
    start: int
    end: int

    @property
    def kept(self) -> list[int]:
        """Token indices of the cue that belong in the label."""
        return [self.start + i for i, k in enumerate(self.cue.keep) if k]


_BRACES = re.compile(r"\{([^}]*)\}")
# Subjects a cue may open with, and the adverbs a speaker puts between such a subject and its verb.
_CUE_SUBJECTS = frozenset({"i", "we", "they", "it", "you"})
SPOKEN_ADVERBS = frozenset(
    {
        "always",
        "really",
        "usually",
        "normally",
        "just",
        "mostly",
        "generally",
        "definitely",
        "also",
        "still",
        "often",
        "actually",
        "personally",
        "genuinely",
        "simply",
        "typically",
        "honestly",
        "certainly",
    }
)


# Degree words people put inside a way of being ("being well organised", "being more independent").
_DEGREE_WORDS = ("well", "really", "very", "more", "properly", "truly", "fully", "quite", "financially")


class CueLexicon:
    """A compiled lexicon: matchers for its cues plus the edge and typing preferences."""

    def __init__(self, spec: LexiconFile, methodology: MethodologyConfig, pipeline: NlpPipeline) -> None:
        self.spec = spec
        self.methodology = methodology
        self.ignore = frozenset(pipeline.lemma(w) for w in (*spec.ignore, *GENERIC_IGNORE))
        self.cues: dict[str, Cue] = {}
        self._lemma_matcher = PhraseMatcher(pipeline.nlp.vocab, attr="LEMMA")
        self._lower_matcher = PhraseMatcher(pipeline.nlp.vocab, attr="LOWER")
        type_order = list(spec.types) + [
            n.name for n in methodology.ontology.nodes if n.name not in spec.types
        ]
        entries: list[tuple[str, CueMode, str, int]] = []
        for rank, type_name in enumerate(type_order):
            cues = spec.types.get(type_name, TypeCues())
            node = methodology.node_type(type_name)
            examples = list(node.examples) if node is not None else []
            for mode in CueMode:
                words: list[str] = list(getattr(cues, mode.value))
                if mode is CueMode.PHRASE:
                    words += [e for e in examples if e.lower() not in {w.lower() for w in words}]
                entries += [(type_name, mode, raw, rank) for raw in words]
        # an adverb a cue keeps in its label ("i {always}": a habit) is never skipped over
        in_cues = {
            w
            for _, mode, raw, _ in entries
            for part in ([raw] if mode in (CueMode.PHRASE, CueMode.NOUNS) else _BRACES.findall(raw))
            for w in re.findall(r"[a-z']+", part.lower())
        }
        self._adverbs = sorted(SPOKEN_ADVERBS - in_cues)
        for type_name, mode, raw, rank in entries:
            self._add(pipeline, type_name, mode, raw, rank)
        # types a participant edge points at that are found by their nouns ("the driver"): things
        # around an event, which do not make the clause naming them an item of their own
        self.noun_participants = frozenset(
            target
            for edge in methodology.ontology.edges
            if edge.name in spec.edges.participant
            for _, target in edge.permitted_connections
            if target in spec.types and spec.types[target].nouns
        )
        self._reasons = [
            (node_type, _ending(phrase))
            for node_type, phrases in spec.reason_types.items()
            for phrase in phrases
        ]
        self._cleft_matcher = PhraseMatcher(pipeline.nlp.vocab, attr="LEMMA")
        self._cleft_types: dict[str, tuple[str, str]] = {}
        for node_type, heads in spec.cleft_types.items():
            for head in heads:
                key = f"cleft:{len(self._cleft_types)}"
                self._cleft_types[key] = (node_type, head.lower())
                self._cleft_matcher.add(key, [pipeline.parse(head.lower())])

    def _add(self, pipeline: NlpPipeline, node_type: str, mode: CueMode, raw: str, rank: int) -> None:
        weak = raw.startswith("~")
        body = raw[1:] if weak else raw
        exact = body.startswith("=")
        body = body[1:] if exact else body
        plain = _BRACES.sub(lambda m: m.group(1), body)
        kept_ranges: list[tuple[int, int]] = []
        shift = 0
        for m in _BRACES.finditer(body):
            start = m.start() - shift
            kept_ranges.append((start, start + len(m.group(1))))
            shift += 2
        doc = pipeline.parse(plain.lower())
        if len(doc) == 0:
            return
        keep = tuple(
            mode in (CueMode.PHRASE, CueMode.NOUNS) or any(a <= t.idx < b for a, b in kept_ranges)
            for t in doc
        )
        key = f"{node_type}:{mode.value}:{len(self.cues)}"
        self.cues[key] = Cue(key, node_type, mode, plain.lower(), keep, exact, weak, rank)
        matcher = self._lower_matcher if exact else self._lemma_matcher
        matcher.add(key, [doc])
        if mode is CueMode.PHRASE and len(doc) >= 2 and doc[0].lower_ == "being":
            # "being well organised", "being really healthy": a degree word inside a way of being is
            # part of what was said (kept in the label), and no reason to miss the value
            rest = plain.lower()[len(doc[0].text) :]
            degree = [pipeline.parse(f"being {word}{rest}") for word in _DEGREE_WORDS]
            key = f"{node_type}:{mode.value}:{len(self.cues)}"
            self.cues[key] = Cue(key, node_type, mode, plain.lower(), (True, *keep), exact, weak, rank)
            matcher.add(key, [v for v in degree if len(v) == len(doc) + 1])
        if len(doc) < 2 or doc[0].lower_ not in _CUE_SUBJECTS or doc[1].lower_ in SPOKEN_ADVERBS:
            return  # "i really care about" is its own cue
        # "I always go for …", "I really value …": people put an adverb between the subject and the
        # verb of a cue; the variants match over it and keep it out of the label
        head, rest = doc[0].text, plain.lower()[len(doc[0].text) :]
        variants = [pipeline.parse(f"{head} {adverb}{rest}") for adverb in self._adverbs]
        variants = [v for v in variants if len(v) == len(doc) + 1]
        key = f"{node_type}:{mode.value}:{len(self.cues)}"
        skip_adverb = (keep[0], False, *keep[1:])
        self.cues[key] = Cue(key, node_type, mode, plain.lower(), skip_adverb, exact, weak, rank)
        matcher.add(key, variants)

    def reason_type(self, lead: str) -> FrameMatch | None:
        """The `reason_types` type whose ending closes `lead` ("i gave up on it because"), if any."""
        text = " ".join(lead.lower().replace("’", "'").split())
        for node_type, pattern in self._reasons:
            found = pattern.search(text)
            if found is not None:
                return FrameMatch(node_type, len(found.group(0).split()))
        return None

    def cleft_heads(self, doc: Doc) -> list[CleftHead]:
        """Every `cleft_types` head in `doc`, longest first where two start together."""
        found = [
            CleftHead(*self._cleft_types[doc.vocab.strings[key]], start, end)
            for key, start, end in self._cleft_matcher(doc)
        ]
        return sorted(found, key=lambda h: (h.start, -(h.end - h.start)))

    def matches(self, doc: Doc) -> list[CueMatch]:
        """Every cue occurrence in `doc` (overlaps included; the extractor arbitrates)."""
        out: list[CueMatch] = []
        for matcher in (self._lemma_matcher, self._lower_matcher):
            for match_id, start, end in matcher(doc):
                cue = self.cues[doc.vocab.strings[match_id]]
                out.append(CueMatch(cue, start, end))
        return out


def _ending(phrase: str) -> re.Pattern[str]:
    """A phrase of `reason_types` as a pattern for the end of a lead-in; "*" is one to four words."""
    words = [r"\S+(?: \S+){0,3}" if w == "*" else re.escape(w) for w in phrase.lower().split()]
    return re.compile(r"(?:^|(?<= ))" + " ".join(words) + "$")


def _check(spec: LexiconFile, methodology: MethodologyConfig, path: Path) -> None:
    node_names = {n.name for n in methodology.ontology.nodes}
    edge_names = {e.name for e in methodology.ontology.edges}
    problems = [
        f"types.{t}: not a node type of {methodology.name}" for t in spec.types if t not in node_names
    ]
    for group in ("causal", "contrast", "intra", "sequence", "participant", "example"):
        problems += [
            f"edges.{group}: {e!r} is not an edge type of {methodology.name}"
            for e in getattr(spec.edges, group)
            if e not in edge_names
        ]
    problems += [
        f"{key}: {t!r} is not a node type"
        for key in ("sequence_types", "friction_types", "general_types")
        for t in getattr(spec, key)
        if t not in node_names
    ]
    problems += [f"question_types.{t}: not a node type" for t in spec.question_types if t not in node_names]
    problems += [f"reason_types.{t}: not a node type" for t in spec.reason_types if t not in node_names]
    problems += [f"cleft_types.{t}: not a node type" for t in spec.cleft_types if t not in node_names]
    problems += [
        f"cleft_edges.{t}: {t!r} is not a node type or {e!r} not an edge type"
        for t, edges in spec.cleft_edges.items()
        for e in edges
        if t not in node_names or e not in edge_names
    ]
    for key in ("pair_subject_type", "property_type", "placement_type", "vocabulary_type"):
        value = getattr(spec, key)
        if value is not None and value not in node_names:
            problems.append(f"{key}: {value!r} is not a node type")
    problems += [
        f"contrast_types.{a}: {a!r} or {b!r} is not a node type"
        for a, b in spec.contrast_types.items()
        if a not in node_names or b not in node_names
    ]
    if spec.opening is not None:
        opening = spec.opening
        problems += [
            f"opening: {t!r} is not a node type"
            for t in (opening.setting, opening.event, *opening.retyped, *opening.from_types)
            if t not in node_names
        ]
    if problems:
        raise LexiconError(f"{path}: " + "; ".join(problems))


def default_spec(methodology: MethodologyConfig) -> LexiconFile:
    """A lexicon from the ontology alone (examples as phrases; the first edge type for causes)."""
    edges = [e.name for e in methodology.ontology.edges if e.name != "revises"]
    lowest = min(methodology.ontology.nodes, key=lambda n: n.level)
    return LexiconFile(vocabulary_type=lowest.name, edges=EdgePreferences(causal=edges[:1], intra=edges[:1]))


def load_lexicon(
    methodology: MethodologyConfig, pipeline: NlpPipeline, directory: Path = CUES_DIR
) -> CueLexicon:
    """The compiled lexicon of `methodology` (its file if present, else one built from the ontology)."""
    path = directory / f"{methodology.name}.yaml"
    if not path.is_file():
        return CueLexicon(default_spec(methodology), methodology, pipeline)
    try:
        spec = LexiconFile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")) or {})
    except (yaml.YAMLError, ValidationError) as exc:
        raise LexiconError(f"{path}: {exc}") from exc
    _check(spec, methodology, path)
    return CueLexicon(spec, methodology, pipeline)
