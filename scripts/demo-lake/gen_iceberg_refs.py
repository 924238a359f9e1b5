"""Writes the demo lake's Iceberg table `iceberg.branched` (a tag and a branch whose schemas
differ) with pyiceberg 0.12, and the rows pyiceberg reads at each ref for the e2e tests.

    ~/.cache/lake-oracles/venv/bin/python scripts/demo-lake/gen_iceberg_refs.py [public/demo/warehouse]
    python3 scripts/gen-index.py public/demo/warehouse

History (main unless said):
  1. create (id long required, identifier; name string), append ids 1-3  -> tag `t1`
  2. add column `score double`
  3. create branch `dev` at the current snapshot; append ids 10-11 with scores to `dev`
  4. add column `note string`; append ids 4-5 to main
So `t1` has schema 0, the head of `dev` was written with schema 1, main's current schema is 2.

Expected rows go to tests/e2e/expected/iceberg_branched.json: for each ref its snapshot id,
columns and rows (canonical strings, null as null, sorted), read by pyiceberg:
  * `main`, `t1`: table.scan(snapshot_id=...) (pyiceberg reads a snapshot with its own schema);
  * `dev`: the branch head's files read with the table's current schema (Java's rule for
    branches: a branch reads with the current schema; tags with the snapshot's);
  * `dev_snapshot_schema`: the branch head read with its snapshot's schema (today's engine rule).
The table is written in a temporary warehouse (its metadata says location
file:///tmp/lakescope-demo/iceberg/branched; the app re-roots it) and copied into the lake.
"""
import json
import os
import shutil
import sys
import tempfile

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.io.pyarrow import ArrowScan
from pyiceberg.schema import Schema
from pyiceberg.types import DoubleType, LongType, NestedField, StringType

WH = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "public/demo/warehouse")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED = os.path.join(REPO, "tests", "e2e", "expected", "iceberg_branched.json")
TMP = "/tmp/lakescope-demo"
LOCATION = f"file://{TMP}/iceberg/branched"


def canon(v):
    return None if v is None else str(v)


def rows_of(table: pa.Table):
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    rows = [[canon(c[r]) for c in cols] for r in range(table.num_rows)]
    return {"columns": table.column_names, "rows": sorted(rows, key=json.dumps)}


def main():
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(TMP)
    with tempfile.TemporaryDirectory() as db:
        cat = SqlCatalog("demo", uri=f"sqlite:///{db}/catalog.db", warehouse=f"file://{TMP}")
        cat.create_namespace("iceberg")
        schema = Schema(
            NestedField(1, "id", LongType(), required=True),
            NestedField(2, "name", StringType(), required=False),
            identifier_field_ids=[1],
        )
        t = cat.create_table("iceberg.branched", schema, location=LOCATION)
        arrow0 = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("name", pa.string())])
        t.append(pa.table({"id": [1, 2, 3], "name": ["ada", "bob", "cy"]}, schema=arrow0))
        first = t.current_snapshot().snapshot_id
        t.manage_snapshots().create_tag(first, "t1").commit()

        with t.update_schema() as u:
            u.add_column("score", DoubleType())
        t.manage_snapshots().create_branch(first, "dev").commit()
        arrow1 = arrow0.append(pa.field("score", pa.float64()))
        t.append(pa.table({"id": [10, 11], "name": ["dev-a", "dev-b"], "score": [1.5, 2.25]}, schema=arrow1), branch="dev")

        with t.update_schema() as u:
            u.add_column("note", StringType())
        arrow2 = arrow1.append(pa.field("note", pa.string()))
        t.append(pa.table({"id": [4, 5], "name": ["dan", "eve"], "score": [4.0, None], "note": ["main", None]}, schema=arrow2))

        t = cat.load_table("iceberg.branched")
        refs = {n: r.snapshot_id for n, r in t.metadata.refs.items()}
        dev = t.snapshot_by_id(refs["dev"])
        expected = {"refs": {n: str(i) for n, i in sorted(refs.items())}}
        for name in ("main", "t1"):
            expected[name] = rows_of(t.scan(snapshot_id=refs[name]).to_arrow())
        tasks = list(t.scan(snapshot_id=refs["dev"]).plan_files())
        current = ArrowScan(t.metadata, t.io, t.schema(), AlwaysTrue()).to_table(tasks)
        expected["dev"] = rows_of(current)
        expected["dev_snapshot_schema"] = rows_of(t.scan(snapshot_id=refs["dev"]).to_arrow())
        expected["schema_ids"] = {"t1": t.snapshot_by_id(refs["t1"]).schema_id, "dev": dev.schema_id,
                                  "current": t.metadata.current_schema_id}

    target = os.path.join(WH, "iceberg", "branched")
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(os.path.join(TMP, "iceberg", "branched"), target)
    shutil.rmtree(TMP, ignore_errors=True)
    os.makedirs(os.path.dirname(EXPECTED), exist_ok=True)
    with open(EXPECTED, "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(f"wrote {target} and {EXPECTED}")


if __name__ == "__main__":
    main()
