"""Offline opening questions, closing messages and rephrasings (no API key needed)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from services.question.chains import chain_to_say, chain_types, render_chain, say_labels
from services.question.models import ClosingRequest, OpeningRequest, RephraseRequest, TerminationReason
from services.question.offline import NARROW_LEADS, REPHRASE_LEADS, stable_index, without_lead_in
from services.question.places import says_whom_for
from services.question.sanitize import is_reasoning, sanitize_question
from services.question.spoken import SpokenLabels
from services.question.templates import method_key
from services.question.text import (
    join_labels,
    lower_first,
    normalise_question,
    squash,
    topic_kind,
    topic_phrase,
)
from shared.methodology_models import MethodologyConfig

_WELCOMES: tuple[str, ...] = (
    "Thank you for taking the time to talk with me today.",
    "Thanks so much for joining me today.",
    "It's great to have you here, thank you for making the time.",
)

_OPENINGS: dict[str | None, tuple[str, ...]] = {
    "means_end_chain": (
        "To start, think of the last time you chose {topic}: what did you notice or look for?",
        "Thinking about a recent time you bought or used {topic}, what made you pick the one you did?",
        "When you last chose {topic}, what did you pay attention to?",
    ),
    "jobs_to_be_done": (
        "Could you tell me about the last time you started, switched or stopped using something for {topic}, "
        "beginning with when you first thought about it?",
        "Think of a recent time you changed how you handle {topic}: what first got you thinking about it?",
    ),
    "critical_incident": (
        "Think of one particular occasion with {topic} that stood out as especially good or especially bad: "
        "what happened?",
        "Could you tell me about one specific time with {topic} that you remember well, for better or worse?",
    ),
    "customer_journey_mapping": (
        "Could you think of a recent occasion with {topic} and describe it from the very beginning: "
        "what first prompted you, and what did you do first?",
        "Thinking of the last time you went through {topic}, how did it all start?",
    ),
    "repertory_grid": (
        "To begin, which {kind} options do you know well, including ones you like, dislike or have stopped "
        "using?",
        "Which examples of {topic} have you used or come across, both ones you like and ones you don't?",
    ),
    None: (
        "To start, could you tell me about your own experience with {topic}?",
        "When you think about {topic}, what comes to mind first?",
    ),
}

_REASON_SENTENCES: dict[TerminationReason, str] = {
    TerminationReason.UNSPECIFIED: "",
    TerminationReason.MAX_TURNS: "We've covered a lot of ground in the time we had.",
    TerminationReason.CLOSING_STRATEGY: "I think that gives me a really clear picture.",
    TerminationReason.GRAPH_SATURATED: "I think we've explored this really thoroughly.",
    TerminationReason.QUALITY_DEGRADED: (
        "I know that was a lot of questions, and I really appreciate your patience."
    ),
    TerminationReason.DEPTH_PLATEAU: "I think we've gone into this about as deeply as we can.",
    TerminationReason.ALL_NODES_EXHAUSTED: "I think we've talked through everything you raised.",
    TerminationReason.SATURATED: "I think we've explored this really thoroughly.",
    TerminationReason.RESPONDENT_STOP: "",
    TerminationReason.ENDED_BY_CLIENT: "We'll stop here for today.",
}

# Plain-language swaps for the rephrase path (word-bounded, case-insensitive).
_SIMPLER: tuple[tuple[str, str], ...] = (
    (r"in what (important )?ways?", "how"),
    (r"to what extent", "how much"),
    (r"elaborate on", "say more about"),
    (r"significant(ly)?", "important"),
    (r"ultimately", "in the end"),
    (r"consequences", "results"),
    (r"consequence", "result"),
    (r"circumstances", "situation"),
    (r"characteristics", "features"),
    (r"attributes", "features"),
    (r"perceive", "see"),
    (r"regarding|with regard to|in relation to", "about"),
    (r"utili[sz]e", "use"),
    (r"approximately", "about"),
    (r"aspects?", "part"),
    (r"facilitate", "help with"),
    (r"motivations?", "reason"),
    (r"subsequently", "then"),
    (r"prior to", "before"),
    (r"anticipate(d)?", "expect"),
    (r"assess|evaluate", "judge"),
    (r"obtain", "get"),
    (r"purchase", "buy"),
    (r"sufficient", "enough"),
    (r"numerous", "many"),
    (r"alternatives", "other options"),
    (r"in terms of", "for"),
)
_BACK_REFERENCE = re.compile(r"\b(?:it|that|this|these|those|they|them)\b", re.IGNORECASE)
# A sentence of thanks or welcome (`_WELCOMES`, and an LLM's opening of the same kind).
_COURTESY = re.compile(
    r"(?:thank|thanks|welcome|hello|hi|it(?:'|’)?s (?:great|good|lovely) to)\b", re.IGNORECASE
)
# An opening's sequence marker at the start of the question ("To begin, which … do you know well?").
_OPENING_MARKER = re.compile(r"^(?:to (?:begin|start)(?: with)?|first of all),\s*", re.IGNORECASE)
# "…, and why?": where a question's second part begins (a wh-word or an auxiliary after "and"/"or").
_SECOND_PART = re.compile(
    r",? (?:and|or) (?=(?:which|what|how|why|when|where|who|whom|whose|is|are|was|were|do|does|did|has|"
    r"have|can|could|would|will)\b)",
    re.IGNORECASE,
)


def offline_opening(request: OpeningRequest, methodology: MethodologyConfig) -> str:
    """A warm welcome plus one open question in the method's style."""
    topic = topic_phrase(request.concept)
    seed = stable_index(request.session_id, "opening")
    questions = _OPENINGS.get(method_key(methodology.name)) or _OPENINGS[None]
    welcome = _WELCOMES[seed % len(_WELCOMES)]
    question = questions[(seed // len(_WELCOMES)) % len(questions)].format(
        topic=topic, kind=topic_kind(topic)
    )
    return f"{welcome} {question}"


def offline_closing(
    request: ClosingRequest, methodology: MethodologyConfig, spoken: SpokenLabels | None = None
) -> str:
    """Thanks, a brief summary of what was learned, and a reason-aware close.

    Labels are said back as in the follow-up questions ("in control of my time" -> "being in
    control of your time") when `spoken` is given, else as they are."""
    topic = topic_phrase(request.concept)
    graph = request.graph_summary

    def said(labels: Sequence[str], types: Mapping[str, str] | None = None) -> list[str]:
        return say_labels(labels, methodology, spoken, types) if spoken is not None else list(labels)

    parts: list[str] = []
    if request.termination_reason is TerminationReason.RESPONDENT_STOP:
        parts.append("Of course, we can stop here.")
    parts.append(f"Thank you so much for taking the time to talk with me about {topic}.")
    summary = join_labels(said(graph.node_labels or graph.longest_chain_labels), 3)
    chain = render_chain(said(chain_to_say(graph, methodology), chain_types(graph)), methodology.name)
    if chain:
        # "… fits together for you: no adverts lead to feeling made for you" says it twice
        lead = "how it all fits together" if says_whom_for(chain) else "how it fits together for you"
        parts.append(f"It was really helpful to hear {lead}: {chain}.")
    elif summary:
        parts.append(f"I learned a lot from what you shared about {summary}.")
    else:
        parts.append("I learned a lot from what you shared.")
    reason = _REASON_SENTENCES[request.termination_reason]
    if reason:
        parts.append(reason)
    if request.termination_reason is not TerminationReason.RESPONDENT_STOP:
        parts.append("That's all my questions for today, and I really appreciate your openness.")
    return squash(" ".join(parts))


def simplify(question: str) -> str:
    """Plain-language swaps on the question sentence.

    A lead-in sentence is dropped ("Thanks for that.") unless the question points back at it
    ("it", "that", ...) and it carries content (four words or more), as in "You mentioned the
    price. Why does it matter to you?". A courtesy is never content: the opening's welcome stays
    out of its rewording even where the question says "it" of something of its own ("Thank you
    for taking the time to talk with me today. Think of a recent time …: what first got you
    thinking about it?"), and so does the opening's "To begin," (a rewording begins nothing).
    """
    text = question.strip()
    sentences = [s for s in re.split(r"(?<=[.!])\s+", text) if s.strip() and not is_reasoning(s)]
    index = next((i for i, s in enumerate(sentences) if "?" in s), None)
    if index is None:
        text = sentences[0] if sentences else text
    else:
        text = sentences[index]
        lead = sentences[index - 1] if index > 0 else ""
        if lead and _BACK_REFERENCE.search(text) and len(lead.split()) >= 4 and not _COURTESY.match(lead):
            text = f"{lead} {text}"
    text = _OPENING_MARKER.sub("", text)
    for pattern, replacement in _SIMPLER:
        text = re.sub(rf"\b(?:{pattern})\b", replacement, text, flags=re.IGNORECASE)
    return squash(text)


def first_part(question: str) -> str | None:
    """The first part of a question that asks two things ("Which did you stop using, and which do
    you use most?" -> "Which did you stop using?"), or None when it asks one."""
    body = question.strip().rstrip("?").rstrip()
    match = _SECOND_PART.search(body)
    if match is None:
        return None
    head = body[: match.start()].rstrip(" ,;:")
    return f"{head}?" if len(head.split()) >= 3 else None


def offline_rephrase(request: RephraseRequest) -> str:
    """The same question in simpler words, introduced as a rewording, never identical to the question.

    A rewording is reworded from its own text, without the lead-in it carried. From the second
    attempt on (the respondent did not understand the rewording either) a question that asks two
    things keeps only the first, behind a lead-in that says so.
    """
    question = without_lead_in(request.question)
    simpler = sanitize_question(simplify(question)) or sanitize_question(question)
    if simpler is None:
        topic = topic_phrase(request.concept)
        return f"Let me ask it differently: what is your own experience with {topic}?"
    if request.attempt >= 2:
        leads = NARROW_LEADS[(request.attempt - 2) % len(NARROW_LEADS) :] + NARROW_LEADS
        simpler = first_part(simpler) or simpler
    else:
        seed = stable_index(request.session_id, question)
        leads = REPHRASE_LEADS[seed % len(REPHRASE_LEADS) :] + REPHRASE_LEADS
    asked = {normalise_question(request.question), normalise_question(question)}
    candidates = [lead + lower_first(simpler) for lead in leads]
    return next((c for c in candidates if normalise_question(c) not in asked), candidates[0])
