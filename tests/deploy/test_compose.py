"""docker-compose.yml, as Debian's `docker-compose config` parses, validates and interpolates it.

No Docker engine runs here, so `config` is the validator; the assertions run on its output (the
effective model after anchors, merges and `${VAR}` interpolation), not on the raw text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from tests.deploy.helpers import (
    LLM_KEY_VARS,
    ROOT,
    Service,
    build_settings,
    settings_field_errors,
)

COMPOSE_FILE = ROOT / "docker-compose.yml"
COLLECTOR_CONFIG = ROOT / "deploy" / "otel" / "collector.yaml"
HEALTHCHECK_IN_IMAGE = "/app/deploy/docker/healthcheck.py"
COLLECTOR_ENDPOINT = "http://otel-collector:4317"
PASSWORD = "pw-sentinel-0123456789abcdef"
KEY_SENTINELS = {var: f"sentinel-{var.lower()}" for var in LLM_KEY_VARS}
# A DSN as committed: the password is an interpolation of POSTGRES_PASSWORD, nothing literal.
RAW_DSN = re.compile(r"postgresql\+asyncpg://[^:/@]+:\$\{POSTGRES_PASSWORD(:\?[^}]*)?\}@[^@]+")
# Variables of the caller's environment that the compose file interpolates.
INTERPOLATED = ("POSTGRES_PASSWORD", "LOG_LEVEL", "IMAGE_TAG", "ORCHESTRATOR_AUTH_TOKEN", *LLM_KEY_VARS)
TOKEN = "token-sentinel-42"

pytestmark = pytest.mark.skipif(
    shutil.which("docker-compose") is None,
    reason="docker-compose is not installed (scripts/install_system_tools.sh installs Debian's)",
)


def run_config(extra_env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """`docker-compose -f docker-compose.yml config` with only `extra_env` of the interpolated vars."""
    env = {k: v for k, v in os.environ.items() if k not in INTERPOLATED and not k.startswith("COMPOSE_")}
    env.update(extra_env)
    return subprocess.run(
        ["docker-compose", "-f", str(COMPOSE_FILE), "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def parsed_config(extra_env: Mapping[str, str]) -> dict[str, Any]:
    result = run_config(extra_env)
    assert result.returncode == 0, result.stderr
    config: dict[str, Any] = yaml.safe_load(result.stdout)
    return config


@pytest.fixture(scope="module")
def offline() -> dict[str, Any]:
    """The effective configuration with a database password and no LLM key in the environment."""
    return parsed_config({"POSTGRES_PASSWORD": PASSWORD})


@pytest.fixture(scope="module")
def with_keys() -> dict[str, Any]:
    """The effective configuration with every LLM key set (to sentinels)."""
    return parsed_config({"POSTGRES_PASSWORD": PASSWORD, "ORCHESTRATOR_AUTH_TOKEN": TOKEN, **KEY_SENTINELS})


def app_services(config: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The services built from the project's Dockerfile (the six gRPC services)."""
    return {name: svc for name, svc in config["services"].items() if "build" in svc}


def by_package(config: Mapping[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Package name (the SERVICE build arg) → (compose service name, service)."""
    return {svc["build"]["args"]["SERVICE"]: (name, svc) for name, svc in app_services(config).items()}


def environment(svc: Mapping[str, Any]) -> dict[str, str]:
    env = svc.get("environment") or {}
    if isinstance(env, list):  # list form: ["KEY=value", ...]
        env = dict(item.split("=", 1) for item in env)
    return {k: "" if v is None else str(v) for k, v in env.items()}


def networks_of(svc: Mapping[str, Any]) -> set[str]:
    nets = svc.get("networks") or {}
    return set(nets)


def published(svc: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """(host ip, published port, container port) of every published port, short or long syntax."""
    out = []
    for entry in svc.get("ports") or []:
        if isinstance(entry, dict):
            out.append((entry.get("host_ip", ""), int(entry["published"]), int(entry["target"])))
            continue
        spec = str(entry).split("/", 1)[0]
        parts = spec.split(":")
        if len(parts) == 1:  # "50051": a random host port, still published
            out.append(("", 0, int(parts[0])))
        elif len(parts) == 2:
            out.append(("", int(parts[0]), int(parts[1])))
        else:
            out.append((parts[0], int(parts[1]), int(parts[2])))
    return out


# -- the six services ---------------------------------------------------------------------------------
def test_every_service_is_built_from_its_package(offline: dict[str, Any], suite: dict[str, Service]) -> None:
    packages = by_package(offline)
    assert set(packages) == set(suite), "one compose service per services/<name> package"
    for package, (name, svc) in packages.items():
        assert (ROOT / "services" / package / "__main__.py").is_file(), f"python -m services.{package}"
        assert name == suite[package].dns_name
        assert svc["build"]["dockerfile"] == "deploy/docker/Dockerfile"
        assert Path(svc["build"]["context"]).resolve() == ROOT
        assert int(svc["build"]["args"]["PORT"]) == suite[package].port, f"{name}: PORT build arg"
    extra = set(offline["services"]) - {n for n, _ in packages.values()}
    assert extra == {"postgres", "otel-collector", "jaeger"}


def test_only_the_orchestrator_and_the_jaeger_ui_are_published(
    offline: dict[str, Any], suite: dict[str, Service]
) -> None:
    ports = {name: published(svc) for name, svc in offline["services"].items() if svc.get("ports")}
    assert set(ports) == {"orchestrator", "jaeger"}
    assert [(p, t) for _, p, t in ports["orchestrator"]] == [(50051, suite["orchestrator"].port)]
    assert ports["jaeger"] == [("127.0.0.1", 16686, 16686)], "the trace UI stays on the host's loopback"
    for name, svc in offline["services"].items():
        assert svc.get("network_mode") is None, f"{name} must not use another network mode"


def test_internal_services_sit_on_an_internal_network(offline: dict[str, Any]) -> None:
    networks = offline["networks"]
    assert networks["internal"].get("internal") is True
    services = offline["services"]
    for name, svc in services.items():
        assert "internal" in networks_of(svc), f"{name} is not on the internal network"
    on_public = {name for name, svc in services.items() if "public" in networks_of(svc)}
    assert on_public == {"orchestrator", "jaeger"}
    for name, svc in services.items():
        outside = networks_of(svc) - {n for n, spec in networks.items() if (spec or {}).get("internal")}
        if published(svc):
            continue
        # A service that publishes nothing may leave the internal network only to reach an LLM API.
        if outside:
            assert outside == {"llm-egress"}, f"{name} is on {outside}"
            assert set(LLM_KEY_VARS) <= set(environment(svc)), f"{name} has no LLM key but egress"
    for name in ("postgres", "graph-store", "otel-collector"):
        assert networks_of(services[name]) == {"internal"}, f"{name} must be reachable only internally"


# -- health ---------------------------------------------------------------------------------------------
def test_app_services_are_health_checked_over_grpc_health(offline: dict[str, Any]) -> None:
    for name, svc in app_services(offline).items():
        check = svc.get("healthcheck") or {}
        assert not check.get("disable"), name
        assert check["test"][:2] == ["CMD", "python"], name
        assert HEALTHCHECK_IN_IMAGE in check["test"], name
    postgres_check = offline["services"]["postgres"]["healthcheck"]["test"]
    assert "pg_isready" in postgres_check


def test_dependencies_wait_until_healthy(offline: dict[str, Any]) -> None:
    services = offline["services"]
    packages = by_package(offline)
    for name, svc in app_services(offline).items():
        for dep, spec in (svc.get("depends_on") or {}).items():
            assert spec == {"condition": "service_healthy"}, f"{name} → {dep}: {spec}"
            assert services[dep].get("healthcheck"), f"{name} waits for {dep}, which has no healthcheck"
        if any(var.endswith("_DATABASE_URL") for var in environment(svc)):
            assert "postgres" in (svc.get("depends_on") or {}), f"{name} uses PostgreSQL"
    orchestrator_deps = set(services["orchestrator"]["depends_on"])
    others = {name for pkg, (name, _) in packages.items() if pkg != "orchestrator"}
    assert orchestrator_deps == others | {"postgres"}


# -- configuration -------------------------------------------------------------------------------------
def test_each_service_accepts_its_environment(
    offline: dict[str, Any], suite: dict[str, Service], monkeypatch: pytest.MonkeyPatch
) -> None:
    packages = by_package(offline)
    for package, (name, svc) in packages.items():
        env = environment(svc)
        service = suite[package]
        assert settings_field_errors(env, suite) == [], name
        foreign = [v for v in env if any(v.startswith(s.prefix) for s in suite.values() if s != service)]
        assert foreign == [], f"{name} sets another service's variables"
        settings = build_settings(service, env, monkeypatch)
        assert settings.otel_exporter == "otlp", name
        assert settings.otel_endpoint == COLLECTOR_ENDPOINT, name
        url = getattr(settings, "database_url", None)
        if url is not None:
            assert url.startswith("postgresql+asyncpg://"), f"{name} must use PostgreSQL"
            assert urlsplit(url).hostname == "postgres"
    orchestrator = build_settings(
        suite["orchestrator"], environment(packages["orchestrator"][1]), monkeypatch
    )
    for package, service in suite.items():
        if package == "orchestrator":
            continue
        target = getattr(orchestrator, f"{package}_target")
        assert target == f"{packages[package][0]}:{service.port}", f"orchestrator → {package}"


def test_traces_flow_through_the_collector_to_jaeger(offline: dict[str, Any]) -> None:
    services = offline["services"]
    collector = services["otel-collector"]
    mounts = {str(Path(v.split(":")[0]).resolve()): v.split(":")[1] for v in collector["volumes"]}
    config_path = mounts[str(COLLECTOR_CONFIG)]
    assert f"--config={config_path}" in collector["command"]
    config = yaml.safe_load(COLLECTOR_CONFIG.read_text())
    pipeline = config["service"]["pipelines"]["traces"]
    assert config["receivers"]["otlp"]["protocols"]["grpc"]["endpoint"].endswith(":4317")
    assert set(pipeline["receivers"]) <= set(config["receivers"])
    assert set(pipeline["processors"]) <= set(config["processors"])
    assert set(pipeline["exporters"]) <= set(config["exporters"])
    hosts = {config["exporters"][e]["endpoint"].rsplit(":", 1)[0] for e in pipeline["exporters"]}
    assert hosts == {"jaeger"}
    assert networks_of(services["jaeger"]) & networks_of(collector)
    for name, svc in app_services(offline).items():
        assert networks_of(svc) & networks_of(collector), f"{name} cannot reach the collector"


# -- secrets --------------------------------------------------------------------------------------------
def test_no_secret_is_written_in_the_file() -> None:
    raw = yaml.safe_load(COMPOSE_FILE.read_text())  # no interpolation: the text as committed
    checked = 0
    for name, svc in raw["services"].items():
        for var, value in environment(svc).items():
            if any(word in var for word in ("KEY", "PASSWORD", "SECRET", "TOKEN")):
                assert value.startswith("${") and value.endswith("}"), f"{name}: {var} is a literal"
                checked += 1
            if var.endswith("DATABASE_URL"):
                assert RAW_DSN.fullmatch(value), f"{name}: {var} must take its password from the env"
                checked += 1
    assert checked >= len(LLM_KEY_VARS) + 1


def test_secrets_come_from_the_callers_environment(
    offline: dict[str, Any], with_keys: dict[str, Any]
) -> None:
    for name, svc in with_keys["services"].items():
        env = environment(svc)
        for var, sentinel in KEY_SENTINELS.items():
            if var in env:
                assert env[var] == sentinel, f"{name}: {var}"
                assert environment(offline["services"][name])[var] == "", f"{name}: {var} without a key"
        for var, value in env.items():
            if var.endswith("DATABASE_URL"):
                assert urlsplit(value).password == PASSWORD, f"{name}: {var}"
    assert environment(with_keys["services"]["postgres"])["POSTGRES_PASSWORD"] == PASSWORD
    # The public API's bearer token: only the orchestrator has it; unset means no authentication.
    holders = {n for n, svc in with_keys["services"].items() if TOKEN in environment(svc).values()}
    assert holders == {"orchestrator"}
    assert environment(offline["services"]["orchestrator"])["ORCHESTRATOR_AUTH_TOKEN"] == ""
    llm_users = {n for n, s in with_keys["services"].items() if set(KEY_SENTINELS) & set(environment(s))}
    # Least privilege: the keys go only to services that call an LLM.
    assert llm_users == {"extraction", "canonical-slots", "scoring", "question"}
    dumped = yaml.safe_dump(with_keys)
    for sentinel in KEY_SENTINELS.values():
        assert dumped.count(sentinel) == len(llm_users)


def test_the_database_password_is_required() -> None:
    result = run_config({})
    assert result.returncode != 0
    assert "POSTGRES_PASSWORD" in result.stderr


def test_app_containers_are_hardened(offline: dict[str, Any]) -> None:
    for name, svc in app_services(offline).items():
        assert svc.get("read_only") is True, name
        assert any(str(t).split(":")[0] == "/tmp" for t in svc.get("tmpfs") or []), name
        assert svc.get("cap_drop") == ["ALL"], name
        assert "no-new-privileges:true" in (svc.get("security_opt") or []), name
        assert not svc.get("privileged"), name
        assert svc.get("user") in (None, ""), f"{name}: the image's non-root user must not be overridden"
