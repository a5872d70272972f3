"""spaCy is imported without torch in the services that use it, and torch stays importable after.

Each case runs in a fresh interpreter: this test process may have imported either already."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _run(code: str) -> dict[str, object]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_the_services_load_spacy_without_torch_and_torch_imports_later() -> None:
    result = _run(
        "import json, sys\n"
        "import services.extraction.nlp, services.canonical_slots.lemmas\n"
        "from services.question.wordforms import WordForms\n"
        "WordForms.load()\n"
        "import thinc.compat\n"
        "loaded = 'torch' in sys.modules\n"
        "import torch\n"
        "print(json.dumps({'spacy': 'spacy' in sys.modules, 'torch_loaded': loaded,\n"
        "    'thinc_torch': thinc.compat.has_torch, 'torch_later': hasattr(torch, 'tensor')}))\n"
    )
    assert result == {"spacy": True, "torch_loaded": False, "thinc_torch": False, "torch_later": True}


def test_torch_imported_first_is_left_as_it_is() -> None:
    result = _run(
        "import json, sys\n"
        "import torch\n"
        "from shared.spacy_loading import import_spacy\n"
        "import_spacy()\n"
        "import thinc.compat\n"
        "same = sys.modules['torch'] is torch\n"
        "print(json.dumps({'same_torch': same, 'thinc_torch': thinc.compat.has_torch}))\n"
    )
    assert result == {"same_torch": True, "thinc_torch": True}
