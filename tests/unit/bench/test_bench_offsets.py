"""The first 50-turn session's two windows use answers no earlier scenario used: the services'
embedding caches must be cold in both (as in a new interview), or turn 5 looks cheaper than it is."""

from __future__ import annotations

from bench.answers import FEATURES, answer
from bench.run_bench import LONG_OFFSET, SLOW_OFFSET, STREAM_OFFSET, WARM_OFFSET, WARM_TURNS, Plan


def _indices(offset: int, turns: range) -> set[int]:
    # answer(turn, offset) picks every word by the index turn - 1 + offset (mod the list length).
    return {(turn - 1 + offset) % len(FEATURES) for turn in turns}


def test_the_long_session_windows_are_unseen_before_it() -> None:
    plan = Plan()
    before = (
        _indices(0, range(1, 2))  # the cold-start sessions' first turns
        | _indices(WARM_OFFSET, range(1, WARM_TURNS + 1))
        | _indices(0, range(1, plan.sequential_turns + 1))
        | _indices(SLOW_OFFSET, range(1, plan.slow_turns + 1))
        | _indices(STREAM_OFFSET, range(1, plan.stream_turns + 1))
    )
    last = plan.long_turns
    early = _indices(LONG_OFFSET, range(3, 8))
    late = _indices(LONG_OFFSET, range(last - 4, last + 1))
    assert not early & before and not late & before
    # Nor did the session's own earlier turns use the late window's words.
    assert not late & _indices(LONG_OFFSET, range(1, last - 4))


def test_an_index_names_the_same_words_whatever_the_turn() -> None:
    # What the check above relies on: the words depend on the index only (the template may vary).
    first, again = answer(3, LONG_OFFSET), answer(3 + len(FEATURES), LONG_OFFSET)
    word = FEATURES[(2 + LONG_OFFSET) % len(FEATURES)]
    assert word in first and word in again
