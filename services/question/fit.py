"""Fitting a strategy's question family to the kind of node in focus.

The strategy and its focus node are chosen by scoring, which has no node-level signal for the
ontology level; the question is where a mismatch would show. A laddering question about a node
that is already at the top of the ontology ("why is security important to you?") has no answer
above it; an event question about a person ("what exactly did you do during the nurse?") does not
parse; a repertory-grid pole question about an element ("what is the opposite of Netflix?") asks
for nonsense; a pull question about a push ("what did you hope having palpitations would let you
do?") misreads the force. In those cases the engine asks the question the strategy would ask of
that kind of node: it confirms the top of a ladder, asks what the person did, compares the element
with others to elicit a construct, and in a switch interview asks a push what went wrong and a pull
(or a goal) what it promised, a problem what job it stood in the way of, a solution what job it did,
a moment of the timeline what the person was after then, and a worry or a habit what the person
wanted in spite of it (`_BY_TYPE`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from services.question import templates as tpl
from services.question.models import FocusNode
from shared.methodology_models import MethodologyConfig

# Families that ask for the next rung up (or the result) of the focus.
_UPWARD = frozenset({"ladder_up", "job", "need", "outcome", "attribution", "absence", "contrast"})
# Families that ask about an event or a stage; a participant cannot be one.
_EVENTUAL = frozenset({"actions", "outcome", "attribution", "scene", "absence"})
# (family, node type) -> the family that asks the same strategy's question of a switch interview's
# kind of node (jobs_to_be_done's types):
_BY_TYPE: Mapping[tuple[str, str], str] = MappingProxyType(
    {
        # a push is asked what went wrong, and so is what made the old solution go ("tasted flat and
        # bitter"); a pull what it promised, and so is what the switch was for ("what did you hope
        # feeling in control would let you do?", not "… worth doing something about?")
        ("push_pull", "push"): "push",
        ("push_pull", "firing_criterion"): "push",
        ("push_pull", "pull"): "pull",
        ("push_pull", "desired_outcome"): "pull",
        ("push_pull", "job"): "pull",
        ("push_pull", "emotional_social_job"): "pull",
        # a solution may be the old one or the new one ("what made the capsule machine the moment to
        # start looking …?"); a moment of the timeline is no force ("what was going wrong that made
        # buying a grinder matter?"): the forces around either are asked
        ("push_pull", "solution"): "push_pull_solution",
        ("push_pull", "timeline_event"): "push_pull_event",
        # what held them back is asked of what pulled them and of a moment, not what was hard to
        # give up about either ("… when it came to missing your train twice in one week?")
        ("anxiety_habit", "pull"): "anxiety_of_pull",
        ("anxiety_habit", "timeline_event"): "anxiety_habit_event",
        # ... and of a solution in words that fit the old one and the new one alike ("what did you like
        # about the old way, compared with the energy drinks?" when they were the old way)
        ("anxiety_habit", "solution"): "anxiety_habit_solution",
        # a problem is no job to get sorted ("what would getting having palpitations sorted make
        # possible?"): the job it stood in the way of is asked
        ("job", "push"): "job_behind_push",
        # what pulled them is no job to get sorted either: what it promised is asked
        ("job", "pull"): "job_behind_pull",
        ("job", "firing_criterion"): "job_behind_push",
        # a moment is no goal ("what bigger goal is buying a steel thermos part of?"): what the person
        # was after then; a solution is hired for a job ("… getting the capsule machine sorted")
        ("job", "timeline_event"): "job_at_event",
        ("job", "solution"): "job_of_solution",
        ("job", "hiring_criterion"): "job_of_criterion",
        # a worry or a habit is no goal either ("what bigger goal is the worry that coffee would ruin
        # your sleep part of?"): what the person wanted in spite of it, or more than it
        ("job", "anxiety"): "job_despite_worry",
        ("job", "habit"): "job_over_habit",
        # the pole a person does not prefer is laddered through the preference ("which side of
        # constant adverts appeals to you more, and why?"), never as if it were valued ("what do ads
        # every ten minutes give you?", "why is endless scrolling important to you?")
        ("ladder_up", "implicit_pole"): "ladder_up_pole",
        # a construct above the poles has no ends to prefer ("Thinking about the evening feeling
        # well spent, which end do you prefer …?"): why it matters is asked
        ("ladder_up", "superordinate_construct"): "ladder_up_construct",
    }
)
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
    if repertory and family in _POLAR and node.name in methodology.lowest_level_types:
        return "triad"
    poles = pole_types(methodology)
    if family == "opposite_pole" and poles and node.name not in poles:
        # "what is the opposite of 'not wasting your time'?": a construct above the poles is laddered
        family = "ladder_up"
    if family in _EVENTUAL and node.name in participant_types(methodology):
        return "actor"
    fitted = _BY_TYPE.get((family, node.name))
    if fitted is not None:
        return fitted
    if family in _UPWARD | _EVENTUAL and node.terminal:
        # nothing above a terminal node, and a lesson drawn is no event ("what did you do while
        # always calling the carer?"): it is confirmed, in the method's words where it has its own
        return _TOPS.get(tpl.method_key(methodology.name) or "", "top")
    return family
