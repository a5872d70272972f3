"""The graph's chains as the interviewer says them back: which run of the longest chain reads as one
chain ("first …, then …" for a journey or an incident, "a leads to b" for a ladder), and each label
with the article or form its node type calls for.

The offline follow-up engine (`offline`) and its opening and closing messages (`offline_messages`)
both say chains back; the node-type groups below also tell the follow-up engine how to say its focus.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from services.question import templates as tpl
from services.question.fit import participant_types
from services.question.models import GraphDigest
from services.question.spoken import SpokenLabels
from services.question.text import clean_label, is_plural
from shared.methodology_models import MethodologyConfig

_SEQUENCE_CHAINS = frozenset({"customer_journey_mapping", "critical_incident"})
# Node types that name where a step of a sequence happens, not a step: a journey's touchpoints
# ("first the delivery slot, then the driver": the driver is met at a step, not one).
_PLACE_TYPES = frozenset({"touchpoint"})
# Node types of what the respondent chose, not a cause of anything: a job's solutions ("the capsule
# machine leads to under 100 euros" read back a `decided_by` edge as a consequence).
_CHOSEN_TYPES = frozenset({"solution"})
# Node types of things the respondent dealt with, went through or chose by (a journey's touchpoints
# and stages, a job's solutions and the pushes and pulls of a switch, a product's attributes): said
# back with the article their labels dropped ("the app", "the café", "at the delivery slot", "the
# secure fit", "the little ritual between meetings").
MET_TYPES = frozenset({"touchpoint", "solution", "stage", "attribute", "pull", "push", "habit"})
# Node types whose noun phrases of several words name a circumstance the respondent described ("the
# pharmacist based on the ward", "the lack of staff"); a single word ("patience") stays bare.
DESCRIBED_TYPES = frozenset({"attribution", "learning"})
# Node types that name a property of the topic, never an event: "detailed sound" is not "detailing".
THING_TYPES = frozenset({"attribute"})
# Node types that name how the respondent felt: a lone "calm" is the state "being calm".
FEELING_TYPES = frozenset({"emotion", "psychosocial_consequence", "anxiety"})
# Node types that name what the respondent feared might happen ("coffee would ruin my sleep").
WORRY_TYPES = frozenset({"anxiety"})


def ladder(labels: Sequence[str], types: Sequence[str], methodology: MethodologyConfig) -> list[str]:
    """The longest run of `labels` in which each node is a level above the one before.

    A chain along any edges may step sideways ("no adverts" contrasts with "constant adverts"), a
    repertory grid's element is placed on a pole, not a reason for it, and a job's solution is
    chosen by its criteria, not their cause; only the steps up between reasons are said as "leads
    to". Without the types (or with a type the ontology lacks) the labels are taken as they are.
    """
    nodes = [n for t in types if t and (n := methodology.node_type(t)) is not None]
    if len(nodes) != len(labels):
        return list(labels)
    grid = tpl.method_key(methodology.name) == "repertory_grid"
    placed = methodology.lowest_level_types if grid else _CHOSEN_TYPES
    runs: list[list[str]] = [[]]
    previous = 0
    for label, node in zip(labels, nodes, strict=True):
        if node.name in placed:
            runs.append([])  # an element (or a choice) ends a run and starts none
            previous = 0
            continue
        if node.level <= previous:
            runs.append([])
        runs[-1].append(label)
        previous = node.level
    return max(runs, key=len)  # the first of the longest


def joined_run(
    graph: GraphDigest, methodology: MethodologyConfig, focus: str = ""
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The part of the longest chain that reads as one chain: its labels and their node types.

    The graph store's chain follows directed edges of every type, so it can cross a contrast ("the
    night shift's handover contrasts with the ward round"), a conflict, a preference or a revision;
    said back, "first …, then …" would tell two contrasted incidents as one. The chain is cut at
    every edge whose type does not join a chain, and the run holding `focus` is kept (else the
    first of the longest). Without edge types (an older graph store) the chain is taken whole.
    """
    labels, types = graph.longest_chain_labels, graph.longest_chain_types
    edges = graph.longest_chain_edge_types
    if len(edges) != len(labels) - 1:
        return labels, types
    breaks = methodology.chain_breaking_edges
    cuts = [0, *(i + 1 for i, kind in enumerate(edges) if kind in breaks), len(labels)]
    runs = [(a, b) for a, b in itertools.pairwise(cuts) if b > a]
    wanted = focus.strip().lower()
    held = [r for r in runs if wanted and any(clean_label(x).lower() == wanted for x in labels[r[0] : r[1]])]
    a, b = held[0] if held else max(runs, key=lambda r: r[1] - r[0])
    return labels[a:b], types[a:b] if len(types) == len(labels) else ()


def chain_to_say(graph: GraphDigest, methodology: MethodologyConfig, focus: str = "") -> list[str]:
    """The longest chain's labels to say back (the run of it `joined_run` keeps): a sequence's
    every step, else its ladder."""
    return run_to_say(*joined_run(graph, methodology, focus), methodology)


def run_to_say(labels: Sequence[str], types: Sequence[str], methodology: MethodologyConfig) -> list[str]:
    """A run of the chain's labels (with their node types) as said back: a sequence's every step,
    else its ladder."""
    if tpl.method_key(methodology.name) in _SEQUENCE_CHAINS:
        # the steps, not who took part in them ("first ward nurse, then going through …") nor where
        # they happened; without the types (as in `ladder`) the labels are taken as they are
        if len(types) != len(labels):
            return list(labels)
        aside = participant_types(methodology) | _PLACE_TYPES
        return [label for label, kind in zip(labels, types, strict=True) if kind not in aside]
    return ladder(labels, types, methodology)


def say_labels(
    labels: Sequence[str],
    methodology: MethodologyConfig,
    spoken: SpokenLabels,
    types: Mapping[str, str] | None = None,
) -> list[str]:
    """Labels as the interviewer says them back; in a journey or an incident the things and people
    keep the article their labels dropped: "with the driver, the app and checking out on it",
    "first planning the weekly shop, then the delivery slot" (not "with driver, app and …"). Where
    `types` (label -> node type) names a thing met or chosen by, so does it elsewhere ("the secure
    fit leads to …"), and an attribute is a property ("the detailed sound", not "detailing sound")."""
    sequence = tpl.method_key(methodology.name) in _SEQUENCE_CHAINS
    kinds = types or {}
    out: list[str] = []
    for label in labels:
        kind = kinds.get(label, "")
        text, doing = spoken.say(
            clean_label(label),
            thing=kind in THING_TYPES,
            feeling=kind in FEELING_TYPES,
            worry=kind in WORRY_TYPES,
        )
        met = sequence or kind in MET_TYPES
        out.append(spoken.with_article(text) if met and not doing else text)
    return out


def chain_types(graph: GraphDigest) -> dict[str, str]:
    """The longest chain's node types by label (none when they do not pair with the labels)."""
    labels, types = graph.longest_chain_labels, graph.longest_chain_types
    return dict(zip(labels, types, strict=True)) if len(labels) == len(types) else {}


def render_chain(labels: Sequence[str], methodology: str) -> str | None:
    """The longest chain as a clause ("a leads to b, and that leads to c"), or None if too short.

    Journeys and incidents are sequences ("first a, then b, then c"), other methods causal chains
    (pass them through `ladder` first).
    """
    cleaned = [c for c in (clean_label(x) for x in labels) if c][:4]
    if len(cleaned) < 2:
        return None
    if tpl.method_key(methodology) in _SEQUENCE_CHAINS:
        return "first " + ", then ".join(cleaned)
    verb = "lead to" if is_plural(cleaned[0]) else "leads to"
    return f"{cleaned[0]} {verb} {cleaned[1]}" + "".join(f", and that leads to {c}" for c in cleaned[2:])
