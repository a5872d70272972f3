"""The offline (`local`) extractor: cue-typed candidates linked by discourse structure.

Pipeline for one answer: clauses (sentences split at connectives and pseudo-clefts) → cue and
vocabulary matches → typed candidates per clause → the question's type, then the respondent's own
frame ("what put me off X was that …", "I gave up on it because …") → candidates inferred for the
bare side of a causal connective → edges (connectives, clefts, within a clause, in sequence, to
the node the question is about). The items then pass the same validation as the LLM's
(`services.extraction.checking`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc, Span

from services.extraction.checking import RawConcept, RawRelationship
from services.extraction.chunks import split_at
from services.extraction.filler import inside, meta_spans
from services.extraction.local.candidates import Candidate, CandidateFinder, is_content, label_lemmas
from services.extraction.local.cues import CueLexicon, load_lexicon
from services.extraction.local.digression import digression_spans
from services.extraction.local.edges import link_candidates, opening_event
from services.extraction.local.framing import (
    apply_clefts,
    cleft_links,
    explained_by_reasons,
    split_clefts,
    stated_reasons,
)
from services.extraction.local.labels import shape_label
from services.extraction.local.linking import EdgeChooser, Endpoint, LinkedEdge, find_anchor, told_last
from services.extraction.local.occasions import opening_setting, other_occasion
from services.extraction.local.remention import (
    AGAIN,
    kept_types,
    named_again,
    rementions,
    restated_anchor,
    shortened_anchor,
)
from services.extraction.local.rules import (
    contrasts,
    infer_bare_sides,
    pair_subjects,
    participant_types,
    placements,
    properties,
    question_typed,
    sequence_events,
)
from services.extraction.local.segment import clauses
from services.extraction.models import ExistingNode, ExtractionRequest, Speaker
from services.extraction.preprocess import Analysis, Preprocessor
from shared.methodology_models import MethodologyConfig

_STOP = frozenset(STOP_WORDS)


class LocalExtractor:
    """Rule-based extraction; lexicons are compiled once per methodology and cached."""

    def __init__(self, preprocessor: Preprocessor) -> None:
        self.pre = preprocessor
        self._lexicons: dict[str, CueLexicon] = {}
        self._vocab: dict[tuple[str, ...], PhraseMatcher] = {}

    def lexicon(self, methodology: MethodologyConfig) -> CueLexicon:
        """The compiled cue lexicon of `methodology`."""
        lex = self._lexicons.get(methodology.name)
        if lex is None or lex.methodology is not methodology:
            lex = load_lexicon(methodology, self.pre.pipeline)
            self._lexicons[methodology.name] = lex
        return lex

    def extract(
        self, request: ExtractionRequest, methodology: MethodologyConfig, analysis: Analysis | None = None
    ) -> tuple[list[RawConcept], list[RawRelationship]]:
        """Raw concepts and relationships of one answer (validated by the caller)."""
        analysis = analysis or self.pre.analyze(
            request.text, question=request.question, topic=request.concept.name
        )
        doc = analysis.doc
        lex = self.lexicon(methodology)
        markers = [span for span, _ in self.pre.discourse.markers(doc)]
        parts, clefts = split_clefts(doc, clauses(doc, markers), lex)
        chunks = split_at(analysis.chunks, markers)
        matches = lex.matches(doc)
        vocab = self._vocabulary_spans(doc, request.concept.vocabulary)
        finder = CandidateFinder(lex)
        cands: list[Candidate] = []
        for n, clause in enumerate(parts):
            prev = parts[n - 1] if n > 0 else None
            cands.extend(finder.find(doc, clause, prev, matches, vocab, chunks))
        cands = _dedupe(cands)
        cands += named_again(doc, parts, cands)
        cands += question_typed(doc, parts, cands, lex, request.question)
        # the respondent's own framing ("what put me off X was that …", "I gave up on it because …")
        # types an item more surely than the question did
        cands = apply_clefts(doc, clefts, cands, lex)
        relations = list(analysis.result.discourse_relations)
        cands, relations = stated_reasons(doc, parts, cands, relations, lex)
        cands += pair_subjects(doc, parts, cands, lex)
        cands += properties(doc, parts, cands, lex, chunks)
        cands += placements(doc, parts, cands, lex)
        types = set(chooser_types(methodology))
        cands += rementions(doc, parts, cands, request.existing_nodes, types, self.pre.pipeline)
        kept_types(cands, request.existing_nodes, types, self.pre.pipeline.lemmas, _STOP)
        # "I don't think there's anything deeper than that": filler names no item
        meta = meta_spans(request.text)
        # "That reminds me, I must repaint the garden fence": an announced aside off the topic
        off_topic = sorted(meta + self._digressions(doc, request, lex))
        cands = _outside(doc, cands, off_topic)
        chooser = EdgeChooser(methodology)
        anchor_node = find_anchor(request.question, request.existing_nodes, self.pre.pipeline.lemmas, _STOP)
        anchor = Endpoint(anchor_node.label, anchor_node.node_type) if anchor_node is not None else None
        restated_anchor(doc, cands, anchor_node, self.pre.pipeline.lemmas, _STOP, meta)
        participants = participant_types(chooser, lex)
        shortened_anchor(cands, anchor_node, participants, self.pre.pipeline.lemmas, _STOP)
        other_occasion(cands, relations, lex)
        cands += sequence_events(doc, parts, cands, relations, lex)
        explained_by_reasons(doc, parts, cands, relations, lex, chooser)
        cands += infer_bare_sides(doc, parts, cands, relations, lex, chooser, anchor)
        cands += contrasts(doc, parts, cands, relations, lex)
        cands = _in_particular(_one_type_per_label(_outside(doc, _appositions(doc, cands), off_topic)), lex)
        opening_setting(doc, parts, cands, relations, lex, request.question)
        cands.sort(key=lambda c: c.quote_start)
        edges = cleft_links(doc, clefts, cands, lex, chooser, anchor)
        # "Then I check out in the app." after "What happened next?": on from the last answer's
        # event (looked up only for such an answer: it lemmatises every existing node's label)
        follows = None
        opening = opening_event(doc, cands, lex) if anchor is None else None
        if opening is not None:
            told = self._went_on_from(request, lex, chooser, opening)
            follows = (Endpoint(told.label, told.node_type), opening) if told is not None else None
        edges += link_candidates(
            doc, parts, cands, relations, lex, chooser, anchor, request.question, edges, follows
        )
        return self._raw(doc, cands, edges, request)

    def _went_on_from(
        self, request: ExtractionRequest, lex: CueLexicon, chooser: EdgeChooser, opening: Candidate
    ) -> ExistingNode | None:
        """What an answer opening with "Then …" goes on from: the last event the previous answer
        told, else the setting it told that the sequence may start from ("I work from home alone
        all day." "After that, I got a barista course as a birthday present.")."""
        settings = chooser.sources(lex.spec.edges.sequence, opening.node_type)
        for types in (lex.spec.sequence_types, settings):
            told = told_last(
                request.recent_turns, request.existing_nodes, types, self.pre.pipeline.lemmas, _STOP
            )
            if told is not None:
                return told
        return None

    # ---------------------------------------------------------------- candidates

    def _vocabulary_spans(self, doc: Doc, vocabulary: tuple[str, ...]) -> list[Span]:
        if not vocabulary:
            return []
        matcher = self._vocab.get(vocabulary)
        if matcher is None:
            matcher = PhraseMatcher(self.pre.pipeline.nlp.vocab, attr="LEMMA")
            matcher.add(
                "VOCAB", [self.pre.pipeline.parse(term.lower()) for term in vocabulary if term.strip()]
            )
            if len(self._vocab) > 64:  # bounded: one entry per concept seen
                self._vocab.clear()
            self._vocab[vocabulary] = matcher
        spans = [doc[s:e] for _, s, e in matcher(doc)]
        return sorted(spans, key=lambda s: (s.start, -len(s)))

    # ---------------------------------------------------------------- output

    @staticmethod
    def _raw(
        doc: Doc, cands: list[Candidate], edges: list[LinkedEdge], request: ExtractionRequest
    ) -> tuple[list[RawConcept], list[RawRelationship]]:
        existing = [(frozenset(_content(n.label)), n) for n in request.existing_nodes]
        rename: dict[str, str] = {}
        seen_nodes: set[str] = set()
        concepts: list[RawConcept] = []
        linked = {(end.label, end.node_type) for e in edges for end in (e.source, e.target)}
        # one item, one type: when two cues typed the same words differently, keep the reading an
        # edge uses, else the node it restates, else the surer cue
        ranked = sorted(
            cands,
            key=lambda c: (
                (c.label, c.node_type) not in linked,
                c.source != "existing",
                -c.confidence,
                c.quote_start,
            ),
        )
        keep = {id(c) for c in {c.label: c for c in reversed(ranked)}.values()}
        for c in cands:
            if id(c) not in keep:
                continue
            words = frozenset(_content(c.label))
            # a re-mention keeps the existing label ("original shows" → "lots of original shows")
            same = next(
                (
                    n.label
                    for w, n in existing
                    if words
                    and words <= w
                    and n.node_type in ("", c.node_type)
                    and len(words) >= max(1, len(w) - 1)
                ),
                None,
            )
            label = same or c.label
            rename[c.label] = label
            if label in seen_nodes:
                continue  # two cues found the same item
            seen_nodes.add(label)
            start, end = c.char_start, c.char_end
            concepts.append(
                RawConcept(
                    label=label,
                    node_type=c.node_type,
                    confidence=c.confidence,
                    stance=c.stance,
                    quote=request.text[start:end],
                    start=start,
                    properties={"extractor": "local", "cue": c.source},
                )
            )
        rels: list[RawRelationship] = []
        seen_edges: set[tuple[str, str, str]] = set()
        for e in edges:
            span = e.span or (e.target.start, e.target.end)
            key = (
                rename.get(e.source.label, e.source.label),
                rename.get(e.target.label, e.target.label),
                e.edge_type,
            )
            if span[0] is None or span[1] is None or key in seen_edges or key[0] == key[1]:
                continue
            seen_edges.add(key)
            rels.append(
                RawRelationship(
                    source_label=key[0],
                    target_label=key[1],
                    edge_type=e.edge_type,
                    confidence=e.confidence,
                    quote=request.text[span[0] : span[1]],
                    start=span[0],
                )
            )
        return concepts, rels

    def _digressions(self, doc: Doc, request: ExtractionRequest, lex: CueLexicon) -> list[tuple[int, int]]:
        """The answer's announced asides that share no word with the interview (`digression_spans`)."""
        concept = request.concept
        context = [
            request.question,
            concept.name,
            concept.objective,
            *concept.vocabulary,
            # the interviewer's words and the graph, not the respondent's: an earlier answer holds the
            # earlier asides too, and the football mentioned twice is no more on the topic
            *(t.text for t in request.recent_turns if t.speaker is Speaker.INTERVIEWER),
            *(n.label for n in request.existing_nodes),
        ]
        return digression_spans(doc, context, self.pre.pipeline.lemmas, _STOP | lex.ignore)


def _content(label: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9'+-]+", label.lower()) if w not in _STOP]


def chooser_types(methodology: MethodologyConfig) -> list[str]:
    """The ontology's node type names."""
    return [n.name for n in methodology.ontology.nodes]


def _outside(doc: Doc, cands: list[Candidate], meta: list[tuple[int, int]]) -> list[Candidate]:
    """Candidates whose label words are not all inside a filler/meta segment; a label that starts
    inside one ("(strictly) speaking, the consultant said at nine") keeps only its words after it."""
    if not meta:
        return cands
    out = []
    for c in cands:
        first, last = doc[c.label_tokens[0]], doc[c.label_tokens[-1]]
        if inside(meta, first.idx, last.idx + len(last.text)):
            continue
        lead_end = next((b for a, b in meta if a <= first.idx < b), None)
        kept = c if lead_end is None else _after_lead(doc, c, lead_end)
        if kept is not None:
            out.append(kept)
    return out


def _after_lead(doc: Doc, cand: Candidate, lead_end: int) -> Candidate | None:
    """`cand` with the label words before character `lead_end` (a filler lead-in) left out."""
    shaped = shape_label(doc, [i for i in cand.label_tokens if doc[i].idx >= lead_end])
    if shaped is None:
        return None
    label, kept = shaped
    if not any(is_content(doc[i]) for i in kept):
        return None
    # Lemmas only where the candidate carried them (the cue finder's candidates do, rules' do not).
    lemmas = label_lemmas(doc, kept) if cand.lemmas else cand.lemmas
    return replace(cand, label=label, label_tokens=kept, lemmas=lemmas)


def _in_particular(cands: list[Candidate], lex: CueLexicon) -> list[Candidate]:
    """Apply `general_types`: "what I took from it is that every carer should get a call" speaks of
    carers in general, so its "carer" is no participant (asked "How did the carer act?", the
    respondent has nothing to tell)."""
    general = set(lex.spec.general_types)
    clauses = {c.clause for c in cands if c.node_type in general and not c.from_noun}
    if not clauses:
        return cands
    return [
        c for c in cands if not (c.from_noun and c.node_type in lex.noun_participants and c.clause in clauses)
    ]


def _appositions(doc: Doc, cands: list[Candidate]) -> list[Candidate]:
    """Without an item that only says which one another item is: "Prime Video, the one I cancelled"
    names one service, not two. Kept apart, a repertory grid put them in one triad ("Prime Video, the
    one you cancelled and Disney+"). A description headed by "one" next to an item of its type, a
    comma between them, goes; the name stays."""
    dropped: set[int] = set()
    for c in cands:
        if doc[c.label_tokens[0]].lower_ not in _PRO_FORMS:
            continue
        for o in cands:
            if o is c or o.node_type != c.node_type or id(o) in dropped:
                continue
            first, second = (o, c) if o.quote_end <= c.quote_start else (c, o)
            between = [t.text for t in doc[first.quote_end : second.quote_start] if t.lower_ != "the"]
            if between == [","]:
                dropped.add(id(c))
                break
    return [c for c in cands if id(c) not in dropped]


# Heads of a description that stands for an item named elsewhere ("the one I cancelled").
_PRO_FORMS = frozenset({"one", "ones"})


def _one_type_per_label(cands: list[Candidate]) -> list[Candidate]:
    """One reading per label: the node it restates, else a phrase cue (the most specific), else the
    surer cue ("being responsible with money" is an instrumental value, not a terminal one because it
    follows "ultimately it's about")."""
    best: dict[str, Candidate] = {}
    for c in cands:
        rank = (c.source == "existing", c.source.startswith("phrase:"), c.confidence)
        held = best.get(c.label)
        if held is None or rank > (
            held.source == "existing",
            held.source.startswith("phrase:"),
            held.confidence,
        ):
            best[c.label] = c
    keep = {id(c) for c in best.values()}
    # a thing named again stands where it was named again too (`rules.named_again`)
    return [
        c
        for c in cands
        if id(c) in keep or (c.source.startswith(AGAIN) and best[c.label].node_type == c.node_type)
    ]


def _dedupe(cands: list[Candidate]) -> list[Candidate]:
    best: dict[tuple[str, str], Candidate] = {}
    for c in cands:
        key = (c.label, c.node_type)
        if key not in best or c.confidence > best[key].confidence:
            best[key] = c
    return sorted(best.values(), key=lambda c: c.quote_start)
