"""The command line: validation, option errors before any connection, the health wait."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulation.cli import main
from simulation.settings import SimulationSettings
from tests.ports import closed_port


def _settings() -> SimulationSettings:
    return SimulationSettings(use_embeddings=False)


def test_validate_lists_personas_and_scenarios(capsys: pytest.CaptureFixture[str], config_dir: Path) -> None:
    assert main(["validate", "--config-dir", str(config_dir)], _settings()) == 0
    out = capsys.readouterr().out
    assert out.startswith("9 personas: baseline_cooperative, brief_responder,")
    assert "headphones_mec_commuter: concept headphones_mec, 17 elements, 15 links, 4 chains" in out


def test_unknown_persona_is_a_usage_error(capsys: pytest.CaptureFixture[str], config_dir: Path) -> None:
    code = main(
        [
            "run",
            "--config-dir",
            str(config_dir),
            "--target",
            "127.0.0.1:1",
            "--concept",
            "headphones_mec",
            "--persona",
            "nobody",
        ],
        _settings(),
    )
    assert code == 2
    assert "persona 'nobody' not found" in capsys.readouterr().err


def test_scenario_must_belong_to_the_concept(capsys: pytest.CaptureFixture[str], config_dir: Path) -> None:
    code = main(
        [
            "run",
            "--config-dir",
            str(config_dir),
            "--target",
            "127.0.0.1:1",
            "--concept",
            "coffee_jtbd",
            "--persona",
            "brief_responder",
            "--scenario",
            str(config_dir / "scenarios" / "headphones_mec_runner.yaml"),
        ],
        _settings(),
    )
    assert code == 2
    assert "is for 'headphones_mec'" in capsys.readouterr().err


def test_wait_reports_a_service_that_is_not_there(capsys: pytest.CaptureFixture[str]) -> None:
    port = closed_port()
    assert main(["wait", "--target", f"127.0.0.1:{port}", "--timeout", "0.5"], _settings()) == 1
    assert "not serving" in capsys.readouterr().out


@pytest.mark.parametrize("variable", ["SIMULATION_TOKEN", "ORCHESTRATOR_AUTH_TOKEN"])
def test_token_comes_from_its_own_or_the_orchestrators_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    # `make simulate` starts the services with the environment it was given, token included.
    monkeypatch.setenv(variable, "s3cret")
    token = SimulationSettings().token
    assert token is not None and token.get_secret_value() == "s3cret"
