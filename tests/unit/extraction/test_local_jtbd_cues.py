"""Readings of the switch interview's cue lexicon (offline extractor, jobs_to_be_done)."""

from __future__ import annotations

from services.extraction.engine import ExtractionEngine
from tests.unit.extraction.support import edges as _edges
from tests.unit.extraction.support import extract as _extract
from tests.unit.extraction.support import nodes as _nodes


async def test_what_someone_wants_now_is_an_outcome_what_they_wanted_then_a_pull(
    offline_engine: ExtractionEngine,
) -> None:
    # "I want a proper break" read as the pull cue "I wanted" (same lemma), and "break" as the event
    # cue "broke": two pulls, or an event, where a pull serves an outcome
    result = await _extract(
        offline_engine,
        "I want a proper break away from the screen. "
        "That was because it feels like a treat to make it slowly.",
        "What did you hope the barista course would let you do?",
    )
    assert _nodes(result) == {
        ("desired_outcome", "proper break away from the screen"),
        ("pull", "feels like a treat to make it slowly"),
    }
    assert _edges(result) == {
        ("feels like a treat to make it slowly", "serves", "proper break away from the screen")
    }
    then = await _extract(offline_engine, "I wanted fresh coffee in two minutes.", "What happened next?")
    assert {t for t, _ in _nodes(then)} == {"pull"}


async def test_a_machine_that_broke_is_still_an_event(offline_engine: ExtractionEngine) -> None:
    for text, label in [
        ("Then the old kettle broke and I had to decide.", "old kettle broke"),
        ("My old machine broke down in January.", "old machine broke down"),
    ]:
        result = await _extract(offline_engine, text, "What happened next?")
        assert ("timeline_event", label) in _nodes(result)


async def test_the_problem_was_that_frames_the_push(offline_engine: ExtractionEngine) -> None:
    # the frame once stayed in the label and the label was cut inside the amount
    result = await _extract(
        offline_engine,
        "With the station café, the problem was that I was spending twenty euros a week on takeaway coffee.",
        "What was it about the café that made you think about a change?",
    )
    assert ("push", "spending twenty euros a week on takeaway coffee") in _nodes(result)
    assert not any("problem" in label for _, label in _nodes(result))


async def test_something_got_is_an_event_of_the_switch(offline_engine: ExtractionEngine) -> None:
    # "I got a barista course as a birthday present" named only the course (a solution), and the
    # story's next step had no event to follow on from
    result = await _extract(
        offline_engine, "After that, I got a barista course as a birthday present.", "What happened next?"
    )
    assert ("timeline_event", "got a barista course as a birthday present") in _nodes(result)
    # longer cues with "got" keep their own types
    fed_up = await _extract(offline_engine, "I got fed up with the queue.", "What happened next?")
    assert {t for t, _ in _nodes(fed_up)} == {"push"}
    used_to = await _extract(offline_engine, "I got used to the café.", "What happened next?")
    assert "habit" in {t for t, _ in _nodes(used_to)}
    assert "timeline_event" not in {t for t, _ in _nodes(used_to)}


async def test_what_the_old_way_made_you_is_a_push(offline_engine: ExtractionEngine) -> None:
    # "… and because of that I realised the energy drinks made me jittery" named only the drinks: the
    # push they gave rise to, and its link to what started it, were lost
    result = await _extract(
        offline_engine,
        "My heart started racing one night at 3am, and because of that I realised the energy drinks made"
        " me jittery.",
        "What was going wrong for you around the time of buying a steel thermos?",
    )
    assert ("push", "made me jittery") in _nodes(result), _nodes(result)
    assert ("energy drinks", "gives_rise_to", "made me jittery") in _edges(result), _edges(result)
    assert any(t == "made me jittery" and "heart started racing" in s for s, _, t in _edges(result)), _edges(
        result
    )
    # a thought it led to is no push, and a feeling it gave keeps its own cue
    thought = await _extract(offline_engine, "It made me realise I needed a change.", "What happened next?")
    assert not any(t == "push" for t, _ in _nodes(thought)), _nodes(thought)
    felt = await _extract(offline_engine, "The capsule machine made me feel like a grown-up.", "Why?")
    assert ("pull", "feel like a grown-up") in _nodes(felt), _nodes(felt)


async def test_a_habit_that_held_the_switch_back_stays_a_habit(offline_engine: ExtractionEngine) -> None:
    # "What held you back?" asks for anxieties, but a habit holds a switch back too: its own cue
    # ("I always …") keeps its type, and the person it names is no solution.
    result = await _extract(
        offline_engine,
        "I always chatted with the barista at the station.",
        "What held you back from switching?",
    )
    assert _nodes(result) == {("habit", "always chatted with the barista at the station")}
    worried = await _extract(
        offline_engine, "I worried it would be too fiddly.", "What held you back from switching?"
    )
    assert ("anxiety", "fiddly") in _nodes(worried)
