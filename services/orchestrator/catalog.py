"""Concepts and methodologies as the public API lists them."""

from __future__ import annotations

from services.orchestrator.convert import concept_to_pb, methodology_to_pb, next_offset_token, offset_page
from shared.errors import NotFoundError
from shared.gen.interview.orchestrator.v1 import orchestrator_pb2 as pb
from shared.methodology import ConceptRegistry, MethodologyRegistry
from shared.validation import Violations


class Catalog:
    """Read-only views over the YAML registries."""

    def __init__(self, methodologies: MethodologyRegistry, concepts: ConceptRegistry) -> None:
        self._methodologies = methodologies
        self._concepts = concepts

    def list_concepts(self, page_size: int, page_token: str, methodology: str) -> pb.ListConceptsResponse:
        """Concepts sorted by id, optionally of one methodology."""
        # Offsets are stable here: concepts are loaded once and never change while we run.
        listing = "ListConcepts"
        offset, limit = offset_page(
            page_size, page_token, listing=listing, filter_field="methodology", filter_value=methodology
        )
        concepts = [c for c in self._concepts.all() if not methodology or c.methodology == methodology]
        page = concepts[offset : offset + limit]
        return pb.ListConceptsResponse(
            concepts=[concept_to_pb(c) for c in page],
            next_page_token=next_offset_token(
                offset, limit, len(concepts), listing=listing, filter_value=methodology
            ),
            total_size=len(concepts),
        )

    def get_concept(self, concept_id: str) -> pb.GetConceptResponse:
        """One concept; NOT_FOUND when unknown."""
        v = Violations()
        v.require_id(concept_id, "concept_id")
        v.raise_if_any()
        return pb.GetConceptResponse(concept=concept_to_pb(self._concepts.get(concept_id)))

    def list_methodologies(self, page_size: int, page_token: str) -> pb.ListMethodologiesResponse:
        """Methodologies sorted by name."""
        offset, limit = offset_page(page_size, page_token, listing="ListMethodologies")
        names = self._methodologies.names()
        page = names[offset : offset + limit]
        return pb.ListMethodologiesResponse(
            methodologies=[methodology_to_pb(self._methodologies.get(n)) for n in page],
            next_page_token=next_offset_token(offset, limit, len(names), listing="ListMethodologies"),
            total_size=len(names),
        )

    def get_methodology(self, name: str) -> pb.GetMethodologyResponse:
        """One methodology; NOT_FOUND when unknown."""
        v = Violations()
        v.require_id(name, "name")
        v.raise_if_any()
        if name not in self._methodologies:
            raise NotFoundError("methodology", name)
        return pb.GetMethodologyResponse(methodology=methodology_to_pb(self._methodologies.get(name)))
