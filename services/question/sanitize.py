"""Turning raw model output into exactly one short, open, non-leading question.

Models wrap questions in labels ("Selected question: ..."), quotes and markdown, offer numbered
options, leak their reasoning ("Strategy: deepen because ..."), or ask two questions at once.
`sanitize_question` keeps the best single question (with at most one short lead-in sentence),
rewrites common leading forms, makes sure it ends with "?" and caps its length. It returns None
when nothing usable is left, so the caller can fall back instead of sending an empty question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.question.text import lower_first, squash
from shared.words import WORD

_FENCE = re.compile(r"```[a-zA-Z]*")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*", re.MULTILINE)
_BLOCKQUOTE = re.compile(r"^\s*>+\s?", re.MULTILINE)
_EMPHASIS = re.compile(r"(?<!\w)(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1(?!\w)")
_LIST_MARKER = re.compile(r"^\s*(?:\(?\d{1,2}[.):]|\(?[a-hA-H][.)]|[-*•·–—+])\s+")
_LABEL = re.compile(
    r"^\s*(?:here(?:'s| is| are)\b[^:]{0,40}\bquestions?\b[^:]{0,20}:|"
    r"i(?:'d|\s+would|'ll|\s+will|\s+might)?\s+(?:ask|say)[^:]{0,20}:|"
    r"(?:(?:the|my|a|an|selected|chosen|next|final|follow[- ]?up|opening|suggested|rephrased|"
    r"simpler|revised|better|best|clarifying|closing|interviewer'?s?)\s+)*"
    r"(?:question|q|interviewer|moderator|assistant|response|output|answer|message|rephrasing)"
    r"(?:\s*\d+)?\s*[:\-–—]\s+)",
    re.IGNORECASE,
)
_REASONING_LINE = re.compile(
    r"^\s*(?:(?:strategy|reasoning|rationale|explanation|note|notes|focus|focus concept|thought|"
    r"thoughts|thinking|analysis|approach|goal|technique|signals?|intent|purpose|justification|"
    r"why(?: this| i)?[\w ]{0,20})\s*:|"
    r"because\b|since the respondent|the respondent\b|respondent\b|"
    r"this (?:question|follow[- ]?up|probe)\b|"
    r"i (?:chose|selected|picked|will|would|am going|want|asked|'m asking|am asking)\b|"
    r"(?:selected|chosen) strategy\b|using the \w+ strategy\b|to (?:deepen|explore|clarify|probe)\b)",
    re.IGNORECASE,
)
_INLINE_REASONING = re.compile(
    r"\s*(?:\(|\[)?\s*\b(?:strategy|reasoning|rationale|explanation|note|why this question)\s*:.*$",
    re.IGNORECASE | re.DOTALL,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[\"“'‘(]?[A-Z0-9])")
_QUOTES = "\"'“”‘’«»`"
_OPEN_START = re.compile(
    r"^(?:what|why|how|which|when|where|who|in what|to what|tell me|"
    r"could you (?:tell|describe|walk|share|say)|can you (?:tell|describe|walk|share|say)|"
    r"would you (?:tell|describe|walk|share)|thinking|if you|looking)\b",
    re.IGNORECASE,
)
_CLOSED_START = re.compile(
    r"^(?:do|does|did|is|are|was|were|have|has|had|will|would|should|can|could|may|might)\b", re.IGNORECASE
)
_LEADING = re.compile(
    r"^(?:(?:don't|do not|wouldn't|would not|won't|didn't|did not)\s+you\s+(?:think|agree|feel|say|find)|"
    r"(?:isn't|is not|wasn't) it (?:true|fair to say|obvious|clear))\s+(?:that\s+)?",
    re.IGNORECASE,
)
_LEADING_TAIL = re.compile(
    r",?\s*(?:right|isn't it|don't you think|wouldn't you agree|correct)\s*\?$", re.IGNORECASE
)
_IMPERATIVE = re.compile(
    r"^(?:tell me|describe|walk me|talk me|share|explain|give me|say more)\b", re.IGNORECASE
)
# A word of any script (shared.words): a question in Greek or Chinese is no shorter than in English.
_WORD = WORD
_LEAD_IN_MAX_WORDS = 40  # play-backs (validate/reflect) restate a chain before asking


@dataclass(frozen=True)
class _Candidate:
    question: str
    lead_in: str
    score: int
    order: int


def _strip_markdown(text: str) -> str:
    text = _FENCE.sub("", text)
    text = _HEADING.sub("", text)
    text = _BLOCKQUOTE.sub("", text)
    previous = None
    while previous != text:
        previous = text
        text = _EMPHASIS.sub(r"\2", text)
    return text.replace("**", "").replace("__", "")


def _strip_quotes(text: str) -> str:
    text = text.strip()
    changed = True
    while changed and len(text) >= 2:
        changed = False
        if text[0] in _QUOTES and text[-1] in _QUOTES:
            text, changed = text[1:-1].strip(), True
        elif len(text) >= 3 and text[0] in _QUOTES and text[-1] == "?" and text[-2] in _QUOTES:
            # "…"?  (question mark outside the closing quote)
            text, changed = (text[1:-2] + "?").strip(), True
    # An unbalanced quote left at either end.
    if text and text[0] in _QUOTES and text[0] not in text[1:]:
        text = text[1:]
    if text and text[-1] in _QUOTES and text[-1] not in text[:-1]:
        text = text[:-1]
    return text.strip()


def _unquote_question(question: str) -> str:
    """`So: "What do you do first?` -> `What do you do first?` (an unbalanced opening double quote)."""
    for quote in ('"', "“"):
        closing = "”" if quote == "“" else '"'
        count = question.count(quote) if quote == closing else question.count(quote) - question.count(closing)
        if count % 2 == 1:
            question = question[question.rindex(quote) + 1 :]
    return _strip_quotes(question)


def _clean_line(line: str) -> str:
    line = _LIST_MARKER.sub("", line)
    previous = None
    while previous != line:
        previous = line
        line = _strip_quotes(_LABEL.sub("", line))
        line = _LIST_MARKER.sub("", line)
    return squash(_INLINE_REASONING.sub("", line))


def is_reasoning(sentence: str) -> bool:
    """True for leaked reasoning ("Strategy: ...", "Because the respondent ...", "I chose ...")."""
    return bool(_REASONING_LINE.match(sentence))


def _unlead(question: str) -> str:
    """Rewrite common leading forms into open ones ("Don't you think X?" -> "To what extent ... X?")."""
    if _LEADING_TAIL.search(question):
        stem = _LEADING_TAIL.sub("", question).strip()
        if not _LEADING.match(stem):
            return "To what extent do you feel that " + lower_first(stem) + "?"
        question = stem + "?"
    if _LEADING.match(question):
        question = _LEADING.sub("To what extent do you feel that ", question, count=1)
    return question


def _score(question: str) -> int:
    score = 0
    if _OPEN_START.match(question):
        score += 2
    elif _CLOSED_START.match(question):
        score -= 1
    if _LEADING.match(question) or _LEADING_TAIL.search(question):
        score -= 3
    if len(question.split()) > 35:
        score -= 1
    return score


def _candidates(lines: list[str]) -> list[_Candidate]:
    out: list[_Candidate] = []
    for line in lines:
        sentences = [s.strip() for s in _SENTENCE.split(line) if s.strip()]
        lead = ""
        for sentence in sentences:
            if "?" in sentence:
                question = _unquote_question(sentence[: sentence.index("?") + 1])
                if is_reasoning(question) or not _WORD.search(question):
                    lead = ""
                    continue
                out.append(_Candidate(question, lead, _score(question), len(out)))
                break  # several questions on one line: the first complete one
            lead = "" if is_reasoning(sentence) else sentence
    return out


def _as_question(statement: str) -> str:
    statement = statement.rstrip(" .!:;,")
    if _IMPERATIVE.match(statement):
        return "Could you " + lower_first(statement) + "?"
    return statement + "?"


def _tidy(text: str) -> str:
    text = squash(text)
    text = re.sub(r"\s+([?.!,;:])", r"\1", text)
    text = re.sub(r"\?+", "?", text)
    return text[:1].upper() + text[1:]


def _cap(question: str, max_chars: int) -> str:
    if len(question) <= max_chars:
        return question
    cut = question[: max_chars - 1].rsplit(" ", 1)[0]
    cut = re.sub(r"(?:[\s,;:\-–—]+|\s+(?:and|or|but|of|to|the|a|an|with|for|about|in|on))+$", "", cut)
    return cut.rstrip(" ,;:.!") + "?"


def _lines(raw: str) -> list[str]:
    text = _strip_markdown(raw.replace("\r\n", "\n").replace("\r", "\n"))
    lines = [_clean_line(line) for line in text.split("\n")]
    return [line for line in lines if line and _WORD.search(line)]


def sanitize_question(raw: str, *, max_chars: int = 300) -> str | None:
    """Exactly one short, open, non-leading question from raw model output, or None."""
    lines = _lines(raw)
    candidates = _candidates(lines)
    if candidates:
        best = max(candidates, key=lambda c: (c.score, -c.order))
        question = _unlead(best.question)
        lead = best.lead_in if best.lead_in and len(best.lead_in.split()) <= _LEAD_IN_MAX_WORDS else ""
        text = _tidy(f"{lead} {_tidy(question)}" if lead else question)
        if len(text) > max_chars:
            text = _tidy(question)
    else:
        statements = [s for line in lines for s in _SENTENCE.split(line) if s.strip() and not is_reasoning(s)]
        if not statements:
            return None
        text = _tidy(_as_question(_unlead(statements[0].strip())))
    text = _cap(text, max_chars)
    if len(_WORD.findall(text)) < 2:
        return None
    return text


def sanitize_message(raw: str, *, max_chars: int = 800) -> str | None:
    """A closing message: plain prose, no labels, no reasoning, no questions, capped; or None."""
    lines = _lines(raw)
    sentences = [
        s.strip()
        for line in lines
        for s in _SENTENCE.split(line)
        if s.strip() and not is_reasoning(s.strip())
    ]
    statements = [s for s in sentences if not s.rstrip(_QUOTES).endswith("?")] or sentences
    out: list[str] = []
    for sentence in statements:
        if len(" ".join([*out, sentence])) > max_chars:
            break
        out.append(sentence)
    if not out and statements:
        out = [_cap(statements[0], max_chars).rstrip("?") + "."]
    text = _tidy(" ".join(out))
    return text if len(_WORD.findall(text)) >= 2 else None
