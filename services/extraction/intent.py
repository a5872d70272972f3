"""Respondent intent, offline: answer, clarification / skip / stop request, or off-topic.

Rules are ordered by how costly a miss is: a stop request must never be read as an answer; a
skip or clarification request that also carries a substantive answer is an answer (the
orchestrator should not throw the content away). Off-topic uses explicit topic-switch cues,
personal questions to the interviewer, and — weakly — zero lexical overlap with the question and
topic when the answer does not refer back to anything ("it", "that", "my …").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from spacy.lang.en.stop_words import STOP_WORDS

from services.extraction.models import Intent, IntentResult


@dataclass(frozen=True)
class _Rule:
    intent: Intent
    pattern: re.Pattern[str]
    confidence: float
    rationale: str


def _r(intent: Intent, regex: str, confidence: float, rationale: str) -> _Rule:
    return _Rule(intent, re.compile(regex), confidence, rationale)


_END = r"[\s.!?,]*$"
_PLEASE = r"(?:,?\s*(?:please|thanks|thank you))?"

STOP_RULES: tuple[_Rule, ...] = (
    _r(
        Intent.STOP_REQUEST,
        r"\b(?:i|we)\s+(?:have|need|gotta|got|must)\s+(?:to\s+)?(?:go|leave|run|stop|head off)\b",
        0.9,
        "has to leave",
    ),
    _r(Intent.STOP_REQUEST, r"\bgotta\s+(?:go|run)\b", 0.9, "has to leave"),
    _r(
        Intent.STOP_REQUEST,
        r"\b(?:stop|end|finish|wrap up|close)\s+(?:the|this|our)\s+"
        r"(?:interview|survey|conversation|session|chat)\b",
        0.9,
        "asks to end the interview",
    ),
    _r(
        Intent.STOP_REQUEST,
        r"\b(?:let'?s|can we|could we|i want to|i'?d like to|i wanna)\s+"
        r"(?:stop|end|finish|quit|wrap (?:this|it)? ?up)\b",
        0.85,
        "asks to end",
    ),
    _r(Intent.STOP_REQUEST, r"\b(?:stop|quit)\s+asking\b", 0.85, "asks to stop the questions"),
    _r(
        Intent.STOP_REQUEST,
        r"\bi\s+(?:don'?t|do not)\s+want\s+to\s+(?:continue|go on|keep going|do this anymore)\b",
        0.9,
        "does not want to continue",
    ),
    _r(Intent.STOP_REQUEST, r"\bno\s+more\s+questions\b", 0.85, "no more questions"),
    _r(Intent.STOP_REQUEST, r"\b(?:i'?m|i am)\s+out\s+of\s+time\b", 0.85, "out of time"),
    _r(
        Intent.STOP_REQUEST,
        rf"^(?:ok(?:ay)?,?\s*)?(?:that'?s all|that is all|that'?s it(?: for me)?|i'?m done|i am done|"
        rf"we'?re done|"
        rf"i'?m finished|bye|goodbye|bye bye|quit|exit|stop){_PLEASE}{_END}",
        0.85,
        "closing phrase",
    ),
    _r(
        Intent.STOP_REQUEST,
        r"\b(?:that'?s it|that'?s all|i'?m done)\s+for\s+(?:me|today|now)\b",
        0.85,
        "closing phrase",
    ),
)

SKIP_RULES: tuple[_Rule, ...] = (
    _r(Intent.SKIP_REQUEST, r"\bi'?d\s+(?:rather|prefer)\s+not\b", 0.9, "would rather not"),
    _r(Intent.SKIP_REQUEST, r"\bi\s+would\s+(?:rather|prefer)\s+not\b", 0.9, "would rather not"),
    _r(
        Intent.SKIP_REQUEST,
        r"\b(?:can|could)\s+we\s+(?:please\s+)?"
        r"(?:move on|skip|change the subject|talk about something else)\b",
        0.9,
        "asks to move on",
    ),
    _r(
        Intent.SKIP_REQUEST,
        r"\b(?:let'?s|let us)\s+(?:move on|skip|talk about something else|change the subject)\b",
        0.9,
        "asks to move on",
    ),
    _r(
        Intent.SKIP_REQUEST,
        rf"^(?:next question|skip(?: it| this| that| this one)?|pass|no comment|move on){_PLEASE}{_END}",
        0.9,
        "skip phrase",
    ),
    _r(
        Intent.SKIP_REQUEST,
        r"\bi\s+(?:don'?t|do not)\s+(?:want|wish|like)\s+to\s+"
        r"(?:talk|answer|say|discuss|get into|share|go into)\b",
        0.85,
        "does not want to answer",
    ),
    _r(
        Intent.SKIP_REQUEST,
        r"\b(?:not|n't)\s+comfortable\s+(?:answering|sharing|talking|discussing|saying)\b",
        0.85,
        "not comfortable answering",
    ),
    _r(
        Intent.SKIP_REQUEST, r"\b(?:too|bit|quite|rather|very)\s+(?:personal|private)\b", 0.75, "too personal"
    ),
    _r(Intent.SKIP_REQUEST, r"\bnothing\s+(?:more|else)\s+to\s+(?:add|say)\b", 0.8, "nothing more to add"),
    _r(
        Intent.SKIP_REQUEST,
        r"\bthat'?s\s+all\s+i\s+(?:can think of|have to say|have|know)\b",
        0.8,
        "nothing more to add",
    ),
    _r(Intent.SKIP_REQUEST, r"\bskip\s+(?:it|this|that|this one|the question)\b", 0.85, "asks to skip"),
)

CLARIFY_RULES: tuple[_Rule, ...] = (
    # "Why do you ask? What are you trying to find out?": the question's purpose is unclear to them
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"\bwhy\s+do\s+you\s+(?:ask|want\s+to\s+know)\b|\bwhat\s+are\s+you\s+(?:trying\s+to\s+find\s+out|getting\s+at)\b",
        0.75,
        "asks what the question is for",
    ),
    _r(Intent.CLARIFICATION_REQUEST, r"\bwhat\s+(?:exactly\s+)?do\s+you\s+mean\b", 0.9, "asks what is meant"),
    _r(
        Intent.CLARIFICATION_REQUEST, r"\bwhat\s+does\s+(?:that|this|it)\s+mean\b", 0.85, "asks what is meant"
    ),
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"\bi\s+(?:don'?t|do not)\s+(?:understand|get|follow)\s+(?:the|your|what|that|this|it)\b",
        0.85,
        "does not understand",
    ),
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"\b(?:can|could|would)\s+you\s+(?:please\s+)?"
        r"(?:rephrase|repeat|explain|clarify|say that again|be more specific|"
        r"elaborate|give me an example)\b",
        0.85,
        "asks to rephrase or explain",
    ),
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"\bnot\s+sure\s+what\s+you'?(?:re| are)\s+(?:asking|getting at|looking for|after)\b",
        0.85,
        "unsure what is asked",
    ),
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"\bwhat\s+(?:exactly\s+)?are\s+you\s+(?:asking|getting at|looking for)\b",
        0.85,
        "unsure what is asked",
    ),
    _r(
        Intent.CLARIFICATION_REQUEST,
        rf"^(?:sorry,?\s*)?(?:pardon(?: me)?|huh|what|sorry|come again|excuse me){_END}",
        0.8,
        "did not catch the question",
    ),
    # A bare "?" (or "??", "?!"): the respondent did not follow the question.
    _r(Intent.CLARIFICATION_REQUEST, r"^[?!.\s]*\?[?!.\s]*$", 0.8, "answers with a question mark alone"),
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"\bi\s+didn'?t\s+(?:catch|understand|follow|get)\s+(?:that|the question|what you)\b",
        0.85,
        "did not catch the question",
    ),
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"\b(?:confused|unclear)\s+(?:by|about)\s+(?:the|your|this)\s+question\b",
        0.85,
        "finds the question confusing",
    ),
    _r(
        Intent.CLARIFICATION_REQUEST,
        r"^(?:in what (?:sense|way)|meaning what|like what)\b",
        0.8,
        "asks for the sense meant",
    ),
    _r(Intent.CLARIFICATION_REQUEST, r"^(?:do|did)\s+you\s+mean\b", 0.8, "checks what is meant"),
)

OFF_TOPIC_RULES: tuple[_Rule, ...] = (
    _r(
        Intent.OFF_TOPIC,
        r"\b(?:by the way|on an? (?:unrelated|different|side|other) note|off[- ]topic|unrelated,?\s*but|"
        r"changing the subject|random question|totally unrelated)\b",
        0.8,
        "topic-switch cue",
    ),
    _r(
        Intent.OFF_TOPIC,
        r"\bare\s+you\s+(?:a|an)\s+(?:bot|robot|ai|human|real person|machine|computer)\b",
        0.85,
        "question about the interviewer",
    ),
    _r(
        Intent.OFF_TOPIC,
        r"\bwhat'?s\s+your\s+(?:name|favou?rite|age)\b|\bhow\s+old\s+are\s+you\b|\bwho\s+(?:made|built|created)\s+you\b|"
        r"\bwhere\s+are\s+you\s+(?:from|based)\b|\bwhat\s+time\s+is\s+it\b",
        0.8,
        "personal question to the interviewer",
    ),
)

_CONTENT_FOR_ANSWER = 7  # content words outside a cue that make the turn a real answer
# Connectives of a comparison or an explanation: an off-topic remark rarely reasons.
_REASONING = re.compile(
    r"\b(?:whereas|because|so that|which means|that means|compared (?:to|with)|unlike|instead of|"
    r"rather than|on the other hand|than|some\b.*\b(?:while|but|and)\s+others)\b"
)
# Replies that answer without naming anything: "nothing else comes to mind", "no idea", and a yes or
# no to a summary ("pretty much, yes"). They share no words with the question, so the overlap rule
# below would call them off-topic; they are answers (with nothing in them).
_NOTHING_TO_TELL = re.compile(
    r"\b(?:nothing\s+(?:else\s+|more\s+)?(?:comes|springs)\s+to\s+mind|"
    r"(?:can'?t|cannot|couldn'?t)\s+think\s+of\s+anything|no\s+idea|"
    r"(?:don'?t|do\s+not)\s+(?:really\s+)?know|not\s+(?:really\s+)?sure|hard\s+to\s+say)\b"
    r"|^(?:[a-z']+(?: [a-z']+){0,2}[,.]\s+){0,2}(?:yes|yeah|yep|yup|no|nope|not really|pretty much|exactly|"
    r"absolutely|definitely|correct|right|sure|i agree|that'?s (?:right|true|correct|about right|it))\b"
)
_REFERRING = frozenset(
    {
        "i",
        "i'm",
        "my",
        "me",
        "we",
        "our",
        "it",
        "its",
        "it's",
        "that",
        "this",
        "they",
        "them",
        "these",
        "those",
        "one",
        "mine",
        "i'd",
        "i've",
        "i'll",
        "we're",
        "we've",
        "we'd",
        "they're",
        "they've",
        "that's",
        "myself",
    }
)
_WORD = re.compile(r"[a-z][a-z'’-]*")


def normalise(text: str) -> str:
    """Lower-case, straight apostrophes, single spaces."""
    return " ".join(text.lower().replace("’", "'").replace("‘", "'").split())


def _content_words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w not in STOP_WORDS and len(w) > 2]


def _first_match(rules: Iterable[_Rule], text: str) -> tuple[_Rule, re.Match[str]] | None:
    for rule in rules:
        m = rule.pattern.search(text)
        if m is not None:
            return rule, m
    return None


class IntentClassifier:
    """Rule-based classifier. `lemmatize` (optional) makes the off-topic overlap lemma-aware."""

    def __init__(self, lemmatize: Callable[[str], list[str]] | None = None) -> None:
        self._lemmatize = lemmatize

    def classify(self, text: str, *, question: str = "", topic: str = "") -> IntentResult:
        """Classify one answer given the question it answers and the interview topic."""
        norm = normalise(text)
        if not norm:
            return IntentResult(intent=Intent.ANSWER, confidence=0.3, rationale="empty answer")
        hit = _first_match(STOP_RULES, norm)
        if hit is not None:
            rule, m = hit
            rest = self._rest(norm, m)
            conf = rule.confidence if len(rest) < _CONTENT_FOR_ANSWER else rule.confidence - 0.2
            return IntentResult(intent=rule.intent, confidence=round(conf, 2), rationale=rule.rationale)
        for rules in (SKIP_RULES, CLARIFY_RULES, OFF_TOPIC_RULES):
            hit = _first_match(rules, norm)
            if hit is None:
                continue
            rule, m = hit
            if len(self._rest(norm, m)) >= _CONTENT_FOR_ANSWER and rule.intent is not Intent.OFF_TOPIC:
                return IntentResult(
                    intent=Intent.ANSWER,
                    confidence=0.6,
                    rationale=f"substantive answer despite cue: {rule.rationale}",
                )
            return IntentResult(intent=rule.intent, confidence=rule.confidence, rationale=rule.rationale)
        return self._answer_or_off_topic(norm, question, topic)

    @staticmethod
    def _rest(norm: str, m: re.Match[str]) -> list[str]:
        return _content_words(norm[: m.start()] + " " + norm[m.end() :])

    def _answer_or_off_topic(self, norm: str, question: str, topic: str) -> IntentResult:
        content = _content_words(norm)
        words = set(_WORD.findall(norm))
        if len(content) < 2:
            return IntentResult(intent=Intent.ANSWER, confidence=0.6, rationale="short reply")
        if _NOTHING_TO_TELL.search(norm):
            return IntentResult(intent=Intent.ANSWER, confidence=0.75, rationale="nothing (more) to tell")
        if _REASONING.search(norm):
            # "Some have no adverts, whereas others have constant adverts": a comparison or a reason
            # in words of its own answers the question (a repertory grid's constructs often do)
            return IntentResult(intent=Intent.ANSWER, confidence=0.65, rationale="compares or explains")
        context = set(self._stems(f"{question} {topic}"))
        overlap = bool(set(self._stems(norm)) & context)
        if not overlap and question.strip():
            if norm.rstrip().endswith("?") and "you" in words:
                return IntentResult(
                    intent=Intent.OFF_TOPIC,
                    confidence=0.65,
                    rationale="unrelated question to the interviewer",
                )
            if not words & _REFERRING:
                return IntentResult(
                    intent=Intent.OFF_TOPIC,
                    confidence=0.55,
                    rationale="no overlap with question or topic and no reference back",
                )
        return IntentResult(intent=Intent.ANSWER, confidence=0.8 if overlap else 0.7, rationale="answer")

    def _stems(self, text: str) -> list[str]:
        words = _content_words(normalise(text))
        if self._lemmatize is None:
            return [w.rstrip("s") for w in words]
        return [lem for lem in self._lemmatize(" ".join(words)) if lem not in STOP_WORDS]
