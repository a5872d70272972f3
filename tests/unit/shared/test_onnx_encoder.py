"""`shared.onnx_encoder`: the ONNX Runtime backend gives the sentence-transformers model's vectors.

The PyTorch model is the reference: every kind of input the services send (short labels, whole
answers past the 256-token limit, empty and non-ASCII text, mixed-length batches) must come out the
same from both backends, or dedup and slot merging would change with the runtime.
"""

from __future__ import annotations

import stat
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shared.embeddings import Embedder, cosine_matrix, default_model_path
from shared.onnx_encoder import OnnxEncoder, main, onnx_file_for

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


def test_export_is_made_once_and_reused(tmp_path: Path) -> None:
    model = default_model_path()
    first = OnnxEncoder(model, tmp_path)
    assert first.path == onnx_file_for(model, tmp_path) and first.path.exists()
    assert [p.name for p in tmp_path.iterdir()] == [first.path.name]  # no temporary file left
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
    assert main([str(tmp_path)]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == onnx_file_for(default_model_path(), tmp_path) and printed.exists()


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(ValueError, match="backend"):
        Embedder(backend="tensorflow", warm_up=False)  # type: ignore[arg-type]
