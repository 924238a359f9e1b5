"""Writes the tables of tests/wild.rs with pyiceberg 0.12 (SqlCatalog on sqlite) and prints the
rows pyiceberg reads back.

usage: write_wild.py ROOT
Tables (warehouse ROOT/wh, namespace `wild`, folders `wild.db/<table>`):
- gz: two appends; pyiceberg 0.12 reads gzip metadata (by the `.gz.metadata.json` name) but
  does not write it, so its metadata files are then gzip-compressed here into
  `NNNNN-<uuid>.gz.metadata.json` as Java writes them under `write.metadata.compression-codec=gzip`
  (the plain ones removed, the metadata log rewritten to the new names), and the rows are read back
  by pyiceberg from the compressed current file.
- defaults: two appends of (id, s struct<a int>), then columns added with `initial-default`s
  (a required int, optional string / decimal / date / timestamp / timestamptz / boolean / double,
  and the nested s.b), then one append with every value given.
Prints one JSON object {table: {"metadata": path, "rows": [...], "snapshots": [ids]}}; rows are
lists of canonical strings (timestamps ISO with 6 fraction digits, structs `{a: 1, b: null}`),
sorted.
"""
import datetime
import decimal
import gzip
import json
import os
import sys

import pyarrow as pa
from pyiceberg.catalog.sql import SqlCatalog
from pyiceberg.schema import Schema
from pyiceberg.types import (BooleanType, DateType, DecimalType, DoubleType, IntegerType, LongType,
                             NestedField, StringType, StructType, TimestampType, TimestamptzType)


def canon(v):
    """Values as text the way the Rust test renders Arrow values."""
    if v is None:
        return None
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, dict):
        return '{' + ', '.join('%s: %s' % (k, 'null' if x is None else canon(x)) for k, x in v.items()) + '}'
    if isinstance(v, datetime.datetime):
        return v.isoformat(timespec='microseconds')
    if isinstance(v, datetime.date):
        return v.isoformat()
    return str(v)


def rows_of(table):
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return sorted([[canon(c[r]) for c in cols] for r in range(table.num_rows)], key=json.dumps)


def main():
    root = sys.argv[1]
    wh = os.path.join(root, 'wh')
    os.makedirs(wh, exist_ok=True)
    cat = SqlCatalog('wild', uri='sqlite:///%s/catalog.db' % root, warehouse='file://' + wh)
    cat.create_namespace('wild')
    out = {}

    gz = cat.create_table('wild.gz', Schema(
        NestedField(1, 'id', LongType(), required=False),
        NestedField(2, 'name', StringType(), required=False)),
        properties={'write.metadata.compression-codec': 'gzip'})
    gz.append(pa.table({'id': pa.array([1, 2], pa.int64()), 'name': ['a', 'b']}))
    gz.append(pa.table({'id': pa.array([3], pa.int64()), 'name': pa.array([None], pa.string())}))
    gz = cat.load_table('wild.gz')
    meta_dir = os.path.dirname(gz.metadata_location[len('file://'):])
    plain = sorted(f for f in os.listdir(meta_dir) if f.endswith('.metadata.json'))
    renames = {f: f[:-len('.metadata.json')] + '.gz.metadata.json' for f in plain}
    for f in plain:
        with open(os.path.join(meta_dir, f)) as fh:
            text = fh.read()
        for old, new in renames.items():
            text = text.replace('/' + old + '"', '/' + new + '"')
        with open(os.path.join(meta_dir, renames[f]), 'wb') as fh:
            fh.write(gzip.compress(text.encode()))
        os.remove(os.path.join(meta_dir, f))
    current = os.path.join(meta_dir, renames[plain[-1]])
    from pyiceberg.table import StaticTable
    static = StaticTable.from_metadata('file://' + current)
    out['gz'] = {'metadata': current, 'rows': rows_of(static.scan().to_arrow()),
                 'snapshots': [s.snapshot_id for s in static.snapshots()]}

    st = StructType(NestedField(3, 'a', IntegerType(), required=False))
    d = cat.create_table('wild.defaults', Schema(
        NestedField(1, 'id', LongType(), required=False),
        NestedField(2, 's', st, required=False)))
    arrow_st = pa.struct([pa.field('a', pa.int32(), nullable=True)])
    d.append(pa.table({'id': pa.array([1, 2], pa.int64()),
                       's': pa.array([{'a': 10}, None], arrow_st)}))
    with d.update_schema() as u:
        u.add_column('c_int', IntegerType(), required=True, default_value=7)
        u.add_column('c_str', StringType(), default_value='dflt')
        u.add_column('c_dec', DecimalType(9, 2), default_value=decimal.Decimal('-1.50'))
        u.add_column('c_date', DateType(), default_value=datetime.date(2024, 2, 29))
        u.add_column('c_ts', TimestampType(), default_value=datetime.datetime(2024, 5, 1, 10, 0, 0, 123456))
        u.add_column('c_tstz', TimestamptzType(),
                     default_value=datetime.datetime(2024, 5, 1, 10, 0, 0, tzinfo=datetime.timezone.utc))
        u.add_column('c_bool', BooleanType(), default_value=True)
        u.add_column('c_double', DoubleType(), default_value=2.5)
        u.add_column(('s', 'b'), LongType(), default_value=42)
    d = cat.load_table('wild.defaults')
    schema = d.schema().as_arrow()
    new = pa.table({
        'id': pa.array([3], pa.int64()),
        's': pa.array([{'a': 30, 'b': 300}], schema.field('s').type),
        'c_int': pa.array([70], pa.int32()),
        'c_str': ['given'],
        'c_dec': pa.array([decimal.Decimal('3.25')], pa.decimal128(9, 2)),
        'c_date': pa.array([datetime.date(2020, 1, 1)], pa.date32()),
        'c_ts': pa.array([datetime.datetime(2020, 1, 1, 1, 1, 1)], pa.timestamp('us')),
        'c_tstz': pa.array([datetime.datetime(2020, 1, 1, 1, 1, 1, tzinfo=datetime.timezone.utc)],
                           pa.timestamp('us', tz='UTC')),
        'c_bool': [False],
        'c_double': [0.5],
    }, schema=schema)
    d.append(new)
    d = cat.load_table('wild.defaults')
    out['defaults'] = {'metadata': d.metadata_location, 'rows': rows_of(d.scan().to_arrow()),
                       'snapshots': [s.snapshot_id for s in d.snapshots()]}
    print(json.dumps(out))


if __name__ == '__main__':
    main()
