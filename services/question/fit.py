"""Fitting a strategy's question family to the kind of node in focus.

The strategy and its focus node are chosen by scoring, which has no node-level signal for the
ontology level; the question is where a mismatch would show. A laddering question about a node
that is already at the top of the ontology ("why is security important to you?") has no answer
above it; an event question about a person ("what exactly did you do during the nurse?") does not
parse; a repertory-grid pole question about an element ("what is the opposite of Netflix?") asks
for nonsense; a pull question about a push ("what did you hope having palpitations would let you
do?") misreads the force. In those cases the engine asks the question the strategy would ask of
that kind of node: it confirms the top of a ladder, asks what the person did, compares the element
with others to elicit a construct, asks a push what went wrong and a pull (or a goal) what it
promised, asks what job a push stood in the way of (not what getting it sorted would make possible)
and what the person was after at a moment of the switch timeline, and a solution what job it did.
"""

from __future__ import annotations

from services.question import templates as tpl
from services.question.elements import element_types
from services.question.models import FocusNode
from shared.methodology_models import MethodologyConfig

# Families that ask for the next rung up (or the result) of the focus.
_UPWARD = frozenset({"ladder_up", "job", "need", "outcome", "attribution", "absence", "contrast"})
# Node types of a moment on a switch timeline: what the person was after then is asked, not the
# moment's own goal.
_MOMENTS = frozenset({"timeline_event"})
# Node types of what was hired for a job: asked what job it did, not whether it got sorted.
_SOLUTIONS = frozenset({"solution"})
# Families that ask about an event or a stage; a participant cannot be one.
_EVENTUAL = frozenset({"actions", "outcome", "attribution", "scene", "absence"})
# Switch forces with a question family of their own (jobs_to_be_done's "push" and "pull").
_FORCES = frozenset({"push", "pull"})
# Node types of a problem: a push, and a reason the old solution was fired.
_PROBLEMS = frozenset({"push", "firing_criterion"})
# Node types of what a switch was for (a result wanted, the job, how they want to feel).
_GOALS = frozenset({"desired_outcome", "job", "emotional_social_job"})
# Methods whose terminal nodes are confirmed in words of their own (an incident's explanation or
# lesson is not "where it all leads for you").
_TOPS = {"critical_incident": "account_top"}
# Repertory-grid families that need a pole or construct in focus.
_POLAR = frozenset({"opposite_pole", "rate", "pyramid_down", "ladder_up", "clarify", "absence", "contrast"})


def participant_types(methodology: MethodologyConfig) -> frozenset[str]:
    """Non-terminal node types that are only ever an edge's target (a CIT `actor`)."""
    # same-type pairs ("revises": a correction of an actor by an actor) say nothing about the role
    pairs = [(s, d) for e in methodology.ontology.edges for s, d in e.permitted_connections if s != d]
    sources = {s for s, _ in pairs}
    targets = {d for _, d in pairs}
    return frozenset(
        n.name for n in methodology.ontology.nodes if not n.terminal and n.name in targets - sources
    )


def pole_types(methodology: MethodologyConfig) -> frozenset[str]:
    """Node types joined by a contrast edge (a repertory grid's emergent and implicit poles)."""
    return frozenset(
        t
        for e in methodology.ontology.edges
        if e.name.startswith("contrast")
        for pair in e.permitted_connections
        if pair[0] != pair[1]
        for t in pair
    )


def fitting_family(family: str, focus: FocusNode, methodology: MethodologyConfig) -> str:
    """`family`, or the family that asks the same strategy's question of this kind of node."""
    node = methodology.node_type(focus.node_type) if focus.node_type else None
    if node is None:
        return family
    repertory = tpl.method_key(methodology.name) == "repertory_grid"
    if repertory and family in _POLAR and node.name in element_types(methodology):
        return "triad"
    poles = pole_types(methodology)
    if family == "opposite_pole" and poles and node.name not in poles:
        # "what is the opposite of 'not wasting your time'?": a construct above the poles is laddered
        family = "ladder_up"
    if family in _EVENTUAL and node.name in participant_types(methodology):
        return "actor"
    if family == "push_pull" and node.name in _FORCES:
        return node.name  # a push is asked what went wrong, a pull what it promised
    if family == "push_pull" and node.name in _PROBLEMS:
        return "push"  # what made the old solution go ("tasted flat and bitter") pushed
    if family == "push_pull" and node.name in _SOLUTIONS:
        return "push_pull_solution"  # old or new: not "what made the capsule machine the moment …"
    if family == "push_pull" and node.name in _MOMENTS:
        return "push_pull_event"  # not "what was going wrong that made buying a grinder matter?"
    if family == "push_pull" and node.name in _GOALS:
        # what the person wanted pulls ("what did you hope feeling in control would let you do?");
        # it is no problem "worth doing something about"
        return "pull"
    if family == "job" and node.name in _PROBLEMS:
        return "job_behind_push"  # not "what would getting having palpitations sorted make possible?"
    if family == "job" and node.name in _MOMENTS:
        return "job_at_event"  # not "what bigger goal is buying a steel thermos part of?"
    if family == "job" and node.name in _SOLUTIONS:
        return "job_of_solution"  # not "what would getting the capsule machine sorted make possible?"
    if family in _UPWARD | _EVENTUAL and node.terminal:
        # nothing above a terminal node, and a lesson drawn is no event ("what did you do while
        # always calling the carer?"): it is confirmed, in the method's words where it has its own
        return _TOPS.get(tpl.method_key(methodology.name) or "", "top")
    return family
