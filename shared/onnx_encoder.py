"""all-MiniLM-L6-v2 on ONNX Runtime: the same weights as the sentence-transformers model, 2-3× faster.

Why: in eager PyTorch a forward pass over one short label costs ~10 ms on the 2-core benchmark
machine, almost all of it per-module Python overhead, and the graph store and canonical slots
encode on every turn. ONNX Runtime runs the identical fp32 graph in ~3 ms (vectors agree with the
PyTorch model to ~1e-7; no quantisation, which moved similarities by up to 0.12).

The ONNX file is exported once from the bundled model (PyTorch is needed only then) into a cache
directory, under a name keyed by the model files, and written atomically, so services starting
together never read a half-written file. A service that finds it missing makes it in a child
process under a lock (`shared.model_export`): one export for all, and torch never in a service.
Tokenisation uses the model's own `tokenizer.json` with the model's maximum sequence length;
pooling is the model's mean pooling, then L2 normalisation.

`quantized=True` runs an int8 copy of the same weights (dynamic quantisation of the export, made
once beside it): ~2.5x faster on a whole answer (the fp32 pass reads all 42 MB of weights; it is
memory-bound on this machine), but vectors at a cosine of ~0.99 to the fp32 model's, not 1 - 1e-7.
It is for ranking a query against stored fp32 vectors (the graph store's node search), never for
vectors that are stored or compared with a threshold.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.model_export import make_missing

_INPUTS = ("input_ids", "attention_mask", "token_type_ids")
# Bump when the export below changes, so caches made by an older export are not reused.
_EXPORT_VERSION = "1"
_MIB = 1 << 20


DEFAULT_CACHE_DIR = Path("data/models")
"""Where exports go unless a service's settings say otherwise (beside the embedded databases)."""


def onnx_file_for(model_path: Path, cache_dir: Path) -> Path:
    """Where the export of the model in `model_path` lives: keyed by its config, tokenizer and the
    weights' size (a different model gets a new export)."""
    digest = hashlib.sha256(_EXPORT_VERSION.encode())
    for name in ("config.json", "tokenizer.json", "sentence_bert_config.json", "1_Pooling/config.json"):
        digest.update((model_path / name).read_bytes())
    # The weights by size and their first and last MiB (hashing all 90 MB would cost start-up time;
    # modification times change when an image layer or a venv is copied).
    weights = model_path / "model.safetensors"
    size = weights.stat().st_size
    with weights.open("rb") as fh:
        digest.update(f"{size}:".encode() + fh.read(_MIB))
        fh.seek(max(size - _MIB, 0))
        digest.update(fh.read(_MIB))
    return cache_dir / f"minilm-{digest.hexdigest()[:16]}.onnx"


def quantized_file_for(export: Path) -> Path:
    """Where the int8 copy of an export lives (beside it, named after it)."""
    return export.with_name(f"{export.stem}-int8.onnx")


class _DropRecordsFrom(logging.Filter):
    """Drops the log records made by code under one directory."""

    def __init__(self, directory: Path) -> None:
        super().__init__()
        self._prefix = f"{directory}{os.sep}"

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.pathname.startswith(self._prefix)


@contextmanager
def quiet_model_loading() -> Iterator[None]:
    """Load a transformers model without the progress bar transformers draws meanwhile.

    The bar ("Loading weights: 100%|...") goes to stderr: in a service, on a first start (the
    export) or on every start with the torch backend, a line of its output that is not a log line.
    It is turned back on afterwards if it was on."""
    from transformers.utils import logging as hf_logging

    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if bars:
            hf_logging.enable_progress_bar()


def quantize_onnx(source: Path, target: Path) -> None:
    """Dynamic int8 quantisation of the weights of `source` into `target` (atomic). Per output
    channel: per tensor, answers' vectors came out at a cosine of 0.94-0.97 to the fp32 model's;
    per channel 0.99."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.close(fd)
    # The quantiser reports its progress on the root logger (a line per tensor, and advice to
    # pre-process); in a service those would reach its log output, and in the export command its
    # stdout, which carries only the path. A filter on the root logger sees only the calls made on
    # it directly, so other loggers' records (propagated to its handlers) are not affected.
    quiet = _DropRecordsFrom(Path(quantize_dynamic.__code__.co_filename).parent)
    logging.getLogger().addFilter(quiet)
    try:
        quantize_dynamic(source, tmp, weight_type=QuantType.QInt8, per_channel=True)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    finally:
        logging.getLogger().removeFilter(quiet)
        if os.path.exists(tmp):
            os.unlink(tmp)


def export_onnx(model_path: Path, target: Path) -> None:
    """Export the transformer of `model_path` to `target` (atomic: temp file, then rename)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    with quiet_model_loading():
        tokenizer = AutoTokenizer.from_pretrained(str(model_path), local_files_only=True)
        model = AutoModel.from_pretrained(str(model_path), local_files_only=True).eval()

    class _Hidden(torch.nn.Module):
        """Keyword arguments in, last hidden state out (the exporter passes inputs positionally)."""

        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = tokenizer(["an example", "a second, longer example"], return_tensors="pt", padding=True)
    dynamic = {name: {0: "batch", 1: "tokens"} for name in (*_INPUTS, "last_hidden_state")}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.close(fd)
    try:
        # The tracer warns about shape-dependent Python branches of the model code; the export with
        # dynamic axes gives the same vectors for any batch and length (tests compare them).
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                _Hidden(model),
                tuple(sample[name] for name in _INPUTS),
                tmp,
                input_names=list(_INPUTS),
                output_names=["last_hidden_state"],
                dynamic_axes=dynamic,
                opset_version=17,
                dynamo=False,
            )
        os.chmod(tmp, 0o644)  # mkstemp made it private; services may run as another user
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


class OnnxEncoder:
    """Tokenise, run the exported transformer, mean-pool, normalise. Not thread-safe (the caller
    serialises calls, as `Embedder` does)."""

    def __init__(
        self, model_path: Path, cache_dir: Path, *, threads: int = 1, quantized: bool = False
    ) -> None:
        """Load (exporting first when the cache has no export of this model; `quantized`: the int8
        copy of the export, made first when missing)."""
        import onnxruntime
        from tokenizers import Tokenizer

        pooling = json.loads((model_path / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{model_path}: only mean pooling is supported by the ONNX backend")
        max_length = int(json.loads((model_path / "sentence_bert_config.json").read_text())["max_seq_length"])
        export = onnx_file_for(model_path, cache_dir)
        try:
            make_missing(model_path, export, quantized_file_for(export) if quantized else None)
        except OSError:
            # A read-only cache directory (a container without the baked export): make the files
            # in the temporary directory instead of failing start-up.
            export = Path(tempfile.gettempdir()) / "interview-suite-models" / export.name
            make_missing(model_path, export, quantized_file_for(export) if quantized else None)
        self.path = quantized_file_for(export) if quantized else export
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # Workers that spin between passes burn a core the other services' processes need (2-core
        # machine: a batch of three labels took 12 ms instead of 8 next to two busy processes);
        # sleeping workers cost nothing when the machine is busy and split a pass when it is not.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
        try:
            self._session = onnxruntime.InferenceSession(
                str(self.path), options, providers=["CPUExecutionProvider"]
            )
        except Exception:
            # A damaged cache file (disk full, killed mid-copy by hand): make it again, once.
            self.path.unlink(missing_ok=True)
            make_missing(model_path, export, quantized_file_for(export) if quantized else None)
            self._session = onnxruntime.InferenceSession(
                str(self.path), options, providers=["CPUExecutionProvider"]
            )
        self._tokenizer = Tokenizer.from_file(str(model_path / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_length)
        pad_id = self._tokenizer.token_to_id("[PAD]")
        self._tokenizer.enable_padding(pad_id=pad_id if pad_id is not None else 0, pad_token="[PAD]")

    def encode(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """(len(texts), dim) float32 unit vectors."""
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(
            None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        )
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return np.asarray(pooled / np.clip(norms, 1e-12, None), dtype=np.float32)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m shared.onnx_encoder [CACHE_DIR] [--model DIR] [--no-int8]`: export the model (the
    bundled one by default) and its int8 copy ahead of time (images, `make install`); services run
    it as a child process when their cache lacks them (`shared.model_export`)."""
    import argparse

    from shared.embeddings import default_model_path

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("cache_dir", nargs="?", type=Path, default=DEFAULT_CACHE_DIR)
    parser.add_argument("--model", type=Path, default=None, help="model directory (default: bundled)")
    parser.add_argument("--no-int8", action="store_true", help="the fp32 export only")
    args = parser.parse_args(argv)
    model_path = args.model or default_model_path()
    target = onnx_file_for(model_path, args.cache_dir)
    if not target.exists():
        export_onnx(model_path, target)
    quantized = quantized_file_for(target)
    if not args.no_int8 and not quantized.exists():
        quantize_onnx(target, quantized)
    print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
