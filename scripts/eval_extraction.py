"""Precision and recall of the offline extractor on the hand-written gold answers.

    python scripts/eval_extraction.py            # table per methodology and overall
    python scripts/eval_extraction.py -v         # plus every missed / extra node and edge
    python scripts/eval_extraction.py --split heldout

Gold files: tests/data/extraction/gold_<methodology>.yaml (format and matching rules in
services/extraction/evaluation.py). The test tests/unit/extraction/test_local_gold.py enforces
floors on the same numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from services.extraction.engine import ExtractionEngine  # noqa: E402
from services.extraction.evaluation import Counts, evaluate_set, load_gold  # noqa: E402
from services.extraction.nlp import build_nlp  # noqa: E402
from services.extraction.preprocess import Preprocessor  # noqa: E402
from shared.llm.base import LLMClientName  # noqa: E402
from shared.llm.local import LocalLLMClient  # noqa: E402
from shared.methodology import ConceptRegistry, MethodologyRegistry  # noqa: E402

GOLD_DIR = ROOT / "tests" / "data" / "extraction"


def build_engine(config_dir: Path = ROOT / "config") -> tuple[ExtractionEngine, ConceptRegistry]:
    """An engine with the offline client (what runs without API keys)."""
    pre = Preprocessor(build_nlp())
    registry = MethodologyRegistry(config_dir)
    engine = ExtractionEngine(
        preprocessor=pre, methodologies=registry.get, llm=LocalLLMClient(name=LLMClientName.EXTRACTION)
    )
    return engine, ConceptRegistry(config_dir, registry)


def gold_files() -> list[Path]:
    """Every gold file, sorted."""
    return sorted(GOLD_DIR.glob("gold_*.yaml"))


async def _main(verbose: bool, split: str | None) -> int:
    engine, concepts = build_engine()
    overall = Counts()
    header = f"{'methodology':<28}{'items':>6}{'node P':>8}{'node R':>8}{'edge P':>8}{'edge R':>8}"
    print(header)
    print("-" * len(header))
    for path in gold_files():
        gold = load_gold(path)
        counts = await evaluate_set(engine, concepts, gold, split)
        n_items = sum(1 for i in gold.items if split is None or i.split == split)
        overall.add(counts)
        print(
            f"{gold.methodology:<28}{n_items:>6}{counts.node_precision:>8.2f}{counts.node_recall:>8.2f}"
            f"{counts.edge_precision:>8.2f}{counts.edge_recall:>8.2f}"
        )
        if verbose:
            for miss in counts.misses:
                print(f"    {miss}")
    print("-" * len(header))
    print(
        f"{'overall':<28}{'':>6}{overall.node_precision:>8.2f}{overall.node_recall:>8.2f}"
        f"{overall.edge_precision:>8.2f}{overall.edge_recall:>8.2f}"
    )
    return 0


def main() -> int:
    """CLI entry point."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="list every missed and extra item")
    parser.add_argument("--split", choices=["dev", "heldout"], default=None, help="only items of this split")
    args = parser.parse_args()
    return asyncio.run(_main(args.verbose, args.split))


if __name__ == "__main__":
    raise SystemExit(main())
