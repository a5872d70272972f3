"""Render a kustomization in Python: the structural fallback when no kustomize binary is installed.

It supports exactly the features deploy/ uses — resources (files and directories, recursively),
configMapGenerator/secretGenerator (literals, envs, files, options.labels), namespace, images and
replicas — and raises `UnsupportedKustomization` for anything else, so a kustomization that grows a
feature this loader cannot honour fails loudly instead of being checked half-way. Generated names
carry no content hash (kustomize appends one and rewrites the references; both renderings are
self-consistent). When kustomize is installed the tests render with both and compare.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

SUPPORTED_KEYS = frozenset(
    {
        "apiVersion",
        "kind",
        "resources",
        "configMapGenerator",
        "secretGenerator",
        "generatorOptions",
        "namespace",
        "images",
        "replicas",
    }
)
SUPPORTED_GENERATOR_KEYS = frozenset({"name", "literals", "envs", "files", "options", "behavior"})
CLUSTER_SCOPED = frozenset(
    {
        "Namespace",
        "ClusterRole",
        "ClusterRoleBinding",
        "PersistentVolume",
        "StorageClass",
        "CustomResourceDefinition",
    }
)
WORKLOADS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "Job"})


class UnsupportedKustomizationError(ValueError):
    """The kustomization uses a feature this loader does not implement."""


def render(directory: Path) -> list[dict[str, Any]]:
    """Every object the kustomization in `directory` produces (overlays applied)."""
    path = directory / "kustomization.yaml"
    spec: dict[str, Any] = yaml.safe_load(path.read_text()) or {}
    unknown = set(spec) - SUPPORTED_KEYS
    if unknown:
        raise UnsupportedKustomizationError(f"{path}: unsupported fields {sorted(unknown)}")
    docs: list[dict[str, Any]] = []
    for entry in spec.get("resources", []):
        target = (directory / entry).resolve()
        if target.is_dir():
            docs.extend(render(target))
        else:
            docs.extend(copy.deepcopy(d) for d in yaml.safe_load_all(target.read_text()) if d)
    common_options = spec.get("generatorOptions", {})
    for kind, key in (("ConfigMap", "configMapGenerator"), ("Secret", "secretGenerator")):
        for generator in spec.get(key, []):
            docs.append(_generate(kind, directory, generator, common_options))
    if "namespace" in spec:
        for doc in docs:
            if doc["kind"] not in CLUSTER_SCOPED:
                doc["metadata"]["namespace"] = spec["namespace"]
    for image in spec.get("images", []):
        for container in containers(docs):
            _retag(container, image)
    for replica in spec.get("replicas", []):
        matches = [d for d in docs if d["kind"] in WORKLOADS and d["metadata"]["name"] == replica["name"]]
        if not matches:
            raise UnsupportedKustomizationError(f"{path}: replicas for unknown workload {replica['name']}")
        for doc in matches:
            doc["spec"]["replicas"] = int(replica["count"])
    return docs


def containers(docs: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every container (init containers included) of every workload."""
    for doc in docs:
        if doc["kind"] in WORKLOADS:
            pod = doc["spec"]["template"]["spec"]
            yield from pod.get("initContainers", [])
            yield from pod.get("containers", [])


def _generate(
    kind: str, directory: Path, generator: dict[str, Any], common: dict[str, Any]
) -> dict[str, Any]:
    unknown = set(generator) - SUPPORTED_GENERATOR_KEYS
    if unknown or generator.get("behavior", "create") != "create":
        raise UnsupportedKustomizationError(f"{kind} generator {generator.get('name')}: {sorted(unknown)}")
    data: dict[str, str] = {}
    for literal in generator.get("literals", []):
        key, value = literal.split("=", 1)
        data[key] = value
    for env_file in generator.get("envs", []):
        for line in (directory / env_file).read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                key, value = line.split("=", 1)
                data[key] = value
    for entry in generator.get("files", []):
        key, _, file_name = entry.partition("=") if "=" in entry else (Path(entry).name, "", entry)
        data[key] = (directory / file_name).read_text()
    labels = {**common.get("labels", {}), **generator.get("options", {}).get("labels", {})}
    metadata: dict[str, Any] = {"name": generator["name"]}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": kind, "metadata": metadata, "data": data}


def _retag(container: dict[str, Any], image: dict[str, Any]) -> None:
    reference = container["image"]
    name, tag = reference, ""
    last = reference.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = reference.rsplit(":", 1)
    if name != image["name"]:
        return
    new_name = image.get("newName", name)
    new_tag = image.get("newTag", tag)
    container["image"] = f"{new_name}:{new_tag}" if new_tag else new_name
