"""Oracle: pyiceberg 0.12 through an Iceberg REST catalog (bearer token, optional prefix).

usage: rest_iceberg.py <uri> <token> <prefix or -> write <namespace>
       rest_iceberg.py <uri> <token> <prefix or -> read <namespace.table>
       rest_iceberg.py <uri> <token> <prefix or -> append <namespace.table> <first id> <count>
       rest_iceberg.py <uri> <token> <prefix or -> parquet <file>
`write` creates <namespace>.events (identity-partitioned by `dt`) and commits: two appends, then a
delete by filter; then <namespace>.plain (unpartitioned, one append). `read` prints, per
snapshot of the table (oldest first), "== <snapshot id>" and the sorted canonical lines of
read_pypaimon.py. `append` appends rows <first id>.. (tag `c`), loading the table again and
retrying when another writer committed first (pyiceberg 0.12 does not retry); it prints the
attempts. `parquet` writes ids 103 and 104 (with nulls) in the table's columns, reordered.
"""
import datetime
import decimal
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from pyiceberg.catalog.rest import RestCatalog
from pyiceberg.exceptions import CommitFailedException
from pyiceberg.expressions import EqualTo
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import IdentityTransform
from pyiceberg.types import (BooleanType, DecimalType, DoubleType, LongType, NestedField, StringType,
                             TimestampType)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_pypaimon import canon  # noqa: E402

URI, TOKEN, PREFIX, CMD, NAME = sys.argv[1:6]
props = {'uri': URI, 'token': TOKEN}
if PREFIX != '-':
    props['prefix'] = PREFIX
CAT = RestCatalog('lakescope-test', **props)

SCHEMA = Schema(
    NestedField(1, 'id', LongType(), required=True),
    NestedField(2, 'name', StringType()),
    NestedField(3, 'amount', DecimalType(10, 2)),
    NestedField(4, 'score', DoubleType()),
    NestedField(5, 'ok', BooleanType()),
    NestedField(6, 'at', TimestampType()),
    NestedField(7, 'dt', StringType()),
)
ARROW = pa.schema([pa.field('id', pa.int64(), False), ('name', pa.string()), ('amount', pa.decimal128(10, 2)),
                   ('score', pa.float64()), ('ok', pa.bool_()), ('at', pa.timestamp('us')), ('dt', pa.string())])


def rows(ids, tag):
    return pa.table({
        'id': pa.array(ids, pa.int64()),
        'name': ['%s%d' % (tag, i) if i % 3 else None for i in ids],
        'amount': [decimal.Decimal('%d.%02d' % (i, i % 100)) for i in ids],
        'score': [i / 4 for i in ids],
        'ok': [i % 2 == 0 for i in ids],
        'at': [datetime.datetime(2024, 5, 1 + i % 3, 8, 30, 0, i) for i in ids],
        'dt': ['2024-05-0%d' % (1 + i % 2) for i in ids],
    }, schema=ARROW)


def write(ns):
    spec = PartitionSpec(PartitionField(source_id=7, field_id=1000, transform=IdentityTransform(), name='dt'))
    events = CAT.create_table('%s.events' % ns, schema=SCHEMA, partition_spec=spec)
    events.append(rows(list(range(0, 6)), 'a'))
    events = CAT.load_table('%s.events' % ns)
    events.append(rows(list(range(6, 10)), 'b'))
    events = CAT.load_table('%s.events' % ns)
    events.delete(EqualTo('ok', False))
    plain = CAT.create_table('%s.plain' % ns, schema=SCHEMA)
    plain.append(rows([1, 2, 3], 'p'))


def read(name):
    table = CAT.load_table(name)
    for snap in sorted(table.snapshots(), key=lambda s: s.timestamp_ms):
        print('== %d' % snap.snapshot_id)
        data = table.scan(snapshot_id=snap.snapshot_id).to_arrow()
        lines = [json.dumps({f.name: canon(row[f.name], f.type) for f in data.schema},
                            ensure_ascii=False, separators=(',', ':')) for row in data.to_pylist()]
        for line in sorted(lines, key=lambda s: s.encode('utf-8')):
            print(line)


def append(name, first, count):
    data = rows(list(range(first, first + count)), 'c')
    for attempt in range(1, 21):
        try:
            CAT.load_table(name).append(data)
            print('appended after %d attempt(s)' % attempt)
            return
        except CommitFailedException:
            continue
    raise SystemExit('%s: 20 attempts lost to other writers' % name)


def parquet(path):
    table = pa.table({
        'dt': ['2024-05-02', '2024-05-01'],
        'at': pa.array([datetime.datetime(2024, 5, 4, 1, 2, 3, 4), None], pa.timestamp('us')),
        'ok': [True, None],
        'score': [1.0, None],
        'amount': pa.array([decimal.Decimal('7.00'), None], pa.decimal128(10, 2)),
        'name': ['p103', None],
        'id': pa.array([103, 104], pa.int64()),
    })
    pq.write_table(table, path)


if CMD == 'write':
    write(NAME)
elif CMD == 'append':
    append(NAME, int(sys.argv[6]), int(sys.argv[7]))
elif CMD == 'parquet':
    parquet(NAME)
else:
    read(NAME)
