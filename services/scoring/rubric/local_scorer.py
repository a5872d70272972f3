"""The offline (`local` provider) rubric: deterministic lexical features mapped to 1–5 scores.

Features (all counted on the lower-cased answer, phrases on word boundaries):

* response_depth — distinct idea units: clauses split at sentence punctuation, commas and clause
  connectors ("and", "because", "but", …) that carry at least one content word; plus length. A
  clause saying there is nothing more ("I don't think there's anything deeper than that") adds no
  unit, and what follows "like I said" counts once at most, however long: it was said before;
* specificity — numbers and number words, time expressions, units, proper names (capitalised words
  not starting a sentence) and comma-separated lists of items;
* certainty — explicit doubt ("I don't know", "no idea") → 1; hedges ("kind of", "I guess", "maybe")
  lower it; softeners ("usually", "about") cap it at 4; a conversational "I think" is not a hedge;
* valence — a sentiment lexicon with strong words counting double, intensifiers and negation;
  mixed answers stay near neutral;
* engagement — deflection phrases → 1; nothing more to add and nothing new said → 2; otherwise
  new content words not in the question (nor said again after "like I said") and volunteering
  markers ("also", "by the way", "actually");
* intellectual_engagement — reason markers ("because", "since", "which means"), contrasts and
  trade-offs ("but", "although", "depends") and motives ("feel", "values", "matters to me").

The thresholds were calibrated on `tests/data/rubric/labelled_answers.yaml` (hand-labelled before
tuning); `python -m services.scoring.rubric.calibrate` prints the agreement figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from services.scoring.rubric import lexicon as lx
from services.scoring.rubric.models import RUBRIC_DIMENSIONS, Rubric, RubricScore
from shared.llm.base import LLMUsage
from shared.words import UNSPACED

# Letters and digits of any script ("café", "кофемолку"), with inner apostrophes, colons, hyphens;
# a Chinese or Japanese character is a word of its own, as `shared.words` counts them.
_WORD = re.compile(rf"[{UNSPACED}]|[^\W_{UNSPACED}](?:[^\W_{UNSPACED}]|['’:\-])*")
_SENTENCE_SPLIT = re.compile(r"[.!?;]+(?:\s+|$)")
_CLAUSE_SPLIT = re.compile(r"([.!?;:,]+)")  # the delimiters are kept: a sentence end resets a restatement
_DIGIT = re.compile(r"\d")
USAGE = LLMUsage(client="scoring", provider="local", model="lexical-rubric", calls=0)


def _strip_phrases(text: str, phrases: tuple[str, ...]) -> tuple[int, str]:
    """Occurrences of any phrase (longer phrases first, each span counted once) and the text
    without them."""
    remaining = text
    total = 0
    for phrase in sorted(phrases, key=len, reverse=True):
        pattern = re.compile(rf"(?<![a-z']){re.escape(phrase)}(?![a-z'])")
        hits = len(pattern.findall(remaining))
        if hits:
            total += hits
            remaining = pattern.sub(" ", remaining)
    return total, remaining


def _count_phrases(text: str, phrases: tuple[str, ...]) -> int:
    """Occurrences of any phrase, longer phrases first and each span counted once."""
    return _strip_phrases(text, phrases)[0]


@dataclass(frozen=True)
class LexicalFeatures:
    """What the scorer counts in one answer (see the module docstring)."""

    word_count: int
    sentences: int
    idea_units: int
    new_idea_units: int
    nothing_more: int
    specifics: int
    doubts: int
    hedges: int
    softeners: int
    confident: int
    positive: float
    negative: float
    deflections: int
    volunteers: int
    new_content_words: int
    reasons: int
    contrasts: int
    motives: int
    questions: int
    exclamations: int


def _norm(text: str) -> str:
    return text.replace("’", "'").lower()


class _Clause(Enum):
    NEW = "new"
    RESTATED = "restated"  # after "like I said": a point made earlier in the interview
    NOTHING_MORE = "nothing_more"  # "I don't think there's anything deeper than that"


def _clauses(text: str) -> list[tuple[str, _Clause]]:
    """The clauses of the lower-cased `text` (split at punctuation), each with what it adds.

    A restating lead-in marks the rest of its clause or, when it stands alone ("like I said,
    …"), the next clause of the same sentence."""
    parts = _CLAUSE_SPLIT.split(text)
    out: list[tuple[str, _Clause]] = []
    restate_next = False
    for i in range(0, len(parts), 2):
        clause = parts[i]
        delimiter = parts[i + 1] if i + 1 < len(parts) else "."
        if not _WORD.search(clause):
            continue
        markers, rest = _strip_phrases(clause, lx.RESTATING_MARKERS)
        if _count_phrases(clause, lx.NOTHING_MORE_PHRASES):
            kind = _Clause.NOTHING_MORE
        elif restate_next:
            kind = _Clause.RESTATED  # the point a lone "like I said," led in to
            restate_next = False
        elif markers:
            kind = _Clause.RESTATED
            restate_next = not _WORD.search(rest)  # a lone lead-in: the next clause is the point
        else:
            kind = _Clause.NEW
        if re.search(r"[.!?;]", delimiter):
            restate_next = False
        out.append((clause, kind))
    return out


def extract_features(question: str, answer: str) -> LexicalFeatures:
    """Count the lexical features of `answer` (the question only serves to spot new content)."""
    raw = answer.replace("’", "'").strip()
    text = raw.lower()
    tokens = [t.lower().strip("'-:") for t in _WORD.findall(raw)]
    tokens = [t for t in tokens if t]
    q_tokens = {t.lower().strip("'-:") for t in _WORD.findall(question.replace("’", "'"))}

    sentences = [s for s in _SENTENCE_SPLIT.split(raw) if s.strip()]
    units = 0
    restated_units = 0
    list_items = 0
    said: list[str] = []  # the clauses that count as said in this answer (not "nothing more")
    new_words: list[str] = []  # the words of the clauses that say something not said before
    nothing_more = 0
    for clause, kind in _clauses(text):
        if kind is _Clause.NOTHING_MORE:
            nothing_more += 1
            continue
        said.append(clause)
        words = _WORD.findall(clause)
        if kind is _Clause.NEW:
            new_words.extend(words)
        segment: list[str] = []
        segments: list[list[str]] = []
        for w in words:
            if w in lx.CONNECTORS and segment:
                segments.append(segment)
                segment = []
            segment.append(w)
        segments.append(segment)
        for seg in segments:
            content = [
                w
                for w in seg
                if w not in lx.STOP_WORDS and w not in lx.CONNECTORS and w not in lx.FILLER_WORDS
            ]
            if content and len(seg) >= 2:
                if kind is _Clause.NEW:
                    units += 1
                else:
                    restated_units += 1
            elif len(content) == 1 and len(seg) <= 2 and kind is _Clause.NEW:
                list_items += 1
    said_text = " , ".join(said)

    specifics = 0
    for tok in tokens:
        if _DIGIT.search(tok) or tok in lx.NUMBER_WORDS or tok in lx.TIME_WORDS or tok in lx.UNIT_WORDS:
            specifics += 1
    for sentence in sentences:
        words = _WORD.findall(sentence)
        for w in words[1:]:
            if w[:1].isupper() and w.lower() not in lx.NOT_NAMES:
                specifics += 1
    if list_items >= 2:
        specifics += list_items - 1

    positive = 0.0
    negative = 0.0
    for i, tok in enumerate(tokens):
        prev = tokens[i - 1] if i else ""
        prev2 = tokens[i - 2] if i > 1 else ""
        polarity = 0.0
        if tok in lx.STRONG_POSITIVE_WORDS:
            polarity = 2.0
        elif tok in lx.POSITIVE_WORDS and (tok != "like" or prev in lx.LIKE_SUBJECTS):
            polarity = 1.0
        elif tok in lx.STRONG_NEGATIVE_WORDS:
            polarity = -2.0
        elif tok in lx.NEGATIVE_WORDS:
            polarity = -1.0
        if polarity == 0.0:
            continue
        if prev in lx.INTENSIFIERS or prev2 in lx.INTENSIFIERS:
            polarity *= 1.5
        if prev in lx.NEGATORS or prev2 in lx.NEGATORS:
            polarity = -polarity * 0.5
        if polarity > 0:
            positive += polarity
        else:
            negative -= polarity

    content_new = {
        w
        for w in (word.lower().strip("'-:") for word in new_words)
        if w and w not in lx.STOP_WORDS and w not in lx.FILLER_WORDS and w not in q_tokens and len(w) > 2
    }
    return LexicalFeatures(
        word_count=len(tokens),
        sentences=len(sentences),
        idea_units=units + min(restated_units, 1),
        new_idea_units=units,
        nothing_more=nothing_more,
        specifics=specifics,
        doubts=_count_phrases(text, lx.DOUBT_PHRASES),
        hedges=_count_phrases(text, lx.HEDGE_PHRASES),
        softeners=sum(1 for t in tokens if t in lx.SOFTENER_WORDS),
        confident=sum(1 for t in tokens if t in lx.CONFIDENT_WORDS),
        positive=positive,
        negative=negative,
        deflections=_count_phrases(text, lx.DEFLECT_PHRASES),
        volunteers=_count_phrases(said_text, lx.VOLUNTEER_PHRASES),
        new_content_words=len(content_new),
        reasons=_count_phrases(said_text, lx.REASON_PHRASES),
        contrasts=_count_phrases(said_text, lx.CONTRAST_PHRASES),
        motives=_count_phrases(said_text, lx.MOTIVE_PHRASES),
        questions=raw.count("?"),
        exclamations=raw.count("!"),
    )


# -- per-dimension mappings -------------------------------------------------------------------------


def score_depth(f: LexicalFeatures) -> tuple[int, str]:
    """Idea units and length → 1–5; a short answer that gives a reason or a motive is moderate, and
    so are two short ideas set against each other."""
    units, words = f.idea_units, f.word_count
    # "Because I can hear cars coming", "It means I feel safe": a terse respondent's rung of a
    # ladder. Read as shallow, six of them in a row ended the interview (quality_degraded) while
    # each one added to the graph.
    explains = f.reasons > 0 or f.motives > 0
    # "Some have good recommendations, whereas others have endless scrolling": a repertory grid's
    # whole construct, both poles, in nine words. The second idea is related to the first, which is
    # the rubric's "some elaboration"; read as shallow, it was the sixth shallow answer in a row and
    # ended a brief respondent's grid at turn 6.
    contrasted = f.contrasts > 0
    if units == 0 or words <= 1:
        score = 1
    elif units == 1:
        score = 3 if explains else 2
    elif units == 2:
        score = 3 if words >= 12 or explains or contrasted else 2
    elif units <= 4:
        score = 4 if words >= 25 else 3
    elif units <= 6 and words < 45:
        score = 4
    else:
        score = 5
    because = ""
    if explains:
        because = ", with a reason or motive"
    elif units == 2 and contrasted:
        because = ", set against each other"
    return score, f"{f.idea_units} idea unit(s) in {f.word_count} words{because}"


def score_specificity(f: LexicalFeatures) -> tuple[int, str]:
    """Concrete markers (numbers, times, units, names, listed items) → 1–5."""
    n = f.specifics
    if n == 0:
        score = 1 if f.word_count < 10 else 2
    elif n == 1:
        score = 3
    elif n <= 3:
        score = 4
    else:
        score = 5
    return score, f"{n} concrete marker(s) (numbers, times, names, quantities)"


def score_certainty(f: LexicalFeatures) -> tuple[int, str]:
    """Doubt → 1; hedges lower, softeners cap at 4, confident words lift."""
    if f.doubts:
        return 1, "explicit doubt"
    if f.questions and f.word_count <= 10:
        return 2, "answers with a question"
    hedges = f.hedges
    if hedges >= 3:
        score = 2
    elif hedges == 2:
        score = 2 if f.word_count < 30 else 3
    elif hedges == 1:
        score = 3 if f.word_count < 30 else 4
    elif f.confident:
        score = 5
    elif (f.softeners and f.word_count < 20) or f.word_count <= 3:
        score = 4  # approximations in a short answer, or too little said to sound sure
    else:
        score = 5
    return score, f"{hedges} hedge(s), {f.softeners} softener(s)"


def score_valence(f: LexicalFeatures) -> tuple[int, str]:
    """Net sentiment; mixed answers with close totals stay neutral."""
    net = f.positive - f.negative
    if f.positive and f.negative and abs(net) <= 1.0:
        score = 3
    elif net <= -3.5:
        score = 1
    elif net <= -1.0:
        score = 2
    elif net < 1.0:
        score = 3
    elif net < 3.5:
        score = 4
    else:
        score = 5
    return score, f"positive {f.positive:g}, negative {f.negative:g}"


def score_engagement(f: LexicalFeatures) -> tuple[int, str]:
    """Deflection → 1; new content words and volunteering markers raise it."""
    if f.deflections or (f.doubts and f.word_count <= 5):
        return 1, "deflects"
    if f.nothing_more and not f.new_idea_units:
        return 2, "nothing further to add"  # cooperative, but says only that there is no more
    new = f.new_content_words
    extra = f.volunteers + (1 if f.exclamations else 0) + max(0, f.sentences - 1)
    if new <= 1:
        score = 2
    elif new <= 6 and extra == 0:
        score = 3
    elif new <= 6:
        score = 3 if extra < 2 else 4
    elif new <= 12:
        score = 4 if extra >= 1 else 3
    else:
        score = 5 if extra >= 2 else 4
    return score, f"{new} new content word(s), {extra} volunteering marker(s)"


def score_intellectual(f: LexicalFeatures) -> tuple[int, str]:
    """Reasons, contrasts/trade-offs and motives → 1–5."""
    total = f.reasons + f.contrasts + (1 if f.motives else 0)
    if f.doubts and total <= 1:
        score = 1  # "probably not, but I don't know" is doubt, not reasoning
    elif total == 0:
        evaluative = f.positive + f.negative > 0
        score = 2 if evaluative and f.word_count >= 3 else 1
    elif total == 1:
        score = 3
    elif total <= 3:
        score = 4
    else:
        score = 5
    return score, f"{f.reasons} reason, {f.contrasts} contrast and {f.motives} motive marker(s)"


_MAPPERS = {
    "response_depth": score_depth,
    "specificity": score_specificity,
    "certainty": score_certainty,
    "valence": score_valence,
    "engagement": score_engagement,
    "intellectual_engagement": score_intellectual,
}


class LocalRubricScorer:
    """Deterministic offline rubric (no network, `calls=0` usage)."""

    def score_sync(self, question: str, answer: str) -> Rubric:
        """The rubric of `answer` given `question`, computed synchronously."""
        features = extract_features(question, answer)
        scores = {}
        for name in RUBRIC_DIMENSIONS:
            value, why = _MAPPERS[name](features)
            scores[name] = RubricScore(name=name, score=value, rationale=f"offline lexical: {why}")
        return Rubric(scores=scores, usage=USAGE)

    async def score(self, question: str, answer: str, *, session_id: str | None = None) -> Rubric:
        """Same as `score_sync` (the protocol is async for the LLM scorer)."""
        return self.score_sync(question, answer)
