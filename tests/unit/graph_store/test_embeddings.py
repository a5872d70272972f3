"""`shared.embeddings`: the real model, normalisation, caching, storage form, cosine matrix."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from shared.embeddings import EMBEDDING_DIM, cosine_matrix, from_bytes, stack_bytes, to_bytes


def test_encode_returns_unit_float32_rows_in_input_order(embedder: Any) -> None:
    texts = ["noise cancelling", "peace of mind", "noise cancelling"]
    vecs = embedder.encode(texts)
    assert vecs.shape == (3, EMBEDDING_DIM) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(vecs[0], vecs[2])
    assert not np.allclose(vecs[0], vecs[1])
    # Row order follows the input, whatever the cache holds.
    swapped = embedder.encode(["peace of mind", "noise cancelling"])
    assert np.allclose(swapped[0], vecs[1]) and np.allclose(swapped[1], vecs[0])


def test_cached_and_fresh_encodings_agree(embedder: Any) -> None:
    from shared.embeddings import Embedder

    uncached = Embedder(cache_size=0)
    text = ["a quiet train ride home"]
    assert np.allclose(uncached.encode(text), embedder.encode(text), atol=1e-6)


async def test_aencode_matches_encode(embedder: Any) -> None:
    texts = ["long battery life", "feel relaxed"]
    assert np.allclose(await embedder.aencode(texts), embedder.encode(texts))


def test_empty_batch(embedder: Any) -> None:
    assert embedder.encode([]).shape == (0, EMBEDDING_DIM)


def test_semantics_of_the_real_model(embedder: Any) -> None:
    close, far = cosine_matrix(
        embedder.encode(["electric car"]), embedder.encode(["electric vehicle", "gas car"])
    )[0]
    assert close > 0.9 > 0.6 > far


def test_cosine_matrix_shapes_and_zero_rows() -> None:
    a = np.array([[3.0, 4.0], [0.0, 0.0]])
    b = np.array([[3.0, 4.0], [-4.0, 3.0], [1.0, 0.0]])
    sims = cosine_matrix(a, b)
    assert sims.shape == (2, 3)
    assert sims[0] == pytest.approx([1.0, 0.0, 0.6], abs=1e-6)
    assert sims[1] == pytest.approx([0.0, 0.0, 0.0])  # a zero vector is similar to nothing
    assert cosine_matrix(np.zeros((0, 2)), b).shape == (0, 3)


def test_bytes_round_trip_and_stacking() -> None:
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(3, EMBEDDING_DIM)).astype(np.float32)
    blobs = [to_bytes(v) for v in vecs]
    assert all(len(b) == EMBEDDING_DIM * 4 for b in blobs)
    assert np.array_equal(from_bytes(blobs[1]), vecs[1])
    assert np.array_equal(stack_bytes(blobs), vecs)
    assert stack_bytes([]).shape == (0, EMBEDDING_DIM)
