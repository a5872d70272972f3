"""Scenario files (`config/scenarios/*.yaml`): a person's hidden knowledge about one concept.

A scenario names its concept (and so its methodology) and lists:

* `elements` — what the person knows: an id, an ontology `node_type`, a canonical `label`,
  `phrasings` (ways they may say it; `form` says whether a phrasing is a noun phrase or a full
  clause, which the offline writer needs), an optional `valence` and `details` (extra sentences
  for "tell me more" questions);
* `links` — how elements relate: `source` → `target` with an ontology `edge_type` that the
  methodology permits between the two node types;
* `chains` — ordered paths through the elements in the order the person would reveal them
  (a means-end ladder, a switch timeline, an incident from situation to attribution). Each
  consecutive pair must be linked (either direction), except in an `elements` chain (a plain list
  of things named one after another, like repertory-grid elements). An element outside every chain must be
  linked to a chain element (a *side* element, e.g. an incident's actor);
* `emotional_node_types` — the node types a rationalising persona withholds until probed.

`load_scenario_file` validates all of this against the methodology and concept registries and
raises `ScenarioError` naming the file and each bad field.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shared.errors import FieldViolation, NotFoundError
from shared.methodology import ConceptRegistry, MethodologyRegistry
from shared.methodology_models import MethodologyConfig
from simulation.yamlio import ConfigFileError, read_yaml_mapping, violations_of

ChainKind = Literal["ladder", "timeline", "incident", "forces", "journey", "construct", "elements"]


class ScenarioError(ConfigFileError):
    """An invalid scenario file; the message names the file and every bad field."""

    kind = "scenario"


class ElementForm(StrEnum):
    """Grammatical shape of an element's phrasings."""

    NP = "np"
    CLAUSE = "clause"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class HiddenElement(_Strict):
    """One thing the person knows and may reveal."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    node_type: str = Field(min_length=1)
    label: str = Field(min_length=1)
    phrasings: tuple[str, ...] = Field(min_length=1)
    form: ElementForm = ElementForm.NP
    valence: int = Field(default=0, ge=-1, le=1)
    details: tuple[str, ...] = ()

    @property
    def texts(self) -> tuple[str, ...]:
        """The label and every phrasing (what a graph label is matched against)."""
        return (self.label, *self.phrasings)


class HiddenLink(_Strict):
    """A relation between two elements, typed by an ontology edge type."""

    source: str = Field(min_length=1)
    target: str = Field(min_length=1)
    edge_type: str = Field(min_length=1)

    @property
    def id(self) -> str:
        """Stable key: `source->target`."""
        return f"{self.source}->{self.target}"


class Chain(_Strict):
    """An ordered path of element ids, revealed one level at a time."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    kind: ChainKind = "ladder"
    elements: tuple[str, ...] = Field(min_length=1)


class Scenario(_Strict):
    """A person's hidden knowledge for one concept."""

    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    concept_id: str = Field(min_length=1)
    methodology: str = Field(min_length=1)
    title: str = Field(min_length=1)
    background: str = Field(min_length=1, description="Who the person is; given to the LLM persona.")
    emotional_node_types: tuple[str, ...] = ()
    elements: tuple[HiddenElement, ...] = Field(min_length=1)
    links: tuple[HiddenLink, ...] = ()
    chains: tuple[Chain, ...] = Field(min_length=1)

    @cached_property
    def _by_id(self) -> dict[str, HiddenElement]:
        return {e.id: e for e in self.elements}

    def element(self, element_id: str) -> HiddenElement:
        """The element with `element_id` (KeyError if unknown)."""
        return self._by_id[element_id]

    def link_between(self, a: str, b: str) -> HiddenLink | None:
        """The link a→b, else b→a, else None."""
        for link in self.links:
            if link.source == a and link.target == b:
                return link
        for link in self.links:
            if link.source == b and link.target == a:
                return link
        return None

    def links_of(self, element_id: str) -> Iterator[HiddenLink]:
        """Every link touching `element_id`."""
        return (lk for lk in self.links if element_id in (lk.source, lk.target))

    def chains_with(self, element_id: str) -> list[Chain]:
        """Chains that contain `element_id`, in file order."""
        return [c for c in self.chains if element_id in c.elements]

    def chain_holding(self, a: str, b: str) -> Chain | None:
        """The first chain, in file order, that contains both elements (None if no chain does)."""
        return next((c for c in self.chains if a in c.elements and b in c.elements), None)


def _check(scenario: Scenario, method: MethodologyConfig, out: list[FieldViolation]) -> None:
    node_types = {n.name for n in method.ontology.nodes}
    seen: set[str] = set()
    for i, el in enumerate(scenario.elements):
        if el.id in seen:
            out.append(FieldViolation(f"elements.{i}.id", f"duplicate element id {el.id!r}"))
        seen.add(el.id)
        if el.node_type not in node_types:
            out.append(
                FieldViolation(
                    f"elements.{i}.node_type",
                    f"{el.node_type!r} is not a node type of "
                    f"{method.name} (expected one of {sorted(node_types)})",
                )
            )
        for j, text in enumerate(el.phrasings):
            if not text.strip():
                out.append(FieldViolation(f"elements.{i}.phrasings.{j}", "must not be empty"))
    for i, name in enumerate(scenario.emotional_node_types):
        if name not in node_types:
            out.append(
                FieldViolation(f"emotional_node_types.{i}", f"{name!r} is not a node type of {method.name}")
            )
    pairs: set[tuple[str, str, str]] = set()
    for i, link in enumerate(scenario.links):
        field = f"links.{i}"
        ends = [(e, getattr(link, e)) for e in ("source", "target")]
        missing = [f"{field}.{e}" for e, ident in ends if ident not in seen]
        out.extend(FieldViolation(m, "names no element") for m in missing)
        edge = method.edge_type(link.edge_type)
        if edge is None:
            out.append(
                FieldViolation(
                    f"{field}.edge_type", f"{link.edge_type!r} is not an edge type of {method.name}"
                )
            )
        elif not missing:
            pair = (scenario.element(link.source).node_type, scenario.element(link.target).node_type)
            if pair not in edge.permitted_connections:
                out.append(
                    FieldViolation(
                        f"{field}.edge_type", f"{link.edge_type} does not permit {pair[0]} -> {pair[1]}"
                    )
                )
        key = (link.source, link.target, link.edge_type)
        if key in pairs:
            out.append(FieldViolation(field, "duplicate link"))
        pairs.add(key)
    _check_chains(scenario, seen, out)


def _check_chains(scenario: Scenario, ids: set[str], out: list[FieldViolation]) -> None:
    chain_ids: set[str] = set()
    in_chain: set[str] = set()
    for i, chain in enumerate(scenario.chains):
        if chain.id in chain_ids:
            out.append(FieldViolation(f"chains.{i}.id", f"duplicate chain id {chain.id!r}"))
        chain_ids.add(chain.id)
        if len(set(chain.elements)) != len(chain.elements):
            out.append(FieldViolation(f"chains.{i}.elements", "an element appears twice in one chain"))
        for j, ident in enumerate(chain.elements):
            if ident not in ids:
                out.append(FieldViolation(f"chains.{i}.elements.{j}", f"{ident!r} names no element"))
        in_chain.update(chain.elements)
        for j, (a, b) in enumerate(zip(chain.elements, chain.elements[1:], strict=False)):
            if chain.kind == "elements":
                break  # a plain list of things named in turn (repertory-grid elements): no links needed
            if a in ids and b in ids and scenario.link_between(a, b) is None:
                out.append(FieldViolation(f"chains.{i}.elements.{j + 1}", f"no link between {a!r} and {b!r}"))
    for i, el in enumerate(scenario.elements):
        if el.id in in_chain:
            continue
        if not any(({lk.source, lk.target} - {el.id}) & in_chain for lk in scenario.links_of(el.id)):
            out.append(
                FieldViolation(f"elements.{i}.id", f"{el.id!r} is in no chain and linked to no chain element")
            )


def load_scenario_file(path: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry) -> Scenario:
    """Load and validate one scenario file (its `id` must equal the file stem)."""
    data = read_yaml_mapping(path, ScenarioError)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(path, violations_of(exc)) from exc
    if scenario.id != path.stem:
        raise ScenarioError.single(path, "id", f"{scenario.id!r} must equal the file name {path.stem!r}")
    try:
        concept = concepts.get(scenario.concept_id)
    except NotFoundError:
        raise ScenarioError.single(path, "concept_id", f"unknown concept {scenario.concept_id!r}") from None
    if concept.methodology != scenario.methodology:
        raise ScenarioError.single(
            path,
            "methodology",
            f"concept {concept.id!r} uses {concept.methodology!r}, not {scenario.methodology!r}",
        )
    violations: list[FieldViolation] = []
    _check(scenario, methodologies.get(scenario.methodology), violations)
    if violations:
        raise ScenarioError(path, violations)
    return scenario


class ScenarioRegistry:
    """The scenarios of `<config_dir>/scenarios/`, loaded and validated once."""

    def __init__(
        self, config_dir: Path, methodologies: MethodologyRegistry, concepts: ConceptRegistry
    ) -> None:
        self.directory = config_dir / "scenarios"
        self._scenarios = {
            p.stem: load_scenario_file(p, methodologies, concepts)
            for p in sorted(self.directory.glob("*.yaml"))
        }

    def ids(self) -> list[str]:
        """Scenario ids, sorted."""
        return sorted(self._scenarios)

    def get(self, scenario_id: str) -> Scenario:
        """The scenario `scenario_id` (NotFoundError when there is none)."""
        try:
            return self._scenarios[scenario_id]
        except KeyError:
            raise NotFoundError("scenario", scenario_id) from None

    def for_concept(self, concept_id: str) -> list[Scenario]:
        """The scenarios of one concept, sorted by id."""
        return [self._scenarios[i] for i in self.ids() if self._scenarios[i].concept_id == concept_id]
