"""The offline respondent's sentences say a link the way a person would."""

from __future__ import annotations

import random

from simulation.respondent.phrasing import continue_sentence, link_sentence
from simulation.scenarios import ElementForm, HiddenElement, HiddenLink

DRINKS = HiddenElement(
    id="sol_drinks", node_type="solution", label="energy drinks", phrasings=("energy drinks",)
)


def _clause(element_id: str, node_type: str, label: str, phrasing: str) -> HiddenElement:
    return HiddenElement(
        id=element_id, node_type=node_type, label=label, phrasings=(phrasing,), form=ElementForm.CLAUSE
    )


CRASH = _clause("f_crash", "firing_criterion", "crash after two hours", "I crashed after two hours")
HOT = _clause("hc_hot", "hiring_criterion", "stays hot for twelve hours", "it stays hot for twelve hours")
CHOSEN = ("chose", "sold me")
DROPPED = ("stopped", "put me off", "gave up", "dropped")


def _said(target: HiddenElement) -> set[str]:
    link = HiddenLink(source=DRINKS.id, target=target.id, edge_type="decided_by")
    said: set[str] = set()
    for seed in range(40):
        for restate in (True, False):
            rng = random.Random(seed)
            said.add(link_sentence(DRINKS, target, link, "jobs_to_be_done", rng, restate=restate))
        said.add(_continued("I used energy drinks.", target, link, seed))
    return said


def _continued(previous: str, target: HiddenElement, link: HiddenLink, seed: int) -> str:
    """`continue_sentence` for a switch interview's link that a clause can carry."""
    sentence = continue_sentence(previous, target, link, "jobs_to_be_done", random.Random(seed))
    assert sentence is not None
    return sentence


def test_a_firing_criterion_is_why_a_solution_was_dropped_not_chosen() -> None:
    # "I chose energy drinks because I crashed after two hours" said the opposite of the scenario
    said = _said(CRASH)
    assert len(said) >= 3, said
    assert all(any(w in s for w in DROPPED) for s in said), said
    assert not any(w in s for s in said for w in CHOSEN), said


def test_a_hiring_criterion_is_still_why_it_was_chosen() -> None:
    said = _said(HOT)
    assert any(w in s for s in said for w in CHOSEN), said
    assert not any(w in s for s in said for w in DROPPED), said


def test_a_restated_source_is_in_the_sentence_even_without_a_wording_for_the_pair() -> None:
    # a reverse link has no wording that names its source: "That was because I crashed after two
    # hours" was recorded as revealing the link to staying alert, which the answer never named
    alert = _clause("j_alert", "job", "stay alert", "I need to stay alert on night shifts")
    link = HiddenLink(source=CRASH.id, target=alert.id, edge_type="serves")
    for seed in range(20):
        restated = link_sentence(alert, CRASH, link, "jobs_to_be_done", random.Random(seed), restate=True)
        assert "stay alert" in restated and "crashed after two hours" in restated, restated
        bare = link_sentence(alert, CRASH, link, "jobs_to_be_done", random.Random(seed), restate=False)
        assert "stay alert" not in bare and "crashed after two hours" in bare, bare


def test_a_level_said_against_its_link_is_named_as_the_cause() -> None:
    # the café gave rise to the queue; with the queue just said, "…, which led to the café at the
    # station" said the link backwards (and the extractor read the café as what the queue caused)
    cafe = HiddenElement(
        id="sol_cafe", node_type="solution", label="station café", phrasings=("the station café",)
    )
    queue = _clause("p_queue", "push", "queue too long", "the queue at the station café took too long")
    link = HiddenLink(source=cafe.id, target=queue.id, edge_type="gives_rise_to")
    previous = "That was because the queue at the station café took too long."
    said = {_continued(previous, cafe, link, seed) for seed in range(20)}
    assert all(s.endswith("which was down to the station café.") for s in said), said
    # forwards, the same pair keeps the wording of what followed from it
    after = {_continued("I went to the station café.", queue, link, seed) for seed in range(20)}
    assert all("realised the queue" in s for s in after), after


def test_a_link_no_clause_can_carry_gets_a_sentence_of_its_own() -> None:
    # "That was down to their own series you can't get elsewhere, and in the end that's about mostly
    # old licensed films": the ladder's continuing clause made a pole's opposite its reason
    originals = HiddenElement(
        id="ep_originals", node_type="emergent_pole", label="own series", phrasings=("their own series",)
    )
    reruns = HiddenElement(
        id="ip_reruns", node_type="implicit_pole", label="old films", phrasings=("mostly old licensed films",)
    )
    opposite = HiddenLink(source=originals.id, target=reruns.id, edge_type="contrasts_with")
    said = "That was down to their own series."
    for seed in range(10):
        assert continue_sentence(said, reruns, opposite, "repertory_grid", random.Random(seed)) is None
        own = link_sentence(originals, reruns, opposite, "repertory_grid", random.Random(seed), restate=False)
        assert "old licensed films" in own and any(w in own for w in ("opposite", "whereas", "other kind")), (
            own
        )
    # a rung up the ladder still continues the sentence
    worth = HiddenElement(
        id="sc_worth",
        node_type="superordinate_construct",
        label="worth",
        phrasings=("the evening feels well spent",),
    )
    rung = HiddenLink(source=originals.id, target=worth.id, edge_type="ladders_to")
    assert continue_sentence(said, worth, rung, "repertory_grid", random.Random(0)) is not None


def test_an_actor_asked_about_is_said_to_take_part_in_the_incident_not_to_cause_it() -> None:
    # "It's really just the junior doctor. That was because nobody properly explained my tablets":
    # the generic reverse wording made the incident the actor's reason
    doctor = HiddenElement(
        id="actor_doctor", node_type="actor", label="junior doctor", phrasings=("the junior doctor",)
    )
    rushed = _clause("inc_rushed", "incident", "nobody explained", "nobody properly explained my tablets")
    link = HiddenLink(source=rushed.id, target=doctor.id, edge_type="involves")
    for seed in range(10):
        for restate in (True, False):
            said = link_sentence(
                doctor, rushed, link, "critical_incident", random.Random(seed), restate=restate
            )
            assert "because" not in said, said
            assert "the junior doctor" in said and "nobody properly explained my tablets" in said, said
