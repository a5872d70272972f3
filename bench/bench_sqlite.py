"""Micro-benchmark of the SQLite driver under the services' async engines: aiosqlite (a worker thread
per connection) against `shared.sqlite_inline` (statements on the event loop's thread).

    python bench/bench_sqlite.py OUTPUT.json [--statements 2000] [--repeats 5]

Both drivers run the same SQLAlchemy Core code through `sqlite+aiosqlite` engines with the pragmas
of `shared.db` (WAL, synchronous=NORMAL), on a temporary file: one-row write transactions (an
INSERT and its COMMIT, the shape of a turn's checkpoint or completion) and primary-key reads (the
shape of a session or turn lookup). Reported per driver: median over the repeats of the wall and
CPU time per statement (CPU of this process, both threads), and the ratios aiosqlite / inline.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Integer, MetaData, Table, Text, event, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from shared.db import create_engine

METADATA = MetaData()
ROWS = Table("rows", METADATA, Column("id", Integer, primary_key=True), Column("payload", Text))
PAYLOAD = "x" * 200


def thread_engine(url: str) -> AsyncEngine:
    """aiosqlite as the dialect imports it, with the same pragmas as `shared.db`."""
    engine = create_async_engine(url)

    @event.listens_for(engine.sync_engine, "connect")
    def _pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    return engine


async def _timed(work: Callable[[], Awaitable[None]], statements: int) -> tuple[float, float]:
    """(wall ms, CPU ms) per statement of `work`."""
    wall, cpu = time.perf_counter(), time.process_time()
    await work()
    return (
        (time.perf_counter() - wall) * 1000 / statements,
        (time.process_time() - cpu) * 1000 / statements,
    )


async def measure(engine: AsyncEngine, statements: int, repeats: int) -> dict[str, Any]:
    """Write transactions and reads on `engine`; medians over `repeats`."""
    async with engine.begin() as conn:
        await conn.run_sync(METADATA.create_all)

    async def writes() -> None:
        for _ in range(statements):
            async with engine.begin() as conn:
                await conn.execute(insert(ROWS).values(payload=PAYLOAD))

    async def reads() -> None:
        async with engine.connect() as conn:
            for i in range(statements):
                (await conn.execute(select(ROWS).where(ROWS.c.id == i % statements + 1))).all()

    await writes()  # warm up: compiled statements, pooled connection, a filled table
    out: dict[str, Any] = {}
    for name, work in (("write_transaction", writes), ("read", reads)):
        runs = [await _timed(work, statements) for _ in range(repeats)]
        out[name] = {
            "wall_ms": round(statistics.median(r[0] for r in runs), 4),
            "cpu_ms": round(statistics.median(r[1] for r in runs), 4),
        }
    await engine.dispose()
    return out


async def run(statements: int, repeats: int) -> dict[str, Any]:
    """Both drivers on fresh files."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        drivers = {
            "aiosqlite_thread": await measure(
                thread_engine(f"sqlite+aiosqlite:///{folder / 'thread.db'}"), statements, repeats
            ),
            "inline": await measure(
                create_engine(f"sqlite+aiosqlite:///{folder / 'inline.db'}", schema=None), statements, repeats
            ),
        }
    ratios = {
        f"{kind}_{unit}": round(
            drivers["aiosqlite_thread"][kind][unit] / max(drivers["inline"][kind][unit], 1e-9), 2
        )
        for kind in ("write_transaction", "read")
        for unit in ("wall_ms", "cpu_ms")
    }
    return {
        "benchmark": "SQLite driver per statement (SQLAlchemy Core, async engine)",
        "statements": statements,
        "repeats": repeats,
        "drivers": drivers,
        "thread_over_inline": ratios,
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
    parser.add_argument("--statements", type=int, default=2000, help="statements per measured run")
    parser.add_argument("--repeats", type=int, default=5, help="measured runs (median over them)")
    args = parser.parse_args()
    report = asyncio.run(run(args.statements, args.repeats))
    print(f"{'driver':>18} {'write tx ms':>12} {'(cpu)':>8} {'read ms':>9} {'(cpu)':>8}")
    for name, r in report["drivers"].items():
        w, rd = r["write_transaction"], r["read"]
        print(f"{name:>18} {w['wall_ms']:>12.3f} {w['cpu_ms']:>8.3f}", end="")
        print(f" {rd['wall_ms']:>9.3f} {rd['cpu_ms']:>8.3f}")
    print("aiosqlite / inline:", report["thread_over_inline"])
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
