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
- noids: a Parquet file written by plain pyarrow (no field ids; id, name, s struct<a>, tags
  list<string>, m map<string,int>; in the table's data folder) added with `add_files` (which sets the name mapping
  `schema.name-mapping.default`), then `name` renamed to `label`, `s.a` to `s.alpha`, a column
  `extra` added (the mapping keeps the old names), then one append by pyiceberg (with ids).
- noids_nomap: the same file added, then the name mapping property removed; pyiceberg's read
  fails (its error is printed as "error").
- hive: partitioned by identity(region), a column `extra` (initial-default 'x'); two appends by
  pyiceberg, then every data file rewritten without its `region` and `extra` columns (field ids
  kept), as a metadata-only migration of Hive files leaves them: `region` reads the partition
  value, `extra` its default.
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
    if isinstance(v, list) and v and all(isinstance(x, tuple) for x in v):  # a map
        return '{' + ', '.join('%s: %s' % (canon(k), 'null' if x is None else canon(x)) for k, x in v) + '}'
    if isinstance(v, list):
        return '[' + ', '.join('null' if x is None else canon(x) for x in v) + ']'
    if isinstance(v, datetime.datetime):
        return v.isoformat(timespec='microseconds')
    if isinstance(v, datetime.date):
        return v.isoformat()
    return str(v)


def rows_of(table):
    cols = [table.column(i).to_pylist() for i in range(table.num_columns)]
    return sorted([[canon(c[r]) for c in cols] for r in range(table.num_rows)], key=json.dumps)


def no_ids(cat, root):
    import pyarrow.parquet as pq
    from pyiceberg.types import ListType, MapType
    st = pa.struct([pa.field('a', pa.int32())])
    plain = pa.table({
        'id': pa.array([1, 2, 3], pa.int64()),
        'name': ['x', None, 'z'],
        's': pa.array([{'a': 10}, None, {'a': 30}], st),
        'tags': pa.array([['p', 'q'], [], None], pa.list_(pa.string())),
        'm': pa.array([[('k', 1)], None, [('a', 2), ('b', 3)]], pa.map_(pa.string(), pa.int32())),
    })

    def write_plain(table):
        """The pyarrow file (no field ids) inside the table's data folder."""
        folder = table.location()[len('file://'):] + '/data'
        os.makedirs(folder, exist_ok=True)
        path = folder + '/plain.parquet'
        pq.write_table(plain, path)
        assert pq.read_schema(path).field('id').metadata is None
        return 'file://' + path

    schema = Schema(
        NestedField(1, 'id', LongType(), required=False),
        NestedField(2, 'name', StringType(), required=False),
        NestedField(3, 's', StructType(NestedField(6, 'a', IntegerType(), required=False)), required=False),
        NestedField(4, 'tags', ListType(7, StringType(), element_required=False), required=False),
        NestedField(5, 'm', MapType(8, StringType(), 9, IntegerType(), value_required=False), required=False))
    out = {}
    t = cat.create_table('wild.noids', schema)
    t.add_files([write_plain(t)])
    t = cat.load_table('wild.noids')
    with t.update_schema() as u:
        u.rename_column('name', 'label')
        u.rename_column(('s', 'a'), 'alpha')
        u.add_column('extra', StringType())
    t = cat.load_table('wild.noids')
    arrow_schema = t.schema().as_arrow()
    t.append(pa.table({
        'id': pa.array([4], pa.int64()), 'label': ['w'],
        's': pa.array([{'alpha': 40}], arrow_schema.field('s').type),
        'tags': pa.array([['r']], arrow_schema.field('tags').type),
        'm': pa.array([[('c', 4)]], arrow_schema.field('m').type),
        'extra': ['e']}, schema=arrow_schema))
    t = cat.load_table('wild.noids')
    out['noids'] = {'metadata': t.metadata_location, 'rows': rows_of(t.scan().to_arrow()),
                    'mapping': t.properties.get('schema.name-mapping.default')}
    n = cat.create_table('wild.noids_nomap', schema)
    n.add_files([write_plain(n)])
    n = cat.load_table('wild.noids_nomap')
    with n.transaction() as tx:
        tx.remove_properties('schema.name-mapping.default')
    n = cat.load_table('wild.noids_nomap')
    try:
        n.scan().to_arrow()
        err = None
    except Exception as e:  # pyiceberg refuses the file too
        err = str(e)
    out['noids_nomap'] = {'metadata': n.metadata_location, 'error': err,
                          'properties': dict(n.properties)}
    return out


def hive(cat):
    import pyarrow.parquet as pq
    from pyiceberg.partitioning import PartitionField, PartitionSpec
    from pyiceberg.transforms import IdentityTransform
    schema = Schema(
        NestedField(1, 'id', LongType(), required=False),
        NestedField(2, 'region', StringType(), required=False),
        NestedField(3, 'ts', TimestampType(), required=False))
    spec = PartitionSpec(PartitionField(2, 1000, IdentityTransform(), 'region'))
    t = cat.create_table('wild.hive', schema, partition_spec=spec)
    with t.update_schema() as u:
        u.add_column('extra', StringType(), default_value='x')
    t = cat.load_table('wild.hive')
    arrow = t.schema().as_arrow()
    day = datetime.datetime(2024, 5, 1, 10, 0, 0)
    t.append(pa.table({'id': pa.array([1, 2, 3], pa.int64()), 'region': ['eu', 'us', 'eu'],
                       'ts': pa.array([day] * 3, pa.timestamp('us')),
                       'extra': ['given', None, 'given']}, schema=arrow))
    t.append(pa.table({'id': pa.array([4], pa.int64()), 'region': ['ap'],
                       'ts': pa.array([day], pa.timestamp('us')), 'extra': ['given']}, schema=arrow))
    t = cat.load_table('wild.hive')
    for task in t.scan().plan_files():
        path = task.file.file_path[len('file://'):]
        data = pq.ParquetFile(path).read()
        pq.write_table(data.drop_columns(['region', 'extra']), path)
    t = cat.load_table('wild.hive')
    return {'metadata': t.metadata_location, 'rows': rows_of(t.scan().to_arrow())}


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
    out.update(no_ids(cat, root))
    out['hive'] = hive(cat)
    print(json.dumps(out))


if __name__ == '__main__':
    main()
