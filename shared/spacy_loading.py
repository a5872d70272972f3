"""spaCy without PyTorch.

spaCy imports thinc, and thinc imports torch whenever torch is installed (`thinc.compat`), to
offer its PyTorch layers. The suite uses spaCy's blank English pipeline, its lookup tables and its
matchers, none of which touch thinc's PyTorch layers; torch is installed only to export the
embedding model once (`shared.onnx_encoder`) and for the optional torch embedding backend. Loaded
by spaCy anyway, torch cost a service about 3 s of start-up and 180 MB of memory on the 2-core
machine (`python -c "import spacy"`: 4.6 s and 276 MB against 1.4 s and 95 MB with torch hidden).

`import_spacy` hides torch while spaCy and thinc are first imported, then un-hides it, so a later
`import torch` (the export, the torch backend) works as usual. thinc then reports no torch, which
only its PyTorch layers would care about. The upstream report: explosion/thinc#894 (the same for
TensorFlow).
"""

from __future__ import annotations

import importlib
import sys


def import_spacy() -> None:
    """Import spaCy with torch hidden from thinc, unless either is already imported (then nothing
    changes: torch stays where it is, and spaCy is not imported twice)."""
    if "spacy" in sys.modules or "torch" in sys.modules:
        return
    # A None entry makes `import torch` raise ImportError, which thinc.compat catches.
    sys.modules["torch"] = None  # type: ignore[assignment]
    try:
        importlib.import_module("spacy")
    finally:
        if "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]
