"""Helpers of the deployment tests: the suite's services as the code defines them.

The expected names, ports and env prefixes are read from the code (the launcher's service list and
each service's settings class), never restated here, so a deployment file that drifts from the code
fails its test.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from services.launcher import SERVICES as LAUNCHER_SERVICES
from shared.settings import ServiceSettings

ROOT = Path(__file__).resolve().parents[2]

# Variables without a service prefix that deployment files may set (read by shared.llm.LLMSettings
# or by the Hugging Face libraries).
LLM_KEY_VARS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "KIMI_API_KEY", "DEEPSEEK_API_KEY")
UNPREFIXED_VARS = frozenset({*LLM_KEY_VARS, "HF_HUB_OFFLINE"})
# The services that call an LLM (README's "calls an LLM for" column): only they get provider keys.
LLM_SERVICES = frozenset({"extraction", "canonical_slots", "scoring", "question"})


@dataclass(frozen=True)
class Service:
    """One service of the suite: package, DNS name, default port, settings class."""

    package: str  # folder under services/, e.g. "graph_store"
    settings_cls: type[ServiceSettings]

    @property
    def dns_name(self) -> str:
        """Compose service / Kubernetes object name (DNS labels allow no underscore)."""
        return self.package.replace("_", "-")

    @property
    def port(self) -> int:
        """The default port of the settings class."""
        return int(self.settings_cls.model_fields["port"].default)

    @property
    def prefix(self) -> str:
        """The env prefix of the settings class, e.g. "GRAPH_STORE_"."""
        return str(self.settings_cls.model_config.get("env_prefix", ""))


def settings_class(package: str) -> type[ServiceSettings]:
    """The `ServiceSettings` subclass defined in `services/<package>/settings.py`."""
    module = importlib.import_module(f"services.{package}.settings")
    found = [
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, ServiceSettings) and cls.__module__ == module.__name__
    ]
    assert len(found) == 1, f"services/{package}/settings.py defines {len(found)} ServiceSettings classes"
    return found[0]


def settings_field_errors(env: Mapping[str, str], services: Mapping[str, Service]) -> list[str]:
    """Variables in `env` that no settings class reads: an unknown prefix, or a typo in the field.

    The settings classes ignore unknown variables (extra="ignore"), so a misspelt name would be
    silently dropped at run time; this catches it.
    """
    errors = []
    for var in env:
        if var in UNPREFIXED_VARS:
            continue
        owners = [s for s in services.values() if var.startswith(s.prefix)]
        if not owners:
            errors.append(f"{var}: no service reads it")
            continue
        service = max(owners, key=lambda s: len(s.prefix))
        field = var[len(service.prefix) :].lower()
        if field not in service.settings_cls.model_fields:
            errors.append(f"{var}: {service.settings_cls.__name__} has no field {field!r}")
    return errors


def build_settings(
    service: Service, env: Mapping[str, str], monkeypatch: pytest.MonkeyPatch
) -> ServiceSettings:
    """Instantiate the service's settings from exactly its variables in `env` (validation included)."""
    for var in list(os.environ):
        if var.startswith(service.prefix):
            monkeypatch.delenv(var)
    for var, value in env.items():
        if var.startswith(service.prefix):
            monkeypatch.setenv(var, value)
    return service.settings_cls()


def load_suite() -> dict[str, Service]:
    """Every service of the suite by package name (the launcher's list, each with its settings)."""
    return {name: Service(name, settings_class(name)) for name, _, _ in LAUNCHER_SERVICES}
