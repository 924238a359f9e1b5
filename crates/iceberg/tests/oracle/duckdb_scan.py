"""Reads an Iceberg table with DuckDB's iceberg extension (the cross-check oracle).

usage: duckdb_scan.py METADATA_JSON COLUMN... (`*`: every column)
Prints one JSON object: {"rows": [[canonical strings or null]...]} sorted, or {"error": "..."}
when DuckDB refuses the table. Values are canonical text as write_wild.py renders them
(timestamps ISO with 6 fraction digits, zoned ones in UTC, structs `{a: 1, b: null}`).
"""
import glob
import json
import os
import sys

import duckdb

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from write_wild import canon  # noqa: E402


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
    con.execute("SET TimeZone = 'UTC'")
    select = ", ".join(c if c == '*' else f'"{c}"' for c in columns)
    try:
        rows = con.sql(f"SELECT {select} FROM iceberg_scan('{meta}')").fetchall()
    except duckdb.Error as e:
        print(json.dumps({"error": str(e).split(chr(10))[0]}))
        return
    print(json.dumps({"rows": sorted([[canon(v) for v in r] for r in rows], key=json.dumps)}))


main()
