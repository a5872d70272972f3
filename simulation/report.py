"""Per-run JSON record + Markdown report, and the matrix `index.md`."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

from simulation.records import ChainBreakReason, ChainOutcome, RunMeta, RunMetrics, RunRecord

RECORD_FILE = "record.json"
REPORT_FILE = "report.md"


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _mean(values: list[float] | list[int]) -> float:
    return statistics.fmean(values) if values else 0.0


def _slots_mean(ms: list[RunMetrics]) -> str:
    """Mean chain completion over canonical slots, of the runs that had slots ("–" when none did)."""
    values = [
        x.recall.chain_completion_canonical for x in ms if x.recall.chain_completion_canonical is not None
    ]
    return _pct(_mean(values)) if values else "–"


def _after_nothing_left(ms: list[RunMetrics]) -> str:
    """Mean questions per run asked again after 'nothing left', of the runs that know ("–" when none)."""
    values = [x.questions.asked_after_nothing_left for x in ms]
    known = [v for v in values if v is not None]
    return f"{_mean(known):.2f}" if known else "–"


def _cell(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _said(revealed: list[str], mentioned: list[str]) -> str:
    """The transcript's "revealed" cell: elements named only in passing are marked as such."""
    items = [*revealed, *(f"{e} (in passing)" for e in mentioned)]
    return ", ".join(items) or "—"


def write_record(record: RunRecord, directory: Path) -> Path:
    """`record.json` in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / RECORD_FILE
    path.write_text(record.model_dump_json(indent=2), encoding="utf-8")
    return path


def _outcome_rows(record: RunRecord, m: RunMetrics) -> list[tuple[str, str]]:
    r, q = m.recall, m.questions
    return [
        ("turns (max)", f"{m.turns} ({record.meta.max_turns})"),
        ("termination reason", m.termination_reason or "n/a"),
        (
            "ground-truth element recall",
            f"{_pct(r.element_recall)} ({r.elements_recovered}/{r.elements_total}; "
            f"type agrees: {_pct(r.element_recall_typed)})",
        ),
        (
            "revealed by the respondent",
            f"{_pct(r.revealed_share)} ({r.elements_revealed}/{r.elements_total}); "
            f"recovered of revealed: {_pct(r.recall_of_revealed)}",
        ),
        (
            "hidden link recall",
            f"{_pct(r.link_recall)} ({r.links_recovered}/{r.links_total}; typed {r.links_recovered_typed}); "
            f"of revealed: {_pct(r.link_recall_of_revealed)}",
        ),
        (
            "hidden chains completed / connected",
            f"{r.chains_completed}/{r.chains_total} / {r.chains_connected}/{r.chains_total} "
            f"(mean progress {_pct(r.mean_chain_progress)})"
            + (
                f"; completed over canonical slots {r.chains_completed_canonical}/{r.chains_total}"
                if r.chains_completed_canonical is not None
                else ""
            ),
        ),
        (
            "graph nodes matching ground truth",
            f"{r.nodes_matched}/{r.nodes_total} ({_pct(r.node_precision)})",
        ),
        (
            "graph",
            f"{m.graph_nodes} nodes, {m.graph_edges} edges, max depth {m.graph_max_depth}, chain completion "
            f"{m.graph_chain_completion_ratio:.2f} ({m.graph_complete_chain_count} complete)",
        ),
        (
            "repeated questions (exact / near)",
            f"{q.exact_repeats} / {q.near_repeats} of the {q.compared} questions "
            f"after the first ({_pct(q.repeated_rate_exact)} / {_pct(q.repeated_rate_near)})"
            + (f"; {q.rewordings} reworded on request, not counted" if q.rewordings else ""),
        ),
        (
            "asked again after 'nothing left'",
            "not known (the respondent does not tell)"
            if q.asked_after_nothing_left is None
            else f"{q.asked_after_nothing_left} of {q.count} questions asked for more of what the "
            "respondent had already said it had nothing left of, and got nothing new",
        ),
        (
            "question form",
            f"one question: {_pct(q.single_question_share)}, "
            f"ends with '?': {_pct(q.ends_with_question_mark_share)}, "
            f"words mean {q.words_mean:.1f} / median {q.words_median:.0f} / max {q.words_max}",
        ),
        (
            "interviewer LLM",
            f"{m.interviewer_calls} calls, {m.interviewer_tokens} tokens, ${m.interviewer_cost_usd:.4f}",
        ),
        ("respondent LLM", f"{m.respondent_tokens} tokens, ${m.respondent_cost_usd:.4f}"),
    ]


# How each reason a chain stopped reads in the reports.
CHAIN_REASONS: dict[ChainBreakReason, str] = {
    "not_revealed": "element never said",
    "not_recovered": "element said, not in the graph",
    "split": "element held by two nodes",
    "link_not_revealed": "link never said",
    "link_not_recovered": "link said, not in the graph",
}


def _chain_rows(chains: list[ChainOutcome]) -> list[str]:
    """The report's table of hidden chains: completed, or where the walk stopped and why."""
    if not chains:
        return []
    rows = [
        "## Hidden chains",
        "",
        "Each chain walked through the graph (see `simulation/chains.py`): where a walk stopped, the "
        "element it had reached, the one it could not reach, and why.",
        "",
        "| chain | kind | completed | over slots | stopped | why |",
        "|---|---|---|---|---|---|",
    ]
    for c in chains:
        slots = "–" if c.completed_canonical is None else ("yes" if c.completed_canonical else "no")
        stopped = "" if c.completed else f"{c.reached or '(start)'} → {c.stopped_at}"
        why = "" if c.reason is None else CHAIN_REASONS[c.reason]
        if c.nodes:
            why += ": " + "; ".join(c.nodes)
        rows.append(
            f"| {c.chain_id} | {c.kind} | {'yes' if c.completed else 'no'} | {slots} | {stopped} | "
            f"{_cell(why, 240)} |"
        )
    return [*rows, ""]


def _provenance(meta: RunMeta) -> str:
    if not meta.reproducible:
        return (
            "The target already held this spec's session (an earlier run on the same store), so this run "
            "had a fresh session id: rerun on a fresh store to repeat the reproducible one."
        )
    if meta.engine != "offline":
        return "The session id derives from the run spec; the LLM respondent's words do not repeat."
    return (
        "The session id derives from the run spec: with the offline interviewer, the same spec on a fresh "
        "store repeats this interview word for word."
    )


def markdown(record: RunRecord) -> str:
    """The Markdown report of one run (metrics must be computed)."""
    m: RunMetrics | None = record.metrics
    if m is None:
        raise ValueError("compute the metrics before writing the report")
    meta, r = record.meta, m.recall
    lines = [
        f"# Simulated interview: {meta.scenario_id} × {meta.persona}",
        "",
        f"Concept `{meta.concept_id}` ({meta.methodology}), engine `{meta.engine}`, seed {meta.seed}, "
        f"session `{record.session.session_id}`, target `{meta.target}`.",
        "",
        _provenance(meta),
        "",
        "## Outcome",
        "",
        "| metric | value |",
        "|---|---|",
        *(f"| {name} | {value} |" for name, value in _outcome_rows(record, m)),
        "",
        "Strategies: "
        + (
            ", ".join(f"{k} {v}" for k, v in sorted(m.strategy_counts.items(), key=lambda kv: -kv[1]))
            or "none"
        ),
        "",
        "Persona behaviours: " + (", ".join(f"{k} {v}" for k, v in sorted(m.behaviours.items())) or "none"),
        "",
        *_chain_rows(r.chains),
        "## Plots",
        "",
        "![graph growth](graph_growth.png)",
        "![strategy timeline](strategy_timeline.png)",
        "![signals](signals.png)",
        "![final graph](final_graph.png)",
        "",
        "## Transcript",
        "",
        "| turn | strategy | focus | question | answer | revealed |",
        "|---|---|---|---|---|---|",
    ]
    previous = {t.turn: t for t in record.turns}
    for t in record.turns:
        asked_by = previous.get(t.turn - 1)
        strategy = asked_by.strategy if asked_by else "opening"
        focus = asked_by.focus_label if asked_by else ""
        lines.append(
            f"| {t.turn} | {strategy} | {_cell(focus, 40)} | {_cell(t.question)} | {_cell(t.answer, 220)} | "
            f"{_said(t.revealed_elements, t.mentioned_elements)} |"
        )
    lines += [
        "",
        f"Closing: {_cell(record.closing_message, 400)}",
        "",
        "## Ground-truth matches",
        "",
        "| graph node | type | hidden element | score | via |",
        "|---|---|---|---|---|",
    ]
    for match in r.matches:
        lines.append(
            f"| {_cell(str(match['node']), 60)} | {match['node_type']} | {match['element']} | "
            f"{match['score']} | {match['method']} |"
        )
    return "\n".join(lines) + "\n"


def write_report(record: RunRecord, directory: Path) -> Path:
    """`report.md` in `directory`."""
    path = directory / REPORT_FILE
    path.write_text(markdown(record), encoding="utf-8")
    return path


def index_markdown(records: Sequence[tuple[str, RunRecord]], title: str = "Simulation matrix") -> str:
    """`index.md` of a matrix: one row per run plus means per persona and per concept."""
    lines = [
        f"# {title}",
        "",
        f"{len(records)} runs.",
        "",
        "| run | concept | persona | scenario | turns | end | elem recall | link recall | chains done | "
        "revealed | repeat (near) | one '?' | cost $ |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    by_persona: dict[str, list[RunMetrics]] = defaultdict(list)
    by_concept: dict[str, list[RunMetrics]] = defaultdict(list)
    for rel, rec in records:
        m = rec.metrics
        if m is None:
            continue
        by_persona[rec.meta.persona].append(m)
        by_concept[rec.meta.concept_id].append(m)
        r, q = m.recall, m.questions
        cost = m.interviewer_cost_usd + m.respondent_cost_usd
        cells = [
            f"[{rec.meta.run_id}]({rel})",
            rec.meta.concept_id,
            rec.meta.persona,
            rec.meta.scenario_id,
            str(m.turns),
            m.termination_reason,
            _pct(r.element_recall),
            _pct(r.link_recall),
            f"{r.chains_completed}/{r.chains_total}",
            _pct(r.revealed_share),
            _pct(q.repeated_rate_near),
            _pct(q.single_question_share),
            f"{cost:.4f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    for heading, groups in (("persona", by_persona), ("concept", by_concept)):
        lines += [
            "",
            f"## Means per {heading}",
            "",
            f"| {heading} | runs | turns | elem recall | link recall | chain completion | over slots | "
            "revealed | repeat (near) | asked again after 'nothing left' |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for key in sorted(groups):
            ms = groups[key]
            cells = [
                key,
                str(len(ms)),
                f"{_mean([x.turns for x in ms]):.1f}",
                _pct(_mean([x.recall.element_recall for x in ms])),
                _pct(_mean([x.recall.link_recall for x in ms])),
                _pct(_mean([x.recall.chain_completion for x in ms])),
                _slots_mean(ms),
                _pct(_mean([x.recall.revealed_share for x in ms])),
                _pct(_mean([x.questions.repeated_rate_near for x in ms])),
                _after_nothing_left(ms),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    lines += _stops_by_concept(by_concept)
    return "\n".join(lines) + "\n"


def _stops_by_concept(by_concept: dict[str, list[RunMetrics]]) -> list[str]:
    """Per concept, how many hidden chains completed and why the others stopped."""
    counts: dict[str, Counter[str]] = {
        concept: Counter(c.reason or "completed" for m in ms for c in m.recall.chains)
        for concept, ms in by_concept.items()
    }
    if not any(counts.values()):
        return []  # records written before chains were diagnosed
    columns: list[tuple[str, str]] = [("completed", "completed"), *CHAIN_REASONS.items()]
    lines = [
        "",
        "## Where the chains stopped, per concept",
        "",
        "Hidden chains of all runs: completed, or why the walk through the graph stopped first.",
        "",
        "| concept | chains | " + " | ".join(title for _, title in columns) + " |",
        "|---|---:|" + "---:|" * len(columns),
    ]
    for concept in sorted(counts):
        c = counts[concept]
        lines.append(
            f"| {concept} | {sum(c.values())} | " + " | ".join(str(c[key]) for key, _ in columns) + " |"
        )
    return lines
