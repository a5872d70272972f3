"""JSON columns of the engines made by `shared.db.create_engine` (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import math
from typing import Any

from sqlalchemy import JSON, Column, Integer, MetaData, Table, cast, insert, select
from sqlalchemy.types import Text

from shared.db import create_engine, json_dumps, json_loads

VALUE: dict[Any, Any] = {
    "schema_version": 2,
    "label": "café crème — 東京",
    7: ["int keys become strings", 0.1, 1e-07, None, True],
    "nested": {"yield_rate": 0.3333333333333333, "ids": ["a", "b"]},
}
# What a reader gets back: the key 7 as "7", like the standard library's json.
EXPECTED = json.loads(json.dumps(VALUE))


def test_json_dumps_writes_compact_utf8_with_string_keys() -> None:
    text = json_dumps(VALUE)
    assert json.loads(text) == EXPECTED
    assert '"label":"café crème — 東京"' in text  # compact, and not \u-escaped
    assert json_loads(text) == EXPECTED
    assert json_loads(text.encode()) == EXPECTED


def test_json_dumps_writes_nan_and_infinity_as_null() -> None:
    # PostgreSQL refuses NaN in a json value; the standard library would write the bare token NaN.
    assert json_loads(json_dumps({"a": math.nan, "b": math.inf})) == {"a": None, "b": None}


def test_json_loads_reads_what_the_standard_library_wrote() -> None:
    # Rows stored before orjson: json.dumps writes the non-JSON tokens NaN and Infinity.
    old = json.dumps({"a": math.nan, "b": -math.inf, "c": "é"})
    value = json_loads(old)
    assert math.isnan(value["a"]) and value["b"] == -math.inf and value["c"] == "é"


async def test_json_column_round_trip_uses_the_engine_codec(db_url: str) -> None:
    table = Table("json_probe", MetaData(), Column("id", Integer, primary_key=True), Column("doc", JSON))
    engine = create_engine(db_url, schema="json_probe")
    try:
        async with engine.begin() as conn:
            await conn.run_sync(table.metadata.create_all)
            await conn.execute(insert(table).values(id=1, doc=VALUE))
        async with engine.connect() as conn:
            doc = (await conn.execute(select(table.c.doc))).scalar_one()
            stored = (await conn.execute(select(cast(table.c.doc, Text)))).scalar_one()
        assert doc == EXPECTED
        # The stored text is the codec's (json.dumps would have written '{"schema_version": 2, ...').
        assert stored == json_dumps(VALUE)
    finally:
        await engine.dispose()
