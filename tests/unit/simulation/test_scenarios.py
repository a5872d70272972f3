"""Scenario files: shipped coverage, and validation against the methodology ontology."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.methodology import ConceptRegistry, MethodologyRegistry
from simulation.scenarios import ScenarioError, ScenarioRegistry, load_scenario_file
from tests.unit.simulation.support import mini_scenario_data


def _load(
    tmp_path: Path,
    data: dict[str, Any],
    methodologies: MethodologyRegistry,
    concepts: ConceptRegistry,
    name: str = "mini",
) -> Any:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return load_scenario_file(path, methodologies, concepts)


def _fields(exc: ScenarioError) -> dict[str, str]:
    return {v.field: v.description for v in exc.violations}


def test_shipped_scenarios_cover_every_concept(
    scenarios: ScenarioRegistry, concepts: ConceptRegistry
) -> None:
    per_concept = Counter(scenarios.get(i).concept_id for i in scenarios.ids())
    assert per_concept["headphones_mec"] >= 3
    assert per_concept["coffee_jtbd"] >= 3
    assert per_concept["hospital_discharge_cit"] >= 3
    assert per_concept["online_grocery_journey"] >= 1
    assert per_concept["streaming_services_repgrid"] >= 1
    for sid in scenarios.ids():
        scenario = scenarios.get(sid)
        assert concepts.get(scenario.concept_id).methodology == scenario.methodology


def test_shipped_ladders_end_in_a_value(scenarios: ScenarioRegistry) -> None:
    values = {"instrumental_value", "terminal_value"}
    for scenario in scenarios.for_concept("headphones_mec"):
        for chain in scenario.chains:
            assert scenario.element(chain.elements[0]).node_type == "attribute", (scenario.id, chain.id)
            assert scenario.element(chain.elements[-1]).node_type in values, (scenario.id, chain.id)


def test_the_mini_scenario_is_valid(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    scenario = _load(tmp_path, mini_scenario_data(), methodologies, concepts)
    assert scenario.link_between("f_focus", "a_noise") is not None  # either direction
    assert [c.id for c in scenario.chains_with("a_noise")] == ["noise"]


def _broken(**changes: Any) -> dict[str, Any]:
    data = mini_scenario_data()
    for key, value in changes.items():
        data[key] = value
    return data


def test_unknown_node_type(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    data = mini_scenario_data()
    data["elements"][0]["node_type"] = "feature"
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, data, methodologies, concepts)
    assert "is not a node type of means_end_chain" in _fields(info.value)["elements.0.node_type"]


def test_edge_type_must_permit_the_node_types(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    data = mini_scenario_data()
    data["links"].append({"source": "v_peace", "target": "a_noise", "edge_type": "leads_to"})
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, data, methodologies, concepts)
    assert _fields(info.value)["links.5.edge_type"] == "leads_to does not permit terminal_value -> attribute"


def test_links_must_name_elements_and_known_edge_types(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    data = mini_scenario_data()
    data["links"].append({"source": "a_noise", "target": "ghost", "edge_type": "causes"})
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, data, methodologies, concepts)
    fields = _fields(info.value)
    assert fields["links.5.target"] == "names no element"
    assert "'causes' is not an edge type" in fields["links.5.edge_type"]


def test_chain_steps_must_be_linked(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    data = mini_scenario_data()
    data["chains"][1]["elements"] = ["a_battery", "v_peace"]
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, data, methodologies, concepts)
    fields = _fields(info.value)
    assert fields["chains.1.elements.1"] == "no link between 'a_battery' and 'v_peace'"
    # f_charge is now in no chain but linked to a_battery (a chain element): a valid side element
    assert "elements.5.id" not in fields


def test_orphan_element_is_rejected(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    data = mini_scenario_data()
    data["elements"].append(
        {"id": "a_colour", "node_type": "attribute", "label": "colour", "phrasings": ["blue"]}
    )
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, data, methodologies, concepts)
    assert _fields(info.value)["elements.7.id"] == "'a_colour' is in no chain and linked to no chain element"


def test_duplicate_ids_and_bad_emotional_types(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    data = mini_scenario_data()
    data["elements"][6]["id"] = "a_noise"
    data["emotional_node_types"] = ["feelings"]
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, data, methodologies, concepts)
    fields = _fields(info.value)
    assert fields["elements.6.id"] == "duplicate element id 'a_noise'"
    assert "emotional_node_types.0" in fields


def test_concept_must_exist_and_match_the_methodology(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, _broken(concept_id="coffee_jtbd"), methodologies, concepts)
    assert "uses 'jobs_to_be_done'" in _fields(info.value)["methodology"]
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, _broken(concept_id="nope"), methodologies, concepts)
    assert "unknown concept" in _fields(info.value)["concept_id"]


def test_missing_fields_and_file_name(
    tmp_path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
) -> None:
    data = mini_scenario_data()
    del data["chains"]
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, data, methodologies, concepts)
    assert "chains" in _fields(info.value)
    with pytest.raises(ScenarioError) as info:
        _load(tmp_path, mini_scenario_data(), methodologies, concepts, name="other")
    assert list(_fields(info.value)) == ["id"]
