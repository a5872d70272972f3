"""Valid answers to every LLM call of the suite, derived from the request alone (no script).

The benchmark's fake provider (`bench.fake_provider`) answers each request with `auto_reply(api, body)`:

- extraction (`LLMExtraction`): the methodology's node and edge types are read from the system
  prompt, the answer from the `<respondent_answer>` block; each clause of the answer becomes one
  concept (label = the clause's last words, quoted verbatim) and consecutive concepts are linked by
  an edge type the ontology permits between their types — so every item passes the extraction
  service's validation, and new answers keep adding nodes and edges;
- rubric (`RubricOutput`): six 1-5 scores from the answer's length (long answers score as deep);
- slot proposals (`SlotProposalOut`): one slot per listed node, named after its label;
- text (opening, follow-up, rephrase, closing; streamed or not): a short open question about the
  focus concept, numbered so that no two questions of a run are equal (a repeat would make the
  question service fall back to its offline engine).

The functions are pure, apart from the question counter of `AutoResponder`.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

Api = Literal["anthropic", "openai"]
CallKind = Literal["extraction", "rubric", "slots", "text", "unknown"]

RUBRIC_DIMENSIONS = (
    "response_depth",
    "specificity",
    "certainty",
    "valence",
    "engagement",
    "intellectual_engagement",
)
# Schema titles (pydantic model names) the services send, in a tool's input_schema or in the
# JSON-mode system prompt.
SCHEMA_KINDS: dict[str, CallKind] = {
    "LLMExtraction": "extraction",
    "RubricOutput": "rubric",
    "SlotProposalOut": "slots",
}
MAX_CONCEPTS = 4

_NODE_LINE = re.compile(r"^- (\w+) \(level (\d+)(?:, terminal)?\):", re.MULTILINE)
_EDGE_LINE = re.compile(r"^- (\w+): .*? Allowed: (.+)\.$", re.MULTILINE)
_PAIR = re.compile(r"(\w+) -> (\w+)")
_ANSWER = re.compile(r"<respondent_answer>\n?(.*?)\n?</respondent_answer>", re.DOTALL)
_FOCUS = re.compile(r"<focus_concept>(.*?)</focus_concept>", re.DOTALL)
_TOPIC = re.compile(r"<interview_topic>(.*?)</interview_topic>", re.DOTALL)
_SLOT_NODE = re.compile(r'^- (n\d+): "(.*)" \(type: (\w+)\)$', re.MULTILINE)
# Clause boundaries: punctuation, and connectives that start a new idea.
_BOUNDARY = re.compile(
    r"[.;:!?,]|\b(?:because|so that|so|which|and that|but|since|as it|that means|and it)\b", re.IGNORECASE
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_STOP = frozenset(
    (
        "a",
        "an",
        "the",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "with",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "am",
        "do",
        "does",
        "did",
        "have",
        "has",
        "had",
        "can",
        "could",
        "would",
        "should",
        "will",
        "just",
        "really",
        "very",
        "so",
        "also",
        "too",
        "more",
        "most",
        "much",
        "many",
        "about",
        "from",
        "by",
        "as",
        "into",
        "than",
        "then",
        "there",
        "here",
        "when",
        "what",
        "which",
        "who",
        "how",
        "why",
        "not",
        "no",
        "yes",
    )
)


@dataclass(frozen=True)
class Ontology:
    """Node type levels and permitted (edge type, source type, target type) triples."""

    levels: dict[str, int]
    edges: tuple[tuple[str, str, str], ...]

    def edge_between(self, source: str, target: str) -> str | None:
        """An edge type permitted from `source` to `target` (the first listed), or None."""
        for name, src, tgt in self.edges:
            if src == source and tgt == target and name not in ("revises", "conflicts_with"):
                return name
        return None

    def chain(self, length: int) -> list[str]:
        """`length` node types, each linked to the previous one by a permitted edge where possible.

        Starts at the lowest level and climbs: the next type is the lowest-level permitted target
        above the current level (a ladder), else any permitted target, else the lowest type again.
        """
        if not self.levels:
            return []
        ordered = sorted(self.levels, key=lambda t: (self.levels[t], t))
        linked = [t for t in ordered if any(s == t and self.edge_between(s, g) for _, s, g in self.edges)]
        current = (linked or ordered)[0]
        out = [current]
        while len(out) < length:
            targets = [t for _, s, t in self.edges if s == current and self.edge_between(s, t)]
            higher = sorted(
                (t for t in targets if self.levels.get(t, 0) > self.levels[current]),
                key=lambda t: (self.levels.get(t, 0), t),
            )
            current = higher[0] if higher else (targets[0] if targets else ordered[0])
            out.append(current)
        return out


def parse_ontology(system: str) -> Ontology:
    """Node types and edge rules from the extraction system prompt."""
    levels = {name: int(level) for name, level in _NODE_LINE.findall(system)}
    edges: list[tuple[str, str, str]] = []
    for name, pairs in _EDGE_LINE.findall(system):
        if name in levels:  # a node line matched the edge pattern: not an edge
            continue
        edges.extend((name, s, t) for s, t in _PAIR.findall(pairs) if s in levels and t in levels)
    return Ontology(levels, tuple(edges))


def clause_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the answer's clauses (split at punctuation and connectives)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.start() > start:
            spans.append((start, m.start()))
        start = m.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans


def tail_phrase(text: str, span: tuple[int, int], max_words: int = 4) -> tuple[int, int] | None:
    """The span of the clause's last words: up to `max_words`, without leading function words.

    Returns None when the clause has fewer than two content words (no useful label)."""
    words = [(m.start() + span[0], m.end() + span[0]) for m in _WORD.finditer(text[span[0] : span[1]])]
    tail = words[-max_words:]
    while tail and text[tail[0][0] : tail[0][1]].lower() in _STOP:
        tail = tail[1:]
    content = [w for w in tail if text[w[0] : w[1]].lower() not in _STOP]
    if len(content) < 2 or len(tail) < 2:
        return None
    return tail[0][0], tail[-1][1]


def extraction_reply(system: str, user: str) -> dict[str, Any]:
    """An `LLMExtraction` object for the answer in `user` under the ontology in `system`."""
    ontology = parse_ontology(system)
    found = _ANSWER.search(user)
    answer = found.group(1) if found else ""
    phrases: list[tuple[int, int]] = []
    for span in clause_spans(answer):
        phrase = tail_phrase(answer, span)
        if phrase is not None and answer[phrase[0] : phrase[1]].lower() not in {
            answer[s:e].lower() for s, e in phrases
        }:
            phrases.append(phrase)
        if len(phrases) == MAX_CONCEPTS:
            break
    typed = list(zip(phrases, ontology.chain(len(phrases)), strict=False))
    concepts = [
        {
            "label": answer[start:end].lower(),
            "node_type": node_type,
            "confidence": 0.8,
            "stance": 0,
            "quote": answer[start:end],
        }
        for (start, end), node_type in typed
    ]
    relationships = []
    for ((l_start, l_end), l_type), ((r_start, r_end), r_type) in itertools.pairwise(typed):
        edge = ontology.edge_between(l_type, r_type)
        if edge is None:
            continue
        relationships.append(
            {
                "source_label": answer[l_start:l_end].lower(),
                "target_label": answer[r_start:r_end].lower(),
                "edge_type": edge,
                "confidence": 0.75,
                "quote": answer[l_start:r_end],  # the span stating both ends and the link
            }
        )
    return {"concepts": concepts, "relationships": relationships}


def rubric_reply(user: str) -> dict[str, Any]:
    """A `RubricOutput`: deeper scores for longer answers (a cooperative respondent scores 4)."""
    found = _ANSWER.search(user)
    words = len(_WORD.findall(found.group(1) if found else user))
    depth = 2 if words < 6 else 3 if words < 15 else 4
    scores = {name: 4 for name in RUBRIC_DIMENSIONS} | {"response_depth": depth, "valence": 3}
    return {name: {"score": score, "rationale": f"benchmark score {score}"} for name, score in scores.items()}


def snake(label: str) -> str:
    """`label` as a snake_case slot name."""
    return "_".join(w.lower() for w in _WORD.findall(label)) or "concept"


def slots_reply(user: str) -> dict[str, Any]:
    """A `SlotProposalOut` with one slot per listed node."""
    return {
        "slots": [
            {"slot_name": snake(label), "description": f"The concept '{label}'.", "node_ids": [key]}
            for key, label, _type in _SLOT_NODE.findall(user)
        ]
    }


_TEMPLATES = (
    "What does {focus} mean for you, thinking of occasion {n}?",
    "Why does {focus} matter to you in situation {n}?",
    "How does {focus} affect your day, for example on day {n}?",
    "What happens when {focus} is missing, say in case {n}?",
)


def question_text(prompt: str, n: int) -> str:
    """An open question about the prompt's focus concept (or topic); `n` keeps it unique."""
    found = _FOCUS.search(prompt) or _TOPIC.search(prompt)
    focus = " ".join(found.group(1).split()) if found else "that"
    focus = focus[:80] or "that"
    return _TEMPLATES[n % len(_TEMPLATES)].format(focus=focus, n=n)


def request_texts(api: Api, body: dict[str, Any]) -> tuple[str, str]:
    """(system, user) text of a request body of either API."""
    messages = body.get("messages") or []
    system = body.get("system") or ""
    if isinstance(system, list):
        system = "".join(str(part.get("text", "")) for part in system if isinstance(part, dict))
    users: list[str] = []
    for message in messages:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        if message.get("role") == "system":
            system = f"{system}\n{text}" if system else text
        elif message.get("role") == "user":
            users.append(text)
    return str(system), users[0] if users else ""


def call_kind(api: Api, body: dict[str, Any], system: str) -> CallKind:
    """Which of the suite's calls this is (structured by schema title, else free text)."""
    if api == "anthropic" and body.get("tools"):
        title = str(body["tools"][0].get("input_schema", {}).get("title", ""))
        return SCHEMA_KINDS.get(title, "unknown")
    fmt = body.get("response_format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_object":
        for title, kind in SCHEMA_KINDS.items():
            if f'"title":"{title}"' in system:
                return kind
        return "unknown"
    return "text"


@dataclass
class AutoReply:
    """What the fake sends back: structured data or text, and token counts for the usage block."""

    kind: CallKind
    data: dict[str, Any] | None = None
    text: str = ""
    input_tokens: int = 0
    output_tokens: int = 0


@dataclass
class AutoResponder:
    """Answers any request of the suite; thread-safe (the question counter is locked)."""

    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def reply(self, api: Api, body: dict[str, Any]) -> AutoReply:
        """The answer to one request body."""
        system, user = request_texts(api, body)
        kind = call_kind(api, body, system)
        data: dict[str, Any] | None = None
        text = ""
        if kind == "extraction":
            data = extraction_reply(system, user)
        elif kind == "rubric":
            data = rubric_reply(user)
        elif kind == "slots":
            data = slots_reply(user)
        elif kind == "text":
            with self._lock:
                n = next(self._counter)
            text = question_text(user, n)
        else:
            data = {}
        out = json.dumps(data) if data is not None else text
        # ~4 characters per token, as the providers' tokenisers roughly count English.
        return AutoReply(kind, data, text, (len(system) + len(user)) // 4 + 1, len(out) // 4 + 1)
