"""Which node types a question asks about, per methodology (keyword tables).

"What worried you about X?" asks for an `anxiety` in jobs-to-be-done; "who was involved?" for an
`actor` in a critical incident. The offline respondent uses these hints to choose which linked
element to reveal. First matching patterns come first in the result.
"""

from __future__ import annotations

import re


def rx(*parts: str) -> re.Pattern[str]:
    """One case-insensitive alternation of `parts`."""
    return re.compile("|".join(parts), re.IGNORECASE)


# Per methodology: question keywords -> node types the answer should be about (first match wins order).
TYPE_HINTS: dict[str, tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]] = {
    "means_end_chain": (
        (
            rx(r"\bfeel\b", r"feelings?", r"seen by", r"others see", r"how would you feel"),
            ("psychosocial_consequence",),
        ),
        (
            rx(r"in the end", r"ultimately", r"achieve", r"in life", r"as a person", r"bigger goal"),
            ("instrumental_value", "terminal_value"),
        ),
        (
            rx(
                r"do for you",
                r"give you",
                r"practical",
                r"help you",
                r"what would be different",
                r"what would change",
                r"miss",
            ),
            ("functional_consequence", "psychosocial_consequence"),
        ),
    ),
    "jobs_to_be_done": (
        (
            rx(
                r"going wrong",
                r"fed up",
                r"problem",
                r"frustrat",
                r"start looking",
                r"made .{0,40}matter",
                r"pushed you away",
                r"made you think about",
                r"stop being good enough",
                r"get in the way",
            ),
            ("push",),
        ),
        (
            rx(
                r"\bhope[ds]?\b",
                r"hoping for",
                r"let you do",
                r"pull",
                r"appeal",
                r"attract",
                r"drew you",
                r"did you picture",
            ),
            ("pull",),
        ),
        (rx(r"worr", r"almost stopped", r"concern", r"afraid", r"nervous"), ("anxiety",)),
        # "what made the old way stop being good enough?" asks what pushed them away from it
        (rx(r"old way(?! stop)", r"give up", r"used to", r"routine", r"habit"), ("habit",)),
        (rx(r"choose .{0,40} over", r"why did you (?:choose|pick)"), ("hiring_criterion",)),
        (
            rx(
                r"\bdrop",
                r"what else did you try",
                r"go back to",
                r"instead",
                r"made you stop",
                r"other options",
                r"been an option",
            ),
            ("solution", "firing_criterion"),
        ),
        (rx(r"how would you know", r"gone well", r"outcome", r"make possible"), ("desired_outcome", "job")),
        (
            rx(
                r"trying to get done",
                r"progress",
                r"bigger goal",
                r"really trying",
                r"sorted",
                r"the job",
                r"what job",
            ),
            ("job", "desired_outcome", "emotional_social_job"),
        ),
        (rx(r"\bfeel\b", r"seen"), ("emotional_social_job",)),
        (rx(r"when did", r"what happened", r"first", r"next", r"decide"), ("timeline_event",)),
        (rx(r"where were you", r"situation", r"going on at the time", r"who was there"), ("situation",)),
    ),
    "critical_incident": (
        (
            rx(r"led up", r"situation", r"where and when", r"going on (?:just )?before", r"circumstances"),
            ("situation",),
        ),
        (
            rx(r"who was (?:involved|there)", r"roles?", r"others involved", r"the others"),
            ("actor", "action"),
        ),
        (
            rx(
                r"what (?:exactly )?did you do",
                r"step by step",
                r"moment by moment",
                r"what was (?:done|actually said)",
                r"did or said",
                r"how did others respond",
                r"what was done",
            ),
            ("action",),
        ),
        (
            rx(
                # "what would you want to happen differently with <the item> next time?"
                r"differently next time",
                r"\b(?:would|should)\b.{0,40}\bdifferently\b.{0,80}\bnext time",
                r"take away",
                r"\blearn",
                r"lesson",
                r"recommend",
            ),
            ("learning",),
        ),
        (
            rx(
                r"why do you think",
                r"what made .{0,60}(?:work|difference)",
                r"made the difference",
                r"turned out the way",
                r"in your view",
            ),
            ("attribution",),
        ),
        (
            rx(r"result", r"affect", r"outcome", r"turn out in the end", r"difference did", r"effect"),
            ("outcome",),
        ),
        (rx(r"happened", r"occasion", r"\btime\b"), ("incident",)),
    ),
    "customer_journey_mapping": (
        (rx(r"\bfeel", r"\bfelt\b", r"going through your mind", r"feelings"), ("emotion",)),
        (
            rx(
                r"difficult",
                r"slow",
                r"confusing",
                r"went wrong",
                r"frustrat",
                r"problem",
                r"harder",
                r"cost you",
            ),
            ("pain_point",),
        ),
        (
            rx(
                r"made or broke",
                r"opinion",
                r"mattered (?:more|most)",
                r"stuck with you",
                r"decide how you felt",
            ),
            ("moment_of_truth",),
        ),
        (rx(r"\bneed", r"expect", r"would have made", r"right for you", r"biggest difference"), ("need",)),
        (
            rx(r"channel", r"\bapp\b", r"website", r"who or what did you deal", r"what did you see"),
            ("touchpoint", "action"),
        ),
        (rx(r"what (?:exactly )?did you do", r"what was the next thing you did"), ("action",)),
        (rx(r"next", r"before", r"begin", r"start", r"after"), ("stage",)),
    ),
    "repertory_grid": (
        # a triad first: "which two belong together, and how is the third one different?" asks for
        # both poles, the emergent one first (the opposite alone asks for the implicit pole)
        (
            rx(r"alike", r"belong together", r"odd one out", r"stands apart", r"two of"),
            ("emergent_pole", "implicit_pole"),
        ),
        (
            rx(
                r"opposite",
                r"instead",
                r"other end",
                r"not .{0,40} at all",
                r"how the third",
                r"third one differ",
            ),
            ("implicit_pole",),
        ),
        (
            rx(r"prefer", r"why", r"matter", r"give you", r"important"),
            ("superordinate_construct", "core_value"),
        ),
        (rx(r"where .{0,40}fall", r"rate", r"rating", r"nearer", r"sits nearest"), ("element",)),
        (
            rx(
                r"an example",
                r"concrete example",
                r"in practice",
                r"how would you know",
                r"specific features",
                r"what would tell you",
            ),
            ("element", "emergent_pole"),
        ),
        (
            rx(
                r"options do you know", r"name", r"examples", r"another example", r"stopped using", r"dislike"
            ),
            ("element",),
        ),
    ),
}


def type_hints(question: str, methodology: str) -> tuple[str, ...]:
    """Node types `question` hints at under `methodology`, in table order, without repeats."""
    hints: list[str] = []
    for pattern, types in TYPE_HINTS.get(methodology, ()):
        if pattern.search(question):
            hints.extend(t for t in types if t not in hints)
    return tuple(hints)
