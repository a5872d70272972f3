"""PNG plots of one run, drawn with matplotlib's Agg canvas (no pyplot, no display, no global state).

* `graph_growth.png` — nodes, edges and hidden elements revealed, per turn;
* `strategy_timeline.png` — the strategy that chose each question, with the focus label;
* `signals.png` — a few numeric signals per turn (from TurnResult.signals);
* `final_graph.png` — the final surface graph in layers by ontology level, node types coloured,
  nodes matched to hidden elements outlined.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from simulation.metrics import asked_strategies
from simulation.records import RunRecord

PREFERRED_SIGNALS = (
    "graph.max_depth",
    "graph.chain_completion.ratio",
    "meta.conversation.saturation",
    "meta.interview_progress",
    "temporal.strategy_repetition_count",
    "temporal.turns_since_strategy_change",
    "llm.specificity",
    "llm.engagement",
)
_DEPTH_SCALE = {"surface": 0.0, "shallow": 1 / 3, "moderate": 2 / 3, "deep": 1.0}


def _save(fig: Figure, path: Path) -> Path:
    FigureCanvasAgg(fig)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    return path


def revealed_per_turn(record: RunRecord) -> list[int]:
    """Hidden elements out after each turn: revealed by the story or named in passing."""
    out, running = [], 0
    for t in record.turns:
        running += len(t.revealed_elements) + len(t.mentioned_elements)
        out.append(running)
    return out


def graph_growth(record: RunRecord, path: Path, elements_total: int) -> Path:
    """Nodes, edges and revealed hidden elements after each turn."""
    turns = [t.turn for t in record.turns]
    revealed = revealed_per_turn(record)
    fig = Figure(figsize=(8, 4.5))
    ax = fig.add_subplot()
    ax.plot(turns, [t.node_count for t in record.turns], marker="o", label="graph nodes")
    ax.plot(turns, [t.edge_count for t in record.turns], marker="s", label="graph edges")
    ax.plot(turns, revealed, marker="^", linestyle="--", label="hidden elements revealed")
    if elements_total:
        ax.axhline(elements_total, color="grey", linestyle=":", label=f"hidden elements ({elements_total})")
    ax.set_xlabel("turn")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("count")
    ax.set_title(f"Graph growth — {record.meta.scenario_id} / {record.meta.persona}")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    return _save(fig, path)


def strategy_timeline(record: RunRecord, path: Path) -> Path:
    """One marker per question on the row of the strategy that chose it, labelled with the focus
    (turn n's question comes from the strategy selected after answer n − 1, as in the report's
    transcript table)."""
    asked = asked_strategies(record)
    order: list[str] = []
    for _, t in asked:
        if t.strategy not in order:
            order.append(t.strategy)
    fig = Figure(figsize=(10, 1.2 + 0.45 * max(len(order), 1)))
    ax = fig.add_subplot()
    rows = {name: i for i, name in enumerate(order)}
    points = [(turn, rows[t.strategy], t.focus_label) for turn, t in asked]
    if points:
        ax.plot([p[0] for p in points], [p[1] for p in points], color="lightgrey", zorder=1)
        ax.scatter(
            [p[0] for p in points],
            [p[1] for p in points],
            s=60,
            zorder=2,
            c=[p[1] for p in points],
            cmap="tab10",
            vmin=0,
            vmax=9,
        )
        for x, y, label in points:
            if label:
                ax.annotate(
                    label[:18],
                    (x, y),
                    textcoords="offset points",
                    xytext=(0, 7),
                    fontsize=6,
                    ha="center",
                    rotation=20,
                )
    ax.set_yticks(range(len(order)), order)
    ax.set_xlabel("turn")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylim(-0.7, max(len(order) - 0.3, 0.7))
    ax.set_title("Strategy and focus per turn")
    ax.grid(axis="x", alpha=0.3)
    return _save(fig, path)


def numeric_signals(record: RunRecord, limit: int = 6) -> dict[str, list[tuple[int, float]]]:
    """Per-turn values of up to `limit` numeric signals (preferred ones first; booleans as 0/1)."""
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for t in record.turns:
        for name, value in t.signals.items():
            if isinstance(value, bool | int | float):
                series[name].append((t.turn, float(value)))
            elif name == "llm.response_depth" and value in _DEPTH_SCALE:
                series[name].append((t.turn, _DEPTH_SCALE[value]))
    chosen = [n for n in PREFERRED_SIGNALS if n in series]
    chosen += sorted(n for n in series if n not in chosen and not n.startswith("graph.node."))
    return {n: series[n] for n in chosen[:limit]}


def signal_trajectories(record: RunRecord, path: Path) -> Path:
    """Line per numeric signal across turns."""
    fig = Figure(figsize=(9, 4.5))
    ax = fig.add_subplot()
    series = numeric_signals(record)
    for name, points in series.items():
        ax.plot([p[0] for p in points], [p[1] for p in points], marker=".", label=name)
    if not series:
        ax.text(0.5, 0.5, "no numeric signals reported", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("turn")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("value")
    ax.set_title("Signal trajectories")
    if series:
        ax.legend(fontsize=7, loc="upper left")
    ax.grid(alpha=0.3)
    return _save(fig, path)


def final_graph(record: RunRecord, path: Path, matched: Iterable[str] = ()) -> Path:
    """Layered drawing: x = ontology level, nodes of a level stacked; colour = node type."""
    graph = record.graph
    matched_ids = set(matched)
    levels: dict[int, list[str]] = defaultdict(list)
    for n in graph.nodes:
        levels[n.level or 1].append(n.id)
    pos: dict[str, tuple[float, float]] = {}
    for level, ids in levels.items():
        for i, node_id in enumerate(ids):
            pos[node_id] = (float(level), (len(ids) - 1) / 2 - i)
    types = sorted({n.node_type for n in graph.nodes})
    colour = {t: f"C{i % 10}" for i, t in enumerate(types)}
    height = max((len(v) for v in levels.values()), default=1)
    fig = Figure(figsize=(3 + 2.6 * max(len(levels), 1), 1.5 + 0.55 * height))
    ax = fig.add_subplot()
    for e in graph.edges:
        if e.source in pos and e.target in pos:
            ax.annotate(
                "",
                xy=pos[e.target],
                xytext=pos[e.source],
                arrowprops={"arrowstyle": "->", "color": "grey", "alpha": 0.6, "shrinkA": 8, "shrinkB": 8},
            )
    for n in graph.nodes:
        x, y = pos[n.id]
        ax.scatter(
            [x],
            [y],
            s=160,
            color=colour[n.node_type],
            zorder=3,
            edgecolors="black" if n.id in matched_ids else "none",
            linewidths=1.8,
        )
        ax.annotate(n.label[:24], (x, y), textcoords="offset points", xytext=(9, -3), fontsize=7)
    ax.legend(
        handles=[Line2D([0], [0], marker="o", linestyle="", color=colour[t], label=t) for t in types],
        fontsize=7,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
    )
    ax.set_xticks(sorted(levels), [f"level {lv}" for lv in sorted(levels)])
    ax.set_yticks([])
    ax.set_xlim(min(levels, default=1) - 0.5, max(levels, default=1) + 1.3)
    ax.set_title(
        f"Final graph: {len(graph.nodes)} nodes, {len(graph.edges)} edges (outlined = matches ground truth)"
    )
    return _save(fig, path)


def write_all(
    record: RunRecord, directory: Path, *, elements_total: int, matched: Iterable[str]
) -> list[Path]:
    """All four plots of a run into `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    return [
        graph_growth(record, directory / "graph_growth.png", elements_total),
        strategy_timeline(record, directory / "strategy_timeline.png"),
        signal_trajectories(record, directory / "signals.png"),
        final_graph(record, directory / "final_graph.png", matched),
    ]
