"""`phase_for` implements SPEC.md's phase boundaries (hand-computed table)."""

from __future__ import annotations

import pytest

from shared.errors import InvalidArgumentError
from shared.methodology import phase_for
from shared.methodology_models import InterviewPhase

E, M, L = InterviewPhase.EARLY, InterviewPhase.MID, InterviewPhase.LATE

# max_turns -> expected phase of turns 1..max_turns (+ one turn beyond)
TABLE: dict[int, list[InterviewPhase]] = {
    # early ≤ max(2, round(2.0)) = 2; late after 18
    20: [E, E] + [M] * 16 + [L, L, L],
    # early ≤ max(2, round(1.0)) = 2; late after 8
    10: [E, E] + [M] * 6 + [L, L, L],
    # early ≤ round(3.0) = 3; late after 28
    30: [E, E, E] + [M] * 25 + [L, L, L],
    # round(2.5) = 2 (round-half-to-even, as the reference's Python round)
    25: [E, E] + [M] * 21 + [L, L, L],
    # round(3.5) = 4
    35: [E] * 4 + [M] * 29 + [L, L, L],
    # early 2, mid bound 3: no correction
    5: [E, E, M, L, L, L],
    # early 2 ≥ mid bound 2 -> early = max(1, 1) = 1
    4: [E, M, L, L, L],
    # early 2 ≥ mid bound 1 -> early = max(1, 0) = 1; no mid turn at all
    3: [E, L, L, L],
    # mid bound 0 -> early = 1
    2: [E, L, L],
    # mid bound -1 -> early = 1
    1: [E, L],
}


@pytest.mark.parametrize("max_turns", sorted(TABLE))
def test_phase_table(max_turns: int) -> None:
    got = [phase_for(turn, max_turns) for turn in range(1, max_turns + 2)]
    assert got == TABLE[max_turns]


@pytest.mark.parametrize(
    ("turn", "max_turns", "expected"),
    [(0, 20, E), (10, 100, E), (11, 100, M), (98, 100, M), (99, 100, L), (500, 20, L)],
)
def test_phase_boundaries(turn: int, max_turns: int, expected: InterviewPhase) -> None:
    assert phase_for(turn, max_turns) is expected


@pytest.mark.parametrize(("turn", "max_turns", "field"), [(1, 0, "max_turns"), (-1, 20, "turn_number")])
def test_phase_for_rejects_bad_input(turn: int, max_turns: int, field: str) -> None:
    with pytest.raises(InvalidArgumentError) as info:
        phase_for(turn, max_turns)
    assert [v.field for v in info.value.violations] == [field]
