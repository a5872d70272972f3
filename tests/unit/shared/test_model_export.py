"""`shared.model_export`: a service that finds its model cache empty makes the ONNX files in a
child process, so torch never loads into the service, and services starting together export once.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from shared.embeddings import default_model_path
from shared.model_export import ModelExportError, lock_file_for, make_missing
from shared.onnx_encoder import onnx_file_for, quantized_file_for

ROOT = Path(__file__).resolve().parents[3]

# A fresh interpreter: the test process itself has imported torch (the reference backend).
_LOAD_INTO_EMPTY_CACHE = """
import sys
from pathlib import Path
from shared.embeddings import default_model_path
from shared.onnx_encoder import OnnxEncoder
encoder = OnnxEncoder(default_model_path(), Path(sys.argv[1]))
assert encoder.encode(["battery life"]).shape == (1, 384)
print(encoder.path.exists(), "torch" in sys.modules, "transformers" in sys.modules)
"""


def test_a_service_finding_no_export_makes_it_without_loading_torch(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _LOAD_INTO_EMPTY_CACHE, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    # The export was made (and loaded), and neither torch nor transformers entered the process.
    assert done.stdout.split() == ["True", "False", "False"]
    export = onnx_file_for(default_model_path(), tmp_path)
    assert export.exists() and not quantized_file_for(export).exists()  # fp32 asked, fp32 made


def test_processes_starting_together_export_once(tmp_path: Path) -> None:
    model = default_model_path()
    export = onnx_file_for(model, tmp_path)
    start = threading.Barrier(3)
    made: list[bool] = []
    errors: list[BaseException] = []

    def load() -> None:
        start.wait()
        try:
            made.append(make_missing(model, export))
            # Whoever returns finds the file there: the others waited for the one exporting.
            assert export.exists()
        except BaseException as exc:  # handed to the test's own thread, which asserts on it
            errors.append(exc)

    # Threads open the lock file each on its own, as processes do: flock excludes them alike.
    threads = [threading.Thread(target=load) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert not errors
    assert sorted(made) == [False, False, True]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([export.name, lock_file_for(export).name])
    # Asked again with everything there, nothing runs.
    assert make_missing(model, export) is False


def test_an_int8_copy_asked_later_is_made_beside_the_existing_export(tmp_path: Path) -> None:
    model = default_model_path()
    export = onnx_file_for(model, tmp_path)
    assert make_missing(model, export) is True
    stamp = export.stat().st_mtime_ns
    assert make_missing(model, export, quantized_file_for(export)) is True
    assert quantized_file_for(export).exists() and export.stat().st_mtime_ns == stamp  # not redone


def test_a_failed_export_says_why_and_leaves_no_model_file(tmp_path: Path) -> None:
    # A model folder whose config cannot be read: the child fails while loading it.
    model = tmp_path / "model"
    source = default_model_path()
    for item in source.iterdir():
        (model / item.name).parent.mkdir(exist_ok=True)
        (model / item.name).symlink_to(item)
    (model / "config.json").unlink()
    (model / "config.json").write_text("{not json")
    cache = tmp_path / "cache"
    export = onnx_file_for(model, cache)
    with pytest.raises(ModelExportError, match=r"failed \(exit 1\)") as failure:
        make_missing(model, export)
    # The child's own error is in the message, not only its exit status.
    assert "config" in str(failure.value).lower()
    assert [p.name for p in cache.iterdir()] == [lock_file_for(export).name]
