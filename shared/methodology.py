"""Loading and validating methodology and concept YAML (`config/methodologies`, `config/concepts`).

`MethodologyRegistry` and `ConceptRegistry` turn YAML files into the frozen models of
`shared.methodology_models`. Every problem — YAML syntax, missing or extra fields, unknown
signals, weight keys that do not resolve, duplicate or undefined names — raises
`MethodologyError`, whose message names the file and the field path (e.g.
`config/methodologies/means_end_chain.yaml: strategies[2].signal_weights["llm.depth.low"]: ...`).

`phase_for` is the single implementation of the interview-phase boundaries of SPEC.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from shared.errors import FieldViolation, InvalidArgumentError, NotFoundError
from shared.methodology_models import (
    ConceptConfig,
    InterviewPhase,
    MethodologyConfig,
    NodeBinding,
    StrategyConfig,
)
from shared.signal_catalog import (
    SIGNAL_CATALOG,
    SignalKeyError,
    SignalPool,
    is_node_scoped,
    resolve_weight_key,
)

DEFAULT_MAX_TURNS = 20
"""SPEC default when neither the concept nor the request sets `max_turns`."""

_M = TypeVar("_M", bound=BaseModel)


class MethodologyError(InvalidArgumentError):
    """An invalid methodology or concept file; the message names the file and each bad field."""

    def __init__(self, file: Path | str, violations: Sequence[FieldViolation]) -> None:
        self.file = str(file)
        details = "; ".join(f"{v.field}: {v.description}" for v in violations)
        super().__init__(f"invalid config file {self.file}: {details}", violations)

    @classmethod
    def single(cls, file: Path | str, field: str, description: str) -> MethodologyError:
        """An error with one field violation."""
        return cls(file, [FieldViolation(field, description)])


# --------------------------------------------------------------------------------------------
# phases


def phase_for(turn_number: int, max_turns: int) -> InterviewPhase:
    """The interview phase of `turn_number` (1-based) in an interview of `max_turns` (SPEC.md).

    early while turn ≤ max(2, round(0.10·max_turns)); late after max_turns − 2; mid between;
    if the early bound reaches the mid bound it shrinks to max(1, mid_bound − 1). `round` is
    Python's (round-half-to-even), as in the reference implementation. Turns past `max_turns`
    are late.
    """
    if max_turns < 1:
        raise InvalidArgumentError.for_field("max_turns", "must be at least 1")
    if turn_number < 0:
        raise InvalidArgumentError.for_field("turn_number", "must not be negative")
    early_max = max(2, round(max_turns * 0.10))
    mid_max = max_turns - 2
    if early_max >= mid_max:
        early_max = max(1, mid_max - 1)
    if turn_number <= early_max:
        return InterviewPhase.EARLY
    if turn_number <= mid_max:
        return InterviewPhase.MID
    return InterviewPhase.LATE


# --------------------------------------------------------------------------------------------
# YAML reading


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys (PyYAML silently keeps the last one)."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> Any:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r}",
                key_node.start_mark,
            )
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise MethodologyError.single(path, "<file>", f"cannot be read ({exc.strerror})") from exc
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "<yaml>"
        raise MethodologyError.single(path, where, f"YAML syntax error: {exc.problem or exc}") from exc
    except yaml.YAMLError as exc:
        raise MethodologyError.single(path, "<yaml>", f"YAML error: {exc}") from exc
    if not isinstance(data, dict):
        raise MethodologyError.single(path, "<root>", "the document must be a mapping")
    return data


def _field_path(loc: Iterable[int | str]) -> str:
    """Render a pydantic/our location as `a.b[2]["dotted.key"]`."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part == "[key]":
            continue  # pydantic marks "the dict key itself was invalid"; the key is already shown
        elif part.isidentifier():
            out += f".{part}" if out else part
        else:
            out += f'["{part}"]'
    return out or "<root>"


def _validate_model(model: type[_M], data: Mapping[str, Any], path: Path) -> _M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        violations = [FieldViolation(_field_path(err["loc"]), _pydantic_message(err)) for err in exc.errors()]
        raise MethodologyError(path, violations) from exc


def _pydantic_message(err: Mapping[str, Any]) -> str:
    kind = err.get("type")
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return "unknown field (not allowed here)"
    return str(err.get("msg", "invalid value"))


# --------------------------------------------------------------------------------------------
# semantic checks of a methodology


def _check_ontology(cfg: MethodologyConfig, out: list[FieldViolation]) -> None:
    onto = cfg.ontology
    node_names: set[str] = set()
    for i, node in enumerate(onto.nodes):
        if node.name in node_names:
            out.append(FieldViolation(f"ontology.nodes[{i}].name", f"duplicate node type {node.name!r}"))
        node_names.add(node.name)
    if not onto.nodes:
        out.append(FieldViolation("ontology.nodes", "at least one node type is required"))
    elif not any(n.terminal for n in onto.nodes):
        out.append(FieldViolation("ontology.nodes", "no node type is marked terminal: true"))
    edge_names: set[str] = set()
    for i, edge in enumerate(onto.edges):
        if edge.name in edge_names:
            out.append(FieldViolation(f"ontology.edges[{i}].name", f"duplicate edge type {edge.name!r}"))
        edge_names.add(edge.name)
        for j, (src, dst) in enumerate(edge.permitted_connections):
            for side, name in ((0, src), (1, dst)):
                if name not in node_names:
                    out.append(
                        FieldViolation(
                            f"ontology.edges[{i}].permitted_connections[{j}][{side}]",
                            f"edge {edge.name!r} names undefined node type {name!r}",
                        )
                    )


def _check_signals(cfg: MethodologyConfig, out: list[FieldViolation]) -> None:
    seen: set[str] = set()
    pools = {p.value for p in SignalPool}
    for pool, names in cfg.signals.items():
        if pool not in pools:
            out.append(
                FieldViolation(f"signals.{pool}", f"unknown signal pool; expected one of {sorted(pools)}")
            )
            continue
        for i, name in enumerate(names):
            spec = SIGNAL_CATALOG.get(name)
            field = f"signals.{pool}[{i}]"
            if spec is None:
                try:
                    resolve_weight_key(name)
                except SignalKeyError as exc:
                    out.append(FieldViolation(field, str(exc)))
                else:
                    out.append(FieldViolation(field, f"{name!r} is a weight key, not a signal name"))
            elif spec.pool != pool:
                out.append(FieldViolation(field, f"signal {name!r} belongs to pool {spec.pool.value!r}"))
            elif name in seen:
                out.append(FieldViolation(field, f"signal {name!r} is listed twice"))
            seen.add(name)


def _check_strategies(cfg: MethodologyConfig, out: list[FieldViolation]) -> None:
    listed = set(cfg.all_signal_names())
    names: set[str] = set()
    if not cfg.strategies:
        out.append(FieldViolation("strategies", "at least one strategy is required"))
    for i, strat in enumerate(cfg.strategies):
        if strat.name in names:
            out.append(FieldViolation(f"strategies[{i}].name", f"duplicate strategy name {strat.name!r}"))
        names.add(strat.name)
        for key in strat.signal_weights:
            field = _field_path(("strategies", i, "signal_weights", key))
            try:
                signal, _ = resolve_weight_key(key)
            except SignalKeyError as exc:
                out.append(FieldViolation(field, str(exc)))
                continue
            if signal not in listed:
                out.append(
                    FieldViolation(
                        field, f"signal {signal!r} is not listed under signals: and would never be computed"
                    )
                )
            if strat.node_binding is NodeBinding.NONE and is_node_scoped(key):
                out.append(
                    FieldViolation(
                        field, "node-scoped weight on a strategy with node_binding: none is never scored"
                    )
                )
        _check_focus_types(cfg, i, strat, out)
    if cfg.strategies and all(s.focus_node_types for s in cfg.strategies):
        out.append(
            FieldViolation(
                "strategies",
                "every strategy names focus_node_types: one without them is needed for a turn whose "
                "nodes are of none of those types",
            )
        )


def _check_focus_types(
    cfg: MethodologyConfig, i: int, strat: StrategyConfig, out: list[FieldViolation]
) -> None:
    if strat.focus_node_types and strat.node_binding is NodeBinding.NONE:
        out.append(
            FieldViolation(
                f"strategies[{i}].focus_node_types", "a strategy with node_binding: none focuses no node"
            )
        )
    known = {n.name for n in cfg.ontology.nodes}
    for j, name in enumerate(strat.focus_node_types):
        if name not in known:
            out.append(
                FieldViolation(
                    f"strategies[{i}].focus_node_types[{j}]", f"{name!r} is not an ontology node type"
                )
            )


def _check_phases(cfg: MethodologyConfig, out: list[FieldViolation]) -> None:
    strategies = {s.name for s in cfg.strategies}
    for phase, pcfg in cfg.phases.items():
        for block, values in (("signal_weights", pcfg.signal_weights), ("phase_bonuses", pcfg.phase_bonuses)):
            for name, value in values.items():
                field = _field_path(("phases", phase.value, block, name))
                if name not in strategies:
                    out.append(FieldViolation(field, f"names undefined strategy {name!r}"))
                elif block == "signal_weights" and value < 0:
                    out.append(FieldViolation(field, "a phase multiplier must not be negative"))


def load_methodology_file(path: Path) -> MethodologyConfig:
    """Parse and fully validate one methodology YAML file; `method.name` must equal the file stem."""
    cfg = _validate_model(MethodologyConfig, _read_yaml(path), path)
    violations: list[FieldViolation] = []
    if cfg.method.name != path.stem:
        violations.append(
            FieldViolation("method.name", f"{cfg.method.name!r} must equal the file name {path.stem!r}")
        )
    _check_ontology(cfg, violations)
    _check_signals(cfg, violations)
    _check_strategies(cfg, violations)
    _check_phases(cfg, violations)
    if violations:
        raise MethodologyError(path, violations)
    return cfg


def load_concept_file(path: Path) -> ConceptConfig:
    """Parse and validate one concept YAML file (`objective` at the root or under `context:`)."""
    data = dict(_read_yaml(path))
    if "context" in data:
        context = data.pop("context")
        if not isinstance(context, dict):
            raise MethodologyError.single(path, "context", "must be a mapping with an objective")
        extra = sorted(set(context) - {"objective"})
        if extra:
            raise MethodologyError.single(path, f"context.{extra[0]}", "unknown field (not allowed here)")
        if "objective" in context:
            if "objective" in data:
                raise MethodologyError.single(
                    path, "context.objective", "objective is also given at the root"
                )
            data["objective"] = context["objective"]
    cfg = _validate_model(ConceptConfig, data, path)
    if cfg.id != path.stem:
        raise MethodologyError.single(path, "id", f"{cfg.id!r} must equal the file name {path.stem!r}")
    if not cfg.objective.strip():
        raise MethodologyError.single(path, "objective", "must not be empty")
    return cfg


# --------------------------------------------------------------------------------------------
# registries


def _resolve_dir(config_dir: Path, sub: str) -> Path:
    """Accept the `config/` root (use its `sub/` folder) or the folder itself."""
    nested = config_dir / sub
    return nested if nested.is_dir() else config_dir


def _yaml_stems(directory: Path) -> list[str]:
    if not directory.is_dir():
        return []
    return sorted(p.stem for p in directory.glob("*.yaml") if p.is_file())


class MethodologyRegistry:
    """Methodology configs loaded on demand from `<config_dir>/methodologies/<name>.yaml`, cached.

    `config_dir` may be the `config/` root or the methodologies folder itself.
    """

    def __init__(self, config_dir: Path) -> None:
        self.directory = _resolve_dir(Path(config_dir), "methodologies")
        self._cache: dict[str, MethodologyConfig] = {}

    def names(self) -> list[str]:
        """Names of every methodology file, sorted."""
        return _yaml_stems(self.directory)

    def get(self, name: str) -> MethodologyConfig:
        """The validated methodology `name`; `NotFoundError` if there is no such file."""
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        # Membership check first: `name` may come from a request and must not escape the folder.
        if name not in self.names():
            raise NotFoundError("methodology", name)
        cfg = load_methodology_file(self.directory / f"{name}.yaml")
        self._cache[name] = cfg
        return cfg

    def __contains__(self, name: object) -> bool:
        # A loaded methodology answers from the cache, as `get` does: services ask this on every
        # request, and listing the folder each time was a directory scan per SelectStrategy.
        return isinstance(name, str) and (name in self._cache or name in self.names())

    def all(self) -> list[MethodologyConfig]:
        """Every methodology, validated (raises on the first invalid file)."""
        return [self.get(name) for name in self.names()]


class ConceptRegistry:
    """Concepts from `<config_dir>/concepts/<id>.yaml`, loaded once on first use.

    With `methodologies` given, each concept's `methodology` must name an existing methodology.
    `config_dir` may be the `config/` root or the concepts folder itself.
    """

    def __init__(self, config_dir: Path, methodologies: MethodologyRegistry | None = None) -> None:
        self.directory = _resolve_dir(Path(config_dir), "concepts")
        self._methodologies = methodologies
        self._concepts: dict[str, ConceptConfig] | None = None

    def _load(self) -> dict[str, ConceptConfig]:
        if self._concepts is None:
            concepts: dict[str, ConceptConfig] = {}
            for stem in _yaml_stems(self.directory):
                path = self.directory / f"{stem}.yaml"
                concept = load_concept_file(path)
                if self._methodologies is not None and concept.methodology not in self._methodologies:
                    raise MethodologyError.single(
                        path,
                        "methodology",
                        f"unknown methodology {concept.methodology!r}; known: {self._methodologies.names()}",
                    )
                concepts[concept.id] = concept
            self._concepts = concepts
        return self._concepts

    def get(self, concept_id: str) -> ConceptConfig:
        """The concept `concept_id`; `NotFoundError` if unknown."""
        concept = self._load().get(concept_id)
        if concept is None:
            raise NotFoundError("concept", concept_id)
        return concept

    def ids(self) -> list[str]:
        """Every concept id, sorted."""
        return sorted(self._load())

    def all(self) -> list[ConceptConfig]:
        """Every concept, sorted by id."""
        concepts = self._load()
        return [concepts[k] for k in sorted(concepts)]
