"""The single list of signal names the system knows, and the grammar of `signal_weights` keys.

Every signal a methodology may name in its `signals:` block is catalogued here with its pool,
scope (global or per node), value type and, for categorical signals, its categories. The scoring
service's detector registry must cover exactly this catalogue; the methodology loader
(`shared.methodology`) rejects names that are not in it.

A `signal_weights` key is a catalogued signal name optionally followed by one qualifier:

* float signals: `.low` (value ≤ 0.25), `.mid` (strictly between), `.high` (value ≥ 0.75);
  without a qualifier the weight is multiplied by the value;
* bool signals: `.true` / `.false`; without a qualifier the weight applies when true;
* categorical (str) signals: `.<category>`; a qualifier is required;
* int signals: no qualifier; the weight is multiplied by the value.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType


class SignalPool(StrEnum):
    """The detector pool a signal belongs to (also the key of the YAML `signals:` block)."""

    GRAPH = "graph"
    LLM = "llm"
    TEMPORAL = "temporal"
    META = "meta"
    TECHNIQUE = "technique"


class SignalScope(StrEnum):
    """Whether a signal has one value per interview turn (`global`) or one per node (`node`)."""

    GLOBAL = "global"
    NODE = "node"


class ValueType(StrEnum):
    """The Python type of a signal's value; `str` signals are categorical."""

    BOOL = "bool"
    INT = "int"
    FLOAT = "float"
    STR = "str"


# Prefixes that make a weight key node-scoped (SPEC: all other keys are strategy-scoped).
NODE_SCOPE_PREFIXES: tuple[str, ...] = ("graph.node.", "technique.node.", "meta.node.")

FLOAT_QUALIFIERS: tuple[str, ...] = ("low", "mid", "high")
BOOL_QUALIFIERS: tuple[str, ...] = ("true", "false")

# Binning thresholds of continuous values for `.low/.mid/.high` (SPEC: low ≤ 0.25, high ≥ 0.75).
LOW_MAX = 0.25
HIGH_MIN = 0.75

BANDS: tuple[str, ...] = ("none", "low", "medium", "high")


@dataclass(frozen=True)
class SignalSpec:
    """One catalogued signal: identity, pool, scope, value type and a prompt-ready description."""

    name: str
    pool: SignalPool
    scope: SignalScope
    value_type: ValueType
    description: str
    categories: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Catalogue invariants; a violation is a programming error in this module.
        if (self.value_type is ValueType.STR) != bool(self.categories):
            raise ValueError(f"{self.name}: categories are required exactly for str signals")
        if not self.name.startswith(f"{self.pool.value}."):
            raise ValueError(f"{self.name}: name must start with its pool {self.pool.value!r}")
        if is_node_scoped(self.name) != (self.scope is SignalScope.NODE):
            raise ValueError(f"{self.name}: scope disagrees with the node-scope prefixes")

    @property
    def is_categorical(self) -> bool:
        """True for str signals, whose weight keys name a category."""
        return self.value_type is ValueType.STR

    @property
    def qualifiers(self) -> tuple[str, ...]:
        """The qualifiers a weight key may append to this signal's name."""
        if self.value_type is ValueType.FLOAT:
            return FLOAT_QUALIFIERS
        if self.value_type is ValueType.BOOL:
            return BOOL_QUALIFIERS
        return self.categories


def _spec(name: str, value_type: ValueType, description: str, categories: tuple[str, ...] = ()) -> SignalSpec:
    pool = SignalPool(name.split(".", 1)[0])
    scope = SignalScope.NODE if is_node_scoped(name) else SignalScope.GLOBAL
    return SignalSpec(name, pool, scope, value_type, description, categories)


def is_node_scoped(key: str) -> bool:
    """Whether a signal name or weight key is node-scoped (`graph.node.`, `technique.node.`, `meta.node.`)."""
    return key.startswith(NODE_SCOPE_PREFIXES)


_B, _I, _F, _S = ValueType.BOOL, ValueType.INT, ValueType.FLOAT, ValueType.STR

_SPECS: tuple[SignalSpec, ...] = (
    # --- graph, global -------------------------------------------------------------------------
    _spec("graph.node_count", _I, "How many distinct concepts the respondent has mentioned so far."),
    _spec("graph.edge_count", _I, "How many links between concepts the respondent has made so far."),
    _spec(
        "graph.max_depth",
        _F,
        "Length of the longest chain of linked concepts, relative to the number of levels in the "
        "method (1.0 means one chain already spans every level).",
    ),
    _spec(
        "graph.avg_depth",
        _F,
        "Average depth of the concepts relative to the number of levels in the method; low means most "
        "of what was said is still at the concrete starting level.",
    ),
    _spec("graph.orphan_count", _I, "How many mentioned concepts are not yet linked to anything else."),
    _spec(
        "graph.chain_completion.ratio",
        _F,
        "Share of starting-level concepts whose chain has been followed all the way to an end-level "
        "concept (such as a personal value).",
    ),
    _spec(
        "graph.chain_completion.has_complete",
        _B,
        "Whether at least one chain already runs from a starting-level concept to an end-level concept.",
    ),
    _spec(
        "graph.canonical_concept_count",
        _I,
        "How many distinct themes remain after merging paraphrases of the same idea.",
    ),
    _spec(
        "graph.canonical_edge_density",
        _F,
        "How densely the merged themes are linked to each other (0 = unrelated, 1 = fully connected).",
    ),
    _spec(
        "graph.canonical_exhaustion_score",
        _F,
        "How worn out the merged themes are on average (0 = all fresh, 1 = all exhausted).",
    ),
    # --- graph, per node -----------------------------------------------------------------------
    _spec(
        "graph.node.exhausted",
        _B,
        "Whether this concept has been asked about repeatedly with only shallow answers and nothing new "
        "for several turns.",
    ),
    _spec(
        "graph.node.exhaustion_score",
        _F,
        "How worn out this concept is, from 0 (fresh) to 1 (repeatedly probed without new information).",
    ),
    _spec(
        "graph.node.yield_stagnation",
        _B,
        "Whether questions about this concept have produced nothing new for three or more turns.",
    ),
    _spec(
        "graph.node.focus_streak",
        _S,
        "How many consecutive turns this concept has been the focus (none, low = 1, medium = 2-3, "
        "high = 4 or more).",
        BANDS,
    ),
    _spec(
        "graph.node.focus_count",
        _S,
        "How often this concept has been the focus in total (none, low = 1-2, medium = 3-4, "
        "high = 5 or more).",
        BANDS,
    ),
    _spec("graph.node.is_current_focus", _B, "Whether this concept was the focus of the last question."),
    _spec(
        "graph.node.recency_score",
        _F,
        "How recently this concept was the focus, from 1 (just now) to 0 (twenty or more turns ago).",
    ),
    _spec("graph.node.is_orphan", _B, "Whether this concept is not yet linked to any other concept."),
    _spec("graph.node.edge_count", _I, "How many links this concept has to other concepts."),
    _spec(
        "graph.node.has_outgoing",
        _B,
        "Whether this concept already leads on to something else (a consequence, outcome or next step).",
    ),
    _spec(
        "graph.node.novelty",
        _F,
        "How different this concept is from everything else the respondent has said "
        "(1 = unlike anything else, 0 = a near repeat).",
    ),
    # --- llm -----------------------------------------------------------------------------------
    _spec(
        "llm.response_depth",
        _S,
        "How much the last answer elaborated: surface (a word or two), shallow (a bare statement), "
        "moderate (some explanation) or deep (reasons, examples, several facets).",
        ("surface", "shallow", "moderate", "deep"),
    ),
    _spec(
        "llm.specificity",
        _F,
        "How concrete the last answer was, from 0 (abstract generalities) to 1 (precise times, places, "
        "quantities and names).",
    ),
    _spec(
        "llm.certainty",
        _F,
        "How sure the respondent sounded in the last answer, from 0 (explicit doubt, heavy hedging) to 1 "
        "(no hedging).",
    ),
    _spec(
        "llm.valence",
        _F,
        "The emotional tone of the last answer, from 0 (strongly negative) to 1 (strongly positive).",
    ),
    _spec(
        "llm.engagement",
        _F,
        "How willing the respondent was in the last answer, from 0 (deflecting) to 1 (volunteering new "
        "points unprompted).",
    ),
    _spec(
        "llm.intellectual_engagement",
        _F,
        "How much reasoning the last answer showed, from 0 (bare facts) to 1 (interlinked reasons, "
        "trade-offs and motives).",
    ),
    _spec(
        "llm.global_response_trend",
        _S,
        "How answer depth has been moving over recent turns: deepening, stable, shallowing, or fatigued "
        "(mostly short answers).",
        ("deepening", "stable", "shallowing", "fatigued"),
    ),
    # --- temporal ------------------------------------------------------------------------------
    _spec(
        "temporal.strategy_repetition_count",
        _F,
        "How dominant the last used questioning strategy has been over the last five turns "
        "(1 = used in all five).",
    ),
    _spec(
        "temporal.turns_since_strategy_change",
        _F,
        "How long the current run of the same questioning strategy is, relative to five turns "
        "(1 = five or more turns in a row).",
    ),
    # --- meta ----------------------------------------------------------------------------------
    _spec(
        "meta.interview.phase",
        _S,
        "The stage of the interview: early (opening exploration), mid (building depth) or late "
        "(validation and closing).",
        ("early", "mid", "late"),
    ),
    _spec(
        "meta.interview_progress",
        _F,
        "How far through the planned interview length we are, from 0 (start) to 1 (last planned turn).",
    ),
    _spec(
        "meta.conversation.saturation",
        _F,
        "How much less new material the latest answer produced than the most productive answer so far "
        "(1 = nothing new at all).",
    ),
    _spec(
        "meta.canonical.saturation",
        _F,
        "How much of what was newly said only restates themes already covered (1 = pure repetition).",
    ),
    _spec(
        "meta.node.opportunity",
        _S,
        "What this concept offers now: exhausted (leave it), probe_deeper (rich answers that have not yet "
        "been captured as new concepts) or fresh (open for exploration).",
        ("exhausted", "probe_deeper", "fresh"),
    ),
    # --- technique -----------------------------------------------------------------------------
    _spec(
        "technique.node.strategy_repetition",
        _S,
        "How many consecutive turns the same strategy has been used on this concept (none, low = 1, "
        "medium = 2-3, high = 4 or more).",
        BANDS,
    ),
)

SIGNAL_CATALOG: Mapping[str, SignalSpec] = MappingProxyType({s.name: s for s in _SPECS})


class SignalKeyError(ValueError):
    """A signal name or `signal_weights` key that does not resolve against the catalogue."""


def _suggest(name: str) -> str:
    close = difflib.get_close_matches(name, list(SIGNAL_CATALOG), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def resolve_weight_key(key: str) -> tuple[str, str | None]:
    """Split a `signal_weights` key into (catalogued signal name, qualifier or None).

    The longest catalogued name that equals the key or prefixes it (followed by a dot) wins; the
    rest is the qualifier, which must be valid for the signal's value type (see module docstring).
    Raises `SignalKeyError` for an unknown signal, a bad qualifier, or a categorical signal used
    without a category.
    """
    best: str | None = None
    for name in SIGNAL_CATALOG:
        if (key == name or key.startswith(name + ".")) and (best is None or len(name) > len(best)):
            best = name
    if best is None:
        raise SignalKeyError(f"unknown signal {key!r}{_suggest(key)}")
    spec = SIGNAL_CATALOG[best]
    if key == best:
        if spec.is_categorical:
            raise SignalKeyError(
                f"categorical signal {best!r} needs a category qualifier, one of {', '.join(spec.categories)}"
            )
        return best, None
    qualifier = key[len(best) + 1 :]
    if spec.value_type is ValueType.INT:
        raise SignalKeyError(f"int signal {best!r} takes no qualifier (got {qualifier!r})")
    if qualifier not in spec.qualifiers:
        raise SignalKeyError(
            f"invalid qualifier {qualifier!r} for {spec.value_type.value} signal {best!r}; "
            f"expected one of {', '.join(spec.qualifiers)}"
        )
    return best, qualifier


def bin_continuous(value: float) -> str:
    """The `.low/.mid/.high` bin of a continuous value (low ≤ 0.25, high ≥ 0.75, mid between)."""
    if value <= LOW_MAX:
        return "low"
    if value >= HIGH_MIN:
        return "high"
    return "mid"


def signals_in_pool(pool: SignalPool | str) -> list[SignalSpec]:
    """Every catalogued signal of one pool, in catalogue order."""
    return [s for s in _SPECS if s.pool == pool]
