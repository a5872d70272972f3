"""Orchestrator settings: combinations that must fail at start-up instead of serving wrongly."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from services.orchestrator.settings import OrchestratorSettings


@pytest.mark.parametrize(
    ("variable", "missing"),
    [("ORCHESTRATOR_TLS_CERT_FILE", "tls_key_file"), ("ORCHESTRATOR_TLS_KEY_FILE", "tls_cert_file")],
)
def test_half_a_tls_configuration_is_rejected(
    monkeypatch: pytest.MonkeyPatch, variable: str, missing: str
) -> None:
    monkeypatch.setenv(variable, "/etc/tls/file.pem")
    with pytest.raises(ValidationError) as caught:
        OrchestratorSettings()
    assert f"but {missing} is not: TLS needs both files" in str(caught.value)


def test_tls_is_off_or_fully_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    assert OrchestratorSettings().tls_cert_file is None
    monkeypatch.setenv("ORCHESTRATOR_TLS_CERT_FILE", "/etc/tls/cert.pem")
    monkeypatch.setenv("ORCHESTRATOR_TLS_KEY_FILE", "/etc/tls/key.pem")
    settings = OrchestratorSettings()
    assert (settings.tls_cert_file, settings.tls_key_file) == ("/etc/tls/cert.pem", "/etc/tls/key.pem")
