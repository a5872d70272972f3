"""deploy/k8s: the kustomize base and the local overlay, rendered and checked object by object.

Each kustomization is rendered twice when a kustomize build tool is installed (`kustomize build` or
`kubectl kustomize`): by that tool and by the structural Python loader (tests/deploy/kustomize_py.py),
and every assertion runs on both. Without the tool the kustomize rendering is skipped with the reason.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy import kustomize_py
from tests.deploy.helpers import (
    LLM_KEY_VARS,
    LLM_SERVICES,
    ROOT,
    Service,
    build_settings,
    settings_field_errors,
)

K8S = ROOT / "deploy" / "k8s"
BASE = K8S / "base"
LOCAL = K8S / "overlays" / "local"
COLLECTOR_CONFIG = ROOT / "deploy" / "otel" / "collector.yaml"
SECRET_WORDS = ("KEY", "PASSWORD", "SECRET", "TOKEN", "DATABASE_URL")
IMAGE = "interview-suite"

Doc = dict[str, Any]


def kustomize_command() -> list[str] | None:
    """The installed kustomize build command, if any."""
    if shutil.which("kustomize"):
        return ["kustomize", "build"]
    if shutil.which("kubectl"):
        probe = subprocess.run(
            ["kubectl", "kustomize", "--help"], capture_output=True, timeout=60, check=False
        )
        if probe.returncode == 0:
            return ["kubectl", "kustomize"]
    return None


def render_with_kustomize(directory: Path) -> list[Doc]:
    command = kustomize_command()
    if command is None:
        pytest.skip(
            "no kustomize build tool installed (scripts/install_system_tools.sh); "
            "the Python rendering of the same kustomization still runs"
        )
    result = subprocess.run(
        [*command, str(directory)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.safe_load_all(result.stdout) if d]


RENDERERS = {"kustomize": render_with_kustomize, "python": kustomize_py.render}


@pytest.fixture(scope="module", params=["kustomize", "python"])
def renderer(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def base_docs(renderer: str) -> list[Doc]:
    return RENDERERS[renderer](BASE)


@pytest.fixture(scope="module")
def local_docs(renderer: str) -> list[Doc]:
    return RENDERERS[renderer](LOCAL)


@pytest.fixture(scope="module", params=["base", "local"])
def docs(request: pytest.FixtureRequest, base_docs: list[Doc], local_docs: list[Doc]) -> list[Doc]:
    """The rendered objects of the base and of the local overlay (each with both renderers)."""
    return base_docs if request.param == "base" else local_docs


def find(docs: list[Doc], kind: str, name: str) -> Doc:
    matches = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(matches) == 1, f"{kind}/{name}: {len(matches)} found"
    return matches[0]


def workloads(docs: list[Doc]) -> Iterator[Doc]:
    return (d for d in docs if d["kind"] in kustomize_py.WORKLOADS)


def pod_spec(workload: Doc) -> Doc:
    spec: Doc = workload["spec"]["template"]["spec"]
    return spec


def main_container(workload: Doc) -> Doc:
    containers = pod_spec(workload)["containers"]
    assert len(containers) == 1, workload["metadata"]["name"]
    container: Doc = containers[0]
    return container


def selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Kubernetes label-selector semantics (matchLabels + In/NotIn/Exists/DoesNotExist)."""
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for expr in selector.get("matchExpressions") or []:
        key, op, values = expr["key"], expr["operator"], expr.get("values", [])
        ok = {
            "In": labels.get(key) in values,
            "NotIn": labels.get(key) not in values,
            "Exists": key in labels,
            "DoesNotExist": key not in labels,
        }[op]
        if not ok:
            return False
    return True


_QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)(m|Ki|Mi|Gi|Ti|k|M|G|T)?$")
_FACTORS = {
    None: 1.0,
    "m": 1e-3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "Ki": 2.0**10,
    "Mi": 2.0**20,
    "Gi": 2.0**30,
    "Ti": 2.0**40,
}


def quantity(value: str | int | float) -> float:
    match = _QUANTITY.match(str(value))
    assert match, f"not a quantity: {value!r}"
    return float(match.group(1)) * _FACTORS[match.group(2)]


# -- kustomize vs the Python loader --------------------------------------------------------------------
@pytest.mark.parametrize("directory", [BASE, LOCAL], ids=["base", "local"])
def test_python_rendering_matches_kustomize(directory: Path) -> None:
    """The fallback loader renders exactly what kustomize renders, up to generated-name hashes."""
    ours = kustomize_py.render(directory)
    theirs = render_with_kustomize(directory)
    text = yaml.safe_dump_all(theirs)
    for generated in (d["metadata"]["name"] for d in ours if d["kind"] in ("ConfigMap", "Secret")):
        text, count = re.subn(rf"\b{re.escape(generated)}-[a-z0-9]{{10}}\b", generated, text)
        assert count >= 1, f"kustomize did not generate {generated}"

    def canonical(items: list[Doc]) -> list[str]:
        return sorted(json.dumps(item, sort_keys=True) for item in items)

    assert canonical(list(yaml.safe_load_all(text))) == canonical(ours)


# -- one Deployment and one Service per service -----------------------------------------------------------
def test_every_service_has_a_deployment_and_a_service(docs: list[Doc], suite: dict[str, Service]) -> None:
    for package, service in suite.items():
        deployment = find(docs, "Deployment", service.dns_name)
        svc = find(docs, "Service", service.dns_name)
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert selects(deployment["spec"]["selector"], labels)
        assert selects({"matchLabels": svc["spec"]["selector"]}, labels), f"{service.dns_name}: selector"
        others = [d for d in workloads(docs) if d is not deployment]
        assert not any(
            selects({"matchLabels": svc["spec"]["selector"]}, d["spec"]["template"]["metadata"]["labels"])
            for d in others
        )
        container = main_container(deployment)
        assert container["command"] == ["python", "-m", f"services.{package}"]
        assert (ROOT / "services" / package).is_dir()
        assert container["image"].split(":")[0] == IMAGE


def test_probes_are_native_grpc_on_the_service_port(docs: list[Doc], suite: dict[str, Service]) -> None:
    for service in suite.values():
        container = main_container(find(docs, "Deployment", service.dns_name))
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        assert ports == {"grpc": service.port}, service.dns_name
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            grpc_probe = container[probe]["grpc"]
            assert grpc_probe["port"] == service.port, f"{service.dns_name} {probe}"
            assert grpc_probe.get("service", "") == "", "the server-wide status covers every service"
        svc = find(docs, "Service", service.dns_name)
        [port] = svc["spec"]["ports"]
        assert port["port"] == service.port
        assert port["targetPort"] in ("grpc", service.port)
        assert port.get("appProtocol") == "grpc"


def test_internal_services_are_headless(docs: list[Doc], suite: dict[str, Service]) -> None:
    for package, service in suite.items():
        cluster_ip = find(docs, "Service", service.dns_name)["spec"].get("clusterIP")
        if package == "orchestrator":
            assert cluster_ip != "None", "the public entry point keeps a virtual IP"
        else:
            assert cluster_ip == "None", f"{service.dns_name}: round_robin needs every pod's address"


def test_every_container_has_requests_and_limits(docs: list[Doc]) -> None:
    checked = 0
    for container in kustomize_py.containers(docs):
        resources = container.get("resources") or {}
        for resource in ("cpu", "memory"):
            request = quantity(resources["requests"][resource])
            limit = quantity(resources["limits"][resource])
            assert 0 < request <= limit, f"{container['name']} {resource}"
        checked += 1
    assert checked >= 7  # six services and the collector at least


def test_every_pod_is_hardened(docs: list[Doc], suite: dict[str, Service]) -> None:
    app_names = {s.dns_name for s in suite.values()}
    for workload in workloads(docs):
        name = workload["metadata"]["name"]
        pod = pod_spec(workload)
        pod_security = pod.get("securityContext") or {}
        assert pod_security.get("runAsNonRoot") is True, name
        assert pod_security.get("runAsUser", 1) != 0, name
        assert (pod_security.get("seccompProfile") or {}).get("type") == "RuntimeDefault", name
        assert pod.get("automountServiceAccountToken") is False, name
        assert not any(pod.get(k) for k in ("hostNetwork", "hostPID", "hostIPC")), name
        if name in app_names:
            # Service links would inject e.g. ORCHESTRATOR_PORT=tcp://…, clashing with the settings prefix.
            assert pod.get("enableServiceLinks") is False, name
        empty_dirs = {v["name"] for v in pod.get("volumes", []) if "emptyDir" in v}
        for container in pod["containers"]:
            security = container.get("securityContext") or {}
            assert security.get("readOnlyRootFilesystem") is True, name
            assert security.get("allowPrivilegeEscalation") is False, name
            assert security.get("capabilities") == {"drop": ["ALL"]}, name
            assert not security.get("privileged"), name
            tmp = [m for m in container.get("volumeMounts", []) if m["mountPath"] == "/tmp"]
            assert len(tmp) == 1 and tmp[0]["name"] in empty_dirs, f"{name}: /tmp must be an emptyDir"


# -- configuration and secrets ------------------------------------------------------------------------
def configmap_env(docs: list[Doc], container: Doc) -> dict[str, str]:
    """The variables a container gets from ConfigMaps (each referenced ConfigMap must exist)."""
    env: dict[str, str] = {}
    for source in container.get("envFrom", []):
        assert "secretRef" not in source or source["secretRef"].get("optional") is True
        if "configMapRef" in source:
            env.update(find(docs, "ConfigMap", source["configMapRef"]["name"])["data"])
    return env


def test_configuration_comes_from_the_configmap(
    docs: list[Doc], suite: dict[str, Service], monkeypatch: pytest.MonkeyPatch
) -> None:
    collector_ports = {p["port"] for p in find(docs, "Service", "otel-collector")["spec"]["ports"]}
    assert 4317 in collector_ports
    for service in suite.values():
        container = main_container(find(docs, "Deployment", service.dns_name))
        env = configmap_env(docs, container)
        assert env, f"{service.dns_name} references no ConfigMap"
        assert settings_field_errors(env, suite) == []
        assert not [v for v in env if any(w in v for w in SECRET_WORDS)], "secrets do not belong here"
        literal = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
        settings = build_settings(service, {**env, **literal}, monkeypatch)
        assert settings.otel_exporter == "otlp", service.dns_name
        assert settings.otel_endpoint == "http://otel-collector:4317", service.dns_name
    orchestrator = main_container(find(docs, "Deployment", "orchestrator"))
    settings = build_settings(suite["orchestrator"], configmap_env(docs, orchestrator), monkeypatch)
    for package, service in suite.items():
        if package == "orchestrator":
            continue
        target = getattr(settings, f"{package}_target")
        # dns:/// resolves the headless Service to every pod; round_robin then spreads the calls.
        assert target == f"dns:///{service.dns_name}:{service.port}", f"orchestrator → {package}"


def test_secrets_are_referenced_never_inlined(docs: list[Doc], suite: dict[str, Service]) -> None:
    assert not [d for d in docs if d["kind"] == "Secret"], "Secrets are created per environment"
    for container in kustomize_py.containers(docs):
        for entry in container.get("env", []):
            if any(word in entry["name"] for word in SECRET_WORDS):
                assert "value" not in entry, f"{container['name']}: {entry['name']} is inlined"
                assert "secretKeyRef" in entry["valueFrom"], f"{container['name']}: {entry['name']}"
    for package, service in suite.items():
        container = main_container(find(docs, "Deployment", service.dns_name))
        refs = {
            e["name"]: e["valueFrom"]["secretKeyRef"]
            for e in container.get("env", [])
            if "secretKeyRef" in e.get("valueFrom", {})
        }
        keys = {var: refs[var] for var in LLM_KEY_VARS if var in refs}
        if package in LLM_SERVICES:
            assert set(keys) == set(LLM_KEY_VARS), service.dns_name
            for var, ref in keys.items():
                assert ref == {"name": "interview-llm-keys", "key": var, "optional": True}
        else:
            assert keys == {}, f"{service.dns_name} calls no LLM and gets no key"
        token = refs.get("ORCHESTRATOR_AUTH_TOKEN")
        expected_token = {"name": "interview-auth", "key": "ORCHESTRATOR_AUTH_TOKEN", "optional": True}
        assert token == (expected_token if package == "orchestrator" else None), service.dns_name
        dsn_var = f"{service.prefix}DATABASE_URL"
        if "database_url" in service.settings_cls.model_fields:
            # Required (not optional): without it the service would fall back to SQLite in an emptyDir.
            assert refs[dsn_var] == {"name": "interview-database", "key": "DATABASE_URL"}, service.dns_name
        else:
            assert dsn_var not in refs


def test_collector_config_is_generated_from_the_shared_file(docs: list[Doc]) -> None:
    collector = find(docs, "Deployment", "otel-collector")
    container = main_container(collector)
    volumes = {v["name"]: v for v in pod_spec(collector)["volumes"]}
    mounted = [m for m in container["volumeMounts"] if "configMap" in volumes[m["name"]]]
    assert len(mounted) == 1
    configmap = find(docs, "ConfigMap", volumes[mounted[0]["name"]]["configMap"]["name"])
    [(key, text)] = configmap["data"].items()
    assert text == COLLECTOR_CONFIG.read_text()
    assert f"--config={mounted[0]['mountPath']}/{key}" in container["args"]


def test_internal_services_accept_only_the_orchestrator(docs: list[Doc], suite: dict[str, Service]) -> None:
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    orchestrator_labels = find(docs, "Deployment", "orchestrator")["spec"]["template"]["metadata"]["labels"]
    for package, service in suite.items():
        if package == "orchestrator":
            continue
        labels = find(docs, "Deployment", service.dns_name)["spec"]["template"]["metadata"]["labels"]
        applying = [p for p in policies if selects(p["spec"]["podSelector"], labels)]
        assert applying, f"no NetworkPolicy isolates {service.dns_name}"
        for policy in applying:
            assert "Ingress" in policy["spec"]["policyTypes"]
            for rule in policy["spec"].get("ingress", []):
                peers = rule.get("from")
                assert peers, f"{policy['metadata']['name']}: a rule without `from` admits everyone"
                for peer in peers:
                    assert set(peer) == {"podSelector"}
                    admitted = [
                        d["metadata"]["name"]
                        for d in workloads(docs)
                        if selects(peer["podSelector"], d["spec"]["template"]["metadata"]["labels"])
                    ]
                    assert admitted == ["orchestrator"], admitted
        assert orchestrator_labels != labels


# -- the base and the local overlay ------------------------------------------------------------------
def test_base_is_environment_neutral(base_docs: list[Doc], suite: dict[str, Service]) -> None:
    docs = base_docs
    assert not [d for d in docs if d["metadata"].get("namespace")], "overlays choose the namespace"
    for service in suite.values():
        deployment = find(docs, "Deployment", service.dns_name)
        assert deployment["spec"]["replicas"] >= 2, f"{service.dns_name}: replicated by default"
        assert main_container(deployment)["image"] == IMAGE, "overlays pin the tag"


def test_local_overlay(local_docs: list[Doc], suite: dict[str, Service]) -> None:
    docs = local_docs
    find(docs, "Namespace", "interview")
    for doc in docs:
        if doc["kind"] not in kustomize_py.CLUSTER_SCOPED:
            assert doc["metadata"].get("namespace") == "interview", doc["metadata"]["name"]
    for service in suite.values():
        deployment = find(docs, "Deployment", service.dns_name)
        assert deployment["spec"]["replicas"] == 1
        assert main_container(deployment)["image"] == f"{IMAGE}:local"
    postgres = find(docs, "StatefulSet", "postgres")
    assert find(docs, "Service", "postgres")["spec"]["ports"][0]["port"] == 5432
    password = {e["name"]: e for e in main_container(postgres)["env"]}["POSTGRES_PASSWORD"]
    # The same Secret holds the password and the services' DSN, so they cannot drift apart.
    assert password["valueFrom"]["secretKeyRef"] == {"name": "interview-database", "key": "POSTGRES_PASSWORD"}
    jaeger_ports = {p["port"] for p in find(docs, "Service", "jaeger")["spec"]["ports"]}
    exporters = yaml.safe_load(COLLECTOR_CONFIG.read_text())["exporters"]
    assert {e["endpoint"] for e in exporters.values()} == {"jaeger:4317"}
    assert {4317, 16686} <= jaeger_ports
