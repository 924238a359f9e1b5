"""Writes the Iceberg table of tests/refs.rs with pyiceberg 0.12 (SqlCatalog on sqlite): branches
and tags across schema changes, and prints what each ref reads.

usage: write_refs.py ROOT
Table `refs.evolve` (warehouse ROOT/wh, folder `refs/evolve`):
  1. (id long, v string), main appends ids 1, 2                       -> S1 (schema 0)
  2. tag t1 and branch dev at S1
  3. column `extra long` added                                        -> schema 1
  4. dev appends id 3 (`table.append(df, branch="dev")`)              -> S2 on dev (schema 1)
  5. main appends id 4                                                -> S3 on main (schema 1)
  6. tag t2 at S2 (dev's head)
  7. `v` renamed to `name`, column `note string` added                -> schema 2 (current)
So dev and t2 point at one snapshot, S2, and Java's `SnapshotUtil.schemaFor(table, ref)` reads
them differently: the branch with the table's current schema 2 (id, name, extra, note), the tag
with its snapshot's schema 1 (id, v, extra). main reads S3 with schema 2, t1 S1 with schema 0.

Prints one JSON object:
  {"metadata": path, "snapshots": {"S1": id, ...},
   "refs": {ref: {"type": "branch"|"tag", "snapshot": id, "schema_id": n, "field_ids": [...],
                  "java": {"columns": [...], "rows": [[...]]},      # Java's rule (see below)
                  "pyiceberg": {"columns": [...], "rows": [[...]]}, # pyiceberg's own scan
                  "duckdb": {...} | "error: ..." | "unavailable: ..."}}}
"java" is pyiceberg's own reader (ArrowScan over the ref snapshot's planned files) given the
schema Java's rule picks; "pyiceberg" is `table.scan().use_ref(ref)`, which reads every ref with
its snapshot's schema (pyiceberg 0.12's DataScan.projection), so for a branch it differs from
Java. "duckdb" is DuckDB 1.5.5's `iceberg_scan(metadata, snapshot_from_id => id)`.
"current" is pyiceberg's `table.scan()` (no ref): the current schema, as Java reads main.
Rows are lists of canonical strings (null as null), sorted.
"""
import glob
import json
import os
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.io.pyarrow import ArrowScan
from pyiceberg.schema import Schema
from pyiceberg.types import LongType, NestedField, StringType


def canon(v):
    return None if v is None else str(v)


def frame(t):
    cols = [t.column(i).to_pylist() for i in range(t.num_columns)]
    rows = sorted([[canon(c[r]) for c in cols] for r in range(t.num_rows)], key=json.dumps)
    return {'columns': t.schema.names, 'rows': rows}


def duck(meta, snapshot):
    try:
        import duckdb
    except ImportError as e:
        return 'unavailable: %s' % e
    sp = os.path.dirname(os.path.dirname(duckdb.__file__))
    con = duckdb.connect(config={'autoinstall_known_extensions': False, 'autoload_known_extensions': False})
    for e in ('avro', 'iceberg'):
        found = glob.glob(os.path.join(sp, 'duckdb_extension_%s' % e, 'extensions', '*', '%s.duckdb_extension' % e))
        if not found:
            return 'unavailable: no %s extension wheel' % e
        con.execute("LOAD '%s'" % found[0])
    try:
        return frame(con.execute("SELECT * FROM iceberg_scan('%s', snapshot_from_id => %d)" % (meta, snapshot)).to_arrow_table())
    except Exception as e:  # reported, compared by the test
        return 'error: %s' % str(e).replace('\n', ' ')[:300]


def main():
    root = sys.argv[1]
    wh = os.path.join(root, 'wh')
    os.makedirs(wh, exist_ok=True)
    cat = SqlCatalog('refs', uri='sqlite:///%s/catalog.db' % root, warehouse='file://' + wh)
    cat.create_namespace('refs')
    schema = Schema(NestedField(1, 'id', LongType(), required=False),
                    NestedField(2, 'v', StringType(), required=False))
    t = cat.create_table('refs.evolve', schema=schema)

    def arrow(rows, with_extra):
        cols = {'id': pa.array([r[0] for r in rows], pa.int64()),
                'v': pa.array([r[1] for r in rows], pa.string())}
        if with_extra:
            cols['extra'] = pa.array([r[2] for r in rows], pa.int64())
        return pa.table(cols)

    t.append(arrow([(1, 'a'), (2, 'b')], False))
    s1 = t.current_snapshot().snapshot_id
    t.manage_snapshots().create_tag(s1, 't1').create_branch(s1, 'dev').commit()
    with t.update_schema() as u:
        u.add_column('extra', LongType())
    t = cat.load_table('refs.evolve')
    t.append(arrow([(3, 'c', 30)], True), branch='dev')
    t = cat.load_table('refs.evolve')
    s2 = t.metadata.refs['dev'].snapshot_id
    t.append(arrow([(4, 'd', 40)], True))
    t = cat.load_table('refs.evolve')
    s3 = t.current_snapshot().snapshot_id
    t.manage_snapshots().create_tag(s2, 't2').commit()
    t = cat.load_table('refs.evolve')
    with t.update_schema() as u:
        u.rename_column('v', 'name')
        u.add_column('note', StringType())
    t = cat.load_table('refs.evolve')

    meta = t.metadata_location.replace('file://', '')
    schemas = {s.schema_id: s for s in t.metadata.schemas}
    refs = {}
    for name, ref in sorted(t.metadata.refs.items()):
        snap = t.metadata.snapshot_by_id(ref.snapshot_id)
        kind = ref.snapshot_ref_type.value
        # Java's SnapshotUtil.schemaFor(table, ref): a branch reads with the current schema, a
        # tag with its snapshot's
        java_schema = t.schema() if kind == 'branch' else schemas[snap.schema_id]
        tasks = t.scan(snapshot_id=ref.snapshot_id).plan_files()
        java = ArrowScan(t.metadata, t.io, java_schema, AlwaysTrue()).to_table(tasks)
        refs[name] = {
            'type': kind,
            'snapshot': ref.snapshot_id,
            'schema_id': java_schema.schema_id,
            'field_ids': [f.field_id for f in java_schema.fields],
            'java': frame(java),
            'pyiceberg': frame(t.scan().use_ref(name).to_arrow()),
            'duckdb': duck(meta, ref.snapshot_id),
        }
    # pyiceberg's scan of the current state (no ref): the current schema, as Java reads main
    current = frame(t.scan().to_arrow())
    print(json.dumps({'metadata': meta, 'snapshots': {'S1': s1, 'S2': s2, 'S3': s3}, 'refs': refs,
                      'current': current}))


if __name__ == '__main__':
    main()
