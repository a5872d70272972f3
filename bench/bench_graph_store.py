"""Micro-benchmark of graph_store `ApplyExtraction` (and `SearchNodes`) against 10, 100 and 1 000
existing nodes.

    python bench/bench_graph_store.py .bench/graph_store.json [--runs 15] [--database-url URL]

Each measured call goes through the real gRPC server (127.0.0.1, port 0) onto SQLite (default, a
temporary file) or the given database. Every run uses its own session pre-seeded with exactly N
nodes (random unit embeddings, so nothing merges by accident; a chain of edges; one provenance row
each), so each measurement sees exactly N existing nodes. The request is a typical turn: 5 concepts
(one re-mentions an existing node), 4 relationships (one links to an earlier node by label). The
embedding cache is off, so every call pays for encoding its labels, as a fresh answer would.
After each ApplyExtraction the answer text is searched against the session's nodes (limit 80,
basic view; the query embedded by the int8 model, as the service does by default): extraction's
node lookup once a session has more than 80 nodes.

Prints a table and writes JSON with the median, p90 and min wall time per size, the median CPU
time of the process (client and server share it; less sensitive to a busy machine than wall time)
and the growth ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import platform
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from services.graph_store.app import open_store
from services.graph_store.models import EdgeRow, NodeMentionRow, NodeRow
from services.graph_store.server import build_registrations
from services.graph_store.settings import GraphStoreSettings
from shared.db import create_engine, create_session_factory
from shared.embeddings import Embedder, to_bytes
from shared.gen.interview.common.v1 import common_pb2
from shared.gen.interview.graph.v1 import graph_pb2, graph_pb2_grpc
from shared.methodology import MethodologyRegistry
from shared.server import GrpcServer

SIZES = (10, 100, 1000)
CONFIG_DIR = Path(__file__).resolve().parents[1] / "config"
MEC_TYPES = [
    "attribute",
    "functional_consequence",
    "psychosocial_consequence",
    "instrumental_value",
    "terminal_value",
]
TEXT = (
    "The ear cushions are really soft, so I can wear them on long flights and arrive rested; "
    "that keeps me productive, which gives me peace of mind. Seed concept 0 matters too."
)


async def seed(url: str, session_id: str, n: int, rng: np.random.Generator) -> None:
    """Insert `n` nodes with random unit embeddings, a chain of edges and one mention each."""
    engine = create_engine(url, schema="graph")
    sessions = create_session_factory(engine)
    now = datetime.now(UTC)
    vectors = rng.normal(size=(n, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    ids = [str(uuid.uuid4()) for _ in range(n)]
    try:
        async with sessions() as db, db.begin():
            for i in range(n):
                node_type = MEC_TYPES[i % 2]  # attribute → functional_consequence chains are permitted
                db.add(
                    NodeRow(
                        id=ids[i],
                        session_id=session_id,
                        label=f"seed concept {i}",
                        label_norm=f"seed concept {i}",
                        node_type=node_type,
                        confidence=0.9,
                        stance=0,
                        properties={},
                        level=1 + i % 2,
                        is_terminal=False,
                        embedding=to_bytes(vectors[i]),
                        created_turn=1,
                        recorded_at=now,
                    )
                )
            await db.flush()
            for i in range(n):
                db.add(
                    NodeMentionRow(
                        node_id=ids[i],
                        session_id=session_id,
                        utterance_id="seed",
                        turn_number=1,
                        extracted_label=f"seed concept {i}",
                        recorded_at=now,
                    )
                )
                if i % 2 == 0 and i + 1 < n:
                    db.add(
                        EdgeRow(
                            id=str(uuid.uuid4()),
                            session_id=session_id,
                            source_node_id=ids[i],
                            target_node_id=ids[i + 1],
                            edge_type="leads_to",
                            confidence=0.9,
                            properties={},
                            created_turn=1,
                            recorded_at=now,
                        )
                    )
    finally:
        await engine.dispose()


def request(session_id: str) -> graph_pb2.ApplyExtractionRequest:
    """A typical turn's extraction."""

    def concept(label: str, node_type: str, quote: str) -> common_pb2.ExtractedConcept:
        return common_pb2.ExtractedConcept(
            label=label, node_type=node_type, confidence=0.9, quote=common_pb2.Quote(text=quote)
        )

    def relation(source: str, target: str) -> common_pb2.ExtractedRelationship:
        return common_pb2.ExtractedRelationship(
            source_label=source, target_label=target, edge_type="leads_to", confidence=0.8
        )

    return graph_pb2.ApplyExtractionRequest(
        session_id=session_id,
        utterance_id=str(uuid.uuid4()),
        turn_number=2,
        methodology="means_end_chain",
        utterance_text=TEXT,
        concepts=[
            concept("soft ear cushions", "attribute", "ear cushions are really soft"),
            concept("wear them on long flights", "functional_consequence", "wear them on long flights"),
            concept("arrive rested", "psychosocial_consequence", "arrive rested"),
            concept("being productive", "instrumental_value", "keeps me productive"),
            concept("seed concept 0", "attribute", "Seed concept 0"),
        ],
        relationships=[
            relation("soft ear cushions", "wear them on long flights"),
            relation("wear them on long flights", "arrive rested"),
            relation("arrive rested", "being productive"),
            relation("seed concept 0", "wear them on long flights"),
        ],
    )


async def run(url: str, runs: int) -> dict[str, Any]:
    """Measure every size; returns the JSON report."""
    settings = GraphStoreSettings(
        database_url=url, config_dir=CONFIG_DIR, host="127.0.0.1", port=0, log_level="WARNING", log_json=False
    )
    embedder = Embedder(cache_size=0)
    queries = Embedder(cache_size=0, quantized=True)  # the service's default query model
    registry = MethodologyRegistry(CONFIG_DIR)
    rng = np.random.default_rng(7)
    results: list[dict[str, Any]] = []
    async with open_store(
        settings, embedder=embedder, methodologies=registry, query_encoder=queries
    ) as store:
        server = GrpcServer(settings, build_registrations(settings, store))
        await server.start()
        try:
            import grpc.aio

            async with grpc.aio.insecure_channel(f"127.0.0.1:{server.port}") as channel:
                stub = graph_pb2_grpc.GraphServiceStub(channel)
                for size in SIZES:
                    timings: list[float] = []
                    cpu: list[float] = []
                    searches: list[float] = []
                    for i in range(runs + 1):  # the first run warms up (JIT paths, pool, caches)
                        session_id = f"bench-{size}-{i}-{uuid.uuid4().hex[:6]}"
                        await seed(url, session_id, size, rng)
                        req = request(session_id)
                        start, cpu_start = time.perf_counter(), time.process_time()
                        reply = await stub.ApplyExtraction(req)
                        elapsed = (time.perf_counter() - start) * 1000
                        cpu_ms = (time.process_time() - cpu_start) * 1000
                        assert len(reply.nodes_created) == 4 and len(reply.nodes_mentioned) == 1, (
                            reply.warnings
                        )
                        assert reply.graph_state.node_count == size + 4
                        # Extraction's node lookup past 80 nodes: the answer against every node.
                        search = graph_pb2.SearchNodesRequest(
                            session_id=session_id, query=TEXT, limit=80, view=graph_pb2.NODE_VIEW_BASIC
                        )
                        start = time.perf_counter()
                        found = await stub.SearchNodes(search)
                        search_ms = (time.perf_counter() - start) * 1000
                        assert len(found.results) == min(80, size + 4)
                        if i:
                            timings.append(elapsed)
                            cpu.append(cpu_ms)
                            searches.append(search_ms)
                    timings.sort()
                    results.append(
                        {
                            "existing_nodes": size,
                            "median_ms": round(statistics.median(timings), 2),
                            "p90_ms": round(timings[int(0.9 * (len(timings) - 1))], 2),
                            "min_ms": round(timings[0], 2),
                            "median_cpu_ms": round(statistics.median(cpu), 2),
                            "search_median_ms": round(statistics.median(searches), 2),
                            "runs": runs,
                        }
                    )
        finally:
            await server.stop(grace=0)
    medians = {r["existing_nodes"]: r["median_ms"] for r in results}
    cpu_medians = {r["existing_nodes"]: r["median_cpu_ms"] for r in results}
    growth = {f"{b}/{a}": round(medians[b] / medians[a], 2) for a, b in itertools.pairwise(SIZES)}
    # Exponent k of time ∝ nodes^k between 10 and 1000 nodes (k = 0: flat, k = 1: linear).
    exponent = float(np.log(medians[SIZES[-1]] / medians[SIZES[0]]) / np.log(SIZES[-1] / SIZES[0]))
    return {
        "benchmark": "graph_store.ApplyExtraction over gRPC",
        "database": url.split(":", 1)[0],
        "request": "5 concepts (1 re-mention), 4 relationships (1 cross-turn), embeddings computed per call",
        "results": results,
        "growth_ratio": growth,
        "growth_exponent_10_to_1000": round(exponent, 3),
        "cpu_growth_ratio": {
            f"{b}/{a}": round(cpu_medians[b] / cpu_medians[a], 2) for a, b in itertools.pairwise(SIZES)
        },
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "timestamp": datetime.now(UTC).isoformat(),
    }


def main() -> None:
    """CLI entry point."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("output", type=Path, help="where to write the JSON report")
    parser.add_argument("--runs", type=int, default=15, help="measured runs per size (median over them)")
    parser.add_argument("--database-url", default="", help="database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite+aiosqlite:///{Path(tmp) / 'bench_graph_store.db'}"
        report = asyncio.run(run(url, args.runs))
    print(
        f"{'existing nodes':>15} {'median ms':>10} {'p90 ms':>8} {'min ms':>8} {'median cpu ms':>14}"
        f" {'search ms':>10}"
    )
    for r in report["results"]:
        print(
            f"{r['existing_nodes']:>15} {r['median_ms']:>10.2f} {r['p90_ms']:>8.2f} {r['min_ms']:>8.2f}"
            f" {r['median_cpu_ms']:>14.2f} {r['search_median_ms']:>10.2f}"
        )
    print("growth (wall):", report["growth_ratio"], "exponent:", report["growth_exponent_10_to_1000"])
    print("growth (cpu):", report["cpu_growth_ratio"])
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
