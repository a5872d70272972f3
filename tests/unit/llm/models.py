"""Pydantic schemas used as structured-output targets in the LLM tests."""

from __future__ import annotations

from pydantic import BaseModel, Field


class Concept(BaseModel):
    """One extracted concept."""

    label: str = Field(min_length=1)
    node_type: str


class Extraction(BaseModel):
    """What an extraction call returns."""

    concepts: list[Concept]
    confidence: float = Field(ge=0.0, le=1.0)


VALID = {"concepts": [{"label": "oat milk", "node_type": "attribute"}], "confidence": 0.8}
INVALID = {"concepts": [{"label": "oat milk"}], "confidence": 3.0}  # node_type missing, confidence > 1
