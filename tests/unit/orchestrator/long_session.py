"""A long synthetic session shaped like the real ones, for the export size tests.

The shapes follow a real offline interview (the in-process suite, 54 turns): 50 scored candidates
of six contributions each, twelve signals per tracked node, fourteen global signals, ten ranked
alternatives, twelve stage timings, six rubric scores with rationales, ~300-character answers. The
graph grows every turn, by 3 nodes and 2 edges by default (the growth bench/answers.py drives, 600
nodes by turn 200; the offline engine grows about one node a turn), each turn mentions two earlier
nodes again, and a mentioned node gathers a quote per mention.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from google.protobuf.timestamp_pb2 import Timestamp

from shared.gen.interview.common.v1 import common_pb2 as c
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.gen.interview.scoring.v1 import scoring_pb2
from shared.gen.interview.slots.v1 import slots_pb2

SESSION = "4cb18f39f6914f9384950c8cb62503c8"
NODE_TYPES = ["attribute", "functional_consequence", "psychosocial_consequence", "instrumental_value"]
STRATEGIES = ["deepen", "explore", "validate", "absence_probe", "clarify", "reflect"]
STAGES = [
    "context_loading",
    "utterance_saving",
    "srl",
    "extraction",
    "graph_update",
    "state_computation",
    "rubric",
    "strategy_selection",
    "continuation",
    "question_generation",
    "response_saving",
    "output",
]
RUBRIC = ["response_depth", "specificity", "certainty", "valence", "engagement", "intellectual_engagement"]
GLOBAL_SIGNALS = [
    "graph.chain_completion.ratio",
    "llm.response_depth",
    "llm.specificity",
    "llm.intellectual_engagement",
    "meta.interview_progress",
    "llm.engagement",
    "meta.interview.phase",
    "graph.chain_completion.has_complete",
    "llm.certainty",
    "llm.global_response_trend",
    "meta.conversation.saturation",
    "temporal.turns_since_strategy_change",
    "temporal.strategy_repetition_count",
    "graph.max_depth",
]
NODE_SIGNALS = [
    "technique.node.strategy_repetition",
    "graph.node.recency_score",
    "graph.node.focus_streak",
    "meta.node.opportunity",
    "graph.node.yield_stagnation",
    "graph.node.has_outgoing",
    "graph.node.novelty",
    "graph.node.exhausted",
    "graph.node.is_current_focus",
    "graph.node.exhaustion_score",
    "graph.node.focus_count",
    "graph.node.is_orphan",
]
CONTRIBUTIONS = [
    ("llm.response_depth.moderate", "llm.response_depth", c.SignalValue(string_value="moderate"), False),
    ("temporal.strategy_repetition_count", "temporal.strategy_repetition_count", None, False),
    ("graph.node.has_outgoing.false", "graph.node.has_outgoing", c.SignalValue(bool_value=False), True),
    ("meta.node.opportunity.fresh", "meta.node.opportunity", c.SignalValue(string_value="fresh"), True),
    ("graph.node.exhaustion_score.low", "graph.node.exhaustion_score", None, True),
    ("graph.node.focus_count.low", "graph.node.focus_count", c.SignalValue(string_value="low"), True),
]
CANDIDATES = 50
ALTERNATIVES = 10


def node_id(i: int) -> str:
    """A UUID-shaped id of node `i`."""
    return f"00000000-0000-4000-8000-{i:012d}"


def edge_id(i: int) -> str:
    """A UUID-shaped id of edge `i`."""
    return f"00000000-0000-4000-9000-{i:012d}"


def slot_id(i: int) -> str:
    """A UUID-shaped id of the slot of node `i`."""
    return f"00000000-0000-4000-a000-{i:012d}"


def utterance(turn: int, speaker: str) -> str:
    """The utterance id of a turn ("r" respondent, "i" interviewer)."""
    return f"{SESSION}:{turn}:{speaker}"


def label(i: int) -> str:
    """The label of node `i` (a short noun phrase, as extraction writes them)."""
    return f"benefit number {i} of the product"


def answer_text(turn: int) -> str:
    """A respondent answer of about 300 characters."""
    return (
        f"Answer {turn}: I use it every morning on the train because the commute is long, and "
        "the noise cancelling lets me read in peace, so I arrive at work calm rather than stressed. "
        "That calm matters to me because it sets the tone for the rest of the day with my team "
        "and my family."
    )


def question_text(turn: int) -> str:
    """The interviewer's question asked after `turn` (turn 0 is the opening question)."""
    return (
        f"Question {turn}: You mentioned arriving calm rather than stressed; what is it about "
        "that feeling that matters to you, and how does it shape the rest of your day?"
    )


def _quote(i: int, turn: int) -> c.Quote:
    return c.Quote(text=label(i), start=9, end=9 + len(label(i)), utterance_id=utterance(turn, "r"))


def _timestamp(turn: int) -> Timestamp:
    return Timestamp(seconds=1_790_000_000 + turn * 30, nanos=722_761_000)


def _node(i: int, turn: int, mentions: list[int]) -> c.Node:
    turns = [turn, *mentions]
    return c.Node(
        id=node_id(i),
        session_id=SESSION,
        label=label(i),
        node_type=NODE_TYPES[i % len(NODE_TYPES)],
        confidence=0.75,
        stance=1,
        properties={"cue": "phrase:benefit", "extractor": "llm"},
        source_utterance_ids=[utterance(t, "r") for t in turns],
        quotes=[_quote(i, t) for t in turns],
        recorded_at=_timestamp(turn),
        created_turn=turn,
        level=1 + i % len(NODE_TYPES),
    )


def _edge(j: int, source: int, target: int, turn: int) -> c.Edge:
    return c.Edge(
        id=edge_id(j),
        session_id=SESSION,
        source_node_id=node_id(source),
        target_node_id=node_id(target),
        edge_type="leads_to",
        confidence=0.6,
        source_utterance_ids=[utterance(turn, "r")],
        quotes=[
            c.Quote(
                text=f"{label(source)} because {label(target)}",
                start=3,
                end=60,
                utterance_id=utterance(turn, "r"),
            )
        ],
        recorded_at=_timestamp(turn),
        created_turn=turn,
    )


@dataclass
class LongSession:
    """A session of `turns` completed turns, growing by `nodes_per_turn` nodes a turn."""

    turns: int = 200
    nodes_per_turn: int = 3
    edges_per_turn: int = 2
    mentions: dict[int, list[int]] = field(default_factory=dict)

    def node_count(self, turn: int) -> int:
        """Nodes in the graph after `turn`."""
        return turn * self.nodes_per_turn

    def created(self, turn: int) -> range:
        """Indexes of the nodes created in `turn`."""
        return range((turn - 1) * self.nodes_per_turn, turn * self.nodes_per_turn)

    def mentioned(self, turn: int) -> list[int]:
        """Indexes of earlier nodes mentioned again in `turn` (two, cycling through the oldest)."""
        before = (turn - 1) * self.nodes_per_turn
        return sorted({(turn * 7) % before, (turn * 13) % before}) if before else []

    def focus(self, turn: int) -> int:
        """Index of the focus node selected in `turn`."""
        return (turn * 5) % self.node_count(turn)

    def strategy(self, turn: int) -> str:
        """The strategy selected in `turn`."""
        return STRATEGIES[turn % len(STRATEGIES)]

    def edges(self, turn: int) -> list[tuple[int, int, int]]:
        """(edge index, source, target) of the edges created in `turn`."""
        nodes = list(self.created(turn))
        out = []
        for k in range(self.edges_per_turn):
            j = (turn - 1) * self.edges_per_turn + k
            source = nodes[k % len(nodes)]
            # An earlier node (turn 1 links its own nodes).
            target = nodes[(k + 1) % len(nodes)] if turn == 1 else (source // 2 + k) % source
            out.append((j, source, target))
        return out

    def build(self) -> tuple[pb.GetSessionResponse, pb.GetSessionGraphResponse, list[pb.TurnResult]]:
        """(session, graph, turn results) as the exporter receives them."""
        self.mentions = {}
        results = [self.turn_result(t) for t in range(1, self.turns + 1)]
        return self.session(results), self.graph(), results

    def turn_result(self, turn: int) -> pb.TurnResult:
        """The TurnResult of `turn`, every observability field filled as the pipeline does."""
        for i in self.mentioned(turn):
            self.mentions.setdefault(i, []).append(turn)
        count = self.node_count(turn)
        focus = self.focus(turn)
        strategy = self.strategy(turn)
        result = pb.TurnResult(
            session_id=SESSION,
            turn_number=turn,
            extracted=pb.ExtractionSummary(
                concepts=[
                    c.ExtractedConcept(
                        label=label(i),
                        node_type=NODE_TYPES[i % len(NODE_TYPES)],
                        confidence=0.75,
                        stance=1,
                        quote=_quote(i, turn),
                        source_utterance_id=utterance(turn, "r"),
                        properties={"cue": "phrase:benefit", "extractor": "llm"},
                    )
                    for i in [*self.created(turn), *self.mentioned(turn)]
                ],
                relationships=[
                    c.ExtractedRelationship(
                        source_label=label(s),
                        target_label=label(t),
                        edge_type="leads_to",
                        confidence=0.6,
                        quote=_quote(s, turn),
                        source_utterance_id=utterance(turn, "r"),
                    )
                    for _, s, t in self.edges(turn)
                ],
            ),
            nodes_added=[_node(i, turn, []) for i in self.created(turn)],
            nodes_mentioned=[
                _node(i, 1 + i // self.nodes_per_turn, self.mentions[i]) for i in self.mentioned(turn)
            ],
            edges_added=[_edge(j, s, t, turn) for j, s, t in self.edges(turn)],
            graph_state=c.GraphState(
                session_id=SESSION,
                node_count=count,
                edge_count=turn * self.edges_per_turn,
                nodes_by_type={t: count // len(NODE_TYPES) for t in NODE_TYPES},
                edges_by_type={"leads_to": turn * self.edges_per_turn},
                orphan_count=count // 10,
                depth=c.DepthMetrics(
                    max_depth=5,
                    max_depth_normalized=1.0,
                    avg_depth=2.0,
                    longest_chain_path=[node_id(i) for i in range(5)],
                    longest_chain_labels=[label(i) for i in range(5)],
                    longest_chain_node_types=[NODE_TYPES[i % len(NODE_TYPES)] for i in range(5)],
                ),
                chain_completion=c.ChainCompletion(
                    ratio=0.058823529411764705, has_complete=True, complete_chain_count=1
                ),
                node_degrees=[
                    c.NodeDegree(node_id=node_id(i), in_degree=i % 3, out_degree=i % 2) for i in range(count)
                ],
            ),
            canonical_graph=c.CanonicalGraphState(
                concept_count=count // 3, candidate_count=count - count // 3, edge_count=turn * 3
            ),
            graph_comparison=c.GraphComparison(
                surface_node_count=count,
                surface_edge_count=turn * self.edges_per_turn,
                canonical_concept_count=count // 3,
                canonical_edge_count=turn * 3,
                compression_ratio=3.0,
            ),
            saturation=pb.SaturationMetrics(consecutive_low_info=0, prev_max_depth=5, new_info=7),
            signals={name: c.SignalValue(double_value=0.058823529411764705) for name in GLOBAL_SIGNALS},
            node_signals=[
                c.NodeSignals(
                    node_id=node_id(i),
                    signals={
                        name: c.SignalValue(double_value=0.22000000000000003 + i / 1000)
                        for name in NODE_SIGNALS
                    },
                )
                for i in range(count)
            ],
            strategy_selected=strategy,
            focus_node_id=node_id(focus),
            focus_label=label(focus),
            strategy_alternatives=[
                c.StrategyAlternative(
                    strategy=self._candidate(turn, rank)[0],
                    node_id=node_id(self._candidate(turn, rank)[1]),
                    score=self._score(rank),
                    rank=rank,
                )
                for rank in range(1, ALTERNATIVES + 1)
            ],
            score_decomposition=[self._scored(turn, rank) for rank in range(1, CANDIDATES + 1)],
            rubric=scoring_pb2.RubricResult(
                scores=[
                    c.RubricScore(name=name, score=3, rationale=f"offline lexical: 2 idea unit(s) for {name}")
                    for name in RUBRIC
                ],
                usage=c.LlmUsage(client="scoring", provider="anthropic", model="claude", input_tokens=900),
            ),
            next_question=question_text(turn),
            should_continue=turn < self.turns,
            termination_reason=(
                c.TERMINATION_REASON_MAX_TURNS if turn == self.turns else c.TERMINATION_REASON_UNSPECIFIED
            ),
            intent=c.RESPONDENT_INTENT_ANSWER,
            phase=c.INTERVIEW_PHASE_MID,
            latency_ms=2400,
            stage_timings=[
                pb.StageTiming(stage=s, status=pb.STAGE_STATUS_COMPLETED, duration_ms=40) for s in STAGES
            ],
            usage=pb.UsageSummary(
                total=c.LlmUsage(client="total", input_tokens=5200, output_tokens=700, cost_usd=0.02),
                by_client=[
                    c.LlmUsage(client=n, provider="anthropic", model="claude-sonnet-4-6", input_tokens=1700)
                    for n in ("extraction", "generation", "scoring")
                ],
            ),
        )
        return result

    def _candidate(self, turn: int, rank: int) -> tuple[str, int]:
        """(strategy, node index) of the candidate ranked `rank` in `turn` (rank 1 is selected)."""
        if rank == 1:
            return self.strategy(turn), self.focus(turn)
        return STRATEGIES[(turn + rank) % len(STRATEGIES)], (turn * 11 + rank) % self.node_count(turn)

    @staticmethod
    def _score(rank: int) -> float:
        return round(1.62 - rank * 0.01, 4)

    def _scored(self, turn: int, rank: int) -> c.ScoredCandidate:
        strategy, i = self._candidate(turn, rank)
        return c.ScoredCandidate(
            strategy=strategy,
            node_id=node_id(i),
            node_label=label(i),
            contributions=[
                c.SignalContribution(
                    weight_key=key,
                    signal_name=name,
                    raw_value=value if value is not None else c.SignalValue(double_value=0.08),
                    weight=0.3,
                    contribution=0.3,
                    node_scoped=scoped,
                )
                for key, name, value, scoped in CONTRIBUTIONS
            ],
            base_score=1.1,
            phase_multiplier=1.2,
            phase_bonus=0.3,
            final_score=self._score(rank),
            rank=rank,
            selected=rank == 1,
        )

    def session(self, results: list[pb.TurnResult]) -> pb.GetSessionResponse:
        """The GetSession reply: the session and its transcript (opening, then answer + question)."""
        transcript = [
            pb.Utterance(
                utterance_id=utterance(0, "i"),
                speaker=c.SPEAKER_INTERVIEWER,
                text=question_text(0),
                create_time=_timestamp(0),
            )
        ]
        for t in range(1, self.turns + 1):
            transcript += [
                pb.Utterance(
                    utterance_id=utterance(t, "r"),
                    turn_number=t,
                    speaker=c.SPEAKER_RESPONDENT,
                    text=answer_text(t),
                    create_time=_timestamp(t),
                ),
                pb.Utterance(
                    utterance_id=utterance(t, "i"),
                    turn_number=t,
                    speaker=c.SPEAKER_INTERVIEWER,
                    text=question_text(t),
                    create_time=_timestamp(t),
                ),
            ]
        return pb.GetSessionResponse(
            session=pb.Session(
                session_id=SESSION,
                concept_id="headphones_mec",
                concept_name="Wireless Headphones Means-End Chain",
                methodology="means_end_chain",
                status=pb.SESSION_STATUS_COMPLETED,
                max_turns=self.turns,
                turn_count=self.turns,
                phase=c.INTERVIEW_PHASE_LATE,
                termination_reason=c.TERMINATION_REASON_MAX_TURNS,
                current_question=question_text(self.turns),
                focus_history=[
                    pb.FocusEntry(
                        turn=r.turn_number,
                        node_id=r.focus_node_id,
                        label=r.focus_label,
                        strategy=r.strategy_selected,
                    )
                    for r in results
                ],
                strategy_history=[r.strategy_selected for r in results][-30:],
                usage=pb.UsageSummary(total=c.LlmUsage(client="total", input_tokens=5200 * self.turns)),
                create_time=_timestamp(0),
            ),
            transcript=transcript,
        )

    def graph(self) -> pb.GetSessionGraphResponse:
        """The GetSessionGraph reply after the last turn (surface and canonical)."""
        count = self.node_count(self.turns)
        nodes = [_node(i, 1 + i // self.nodes_per_turn, self.mentions.get(i, [])) for i in range(count)]
        edges = [_edge(j, s, t, turn) for turn in range(1, self.turns + 1) for j, s, t in self.edges(turn)]
        return pb.GetSessionGraphResponse(
            nodes=nodes,
            edges=edges,
            graph_state=self.turn_result_state(count, len(edges)),
            slots=[
                slots_pb2.Slot(
                    id=slot_id(i),
                    session_id=SESSION,
                    slot_name=label(i).replace(" ", "_"),
                    description=label(i),
                    node_type=NODE_TYPES[i % len(NODE_TYPES)],
                    status=slots_pb2.SLOT_STATUS_CANDIDATE,
                    support_count=1,
                    first_seen_turn=1 + i // self.nodes_per_turn,
                )
                for i in range(count)
            ],
            mappings=[
                slots_pb2.SlotMapping(
                    surface_node_id=node_id(i), slot_id=slot_id(i), similarity=1.0, assigned_turn=1
                )
                for i in range(count)
            ],
            canonical_edges=[
                slots_pb2.CanonicalEdge(
                    id=edge_id(e.created_turn * 1000 + k),
                    source_slot_id=e.source_node_id,
                    target_slot_id=e.target_node_id,
                    edge_type=e.edge_type,
                    support_count=1,
                    surface_edge_ids=[e.id],
                )
                for k, e in enumerate(edges)
            ],
            canonical_state=c.CanonicalGraphState(concept_count=count // 3, edge_count=len(edges)),
            comparison=c.GraphComparison(surface_node_count=count, surface_edge_count=len(edges)),
        )

    def turn_result_state(self, nodes: int, edges: int) -> c.GraphState:
        """The final surface graph state (with a degree per node, as the graph store sends it)."""
        return c.GraphState(
            session_id=SESSION,
            node_count=nodes,
            edge_count=edges,
            nodes_by_type={t: nodes // len(NODE_TYPES) for t in NODE_TYPES},
            node_degrees=[c.NodeDegree(node_id=node_id(i), in_degree=1, out_degree=1) for i in range(nodes)],
        )
