"""Persona files: the nine shipped personas load; invalid files fail with the field named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from shared.errors import NotFoundError
from simulation.personas import Fatigue, PersonaError, PersonaRegistry, load_persona_file
from tests.unit.simulation.support import persona_data

SPEC_PERSONAS = {
    "baseline_cooperative",
    "brief_responder",
    "emotionally_reactive",
    "fatiguing",
    "retrospective_rationaliser",
    "single_topic_fixator",
    "sceptical_analyst",
    "uncertain_hedger",
    "verbose_tangential",
}


def _write(tmp_path: Path, data: dict[str, Any], name: str = "plain") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_the_nine_spec_personas_are_shipped(personas: PersonaRegistry) -> None:
    assert set(personas.names()) == SPEC_PERSONAS


def test_shipped_personas_differ_where_the_spec_says(personas: PersonaRegistry) -> None:
    brief, base = personas.get("brief_responder"), personas.get("baseline_cooperative")
    assert brief.answer_length.max_words < base.answer_length.max_words
    assert personas.get("uncertain_hedger").hedging.probability > base.hedging.probability
    assert personas.get("verbose_tangential").tangents.probability > 0
    assert personas.get("fatiguing").fatigue.onset_turn > 0
    assert personas.get("retrospective_rationaliser").rationalisation.emotional_probe_threshold == 2
    assert personas.get("single_topic_fixator").fixation.probability > 0
    assert personas.get("sceptical_analyst").scepticism.probability > 0
    assert personas.get("emotionally_reactive").valence.intensity > base.valence.intensity


def test_a_valid_file_loads(tmp_path: Path) -> None:
    persona = load_persona_file(_write(tmp_path, persona_data()))
    assert persona.name == "plain"
    assert persona.answer_length.elements_per_answer == 1


@pytest.mark.parametrize(
    ("overrides", "field", "text"),
    [
        (
            {"answer_length": {"min_words": 50, "max_words": 10, "elements_per_answer": 1}},
            "answer_length",
            "min_words must not exceed max_words",
        ),
        (
            {"hedging": {"probability": 1.5, "phrases": ["I guess"]}},
            "hedging.probability",
            "less than or equal to 1",
        ),
        ({"hedging": {"probability": 0.5}}, "hedging", "phrases must not be empty"),
        (
            {"scepticism": {"question_only_probability": 0.2}},
            "scepticism",
            "counter_questions must not be empty",
        ),
        ({"valence": {"intensity": 0.5, "positive": ["great"]}}, "valence", "positive and negative"),
        ({"rationalisation": {"emotional_probe_threshold": 2}}, "rationalisation", "practical_phrases"),
        ({"mood": "grumpy"}, "mood", "Extra inputs are not permitted"),
        ({"traits": []}, "traits", "at least 1 item"),
    ],
)
def test_invalid_fields_are_named(tmp_path: Path, overrides: dict[str, Any], field: str, text: str) -> None:
    with pytest.raises(PersonaError) as info:
        load_persona_file(_write(tmp_path, persona_data(**overrides)))
    fields = {v.field: v.description for v in info.value.violations}
    assert field in fields, fields
    assert text in fields[field]
    assert "plain.yaml" in str(info.value)


def test_name_must_match_the_file(tmp_path: Path) -> None:
    with pytest.raises(PersonaError) as info:
        load_persona_file(_write(tmp_path, persona_data(), name="other"))
    assert [v.field for v in info.value.violations] == ["name"]


def test_yaml_syntax_error_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "plain.yaml"
    path.write_text("name: [unclosed\n", encoding="utf-8")
    with pytest.raises(PersonaError, match="YAML syntax error"):
        load_persona_file(path)


def test_registry_rejects_an_unknown_name(tmp_path: Path) -> None:
    (tmp_path / "personas").mkdir()
    _write(tmp_path / "personas", persona_data())
    registry = PersonaRegistry(tmp_path)
    assert registry.names() == ["plain"]
    with pytest.raises(NotFoundError):
        registry.get("nobody")


def test_fatigue_curve() -> None:
    curve = Fatigue(onset_turn=5, decay_per_turn=0.2, floor=0.3)
    # 1.0 before the onset, then 1 - 0.2·(turn - 5 + 1), never below the floor
    assert [round(curve.energy(t), 2) for t in (1, 4, 5, 6, 7, 20)] == [1.0, 1.0, 0.8, 0.6, 0.4, 0.3]
    assert Fatigue().energy(50) == 1.0
