"""Oracle for seed_interop.rs: pypaimon 2.1 reads tables at refs; also normalizes JSON lines.

usage:
  read_refs.py read @<table dir> <ref>... [@<table dir> <ref>...]...
      <ref> is `latest` (no time travel), `snapshot:<id>` (scan.snapshot-id) or `tag:<name>`
      (scan.tag-name). Prints "## <table dir>", then per ref "== <ref>" and one canonical JSON
      line per row (lakescope_engine::canonical's form: keys in schema order, compact
      separators, decimals as strings with `scale` digits, dates/times/timestamps as ISO text,
      binary as hex, FLOAT as its shortest float32 text, maps as [key, value] pairs), or
      "!! <ref> <error>".
  read_refs.py normalize
      Re-serializes each JSON line of stdin with json.dumps (compact, ensure_ascii=False) so that
      another writer's number spelling (Java's 1.0E16) becomes Python's (1e+16); other lines are
      copied unchanged.
A table in a `<db>.db` folder is opened through a filesystem catalog on the folder above; any
other table folder (an external table) is opened directly from its path.
"""
import datetime
import decimal
import json
import math
import os
import sys

import numpy as np
import pyarrow as pa


def canon(v, t):
    if v is None:
        return None
    if pa.types.is_boolean(t) or pa.types.is_integer(t):
        return v
    if pa.types.is_floating(t):
        if math.isnan(v):
            return 'NaN'
        if math.isinf(v):
            return 'Infinity' if v > 0 else '-Infinity'
        if t == pa.float32():
            return float(str(np.float32(v)))
        return v
    if pa.types.is_decimal(t):
        return format(v.quantize(decimal.Decimal(1).scaleb(-t.scale)), 'f')
    if pa.types.is_date(t):
        return v.isoformat()
    if pa.types.is_time(t):
        return v.strftime('%H:%M:%S.%f')
    if pa.types.is_timestamp(t):
        if t.tz is not None:
            return v.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%f') + 'Z'
        return v.strftime('%Y-%m-%dT%H:%M:%S.%f')
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_fixed_size_binary(t):
        return bytes(v).hex()
    if pa.types.is_map(t):
        return [[canon(k, t.key_type), canon(x, t.item_type)] for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [canon(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: canon(v.get(t.field(i).name), t.field(i).type)
                for i in range(t.num_fields)}
    return v


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, separators=(',', ':'))


def open_table(table_dir):
    table_dir = os.path.abspath(table_dir)
    parent, name = os.path.split(table_dir)
    grand, db = os.path.split(parent)
    if db.endswith('.db'):
        from pypaimon import CatalogFactory
        return CatalogFactory.create({'warehouse': grand}).get_table('%s.%s' % (db[:-3], name))
    from pypaimon.common.file_io import FileIO
    from pypaimon.common.identifier import Identifier
    from pypaimon.schema.schema_manager import SchemaManager
    from pypaimon.table.file_store_table import FileStoreTable
    file_io = FileIO.get(table_dir)
    schema = SchemaManager(file_io, table_dir).latest()
    if schema is None:
        raise ValueError('no schema under %s/schema' % table_dir)
    return FileStoreTable(file_io, Identifier.create('default', name), table_dir, schema)


def read(args):
    table, error = None, None
    for arg in args:
        if arg.startswith('@'):
            print('## %s' % arg[1:])
            try:
                table, error = open_table(arg[1:]), None
            except Exception as e:  # noqa: BLE001 - reported to the test
                table, error = None, '%s: %s' % (type(e).__name__, e)
            continue
        if table is None:
            print('!! %s cannot open table: %s' % (arg, str(error).replace('\n', ' ')[:400]))
            continue
        print('== %s' % arg)
        try:
            if arg == 'latest':
                t = table
            elif arg.startswith('snapshot:'):
                t = table.copy({'scan.snapshot-id': arg[len('snapshot:'):]})
            elif arg.startswith('tag:'):
                t = table.copy({'scan.tag-name': arg[len('tag:'):]})
            else:
                raise ValueError('unknown ref ' + arg)
            rb = t.new_read_builder()
            data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
            for row in data.to_pylist():
                print(dumps({f.name: canon(row[f.name], f.type) for f in data.schema}))
        except Exception as e:  # noqa: BLE001 - reported to the test
            print('!! %s %s: %s' % (arg, type(e).__name__, str(e).replace('\n', ' ')[:400]))
    sys.stdout.flush()


def normalize():
    for line in sys.stdin:
        line = line.rstrip('\n')
        if line.startswith('{'):
            line = dumps(json.loads(line, parse_float=float))
        print(line)


if __name__ == '__main__':
    if sys.argv[1] == 'read':
        read(sys.argv[2:])
    elif sys.argv[1] == 'normalize':
        normalize()
    else:
        sys.exit('usage: read_refs.py read|normalize ...')
