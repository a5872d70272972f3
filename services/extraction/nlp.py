"""The spaCy pipeline of the extraction service, built once per process and passed in.

Two modes:

* ``dependency`` — a trained pipeline (setting ``spacy_model``, e.g. ``en_core_web_sm``) is
  installed: tags, lemmas and the dependency parse come from it.
* ``rules`` — the default here: ``spacy.blank("en")`` with a sentencizer and the lookup
  lemmatizer from ``spacy-lookups-data``; lemmas are looked up on the lower-cased form (the
  lookup table is keyed by lower-case words) and a lexical tagger (`services.extraction.tagging`)
  fills ``token.pos_`` so that Matcher rules can tell noun phrases from predicates.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import spacy
import structlog
from spacy.language import Language
from spacy.lookups import Table, load_lookups
from spacy.tokens import Doc

from services.extraction.tagging import PosLexicon, tag_doc
from shared.lemmas import own_lemma

log = structlog.get_logger(__name__)


class NlpMode(StrEnum):
    """Which kind of analysis produced the annotations."""

    RULES = "rules"
    DEPENDENCY = "dependency"


@dataclass
class NlpPipeline:
    """A loaded spaCy pipeline plus the lookups the rule mode needs. Create with `build_nlp`."""

    nlp: Language
    mode: NlpMode
    lemma_table: Table
    lexicon: PosLexicon

    def parse(self, text: str) -> Doc:
        """Tokenise, split sentences, lemmatise (and in rule mode, tag) `text`."""
        doc = self.nlp(text)
        if self.mode is NlpMode.RULES:
            _merge_hyphenated(doc)
            for tok in doc:
                tok.lemma_ = self.lemma(tok.text)
            _contracted_s(doc)
            tag_doc(doc, self.lexicon)
        return doc

    def lemma(self, word: str) -> str:
        """Lookup lemma of one word, lower-cased first (the table is keyed by lower-case forms)."""
        low = word.lower()
        return own_lemma(low) or str(self.lemma_table.get(low, low))

    def lemmas(self, text: str) -> list[str]:
        """Lemmas of the alphanumeric tokens of `text` (tokenised only; cheap)."""
        return [self.lemma(t.text) for t in self.nlp.make_doc(text) if not t.is_punct and not t.is_space]


_S_FORMS = frozenset({"'s", "’s"})
# "it's got", "she's been": the contraction is "has"; otherwise after a pronoun it is "is".
_HAS_NEXT = frozenset({"been", "got", "had", "gotten", "done", "seen", "made", "become"})
_S_SUBJECTS = frozenset(
    {
        "it",
        "that",
        "this",
        "he",
        "she",
        "there",
        "here",
        "what",
        "who",
        "where",
        "which",
        "how",
        "everything",
        "nothing",
        "something",
        "anything",
        "one",
        "life",
        "mine",
    }
)


def _contracted_s(doc: Doc) -> None:
    """Lemma of a contracted "'s" from its context (the lookup table says "have" for every one).

    "it's about security" must read as "it be about" so that "it is about" cues match it, and not as
    "it has" (which would make "security" a product property).
    """
    for tok in doc:
        if tok.text.lower() not in _S_FORMS or tok.i == 0:
            continue
        prev = doc[tok.i - 1].lower_
        nxt = doc[tok.i + 1].lower_ if tok.i + 1 < len(doc) else ""
        if nxt in _HAS_NEXT:
            tok.lemma_ = "have"
        elif prev in _S_SUBJECTS:
            tok.lemma_ = "be"


def _merge_hyphenated(doc: Doc) -> None:
    """Merge "plant - based" (written without spaces) into one token so it chunks as one word."""
    spans = []
    i = 1
    while i + 1 < len(doc):
        hyphen = doc[i]
        left, right = doc[i - 1], doc[i + 1]
        if (
            hyphen.text in {"-", "‐"}
            and not left.whitespace_
            and not hyphen.whitespace_
            and left.is_alpha
            and right.is_alpha
        ):
            spans.append(doc[i - 1 : i + 2])
            i += 3
        else:
            i += 1
    if spans:
        with doc.retokenize() as retok:
            for span in spans:
                retok.merge(span)


def _lookup_tables() -> tuple[Table, PosLexicon]:
    lookups = load_lookups("en", ["lemma_lookup", "lemma_index"])
    index = lookups.get_table("lemma_index")
    lexicon = PosLexicon.from_index({k: index[k] for k in ("noun", "verb", "adj", "adv")})
    return lookups.get_table("lemma_lookup"), lexicon


def build_nlp(spacy_model: str | None = None) -> NlpPipeline:
    """Build the pipeline once: the trained `spacy_model` if given and installed, else rules.

    A configured but missing model is logged and replaced by the rule mode (the service must start
    offline); the chosen mode is reported on every Preprocess response.
    """
    lemma_table, lexicon = _lookup_tables()
    if spacy_model:
        try:
            trained = spacy.load(spacy_model)
        except OSError:
            log.warning("spacy_model_missing", model=spacy_model, fallback=NlpMode.RULES.value)
        else:
            if "parser" in trained.pipe_names or "senter" in trained.pipe_names:
                return NlpPipeline(trained, NlpMode.DEPENDENCY, lemma_table, lexicon)
            log.warning("spacy_model_has_no_parser", model=spacy_model, fallback=NlpMode.RULES.value)
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.add_pipe("lemmatizer", config={"mode": "lookup"})
    nlp.initialize()
    return NlpPipeline(nlp, NlpMode.RULES, lemma_table, lexicon)
