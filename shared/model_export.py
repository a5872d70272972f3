"""The embedding model's ONNX files, made in a child process, one process at a time per cache.

Why a child process: the export runs the model through PyTorch's exporter, and a process that
imports torch keeps it mapped for the rest of its life (about 180 MiB of resident memory per
service, see `shared.spacy_loading`). A service that found its cache empty (the first start after
a clone, a container without the baked export) used to export in process and carry torch until it
stopped; the child exits and takes torch with it.

Why a lock: the services that encode (graph store, canonical slots) start together and would all
find the cache empty. Each export takes tens of seconds of both cores; under an exclusive lock on a
file beside the export, the first process makes the files and the others find them made.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

# An export takes 10-60 s on the 2-core machine; a child stuck far beyond that would otherwise hang
# the service's start-up for good.
_TIMEOUT_S = 900.0
# The end of the child's stderr goes into the error: the traceback's last lines name the cause.
_STDERR_TAIL_CHARS = 2000
_PACKAGE_ROOT = Path(__file__).resolve().parent.parent


class ModelExportError(RuntimeError):
    """The child process that makes the model's ONNX files failed or did not make them."""


def lock_file_for(export: Path) -> Path:
    """The lock file beside an export (hidden: the cache's listing shows the models)."""
    return export.with_name(f".{export.name}.lock")


def make_missing(model_path: Path, export: Path, int8_copy: Path | None = None) -> bool:
    """Make `export` (and `int8_copy`, when given) from the model in `model_path` if missing.

    Runs `python -m shared.onnx_encoder` in a child process while holding the cache's lock; the
    files are looked for again once the lock is held, since another process may have made them
    meanwhile. Returns whether this call ran the child. Raises OSError when the cache directory
    cannot be written (the caller may choose another), ModelExportError when the child fails.
    """
    wanted = [p for p in (export, int8_copy) if p is not None]
    if all(p.exists() for p in wanted):
        return False
    export.parent.mkdir(parents=True, exist_ok=True)
    with lock_file_for(export).open("a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when the file is closed
        if all(p.exists() for p in wanted):
            return False
        _run_child(model_path, export.parent, int8=int8_copy is not None)
    missing = [str(p) for p in wanted if not p.exists()]
    if missing:
        raise ModelExportError(f"the model export finished without making {', '.join(missing)}")
    return True


def _run_child(model_path: Path, cache_dir: Path, *, int8: bool) -> None:
    env = dict(os.environ)
    env["HF_HUB_OFFLINE"] = "1"  # the child loads the bundled model; never a network call
    # The child imports `shared` as this process did, whatever its working directory.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(_PACKAGE_ROOT), env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-m", "shared.onnx_encoder", str(cache_dir), "--model", str(model_path)]
    if not int8:
        command.append("--no-int8")
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ModelExportError(
            f"making the model's ONNX files in {cache_dir} took over {_TIMEOUT_S:.0f} s"
        ) from exc
    if done.returncode != 0:
        tail = done.stderr[-_STDERR_TAIL_CHARS:].strip()
        raise ModelExportError(
            f"making the model's ONNX files in {cache_dir} failed (exit {done.returncode}): {tail}"
        )
