"""Writes two small demo tables into the demo lake with pypaimon (the reference Python writer).

    ~/.cache/lake-oracles/venv/bin/python scripts/demo-lake/gen_xss_table.py [public/demo/warehouse]
    python3 scripts/gen-index.py public/demo/warehouse

* demo.xss    — a primary-key table whose values, column comment and table comment look like HTML
                (`<img src=x onerror=alert(1)>`): the app must show them as text (tests/e2e).
* demo.events — an append-only table with 120 000 rows in two commits, for the data grid's
                virtualised scrolling.

Deterministic content; the table folders are replaced if they exist.
"""
import os
import shutil
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

WH = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "public/demo/warehouse")
XSS = "<img src=x onerror=alert(1)>"


def main():
    for name in ("xss", "events"):
        shutil.rmtree(os.path.join(WH, "demo.db", name), ignore_errors=True)
    cat = CatalogFactory.create({"warehouse": WH})
    cat.create_database("demo", True)

    schema = pa.schema([
        pa.field("id", pa.int32(), nullable=False),
        pa.field("label", pa.string(), metadata={"description": XSS}),
        pa.field("note", pa.string()),
    ])
    cat.create_table("demo.xss", Schema.from_pyarrow_schema(
        schema, primary_keys=["id"], comment="table comment " + XSS,
        options={"bucket": "1", "write.native.enabled": "false"}), False)
    commit(cat.get_table("demo.xss"), schema, [
        {"id": 1, "label": XSS, "note": "plain"},
        {"id": 2, "label": "<script>alert('x')</script>", "note": "&lt;b&gt; & \"quotes\""},
        {"id": 3, "label": "safe", "note": XSS},
    ])

    schema = pa.schema([
        pa.field("event_id", pa.int64(), nullable=False),
        pa.field("user_id", pa.int32()),
        pa.field("kind", pa.string()),
        pa.field("amount", pa.float64()),
    ])
    cat.create_table("demo.events", Schema.from_pyarrow_schema(
        schema, comment="120 000 synthetic events (append table) for scrolling",
        options={"write.native.enabled": "false"}), False)
    kinds = ["view", "click", "cart", "buy"]
    table = cat.get_table("demo.events")
    for start, n in ((0, 60_000), (60_000, 60_000)):
        rows = [{"event_id": i, "user_id": (i * 7919) % 1000, "kind": kinds[(i * 31) % 4],
                 "amount": round(((i * 37) % 10_000) / 100.0, 2)} for i in range(start, start + n)]
        commit(table, schema, rows)


def commit(table, schema, rows):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=schema))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


if __name__ == "__main__":
    main()
