"""Interview-quality metrics of one simulated run.

* Ground-truth recall (`recall`): hidden elements recovered as graph nodes (see `matching` for the
  thresholds), also counted only when the node type agrees; hidden links recovered as a graph
  edge between nodes matched to its two ends (either direction; `typed` when type and direction
  agree); hidden chains completed (one walk through the graph: a node for every element, each
  joined to the next by an edge wherever the chain has a link) and connected (first and last
  element joined by some path in the graph), also over canonical slots (the same walk with each
  node read as its slot), and where each chain's walk stopped and why (`simulation.chains`). Recall
  is reported against everything hidden and against what the respondent actually revealed, which
  separates the interviewer's coverage from the extractor's accuracy.
* Questions (`questions`): exact repeats (same words, case and punctuation ignored) and near
  repeats (content-lemma Jaccard ≥ 0.8, or embedding cosine ≥ 0.92 with an embedder) of an
  earlier question, rewordings the respondent asked for ("what do you mean?") counted apart;
  form: exactly one "?", ends with "?", length in words.
* Strategy and focus timeline, termination reason, turns, tokens and cost.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from simulation.chains import links_along, outcome, walks
from simulation.matching import ElementMatcher, Match
from simulation.records import (
    GraphSnapshot,
    QuestionMetrics,
    RecallMetrics,
    RunMetrics,
    RunRecord,
    TurnRecord,
)
from simulation.scenarios import Scenario
from simulation.text import Lemmatizer, jaccard, normalise_question

if TYPE_CHECKING:
    from shared.embeddings import Embedder

NEAR_JACCARD = 0.8
NEAR_COSINE = 0.92


def _ratio(a: int, b: int) -> float:
    return a / b if b else 0.0


def _connected(graph: GraphSnapshot, starts: set[str], ends: set[str]) -> bool:
    """Whether some node of `starts` reaches some node of `ends` (edges read both ways)."""
    adj: dict[str, set[str]] = defaultdict(set)
    for e in graph.edges:
        adj[e.source].add(e.target)
        adj[e.target].add(e.source)
    seen, stack = set(starts), list(starts)
    while stack:
        node = stack.pop()
        if node in ends:
            return True
        for nxt in adj[node] - seen:
            seen.add(nxt)
            stack.append(nxt)
    return False


def _canonical_chains(
    scenario: Scenario,
    graph: GraphSnapshot,
    nodes_of: dict[str, set[str]],
    pairs: dict[tuple[str, str], str],
) -> list[bool] | None:
    """Per chain, whether it completes when every node is read as its canonical slot (None without
    slots).

    The surface walk fails where one element was told twice in other words ("nurse rang me to plan
    the discharge", "discharge nurse phoned me") and each node holds one of its links; the canonical
    slots are there to join such paraphrases, and this count says whether they did. A link still
    needs a surface edge between nodes of the two slots."""
    if not graph.slot_of:
        return None

    def slot(node_id: str) -> str:
        return graph.slot_of.get(node_id, node_id)

    slots_of = {element: {slot(n) for n in nodes} for element, nodes in nodes_of.items()}
    slot_pairs = {(slot(a), slot(b)): edge_type for (a, b), edge_type in pairs.items()}
    return [
        walks(chain.elements, links_along(scenario, chain), slots_of, slot_pairs) for chain in scenario.chains
    ]


def recall_metrics(
    scenario: Scenario,
    graph: GraphSnapshot,
    matcher: ElementMatcher,
    revealed_elements: set[str],
    revealed_links: set[str],
) -> RecallMetrics:
    """Recall of `scenario`'s hidden knowledge in `graph`."""
    matches: list[Match] = matcher.assign([(n.id, n.label, n.node_type) for n in graph.nodes])
    nodes_of: dict[str, set[str]] = defaultdict(set)
    typed: set[str] = set()
    for m in matches:
        nodes_of[m.element_id].add(m.node_id)
        if m.node_type == scenario.element(m.element_id).node_type:
            typed.add(m.element_id)
    recovered = set(nodes_of)
    pairs = {(e.source, e.target): e.edge_type for e in graph.edges}
    links_rec, links_typed = set(), set()
    for link in scenario.links:
        src, dst = nodes_of.get(link.source, set()), nodes_of.get(link.target, set())
        forward = [(a, b) for a in src for b in dst if (a, b) in pairs]
        if forward or any((b, a) in pairs for a in src for b in dst):
            links_rec.add(link.id)
        if any(pairs[p] == link.edge_type for p in forward):
            links_typed.add(link.id)
    completed = connected = 0
    progress = []
    canonical = _canonical_chains(scenario, graph, nodes_of, pairs)
    labels = {n.id: (n.label, n.node_type) for n in graph.nodes}
    outcomes = []
    for i, chain in enumerate(scenario.chains):
        progress.append(sum(1 for e in chain.elements if e in recovered) / len(chain.elements))
        result = outcome(scenario, chain, nodes_of, pairs, labels, revealed_elements, revealed_links)
        if canonical is not None:
            result.completed_canonical = canonical[i]
        outcomes.append(result)
        walked = result.completed
        completed += int(walked)
        first, last = nodes_of.get(chain.elements[0], set()), nodes_of.get(chain.elements[-1], set())
        # A completed chain connects its ends by definition, also one without hidden links (a
        # repertory grid's set of elements), whose ends no edge joins.
        if walked or (first and last and (first & last or _connected(graph, first, last))):
            connected += 1
    canonical_count = None if canonical is None else sum(canonical)
    total, n_links = len(scenario.elements), len(scenario.links)
    return RecallMetrics(
        elements_total=total,
        elements_revealed=len(revealed_elements),
        elements_recovered=len(recovered),
        elements_recovered_typed=len(typed),
        element_recall=_ratio(len(recovered), total),
        element_recall_typed=_ratio(len(typed), total),
        revealed_share=_ratio(len(revealed_elements), total),
        recall_of_revealed=_ratio(len(recovered & revealed_elements), len(revealed_elements)),
        links_total=n_links,
        links_revealed=len(revealed_links),
        links_recovered=len(links_rec),
        links_recovered_typed=len(links_typed),
        link_recall=_ratio(len(links_rec), n_links),
        link_recall_of_revealed=_ratio(len(links_rec & revealed_links), len(revealed_links)),
        chains_total=len(scenario.chains),
        chains_completed=completed,
        chains_connected=connected,
        chain_completion=_ratio(completed, len(scenario.chains)),
        chains_completed_canonical=canonical_count,
        chain_completion_canonical=None
        if canonical_count is None
        else _ratio(canonical_count, len(scenario.chains)),
        chains=outcomes,
        mean_chain_progress=statistics.fmean(progress) if progress else 0.0,
        nodes_total=len(graph.nodes),
        nodes_matched=len(matches),
        node_precision=_ratio(len(matches), len(graph.nodes)),
        recovered=sorted(recovered),
        matches=[
            {
                "node_id": m.node_id,
                "node": m.label,
                "node_type": m.node_type,
                "element": m.element_id,
                "score": round(m.score, 3),
                "method": m.method,
            }
            for m in matches
        ],
    )


def reworded_questions(record: RunRecord) -> frozenset[int]:
    """Indices (into `record.questions`) of the questions that answer a clarification request: the
    question after a turn whose answer asked what the question meant."""
    return frozenset(i + 1 for i, turn in enumerate(record.turns) if turn.intent == "clarification_request")


def question_metrics(
    questions: Sequence[str],
    lemmatizer: Lemmatizer,
    embedder: Embedder | None = None,
    reworded: frozenset[int] = frozenset(),
) -> QuestionMetrics:
    """Repetition and form of `questions` (in the order asked).

    `reworded`: indices of questions asked again in other words because the respondent asked what
    the one before meant. The respondent asked for them, so they are counted apart (`rewordings`),
    not as repeats, and the repeat rates are over the other questions after the first."""
    keys = [normalise_question(q) for q in questions]
    lemmas = [lemmatizer.content(q) for q in questions]
    vectors = embedder.encode(list(questions)) if embedder is not None and questions else None
    exact = near = 0
    rewordings = sum(1 for i in reworded if 0 < i < len(questions))
    for i in range(1, len(questions)):
        if i in reworded:
            continue
        if keys[i] in keys[:i]:
            exact += 1
            near += 1
            continue
        close = any(jaccard(lemmas[i], lemmas[j]) >= NEAR_JACCARD for j in range(i))
        if not close and vectors is not None:
            close = bool((vectors[:i] @ vectors[i]).max() >= NEAR_COSINE)
        near += int(close)
    words = [len(q.split()) for q in questions]
    n = len(questions)
    later = QuestionMetrics.compared_count(n, rewordings)
    return QuestionMetrics(
        count=n,
        exact_repeats=exact,
        near_repeats=near,
        rewordings=rewordings,
        repeated_rate_exact=_ratio(exact, later),
        repeated_rate_near=_ratio(near, later),
        single_question_share=_ratio(sum(1 for q in questions if q.count("?") == 1), n),
        ends_with_question_mark_share=_ratio(sum(1 for q in questions if q.rstrip().endswith("?")), n),
        words_mean=statistics.fmean(words) if words else 0.0,
        words_median=float(statistics.median(words)) if words else 0.0,
        words_max=max(words, default=0),
    )


def asked_after_nothing_left(turns: Sequence[TurnRecord]) -> int | None:
    """How many questions asked for a kind of thing (another incident, another thread) that the
    respondent had already said it had nothing left of, and got nothing new: "think of another
    time …" asked again after "nothing else comes to mind". A researcher reads such a question as an
    interviewer that did not listen. One that still brings something out (asked for a time that went
    the other way, the person sets two told incidents against each other) is not counted. None when
    the respondent does not say what it had left (the LLM engine)."""
    if all(t.nothing_left is None for t in turns):
        return None
    spent: set[str] = set()
    count = 0
    for t in turns:
        if t.respondent_kind in spent and not (t.revealed_elements or t.revealed_links):
            count += 1
        if t.nothing_left:
            spent.add(t.respondent_kind)
    return count


def asked_strategies(record: RunRecord) -> list[tuple[int, TurnRecord]]:
    """(turn of a question, the turn record whose strategy chose it), for every question after the
    opening one that the respondent was asked in this record.

    The strategy a turn's result selects asks the *next* question: the transcript's question n
    comes from turn n − 1's strategy and focus, and the strategy selected after the last answer
    asks nothing (the interview ended, or the run stopped there). Timelines and counts keyed by the
    question keep the plots in step with the transcript table."""
    last = record.turns[-1].turn if record.turns else 0
    return [(t.turn + 1, t) for t in record.turns if t.strategy and t.turn < last]


def compute(
    record: RunRecord, scenario: Scenario, lemmatizer: Lemmatizer, embedder: Embedder | None = None
) -> RunMetrics:
    """All metrics of `record` (whose scenario is `scenario`)."""
    matcher = ElementMatcher(scenario, lemmatizer, embedder)
    recall = recall_metrics(
        scenario, record.graph, matcher, set(record.revealed_elements), set(record.revealed_links)
    )
    interviewer = record.session.usage
    respondent = record.respondent_usage
    behaviours: Counter[str] = Counter(b for t in record.turns for b in t.behaviours)
    asked = asked_strategies(record)
    return RunMetrics(
        recall=recall,
        questions=question_metrics(
            record.questions, lemmatizer, embedder, reworded_questions(record)
        ).model_copy(update={"asked_after_nothing_left": asked_after_nothing_left(record.turns)}),
        turns=len(record.turns),
        termination_reason=record.session.termination_reason
        or (record.turns[-1].termination_reason if record.turns else ""),
        graph_nodes=len(record.graph.nodes),
        graph_edges=len(record.graph.edges),
        graph_max_depth=record.graph.max_depth,
        graph_chain_completion_ratio=record.graph.chain_completion_ratio,
        graph_has_complete_chain=record.graph.has_complete_chain,
        graph_complete_chain_count=record.graph.complete_chain_count,
        strategy_counts=dict(Counter(t.strategy for _, t in asked)),
        timeline=[
            {"turn": turn, "strategy": t.strategy, "focus": t.focus_label, "phase": t.phase}
            for turn, t in asked
        ],
        question_kinds=dict(Counter(t.respondent_kind for t in record.turns if t.respondent_kind)),
        behaviours=dict(behaviours),
        interviewer_tokens=interviewer.input_tokens + interviewer.output_tokens,
        interviewer_cost_usd=interviewer.cost_usd,
        interviewer_calls=interviewer.calls,
        respondent_tokens=respondent.input_tokens + respondent.output_tokens,
        respondent_cost_usd=respondent.cost_usd,
    )
