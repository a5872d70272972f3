"""Every kind of invalid methodology/concept YAML raises `MethodologyError` naming the file and field."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.errors import InvalidArgumentError
from shared.methodology import ConceptRegistry, MethodologyError, MethodologyRegistry


def valid_methodology() -> dict[str, Any]:
    return {
        "method": {"name": "mini", "goal": "Find ladders."},
        "ontology": {
            "nodes": [
                {"name": "attribute", "level": 1},
                {"name": "value", "level": 2, "terminal": True},
            ],
            "edges": [{"name": "leads_to", "permitted_connections": [["attribute", "value"]]}],
            "extraction_guidelines": ["Quote verbatim."],
        },
        "signals": {
            "graph": ["graph.max_depth", "graph.node.exhausted"],
            "llm": ["llm.response_depth"],
            "meta": ["meta.interview.phase"],
        },
        "strategies": [
            {
                "name": "deepen",
                "signal_weights": {"graph.max_depth.low": 0.5, "graph.node.exhausted.true": -1.0},
            },
            {
                "name": "close",
                "node_binding": "none",
                "focus_mode": "summary",
                "generates_closing_question": True,
                "signal_weights": {"meta.interview.phase.late": 1.0, "llm.response_depth.surface": 0.2},
            },
        ],
        "phases": {
            "early": {"signal_weights": {"deepen": 0.5}},
            "mid": {"signal_weights": {"deepen": 1.2}, "phase_bonuses": {"deepen": 0.2}},
            "late": {"phase_bonuses": {"close": 0.5}},
        },
    }


def write(tmp_path: Path, data: Any, name: str = "mini") -> Path:
    folder = tmp_path / "methodologies"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(
        data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8"
    )
    return path


def load_error(tmp_path: Path, mutate: Callable[[dict[str, Any]], None]) -> MethodologyError:
    data = valid_methodology()
    mutate(data)
    path = write(tmp_path, data)
    with pytest.raises(MethodologyError) as info:
        MethodologyRegistry(tmp_path).get("mini")
    assert str(path) in str(info.value)
    assert info.value.file == str(path)
    return info.value


def fields(err: MethodologyError) -> list[str]:
    return [v.field for v in err.violations]


def test_the_valid_fixture_loads(tmp_path: Path) -> None:
    write(tmp_path, valid_methodology())
    cfg = MethodologyRegistry(tmp_path).get("mini")
    assert [s.name for s in cfg.strategies] == ["deepen", "close"]


def test_membership_of_a_loaded_methodology_does_not_scan_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, valid_methodology())
    registry = MethodologyRegistry(tmp_path)
    assert "other" not in registry  # unknown names still consult the folder
    registry.get("mini")
    scans: list[Path] = []
    real_glob = Path.glob

    def counting_glob(self: Path, pattern: str) -> Any:
        scans.append(self)
        return real_glob(self, pattern)

    monkeypatch.setattr(Path, "glob", counting_glob)
    assert all("mini" in registry for _ in range(5))
    assert scans == []
    assert "other" not in registry
    assert len(scans) == 1


def test_error_is_an_invalid_argument_with_field_violations(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["method"].pop("goal"))
    assert isinstance(err, InvalidArgumentError)
    assert err.public_message == str(err)


def test_yaml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "method:\n  name: mini\n  goal: [unclosed\nontology: {}\n")
    with pytest.raises(MethodologyError) as info:
        MethodologyRegistry(tmp_path).get("mini")
    assert str(path) in str(info.value)
    assert fields(info.value)[0].startswith("line ")
    assert "YAML syntax error" in str(info.value)


def test_duplicate_yaml_key_is_rejected(tmp_path: Path) -> None:
    write(tmp_path, "method:\n  name: mini\n  name: other\n  goal: g\n")
    with pytest.raises(MethodologyError, match="duplicate key 'name'") as info:
        MethodologyRegistry(tmp_path).get("mini")
    assert fields(info.value) == ["line 3, column 3"]


def test_document_must_be_a_mapping(tmp_path: Path) -> None:
    write(tmp_path, "- a\n- b\n")
    with pytest.raises(MethodologyError) as info:
        MethodologyRegistry(tmp_path).get("mini")
    assert fields(info.value) == ["<root>"]


def test_missing_field(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["method"].pop("goal"))
    assert fields(err) == ["method.goal"]
    assert "required field is missing" in str(err)


def test_missing_strategy_weights(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"][1].pop("signal_weights"))
    assert fields(err) == ["strategies[1].signal_weights"]


def test_extra_field(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"][0].update(weight=3))
    assert fields(err) == ["strategies[0].weight"]
    assert "unknown field" in str(err)


def test_extra_top_level_field(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d.update(strategy=[]))
    assert fields(err) == ["strategy"]


def test_wrong_type(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["ontology"]["nodes"][0].update(level="one"))
    assert fields(err) == ["ontology.nodes[0].level"]


def test_unknown_signal_in_signals_block(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["signals"]["graph"].append("graph.node.mystery"))
    assert fields(err) == ["signals.graph[2]"]
    assert "unknown signal 'graph.node.mystery'" in str(err)


def test_weight_key_in_signals_block(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["signals"]["llm"].append("llm.response_depth.deep"))
    assert fields(err) == ["signals.llm[1]"]
    assert "weight key, not a signal name" in str(err)


def test_signal_in_wrong_pool(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["signals"]["llm"].append("graph.node_count"))
    assert fields(err) == ["signals.llm[1]"]
    assert "belongs to pool 'graph'" in str(err)


def test_unknown_pool(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["signals"].update(magic=["graph.node_count"]))
    assert fields(err) == ["signals.magic"]


def test_signal_listed_twice(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["signals"]["graph"].append("graph.max_depth"))
    assert fields(err) == ["signals.graph[2]"]


def test_weight_key_with_unknown_signal(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"][0]["signal_weights"].update({"llm.depthh.low": 1.0}))
    assert fields(err) == ['strategies[0].signal_weights["llm.depthh.low"]']
    assert "unknown signal" in str(err)


def test_weight_key_with_bad_qualifier(tmp_path: Path) -> None:
    err = load_error(
        tmp_path, lambda d: d["strategies"][1]["signal_weights"].update({"llm.response_depth.very": 1.0})
    )
    assert fields(err) == ['strategies[1].signal_weights["llm.response_depth.very"]']
    assert "invalid qualifier 'very'" in str(err)


def test_weight_key_with_categorical_and_no_qualifier(tmp_path: Path) -> None:
    err = load_error(
        tmp_path, lambda d: d["strategies"][1]["signal_weights"].update({"meta.interview.phase": 1})
    )
    assert fields(err) == ['strategies[1].signal_weights["meta.interview.phase"]']


def test_weight_key_signal_not_listed_in_signals(tmp_path: Path) -> None:
    err = load_error(
        tmp_path, lambda d: d["strategies"][0]["signal_weights"].update({"llm.certainty.low": 0.4})
    )
    assert fields(err) == ['strategies[0].signal_weights["llm.certainty.low"]']
    assert "not listed under signals" in str(err)


def test_node_scoped_weight_on_unbound_strategy(tmp_path: Path) -> None:
    err = load_error(
        tmp_path, lambda d: d["strategies"][1]["signal_weights"].update({"graph.node.exhausted.true": -1})
    )
    assert fields(err) == ['strategies[1].signal_weights["graph.node.exhausted.true"]']
    assert "node_binding: none" in str(err)


def test_duplicate_strategy_names(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"].append(copy.deepcopy(d["strategies"][0])))
    assert fields(err) == ["strategies[2].name"]
    assert "duplicate strategy name 'deepen'" in str(err)


def test_no_strategies(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["strategies"] = []
        d["phases"] = {}

    assert fields(load_error(tmp_path, mutate)) == ["strategies"]


def test_invalid_node_binding(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"][0].update(node_binding="sometimes"))
    assert fields(err) == ["strategies[0].node_binding"]
    assert "'required' or 'none'" in str(err)


def test_invalid_focus_mode(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"][0].update(focus_mode="anywhere"))
    assert fields(err) == ["strategies[0].focus_mode"]


def test_phase_weight_names_undefined_strategy(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["phases"]["mid"]["signal_weights"].update(explore=1.5))
    assert fields(err) == ["phases.mid.signal_weights.explore"]
    assert "undefined strategy 'explore'" in str(err)


def test_phase_bonus_names_undefined_strategy(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["phases"]["late"]["phase_bonuses"].update(validate=0.5))
    assert fields(err) == ["phases.late.phase_bonuses.validate"]


def test_negative_phase_multiplier(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["phases"]["early"]["signal_weights"].update(deepen=-1.0))
    assert fields(err) == ["phases.early.signal_weights.deepen"]


def test_unknown_phase_name(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["phases"].update(middle={"signal_weights": {"deepen": 1.0}}))
    assert fields(err) == ["phases.middle"]
    assert "'early', 'mid' or 'late'" in str(err)


def test_edge_connects_undefined_node_type(tmp_path: Path) -> None:
    err = load_error(
        tmp_path, lambda d: d["ontology"]["edges"][0]["permitted_connections"].append(["attribute", "goal"])
    )
    assert fields(err) == ["ontology.edges[0].permitted_connections[1][1]"]
    assert "undefined node type 'goal'" in str(err)


def test_duplicate_node_type(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["ontology"]["nodes"].append({"name": "attribute", "level": 3}))
    assert fields(err) == ["ontology.nodes[2].name"]


def test_duplicate_edge_type(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["ontology"]["edges"].append({"name": "leads_to"}))
    assert fields(err) == ["ontology.edges[1].name"]


def test_no_terminal_node_type(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["ontology"]["nodes"][1].update(terminal=False))
    assert fields(err) == ["ontology.nodes"]
    assert "terminal" in str(err)


def test_method_name_must_match_file_name(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["method"].update(name="other"))
    assert fields(err) == ["method.name"]


def test_every_violation_is_reported(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["strategies"][0]["signal_weights"]["llm.nope"] = 1
        d["phases"]["mid"]["phase_bonuses"]["ghost"] = 1

    err = load_error(tmp_path, mutate)
    assert fields(err) == ['strategies[0].signal_weights["llm.nope"]', "phases.mid.phase_bonuses.ghost"]


# ---- concepts ---------------------------------------------------------------------------------


def write_concept(tmp_path: Path, data: Any, name: str = "topic") -> Path:
    folder = tmp_path / "concepts"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    return path


def concept_error(tmp_path: Path, data: Any, *, with_methodologies: bool = False) -> MethodologyError:
    path = write_concept(tmp_path, data)
    methodologies = None
    if with_methodologies:
        write(tmp_path, valid_methodology())
        methodologies = MethodologyRegistry(tmp_path)
    with pytest.raises(MethodologyError) as info:
        ConceptRegistry(tmp_path, methodologies).all()
    assert str(path) in str(info.value)
    return info.value


CONCEPT = {"id": "topic", "name": "Topic", "methodology": "mini", "objective": "Learn things."}


def test_concept_missing_objective(tmp_path: Path) -> None:
    data = {k: v for k, v in CONCEPT.items() if k != "objective"}
    assert fields(concept_error(tmp_path, data)) == ["objective"]


def test_concept_extra_field(tmp_path: Path) -> None:
    assert fields(concept_error(tmp_path, CONCEPT | {"elements": []})) == ["elements"]


def test_concept_extra_context_field(tmp_path: Path) -> None:
    data = {k: v for k, v in CONCEPT.items() if k != "objective"} | {
        "context": {"objective": "x", "aim": "y"}
    }
    assert fields(concept_error(tmp_path, data)) == ["context.aim"]


def test_concept_objective_given_twice(tmp_path: Path) -> None:
    data = CONCEPT | {"context": {"objective": "other"}}
    assert fields(concept_error(tmp_path, data)) == ["context.objective"]


def test_concept_bad_max_turns(tmp_path: Path) -> None:
    assert fields(concept_error(tmp_path, CONCEPT | {"max_turns": 0})) == ["max_turns"]


def test_concept_id_must_match_file_name(tmp_path: Path) -> None:
    assert fields(concept_error(tmp_path, CONCEPT | {"id": "other"})) == ["id"]


def test_concept_blank_objective(tmp_path: Path) -> None:
    assert fields(concept_error(tmp_path, CONCEPT | {"objective": "  "})) == ["objective"]


def test_concept_unknown_methodology(tmp_path: Path) -> None:
    err = concept_error(tmp_path, CONCEPT | {"methodology": "laddering"}, with_methodologies=True)
    assert fields(err) == ["methodology"]
    assert "unknown methodology 'laddering'" in str(err)


def test_concept_yaml_syntax_error(tmp_path: Path) -> None:
    err = concept_error(tmp_path, "id: topic\nname: [oops\n")
    assert fields(err)[0].startswith("line ")


def test_focus_node_types_must_be_ontology_node_types(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"][0].update(focus_node_types=["attribute", "benefit"]))
    assert fields(err) == ["strategies[0].focus_node_types[1]"]
    assert "'benefit' is not an ontology node type" in str(err)


def test_focus_node_types_on_a_strategy_that_binds_no_node(tmp_path: Path) -> None:
    err = load_error(tmp_path, lambda d: d["strategies"][1].update(focus_node_types=["attribute"]))
    assert fields(err) == ["strategies[1].focus_node_types"]
    assert "node_binding: none" in str(err)


def test_one_strategy_must_be_free_of_focus_node_types(tmp_path: Path) -> None:
    def mutate(d: dict[str, Any]) -> None:
        d["strategies"] = [d["strategies"][0]]
        d["strategies"][0]["focus_node_types"] = ["attribute"]
        d["phases"] = {}

    err = load_error(tmp_path, mutate)
    assert fields(err) == ["strategies"]
    assert "one without them is needed" in str(err)


def test_focus_node_types_load(tmp_path: Path) -> None:
    data = valid_methodology()
    data["strategies"][0]["focus_node_types"] = ["attribute"]
    write(tmp_path, data)
    assert MethodologyRegistry(tmp_path).get("mini").strategies[0].focus_node_types == ("attribute",)
