"""`shared.onnx_encoder`: the ONNX Runtime backend gives the sentence-transformers model's vectors.

The PyTorch model is the reference: every kind of input the services send (short labels, whole
answers past the 256-token limit, empty and non-ASCII text, mixed-length batches) must come out the
same from both backends, or dedup and slot merging would change with the runtime.
"""

from __future__ import annotations

import logging
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shared.embeddings import Embedder, cosine_matrix, default_model_path
from shared.model_export import lock_file_for
from shared.onnx_encoder import DEFAULT_CACHE_DIR, OnnxEncoder, main, onnx_file_for, quantized_file_for

TEXTS = [
    "quick charge",
    "",
    "Ünïcödé café naïve — 東京",
    "I like it because it saves me time in the morning and I feel calm on the train",
    "word " * 400,  # longer than the model's 256 tokens: truncated the same way
    "noise cancelling",
]


@pytest.fixture(scope="module")
def torch_embedder() -> Embedder:
    """The reference: sentence-transformers on PyTorch, no cache."""
    return Embedder(backend="torch", cache_size=0)


def test_onnx_is_the_default_backend(embedder: Any) -> None:
    assert embedder.backend == "onnx"


def test_onnx_vectors_equal_the_pytorch_models(embedder: Any, torch_embedder: Embedder) -> None:
    onnx = Embedder(backend="onnx", cache_size=0, warm_up=False).encode(TEXTS)
    reference = torch_embedder.encode(TEXTS)
    assert onnx.shape == reference.shape
    assert np.abs(onnx - reference).max() < 1e-5
    # Padding in a mixed batch changes nothing: each text alone gives its batch row.
    alone = np.vstack([embedder.encode([t]) for t in TEXTS])
    assert np.abs(alone - onnx).max() < 1e-5
    # Similarities (what dedup and slot merging threshold on) agree too.
    assert np.abs(cosine_matrix(onnx, onnx) - cosine_matrix(reference, reference)).max() < 1e-5


def test_several_threads_give_the_same_vectors_and_never_spin(torch_embedder: Embedder) -> None:
    two = Embedder(backend="onnx", cache_size=0, warm_up=False, threads=2)
    assert np.abs(two.encode(TEXTS) - torch_embedder.encode(TEXTS)).max() < 1e-5
    encoder = OnnxEncoder(default_model_path(), DEFAULT_CACHE_DIR, threads=2)
    options = encoder._session.get_session_options()
    assert options.intra_op_num_threads == 2
    # Spinning workers would burn a core the other services need between passes.
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"


def test_export_is_made_once_and_reused(tmp_path: Path) -> None:
    model = default_model_path()
    first = OnnxEncoder(model, tmp_path)
    assert first.path == onnx_file_for(model, tmp_path) and first.path.exists()
    # No temporary file left: the export and its hidden lock file (`shared.model_export`).
    made = sorted([first.path.name, lock_file_for(first.path).name])
    assert sorted(p.name for p in tmp_path.iterdir()) == made
    # Readable by other users (a service may run as another user than the one that exported).
    assert first.path.stat().st_mode & stat.S_IROTH
    stamp = first.path.stat().st_mtime_ns
    second = OnnxEncoder(model, tmp_path)
    assert second.path == first.path and first.path.stat().st_mtime_ns == stamp
    assert np.allclose(first.encode(["a label"]), second.encode(["a label"]))


def test_a_damaged_export_is_made_again(tmp_path: Path) -> None:
    model = default_model_path()
    target = onnx_file_for(model, tmp_path)
    target.write_bytes(b"not an onnx model")
    encoder = OnnxEncoder(model, tmp_path)
    assert target.stat().st_size > 1_000_000
    assert encoder.encode(["battery life"]).shape == (1, 384)


def test_an_unwritable_cache_falls_back_to_the_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cache "directory" under a regular file cannot be created, even by root.
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    encoder = OnnxEncoder(default_model_path(), blocker / "models")
    assert encoder.path.is_relative_to(scratch) and encoder.path.exists()
    assert encoder.encode(["battery life"]).shape == (1, 384)


def test_ahead_of_time_export_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Logging set up to print on stdout (as a service's is): the command's stdout still holds the
    # path alone, not the quantiser's progress lines, while other loggers are still heard.
    root = logging.getLogger()
    handler, level = logging.StreamHandler(sys.stdout), root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        assert main([str(tmp_path)]) == 0
        logging.getLogger("elsewhere").info("still heard")
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    first, *others = capsys.readouterr().out.splitlines()
    printed = Path(first)
    assert printed == onnx_file_for(default_model_path(), tmp_path) and printed.exists()
    assert quantized_file_for(printed).exists()  # the image ships the int8 copy too
    # Every later line is the other logger's record (once per handler logging already had).
    assert others and all("still heard" in line for line in others) and not root.filters


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="backend"):
        Embedder(backend="tensorflow", warm_up=False)  # type: ignore[arg-type]


def test_the_int8_copy_is_made_once_beside_the_export_and_stays_close_to_fp32(
    tmp_path: Path, embedder: Any
) -> None:
    model = default_model_path()
    quantized = OnnxEncoder(model, tmp_path, quantized=True)
    export = onnx_file_for(model, tmp_path)
    assert quantized.path == quantized_file_for(export) and quantized.path.exists() and export.exists()
    made = sorted([export.name, quantized.path.name, lock_file_for(export).name])
    assert sorted(p.name for p in tmp_path.iterdir()) == made
    stamp = quantized.path.stat().st_mtime_ns
    assert OnnxEncoder(model, tmp_path, quantized=True).path.stat().st_mtime_ns == stamp  # reused
    texts = [t for t in TEXTS if t]
    approx, exact = quantized.encode(texts), embedder.encode(texts)
    assert np.allclose(np.linalg.norm(approx, axis=1), 1.0, atol=1e-5)
    # Close to the fp32 vectors, but not equal: this copy is for ranking queries only. How close
    # depends on the CPU's int8 kernels: on an earlier machine every text came out above 0.98; on AVX2
    # without VNNI (u8s8 products can saturate) the worst was 0.978, the mean 0.988. A per-tensor copy gives
    # worse (here a mean of 0.936, a worst of 0.868), which both bounds still refuse.
    agreement = np.sum(approx * exact, axis=1)
    assert agreement.min() > 0.97 and agreement.mean() > 0.985
    assert np.abs(approx - exact).max() > 1e-4


def test_the_int8_model_runs_on_onnx_only() -> None:
    with pytest.raises(ValueError, match="onnx"):
        Embedder(backend="torch", quantized=True, warm_up=False)
