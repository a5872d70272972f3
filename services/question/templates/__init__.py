"""Question templates of the offline engine, per family and per methodology.

A *family* is a kind of question (laddering up, absence probe, triad, walk-through, ...). Each
known strategy maps onto one family; an unknown strategy is mapped by the words of its name and
YAML description. Families of one methodology can be used by any other (an unknown "probe
feelings" strategy in a laddering study still gets the journey-mapping emotion questions), and
a methodology may override the wording of a generic family in its own voice.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

from services.question.templates import (
    critical_incident,
    customer_journey_mapping,
    generic,
    jobs_to_be_done,
    means_end_chain,
    repertory_grid,
)
from services.question.templates.base import Templates
from shared.methodology_models import StrategyConfig

_METHOD_MODULES = {
    "means_end_chain": means_end_chain,
    "jobs_to_be_done": jobs_to_be_done,
    "critical_incident": critical_incident,
    "customer_journey_mapping": customer_journey_mapping,
    "repertory_grid": repertory_grid,
}

_OVERRIDES: Mapping[str, Mapping[str, Templates]] = MappingProxyType(
    {key: module.OVERRIDES for key, module in _METHOD_MODULES.items()}
)

# Methodology names we do not know by name are matched on these words.
_METHOD_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("means_end_chain", ("means_end", "means-end", "mec", "ladder")),
    ("jobs_to_be_done", ("jobs", "jtbd", "switch")),
    ("critical_incident", ("incident", "cit")),
    ("customer_journey_mapping", ("journey", "cjm")),
    ("repertory_grid", ("repertory", "grid", "construct")),
)

FAMILIES: Mapping[str, Templates] = MappingProxyType(
    {
        **generic.FAMILIES,
        **means_end_chain.FAMILIES,
        **jobs_to_be_done.FAMILIES,
        **critical_incident.FAMILIES,
        **customer_journey_mapping.FAMILIES,
        **repertory_grid.FAMILIES,
    }
)

# The strategies of the shipped methodologies, by name.
STRATEGY_FAMILIES: Mapping[str, str] = MappingProxyType(
    {
        # means_end_chain
        "explore": "explore",
        "deepen": "ladder_up",
        "clarify": "clarify",
        "contrast": "contrast",
        "absence_probe": "absence",
        "reflect": "reflect",
        "validate": "validate",
        "close": "closing",
        # critical_incident
        "elicit_incident": "incident",
        "set_scene": "scene",
        "trace_actions": "actions",
        "probe_outcome": "outcome",
        "probe_attribution": "attribution",
        "contrast_incident": "contrast_incident",
        "verify_account": "validate",
        # customer_journey_mapping
        "walk_journey": "journey_next",
        "explore_touchpoint": "touchpoint",
        "probe_emotion": "emotion",
        "probe_pain_point": "pain_point",
        "identify_need": "need",
        "find_moment_of_truth": "moment_of_truth",
        "validate_journey": "validate",
        # jobs_to_be_done
        "reconstruct_timeline": "timeline",
        "probe_push_pull": "push_pull",
        "probe_anxiety_habit": "anxiety_habit",
        "dig_for_job": "job",
        "clarify_specifics": "specifics",
        "compare_alternatives": "alternatives",
        "validate_job": "validate",
        # repertory_grid
        "elicit_elements": "elements",
        "triad_elicitation": "triad",
        "elicit_opposite_pole": "opposite_pole",
        "rate_elements": "rate",
        "ladder_up": "ladder_up",
        "pyramid_down": "pyramid_down",
        "validate_constructs": "validate",
    }
)

# Where to look when a family has nothing left that was not asked already.
FALLBACKS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "ladder_up": ("absence", "contrast", "clarify"),
        "clarify": ("ladder_up", "contrast"),
        "contrast": ("absence", "ladder_up"),
        "absence": ("contrast", "ladder_up"),
        "validate": ("reflect", "ladder_up"),
        "reflect": ("validate",),
        "closing": ("reflect",),
        "incident": ("contrast_incident",),
        "contrast_incident": ("incident",),
        "scene": ("actions", "specifics"),
        "actions": ("scene", "outcome"),
        "outcome": ("attribution", "actions"),
        "attribution": ("outcome", "ladder_up"),
        "journey_next": ("journey_gaps", "touchpoint"),
        "touchpoint": ("emotion", "pain_point"),
        "emotion": ("need", "touchpoint"),
        "pain_point": ("need", "emotion"),
        "need": ("ladder_up", "pain_point"),
        "moment_of_truth": ("emotion", "need"),
        "timeline": ("specifics",),
        "push_pull": ("anxiety_habit", "job"),
        "push": ("specifics", "job"),
        "pull": ("alternatives", "job"),
        "job_behind_push": ("push", "specifics"),
        "job_despite_worry": ("anxiety_habit", "specifics"),
        "job_over_habit": ("anxiety_habit", "specifics"),
        "job_at_event": ("specifics", "push_pull"),
        "job_of_solution": ("pull", "alternatives"),
        "push_pull_solution": ("anxiety_habit", "alternatives"),
        "push_pull_event": ("specifics", "anxiety_habit"),
        "anxiety_habit": ("push_pull", "alternatives"),
        "job": ("ladder_up", "push_pull"),
        "specifics": ("clarify", "timeline"),
        "alternatives": ("contrast", "anxiety_habit"),
        "elements": ("triad",),
        "triad": ("opposite_pole", "elements"),
        "opposite_pole": ("clarify", "pyramid_down"),
        "rate": ("opposite_pole", "ladder_up"),
        "ladder_up_pole": ("rate", "clarify"),
        "ladder_up_construct": ("clarify", "pyramid_down"),
        "pyramid_down": ("clarify", "opposite_pole"),
        "top": ("validate", "reflect"),
        "account_top": ("validate", "reflect"),
        "actor": ("scene", "outcome"),
    }
)
LAST_RESORT: tuple[str, ...] = ("explore", "revitalize", "reflect", "clarify", "ladder_up")
DEFAULT_FAMILY = "explore"


def method_key(methodology: str) -> str | None:
    """The template module of a methodology (by name, else by the words in its name), or None."""
    if methodology in _METHOD_MODULES:
        return methodology
    lowered = methodology.lower()
    for key, words in _METHOD_WORDS:
        if any(w in lowered for w in words):
            return key
    return None


def _words(text: str) -> str:
    return " " + re.sub(r"[^a-z0-9]+", " ", text.lower()) + " "


def family_for(strategy: StrategyConfig) -> str:
    """The template family of a strategy: by known name, else by its name and description words."""
    if strategy.name in STRATEGY_FAMILIES:
        return STRATEGY_FAMILIES[strategy.name]
    if strategy.generates_closing_question:
        return "closing"
    name, description = _words(strategy.name), _words(strategy.description)
    best, best_score = DEFAULT_FAMILY, 0
    for family, templates in FAMILIES.items():
        score = 0
        for keyword in templates.keywords:
            needle = _words(keyword).rstrip()  # a word prefix: "frustrat" matches "frustrating"
            score += 3 * name.count(needle) + description.count(needle)
        if score > best_score:
            best, best_score = family, score
    return best


def all_templates() -> list[tuple[str | None, str, Templates]]:
    """Every (methodology or None for the shared families, family, templates), for checks and tests."""
    out: list[tuple[str | None, str, Templates]] = [(None, f, t) for f, t in FAMILIES.items()]
    for key, overrides in _OVERRIDES.items():
        out.extend((key, f, t) for f, t in overrides.items())
    return out


def templates_for(family: str, methodology: str) -> list[Templates]:
    """The methodology's own wording of a family first (if any), then the family itself."""
    out: list[Templates] = []
    key = method_key(methodology)
    if key is not None:
        override = _OVERRIDES[key].get(family)
        if override is not None:
            out.append(override)
    if family in FAMILIES:
        out.append(FAMILIES[family])
    return out


__all__ = [
    "DEFAULT_FAMILY",
    "FALLBACKS",
    "FAMILIES",
    "LAST_RESORT",
    "STRATEGY_FAMILIES",
    "Templates",
    "all_templates",
    "family_for",
    "method_key",
    "templates_for",
]
