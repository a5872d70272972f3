"""Filler and meta talk: parts of an answer that say nothing about the topic.

Respondents pad answers with remarks about the answer itself ("I don't think there's anything
deeper than that", "that's really all there was to it", "good question"), about the interview
("that's a bit of a leading question") or a bare verdict on what they just said ("I'm really happy
with that"). None of it names an item, so it must not become a node — a node like "don't think
there's anything deeper" is then asked about ("why is that important to you?"), which reads badly
and wastes the respondent's patience.

`meta_spans` finds such segments (a sentence, or a comma-separated part of one) as character
ranges so that the offline extractor drops candidates inside them; `is_filler_label` rejects a
filler label from either extractor (the LLM can produce one too).
"""

# One pattern per line, so each reads as the remark it matches.
# ruff: noqa: E501

from __future__ import annotations

import re

# Lead-ins that may precede a meta remark in the same segment.
_LEAD = (
    r"(?:(?:well|hmm+|um+|uh+|oh|so|sure|okay|ok|right|again|honestly|yeah|yes|no|look|and|but|sorry|"
    r"i mean|to be honest|i guess|i suppose|i think|really|practically speaking|strictly speaking)[,.!]?\s+)*"
)

# Verdicts on what was just said ("That was a nightmare", "it was infuriating"): they name nothing.
_VERDICT = (
    r"(?:awful|terrible|horrible|dreadful|brilliant|great|amazing|wonderful|lovely|fantastic|a nightmare|"
    r"infuriating|frustrating|annoying|maddening|upsetting|a relief)"
)

# Whole segments that are meta talk (matched after the lead-ins, to the end of the segment).
_META_SEGMENTS: tuple[str, ...] = (
    # nothing more to say
    r"i (?:don't|do not) (?:really )?(?:think|know if|believe) (?:that )?there'?s (?:anything|much|any more|anymore|"
    r"more|nothing)\b.*",
    r"there'?s (?:nothing|not much|not a lot) (?:more |else |deeper )?(?:to (?:it|say|add)|than that|beyond that|"
    r"behind it)\b.*",
    r"(?:that'?s|that is|it'?s|it is) (?:really |just |simply |about |pretty much )*all (?:there (?:is|was) to it|"
    r"i (?:can|could) say|i have to say|i've got|there is|there was)\b.*",
    r"that'?s (?:really |just )?(?:it|all)(?: really| i think| for me| honestly)?",
    r"(?:that'?s|it'?s|it is|that is) (?:just |simply |really )*what (?:matters|counts) (?:to|for) me\b.*",
    r"(?:that'?s|it'?s|it is|that is) (?:just |simply |really )*what i (?:care about|value|want)"
    r"(?: in the end| really| most)?",
    r"i (?:can't|cannot|couldn't) (?:really )?(?:put it|say it|explain it) (?:any )?(?:other|better|differently)\b.*",
    r"i (?:can't|cannot|couldn't) (?:really )?(?:say|tell|explain)(?: (?:more|why|much))?",
    r"nothing (?:else |more )?(?:really |much )?(?:comes? to mind|to add|to say|springs to mind)\b.*",
    r"nothing (?:really|much|else|more|deep(?:er)?)(?: really| there)?",
    r"i think i'?ve (?:told you|said|covered) (?:everything|it all|all of it|most of it)\b.*",
    r"i'?ve (?:already )?(?:said|told you|covered) (?:most of it|everything|it all|all of it|that already)\b.*",
    r"(?:it'?s )?(?:the )?same as (?:before|i said)\b.*",
    r"(?:i'?m )?not (?:really )?sure(?: really| to be honest| honestly)?",
    r"(?:i )?(?:don't|do not) (?:really )?know(?: really| to be honest| honestly| what else)?",
    r"(?:it'?s )?hard to say(?: really)?",
    r"can'?t say",
    r"(?:that'?s a |what a )?(?:good|great|fair|interesting|tough) question",
    # a verdict on what was just said, naming nothing new
    r"i'?m (?:really |very |so |quite |pretty )?(?:happy|pleased|glad|satisfied|fine|ok|okay) with (?:that|it|"
    r"this|them)(?: really| honestly)?",
    # remarks about their own answering ("Sorry, I'm rambling", "Where was I?")
    r"(?:sorry )?i'?m (?:just |a bit )?(?:rambling|waffling|digressing|going on(?: a bit)?|getting (?:off track|"
    r"sidetracked)|going off (?:on )?(?:a )?tangent)(?: again| a bit| here)?",
    r"where was i",
    r"(?:i'?m )?sorry(?: about that)?",
    # remarks about the interview itself
    r".*\b(?:leading question|frame (?:it|that)|your research|here goes|why do you ask|trying to find out|"
    r"what you'?re asking|what do you mean by that)\b.*",
    # "nothing deep" rationalising
    r"it'?s (?:just )?(?:a |the )?practical (?:side|thing)(?: of it)?(?: really)?",
    r"i didn'?t overthink it",
    r"it just made sense",
    # lead-ins standing alone ("Strictly speaking, …", "It's simple really: …")
    r"(?:strictly|practically|frankly|generally) speaking|to be (?:precise|honest|fair)|it'?s simple(?: really)?|"
    r"(?:funnily|oddly|strangely|interestingly) enough|ugh+|oh (?:my )?(?:goodness|god|gosh|dear)|anyway",
    # a bare liking or disliking of "that", naming nothing ("I hate that so much, it's awful")
    r"i (?:absolutely |really |just |so )*(?:love|adore|hate|loathe|like) (?:that|it|this|them)(?: so much| a lot)?",
    rf"(?:it'?s|that'?s|it was|that was) (?:just |so |absolutely |honestly |really |a bit |such |quite )*{_VERDICT}"
    r"(?: honestly| really)?",
    r"i adore it",
    r"(?:it|that) (?:really |just |absolutely )*(?:drives|drove) me (?:absolutely |completely |a bit )*(?:mad|crazy|nuts|"
    r"up the wall|round the bend)",
    # a digression announced ("That reminds me, I must repaint the fence"): the remark itself
    r"(?:oh )?that reminds me",
)
_META = re.compile(rf"^{_LEAD}(?:{'|'.join(_META_SEGMENTS)})$", re.IGNORECASE)
# A bare assent closing a remark about the interview ("That's a bit of a leading question, but
# fine."). Alone it could be an answer ("How did you feel?" "Fine."), so it counts as meta talk only
# right after a meta segment; otherwise "fine" became a node and was asked about.
# The same goes for a bare feeling or verdict closing one ("That was a nightmare, honestly terrible",
# "It was infuriating, I was furious"): on its own, "I was furious" can be what the question asked.
_CLOSING = re.compile(
    r"^(?:(?:but|and|so|well|oh|honestly|just|really|absolutely)\s+)*"
    r"(?:(?:fine|okay|ok|sure|alright|all right|right|go on|very well)(?:\s+(?:then|i guess|i suppose))?"
    rf"|(?:so |such |really |absolutely |quite )*{_VERDICT}"
    r"|i (?:was|am|'m|felt) (?:so |absolutely |really |quite )*(?:furious|thrilled|livid|delighted|fuming|"
    r"over the moon|relieved|gutted))$",
    re.IGNORECASE,
)

# What something makes the respondent feel, in the present, said after the answer's content ("I
# work long night shifts on intensive care. Honestly, it makes me so happy."): a verdict on what was
# just said, as "it was brilliant" is. Alone, it answers the question ("Why does that matter?" "It
# makes me so happy."), so it is filler only once something else has been said; and what something
# made them feel at the time ("As a result, it made me furious") is a journey's emotion, not a verdict.
_FEELING_AFTER = re.compile(
    rf"^{_LEAD}(?:it|that|this) (?:really |just |honestly |always )*makes me (?:feel )?"
    r"(?:so |really |very |incredibly |absolutely |quite )*(?:happy|glad|sad|angry|cross|upset|furious)"
    r"(?: honestly| really)?$",
    re.IGNORECASE,
)

# A segment of lead-ins only ("Honestly", "Oh, well"): it says nothing, so what follows it is still
# the first thing said (matched with a space appended, as each lead-in ends in one).
_LEAD_ONLY = re.compile(rf"^{_LEAD}$", re.IGNORECASE)

# Labels that are meta talk whichever extractor produced them.
_FILLER_LABEL = re.compile(
    r"\b(?:anything (?:deeper|else|more)|nothing (?:deeper|else|more)|any other way|all there (?:is|was) to it|"
    r"comes? to mind|told you everything|more to say|good question|leading question|same as before)\b",
    re.IGNORECASE,
)
# A colon ends a segment too: "It's simple really: it's a practical thing really".
_SEGMENT = re.compile(r"[^.!?;,:]+")
# What may stand between two filler segments, or between filler and what follows it.
_SEPARATORS = " ,;:.!?-—–\n\t"


def _normal(text: str) -> str:
    return " ".join(text.replace("’", "'").replace("‘", "'").split()).strip()


def _bare(segment: str) -> str:
    return _normal(segment).strip(" -—–\"'")


def is_meta(segment: str) -> bool:
    """Whether `segment` (a sentence or a comma-separated part of one) is filler or meta talk."""
    text = _bare(segment)
    return bool(text) and _META.match(text) is not None


def _closes_remark(segment: str) -> bool:
    return _CLOSING.match(_bare(segment)) is not None


def meta_spans(text: str) -> list[tuple[int, int]]:
    """Character ranges of the answer's filler/meta segments (sorted, non-overlapping)."""
    out: list[tuple[int, int]] = []
    said = False  # whether a segment before this one said something (was no filler)
    for m in _SEGMENT.finditer(text):
        adjacent = bool(out) and not text[out[-1][1] : m.start()].strip(_SEPARATORS)
        segment = m.group()
        verdict = said and _FEELING_AFTER.match(_bare(segment)) is not None
        if not is_meta(segment) and not (adjacent and _closes_remark(segment)) and not verdict:
            said = said or _LEAD_ONLY.match(_bare(segment) + " ") is None
            continue
        if adjacent:
            out[-1] = (out[-1][0], m.end())  # "I don't really know, to be honest": one remark
        else:
            out.append((m.start(), m.end()))
    return out


def inside(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    """Whether [start, end) lies within one of `spans`."""
    return any(a <= start and end <= b for a, b in spans)


def only_filler_before(text: str, spans: list[tuple[int, int]], end: int) -> bool:
    """Whether `text` up to `end` holds filler (`spans`, from `meta_spans`) and nothing else."""
    start = 0
    for a, b in spans:
        if a >= end:
            break
        if text[start:a].strip(_SEPARATORS):
            return False
        start = b
    return start > 0 and not text[start:end].strip(_SEPARATORS)


def is_filler_label(label: str) -> bool:
    """Whether a node label is meta talk rather than an item ("don't think there's anything deeper")."""
    return _FILLER_LABEL.search(_normal(label)) is not None
