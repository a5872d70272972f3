"""The shape of the offline engine's question templates.

Placeholders: `{focus}` (the focus label, or the topic in topic mode), `{topic}`, `{kind}` (the
topic in the singular, to stand before a noun: "{kind} options"), `{summary}`
(up to three salient labels), `{chain}` (the longest chain read as a sentence), `{a}`, `{b}`,
`{c}` (three labels for a triad), `{clause}` (a focus with a subject of its own said as a clause in
the past: "nobody gave you a written list"), and agreement words that follow the focus label's
number: `{is}`, `{does}`, `{was}`, `{has}` and the pronoun `{it}` ("them" after a plural). A
template whose placeholder has no value for a request is skipped, so `{chain}` templates are only
used once a chain exists, and `{clause}` ones only for a focus that is such a clause.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Templates:
    """Question variants of one template family, per focus mode."""

    node: tuple[str, ...] = ()
    topic: tuple[str, ...] = ()
    again: tuple[str, ...] = ()
    """Topic questions once the respondent has told something (the session's graph holds nodes),
    in place of `topic`, for a family whose topic questions ask as if nothing had been said yet
    ("think of one particular time…" right after an incident was told). Empty: `topic` throughout."""
    summary: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    """Words that map an unknown strategy's name or description onto this family."""
    ordered: bool = False
    """Whether the topic (and `again`) questions are the steps of a sequence, asked in the order
    listed (the first not asked yet) instead of from a place that varies per session."""
