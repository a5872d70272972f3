"""Embedding helpers local to this service (float32 bytes ⇄ numpy, the encoder protocol)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]


class TextEncoder(Protocol):
    """What the service needs from `shared.embeddings.Embedder`: L2-normalised float32 rows."""

    async def aencode(self, texts: Sequence[str]) -> FloatArray:
        """Embeddings of `texts`, shape (n, dim), rows L2-normalised."""
        ...


def to_bytes(vector: FloatArray) -> bytes:
    """Little-endian float32 bytes of one vector."""
    return np.asarray(vector, dtype="<f4").tobytes()


def from_bytes(data: bytes) -> FloatArray:
    """The vector stored by `to_bytes` (a fresh, writable float32 array)."""
    return np.frombuffer(data, dtype="<f4").astype(np.float32)


def normalise(vector: FloatArray) -> FloatArray:
    """`vector / ‖vector‖` (a zero vector stays zero)."""
    norm = float(np.linalg.norm(vector))
    return vector if norm == 0.0 else (vector / norm).astype(np.float32)


def slot_text(slot_name: str, description: str) -> str:
    """The text whose embedding represents a slot (and a proposal): name words + description."""
    words = slot_name.replace("_", " ").strip()
    description = description.strip()
    return f"{words}: {description}" if description and description != words else words
