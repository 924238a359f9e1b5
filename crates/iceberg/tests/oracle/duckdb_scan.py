"""Reads an Iceberg table with DuckDB's iceberg extension (the cross-check oracle).

usage: duckdb_scan.py METADATA_JSON COLUMN...
Prints one JSON object: {"rows": [[canonical strings or null]...]} sorted, or {"error": "..."}
when DuckDB refuses the table. Timestamps are ISO with 6 (or, for nanoseconds, 9) fraction
digits as DuckDB renders them as text.
"""
import glob
import json
import os
import sys

import duckdb


def connect():
    """DuckDB with the avro and iceberg extensions loaded from their wheels (offline)."""
    sp = os.path.dirname(os.path.dirname(duckdb.__file__))
    con = duckdb.connect(config={'autoinstall_known_extensions': False,
                                 'autoload_known_extensions': False})
    for e in ('avro', 'iceberg'):
        found = glob.glob(os.path.join(sp, 'duckdb_extension_%s' % e, 'extensions', '*',
                                       '%s.duckdb_extension' % e))
        con.execute("LOAD '%s'" % found[0])
    return con


def main():
    meta, columns = sys.argv[1], sys.argv[2:]
    con = connect()
    select = ", ".join(f'CAST("{c}" AS VARCHAR)' for c in columns)
    try:
        rows = con.sql(f"SELECT {select} FROM iceberg_scan('{meta}')").fetchall()
    except duckdb.Error as e:
        print(json.dumps({"error": str(e)}))
        return
    print(json.dumps({"rows": sorted([list(r) for r in rows], key=json.dumps)}))


main()
