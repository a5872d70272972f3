"""Protobuf ⇄ domain conversion: typed signal values, tracker state as of the request's turn, limits."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.scoring import convert
from services.scoring.models import SelectionMode, SignalInputs
from services.scoring.registry import SignalScalar
from services.scoring.rubric.local_scorer import LocalRubricScorer
from shared.errors import InvalidArgumentError
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.scoring.v1 import scoring_pb2
from shared.validation import Violations
from tests.unit.scoring.support import engine_for

CONFIG = Path(__file__).parents[3] / "config"


@pytest.mark.parametrize(
    ("value", "field", "expected"),
    [
        (True, "bool_value", True),
        (False, "bool_value", False),
        (3, "int_value", 3),
        (0.25, "double_value", 0.25),
        ("deep", "string_value", "deep"),
    ],
)
def test_signal_values_keep_their_type(value: SignalScalar, field: str, expected: object) -> None:
    msg = convert.signal_value(value)
    assert msg.WhichOneof("kind") == field
    assert getattr(msg, field) == expected


def test_tracker_state_as_of_the_request_turn() -> None:
    msg = common_pb2.NodeTrackerState(
        schema_version=1,
        previous_focus="a",
        states=[
            common_pb2.NodeState(
                node_id="a",
                label="x",
                created_at_turn=1,
                focus_count=2,
                last_focus_turn=4,
                turns_since_last_focus=0,
                current_focus_streak=2,
                last_yield_turn=2,
                turns_since_last_yield=2,
                all_response_depths=["shallow", "surface"],
                last_strategy_used="deepen",
                consecutive_same_strategy=2,
            ),
            common_pb2.NodeState(node_id="b", label="y", created_at_turn=3),
        ],
    )
    v = Violations()
    tracker = convert.tracker_from_proto(msg, 6, v)
    assert not v
    a, b = tracker.states["a"], tracker.states["b"]
    # the stale focus counter in the message is recomputed for turn 6; the yield counter (answers
    # without yield) is taken as sent
    assert (a.turns_since_last_focus, a.turns_since_last_yield) == (2, 2)
    assert (b.turns_since_last_focus, b.turns_since_last_yield, b.last_focus_turn) == (3, 0, None)
    assert tracker.previous_focus == "a" and a.last_strategy_used == "deepen"
    assert a.all_response_depths == ["shallow", "surface"] and a.consecutive_same_strategy == 2


def test_empty_tracker_message_is_a_fresh_tracker_and_bad_focus_is_a_violation() -> None:
    v = Violations()
    assert len(convert.tracker_from_proto(common_pb2.NodeTrackerState(), 3, v)) == 0 and not v
    convert.tracker_from_proto(
        common_pb2.NodeTrackerState(
            schema_version=1,
            previous_focus="ghost",
            states=[common_pb2.NodeState(node_id="a", created_at_turn=5), common_pb2.NodeState(node_id="a")],
        ),
        3,
        v,
    )
    assert {x.field for x in v.violations} == {
        "previous_focus",
        "states[0].created_at_turn",
        "states[1].node_id",
    }


def test_partial_rubric_is_rejected_naming_the_missing_dimensions() -> None:
    v = Violations()
    msg = scoring_pb2.RubricResult(
        scores=[
            common_pb2.RubricScore(name="response_depth", score=3),
            common_pb2.RubricScore(name="mood", score=3),
        ]
    )
    assert convert.rubric_from_proto(msg, v) is None
    described = {x.field: x.description for x in v.violations}
    assert set(described) == {"scores[1].name", "scores"}
    assert "specificity" in described["scores"] and "response_depth" not in described["scores"]


def test_unknown_mode_is_a_violation() -> None:
    v = Violations()
    assert convert.mode_from_proto(scoring_pb2.SELECTION_MODE_UNSPECIFIED, v) is None
    assert convert.mode_from_proto(scoring_pb2.SELECTION_MODE_TWO_STAGE, v) is SelectionMode.TWO_STAGE
    convert.mode_from_proto(99, v)
    assert [x.field for x in v.violations] == ["mode"]


def test_inputs_raise_every_violation_at_once() -> None:
    msg = scoring_pb2.SignalInputs(
        methodology="means_end_chain",
        turn_number=0,
        max_turns=0,
        answer="",
        velocity=scoring_pb2.VelocityInputs(surface_delta=-1),
    )
    with pytest.raises(InvalidArgumentError) as info:
        convert.inputs_from_proto(msg, Violations(), max_text_chars=100, methodology_exists=lambda n: True)
    assert {x.field for x in info.value.violations} == {
        "turn_number",
        "max_turns",
        "answer",
        "velocity.surface_delta",
    }


async def test_selection_limits_cut_alternatives_and_decomposition() -> None:
    engine = engine_for(CONFIG, LocalRubricScorer())
    msg = scoring_pb2.SignalInputs(
        methodology="means_end_chain", turn_number=3, max_turns=20, answer="Yes, I do."
    )
    inputs: SignalInputs = convert.inputs_from_proto(
        msg, Violations(), max_text_chars=100, methodology_exists=engine.has_methodology
    )
    selection = await engine.select(inputs)
    full = convert.selection_to_proto(selection)
    assert len(full.decomposition) == len(selection.candidates) == len(full.alternatives)
    cut = convert.selection_to_proto(selection, alternatives_limit=2, decomposition_limit=3)
    assert [a.rank for a in cut.alternatives] == [1, 2]
    assert [c.rank for c in cut.decomposition] == [1, 2, 3]
    assert cut.strategy == selection.strategy and not cut.focus_node_id  # no nodes yet
