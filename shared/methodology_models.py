"""Typed models of a methodology and of a concept, as loaded from `config/`.

These are the contracts every service shares (extraction reads the ontology, scoring reads
signals/strategies/phases, question reads strategy descriptions). The loader that builds and
validates them lives in `shared.methodology`.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class NodeBinding(StrEnum):
    """Whether a strategy targets a node (`required`) or the interview as a whole (`none`)."""

    REQUIRED = "required"
    NONE = "none"


class FocusMode(StrEnum):
    """What a follow-up question is about: the focus node, a summary, or the topic."""

    RECENT_NODE = "recent_node"
    SUMMARY = "summary"
    TOPIC = "topic"


class InterviewPhase(StrEnum):
    """The three interview phases used for phase multipliers and bonuses."""

    EARLY = "early"
    MID = "mid"
    LATE = "late"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MethodInfo(_Frozen):
    """The `method:` block: identity and prompt-facing descriptions."""

    name: str
    version: str = "1.0"
    goal: str
    description: str = ""
    opening_bias: str = ""


class OntologyNodeType(_Frozen):
    """A node type of the methodology's ontology (e.g. MEC `attribute`, level 1)."""

    name: str
    level: int = Field(ge=1)
    terminal: bool = False
    description: str = ""
    examples: tuple[str, ...] = ()


class OntologyEdgeType(_Frozen):
    """An edge type with the (source_type, target_type) pairs it may connect."""

    name: str
    description: str = ""
    permitted_connections: tuple[tuple[str, str], ...] = ()
    # False for an edge that sets two things against each other or corrects one (a contrast, a
    # conflict, a preference, a revision): a chain said back to the respondent ("first …, then …",
    # "… leads to …") stops there rather than read it as a step.
    joins_chain: bool = True


class Ontology(_Frozen):
    """Node and edge types plus extraction guidelines for the LLM/offline extractor."""

    nodes: tuple[OntologyNodeType, ...]
    edges: tuple[OntologyEdgeType, ...]
    extraction_guidelines: tuple[str, ...] = ()


class StrategyConfig(_Frozen):
    """One questioning strategy and its signal weights."""

    name: str
    description: str = ""
    signal_weights: dict[str, float]
    node_binding: NodeBinding = NodeBinding.REQUIRED
    focus_mode: FocusMode = FocusMode.RECENT_NODE
    generates_closing_question: bool = False
    # Node types the strategy may focus (empty: any). Laddering up a repertory grid asks why a pole
    # matters; asked of an element ("Netflix") it has nothing to ask about.
    focus_node_types: tuple[str, ...] = ()


class PhaseConfig(_Frozen):
    """Per-phase multipliers (`signal_weights`, keyed by strategy) and additive bonuses."""

    description: str = ""
    signal_weights: dict[str, float] = Field(default_factory=dict)
    phase_bonuses: dict[str, float] = Field(default_factory=dict)


class MethodologyConfig(_Frozen):
    """A whole methodology YAML file, validated."""

    method: MethodInfo
    ontology: Ontology
    # pool name (graph, llm, temporal, meta, technique) -> namespaced signal names
    signals: dict[str, tuple[str, ...]]
    strategies: tuple[StrategyConfig, ...]
    phases: dict[InterviewPhase, PhaseConfig] = Field(default_factory=dict)

    @property
    def name(self) -> str:
        """The methodology's registry name (`method.name`)."""
        return self.method.name

    def strategy(self, name: str) -> StrategyConfig | None:
        """The strategy called `name`, or None."""
        return next((s for s in self.strategies if s.name == name), None)

    def node_type(self, name: str) -> OntologyNodeType | None:
        """The ontology node type called `name`, or None."""
        return next((n for n in self.ontology.nodes if n.name == name), None)

    def edge_type(self, name: str) -> OntologyEdgeType | None:
        """The ontology edge type called `name`, or None."""
        return next((e for e in self.ontology.edges if e.name == name), None)

    @property
    def chain_breaking_edges(self) -> frozenset[str]:
        """Names of the edge types a chain said back stops at (`joins_chain: false`)."""
        return frozenset(e.name for e in self.ontology.edges if not e.joins_chain)

    @property
    def lowest_level_types(self) -> frozenset[str]:
        """Names of the node types at the ontology's lowest level (a repertory grid's `element`)."""
        if not self.ontology.nodes:
            return frozenset()
        lowest = min(n.level for n in self.ontology.nodes)
        return frozenset(n.name for n in self.ontology.nodes if n.level == lowest)

    @property
    def level_count(self) -> int:
        """Number of distinct ontology levels (normalises `graph.max_depth`)."""
        return len({n.level for n in self.ontology.nodes})

    def all_signal_names(self) -> list[str]:
        """Every signal named in the `signals:` block, pools flattened, order kept."""
        return [name for pool in self.signals.values() for name in pool]


class ConceptConfig(_Frozen):
    """What to explore: a research topic bound to a default methodology."""

    id: str
    name: str
    methodology: str
    objective: str
    max_turns: int | None = Field(default=None, ge=1, le=200)
    # Domain words the offline extractor may match (PhraseMatcher); optional.
    vocabulary: tuple[str, ...] = ()
