"""Which graph labels may stand in a repertory-grid triad: elements only.

A triad ("Thinking about A, B and C, how are two alike and different from the third?") must
present three *elements* — specific instances the respondent knows (Netflix, "my ideal service")
— never a pole or a construct ("lots of original shows") posing as one. The request's graph summary
carries labels without node types, so an element is recognised by what the respondent said: a name
they wrote with a capital letter mid-sentence ("I use Netflix and YouTube"), or a supplied element
("my ideal service", "the one I stopped using"). A label that cannot be shown to be an element is
left out, and with fewer than three the engine asks for a triad in general terms instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from services.question.models import FocusNode, Speaker, Utterance
from shared.methodology_models import MethodologyConfig

_SUPPLIED = re.compile(
    r"^(?:my|our|the|an?) (?:ideal|perfect|dream|favourite|favorite|old|previous|current|usual)\b"
    r"|^(?:the )?one (?:i|we|you)\b",
    re.IGNORECASE,
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s*|[\"“(]\s*)$")
_PRONOUN_I = re.compile(r"\bI(?=\b|')")


def _written_as_name(label: str, texts: Iterable[str]) -> str | None:
    """How `label` was written in `texts` when capitalised there not merely at a sentence start."""
    pattern = re.compile(rf"(?<![\w+]){re.escape(label)}(?![\w+])", re.IGNORECASE)
    for text in texts:
        for m in pattern.finditer(text):
            if m.group()[:1].isupper() and not _SENTENCE_START.search(text[: m.start()]):
                return m.group()
    return None


def element_name(label: str, respondent_texts: Sequence[str]) -> str | None:
    """`label` as the respondent wrote it when it can be shown to name an element, else None."""
    if not label.strip():
        return None
    # a label that kept its capitals is a name ("how I spend my time" is not: "I" is always
    # written so); "my ideal service" is supplied
    if any(ch.isupper() for ch in _PRONOUN_I.sub("", label)) or _SUPPLIED.search(label):
        return label
    return _written_as_name(label, respondent_texts)


def triad_labels(
    labels: Sequence[str],
    focus: FocusNode,
    methodology: MethodologyConfig,
    recent_turns: Sequence[Utterance],
    asked: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """The focus label if it is an element (else "") and the other labels that are elements.

    Evidence is what the respondent said recently and the earlier questions (`asked`): a name this
    interviewer already presented as an element, capitalised as the respondent wrote it, stays one
    after the answer that named it has left the recent window. Labels come back as the respondent
    wrote them ("Netflix", not "netflix").
    """
    said = [u.text for u in recent_turns if u.speaker is Speaker.RESPONDENT] + list(asked)
    focus_label = focus.label.strip()
    if focus.node_type:
        is_element = focus.node_type in methodology.lowest_level_types
        shown = (element_name(focus_label, said) or focus_label) if is_element else None
    else:
        shown = element_name(focus_label, said)
    others = [name for lab in labels if (name := element_name(lab, said)) is not None]
    return (shown or ""), others
