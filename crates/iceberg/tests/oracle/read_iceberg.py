"""Reads an Iceberg table lakescope wrote, with pyiceberg (and DuckDB's iceberg reader if present).

usage: read_iceberg.py METADATA_JSON [SNAPSHOT_ID|-] [COLUMN=VALUE]
Prints one JSON object: {"pyiceberg": [rows], "pyiceberg_mode": "scan" | "merge", "planned_files": n,
"duckdb": [rows] | "unavailable: ..." | "error: ..."}.
pyiceberg 0.12 refuses to scan snapshots with equality deletes; for those ("merge" mode) the
manifests are still parsed by pyiceberg (entries, sequence numbers, partitions, equality ids) and
the spec's merge-on-read rule is applied here: an equality delete removes rows with the same
key from data files of a lower data sequence number in the same partition (or any, unpartitioned).
Rows are lists of canonical strings (timestamps ISO with 6 fraction digits, decimals plain),
sorted. COLUMN=VALUE filters the pyiceberg scan (pyiceberg prunes partitions and files with its
own transforms, so a wrong partition value written by lakescope drops rows).
"""
import glob
import json
import os
import sys


def canon(v):
    if v is None:
        return None
    if hasattr(v, 'isoformat'):
        s = v.isoformat()
        return s if '.' in s else s + '.000000'
    return str(v)


def rows_of(table):
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return sorted([[canon(c[r]) for c in cols] for r in range(table.num_rows)], key=json.dumps)


def merge_on_read(t, snapshot_id):
    import pyarrow.parquet as pq
    from pyiceberg.manifest import DataFileContent
    snap = t.snapshot_by_id(snapshot_id) if snapshot_id is not None else t.current_snapshot()
    schema = t.schemas()[snap.schema_id] if snap.schema_id is not None else t.schema()
    names = [f.name for f in schema.fields]
    by_id = {f.field_id: f.name for f in schema.fields}
    data, deletes = [], []
    for m in snap.manifests(t.io):
        unpartitioned = t.specs()[m.partition_spec_id].is_unpartitioned()
        for e in m.fetch_manifest_entry(t.io, discard_deleted=True):
            f = e.data_file
            part = None if unpartitioned else repr(f.partition)
            if f.content == DataFileContent.DATA:
                data.append((e.sequence_number, part, f))
            elif f.content == DataFileContent.EQUALITY_DELETES:
                cols = [by_id[i] for i in f.equality_ids]
                keys = pq.read_table(t.io.new_input(f.file_path).open(), columns=cols).to_pylist()
                deletes.append((e.sequence_number, part, cols, {tuple(k[c] for c in cols) for k in keys}))
            else:
                raise ValueError('position deletes are not expected in tables lakescope writes')
    rows = []
    for seq, part, f in data:
        for r in pq.read_table(t.io.new_input(f.file_path).open()).to_pylist():
            dead = any(dseq > seq and (dpart is None or dpart == part) and tuple(r[c] for c in cols) in keys
                       for dseq, dpart, cols, keys in deletes)
            if not dead:
                rows.append([canon(r.get(n)) for n in names])
    return sorted(rows, key=json.dumps)


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
    args = "'%s'" % meta
    if snapshot is not None:
        args += ', snapshot_from_id => %d' % snapshot
    try:
        return rows_of(con.execute('SELECT * FROM iceberg_scan(%s)' % args).to_arrow_table())
    except Exception as e:  # reported, compared by the test
        return 'error: %s' % e


def main():
    meta = sys.argv[1]
    snapshot = None if len(sys.argv) < 3 or sys.argv[2] == '-' else int(sys.argv[2])
    from pyiceberg.table import StaticTable
    from pyiceberg.expressions import EqualTo
    t = StaticTable.from_metadata('file://' + meta if meta.startswith('/') else meta)
    scan_args = {}
    if snapshot is not None:
        scan_args['snapshot_id'] = snapshot
    if len(sys.argv) > 3:
        col, val = sys.argv[3].split('=', 1)
        scan_args['row_filter'] = EqualTo(col, val)
    try:
        scan = t.scan(**scan_args)
        out = {'pyiceberg': rows_of(scan.to_arrow()), 'pyiceberg_mode': 'scan',
               'planned_files': len(list(scan.plan_files()))}
    except ValueError as e:
        if 'equality deletes' not in str(e) or 'row_filter' in scan_args:
            raise
        out = {'pyiceberg': merge_on_read(t, snapshot), 'pyiceberg_mode': 'merge'}
    out['duckdb'] = duck(meta, snapshot) if len(sys.argv) <= 3 else 'not run for filtered scans'
    print(json.dumps(out))


if __name__ == '__main__':
    main()
