"""The per-run JSON record: what the interview asked, what the respondent revealed, what the graph holds.

Everything here is plain pydantic (JSON-serialisable) and filled from the public API's responses
(`simulation.convert`), so reports, metrics and plots never touch protobuf.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

SignalScalar = bool | int | float | str


class Usage(BaseModel):
    """LLM tokens and cost."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0
    by_client: dict[str, Usage] = Field(default_factory=dict)


class Contribution(BaseModel):
    """One matched weight of a ranked candidate: the YAML key, its weight and what it added."""

    weight_key: str
    weight: float
    contribution: float


class RankedCandidate(BaseModel):
    """One of the best (strategy, focus) candidates of a turn, with how its score came about."""

    rank: int
    strategy: str
    focus_label: str = ""
    score: float
    base_score: float
    phase_multiplier: float = 1.0
    phase_bonus: float = 0.0
    selected: bool = False
    contributions: list[Contribution] = Field(default_factory=list)


class TurnRecord(BaseModel):
    """One answered question and the orchestrator's result for it."""

    turn: int
    question: str
    answer: str
    respondent_kind: str = ""
    focus_element: str | None = None
    revealed_elements: list[str] = Field(default_factory=list)
    revealed_links: list[str] = Field(default_factory=list)
    mentioned_elements: list[str] = Field(
        default_factory=list, description="Elements first named only in passing (see RespondentTurn)."
    )
    behaviours: list[str] = Field(default_factory=list)
    # the respondent said nothing of what this question asked for was left (RespondentTurn.nothing_left;
    # None: the respondent does not tell)
    nothing_left: bool | None = None
    strategy: str = ""
    focus_node_id: str = ""
    focus_label: str = ""
    next_question: str = ""
    should_continue: bool = True
    termination_reason: str = ""
    intent: str = ""
    phase: str = ""
    node_count: int = 0
    edge_count: int = 0
    nodes_added: int = 0
    edges_added: int = 0
    max_depth: int = 0
    chain_completion_ratio: float = 0.0
    extraction_skipped: bool = False
    signals: dict[str, SignalScalar] = Field(default_factory=dict)
    candidates: list[RankedCandidate] = Field(
        default_factory=list,
        description="The best candidates of the strategy ranking (CANDIDATES_KEPT), best first: why "
        "the strategy and focus were chosen over the next ones.",
    )
    usage: Usage = Field(default_factory=Usage)
    latency_ms: int = 0


class GraphNode(BaseModel):
    """A surface graph node."""

    id: str
    label: str
    node_type: str
    level: int = 0
    is_terminal: bool = False
    created_turn: int = 0
    superseded_by: str = ""


class GraphEdge(BaseModel):
    """A surface graph edge."""

    id: str
    source: str
    target: str
    edge_type: str
    created_turn: int = 0


class GraphSnapshot(BaseModel):
    """The final surface graph and its metrics, from GetSessionGraph."""

    nodes: list[GraphNode] = Field(default_factory=list)
    edges: list[GraphEdge] = Field(default_factory=list)
    max_depth: int = 0
    max_depth_normalized: float = 0.0
    chain_completion_ratio: float = 0.0
    has_complete_chain: bool = False
    complete_chain_count: int = 0
    longest_chain: list[str] = Field(default_factory=list)
    # edge types between consecutive longest_chain entries (one fewer; empty from an older store)
    longest_chain_edge_types: list[str] = Field(default_factory=list)
    canonical_slot_count: int = 0
    # surface node id -> canonical slot id (empty when canonical slots are off)
    slot_of: dict[str, str] = Field(default_factory=dict)


class SessionSummary(BaseModel):
    """The session as GetSession returns it at the end."""

    session_id: str
    status: str = ""
    termination_reason: str = ""
    turn_count: int = 0
    max_turns: int = 0
    strategy_history: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    transcript_length: int = 0


class RunMeta(BaseModel):
    """What was run, against what, with which seed."""

    run_id: str
    concept_id: str
    methodology: str
    persona: str
    scenario_id: str
    seed: int
    engine: str
    target: str
    max_turns: int = 0
    reproducible: bool = Field(
        default=False,
        description="The session id came from the run spec (a rerun of the spec on a fresh store repeats "
        "the interview word for word with the offline engines); false when the store already held it.",
    )
    started_at: datetime
    finished_at: datetime | None = None


# Why a hidden chain's walk through the graph stopped (see `simulation.chains`).
ChainBreakReason = Literal[
    "not_revealed", "not_recovered", "split", "link_not_revealed", "link_not_recovered"
]


class ChainOutcome(BaseModel):
    """One hidden chain: completed as a walk through the graph, or where and why the walk stopped."""

    chain_id: str
    kind: str
    completed: bool
    completed_canonical: bool | None = Field(
        default=None,
        description="Completed with each node read as its canonical slot (None when slots are off).",
    )
    reached: str | None = Field(
        default=None, description="The last element the walk reached (None when it stopped at the first)."
    )
    stopped_at: str | None = Field(default=None, description="The element the walk could not reach.")
    reason: ChainBreakReason | None = None
    nodes: list[str] = Field(
        default_factory=list,
        description="For a split: the graph nodes that hold the element reached, as 'label (type)'.",
    )


class RecallMetrics(BaseModel):
    """Ground-truth recall of one run."""

    elements_total: int
    elements_revealed: int
    elements_recovered: int
    elements_recovered_typed: int
    element_recall: float
    element_recall_typed: float
    revealed_share: float = Field(description="Share of hidden elements the respondent revealed.")
    recall_of_revealed: float = Field(description="Share of revealed elements recovered in the graph.")
    links_total: int
    links_revealed: int
    links_recovered: int
    links_recovered_typed: int
    link_recall: float
    link_recall_of_revealed: float
    chains_total: int
    chains_completed: int
    chains_connected: int
    chain_completion: float
    mean_chain_progress: float = Field(description="Mean share of each chain's elements recovered.")
    chains_completed_canonical: int | None = Field(
        default=None,
        description="Chains completed with each node read as its canonical slot: an element told twice in "
        "other words completes the chain when both nodes share a slot (None when slots are off).",
    )
    chain_completion_canonical: float | None = None
    chains: list[ChainOutcome] = Field(
        default_factory=list, description="Each hidden chain: completed, or where and why its walk stopped."
    )
    nodes_total: int
    nodes_matched: int
    node_precision: float = Field(description="Share of graph nodes that match some hidden element.")
    recovered: list[str] = Field(default_factory=list)
    matches: list[dict[str, str | float]] = Field(default_factory=list)


class QuestionMetrics(BaseModel):
    """Repetition and form of the questions asked."""

    count: int
    exact_repeats: int
    near_repeats: int
    # questions asked again in other words because the respondent asked what one meant (not repeats)
    rewordings: int = 0
    # questions of a kind the respondent had already answered with nothing left ("another incident?"
    # after "nothing else comes to mind") that got nothing new; None when the respondent does not
    # tell (the LLM engine)
    asked_after_nothing_left: int | None = None
    repeated_rate_exact: float
    repeated_rate_near: float
    single_question_share: float
    ends_with_question_mark_share: float
    words_mean: float
    words_median: float
    words_max: int

    @staticmethod
    def compared_count(count: int, rewordings: int) -> int:
        """How many questions the repeat rates are over: each after the first, rewordings aside."""
        return max(count - 1 - rewordings, 0)

    @property
    def compared(self) -> int:
        """`compared_count` of these questions."""
        return self.compared_count(self.count, self.rewordings)


class RunMetrics(BaseModel):
    """Everything the report shows about a run."""

    recall: RecallMetrics
    questions: QuestionMetrics
    turns: int
    termination_reason: str
    graph_nodes: int
    graph_edges: int
    graph_max_depth: int
    graph_chain_completion_ratio: float
    graph_has_complete_chain: bool
    graph_complete_chain_count: int
    strategy_counts: dict[str, int]
    timeline: list[dict[str, str | int]]
    question_kinds: dict[str, int]
    behaviours: dict[str, int]
    interviewer_tokens: int
    interviewer_cost_usd: float
    interviewer_calls: int
    respondent_tokens: int
    respondent_cost_usd: float


class RunRecord(BaseModel):
    """Everything one simulated interview produced (metrics are filled in by `metrics.compute`)."""

    meta: RunMeta
    opening_question: str
    closing_message: str = ""
    turns: list[TurnRecord] = Field(default_factory=list)
    graph: GraphSnapshot = Field(default_factory=GraphSnapshot)
    session: SessionSummary
    respondent_usage: Usage = Field(default_factory=Usage)
    revealed_elements: list[str] = Field(default_factory=list)
    revealed_links: list[str] = Field(default_factory=list)
    metrics: RunMetrics | None = None

    @property
    def questions(self) -> list[str]:
        """The questions the respondent answered, in order (opening first)."""
        return [t.question for t in self.turns]
