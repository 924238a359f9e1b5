"""Oracle: pypaimon 2.1 through a Paimon REST catalog (bearer token).

usage: rest_paimon.py <uri> <warehouse> <token> write
       rest_paimon.py <uri> <warehouse> <token> read <db.table> <snapshot id>...
       rest_paimon.py <uri> <warehouse> <token> parquet <file> <tag> <id>...
       rest_paimon.py <uri> <warehouse> <token> latest <db.table>
       rest_paimon.py <uri> <warehouse> <token> tag <db.table> <tag>
       rest_paimon.py <uri> <warehouse> <token> create_tag <db.table> <tag> <snapshot id>
       rest_paimon.py <uri> <warehouse> <token> schema <db.table>
`write` creates database `d` with a primary-key table `d.pk` (partitioned, 2 buckets; three
commits: insert, upsert of some keys plus new keys, upsert again) and an append table `d.ap`
(two commits), all through the catalog. `read` prints, per snapshot, "== <id>" and the sorted
canonical lines of read_pypaimon.py (or "!! <id> <error>"). `parquet` writes the `d.pk` rows
of these ids (names tagged <tag>) to a Parquet file, for another writer to insert, and prints
their canonical lines. `latest` prints the catalog's latest snapshot of a table (its snapshot
endpoint) as JSON: id, commit kind, record count. `tag` prints the snapshot id of a tag the
catalog keeps (its tags endpoint), or `none` when it has no such tag. `create_tag` creates a
tag of that snapshot through the catalog (`RESTCatalog.create_tag`, its tags endpoint). `schema` prints the table's current
schema as the catalog loads it, as JSON: id, fields [id, name, type], options, comment.
"""
import datetime
import decimal
import json
import os
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.catalog.catalog_exception import TagNotExistException

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from read_pypaimon import canon  # noqa: E402

URI, WAREHOUSE, TOKEN, CMD = sys.argv[1:5]
CAT = CatalogFactory.create({'metastore': 'rest', 'uri': URI, 'warehouse': WAREHOUSE,
                             'token.provider': 'bear', 'token': TOKEN})
PK = pa.schema([pa.field('id', pa.int64(), False), ('name', pa.string()), ('price', pa.decimal128(10, 2)),
                ('score', pa.float64()), ('day', pa.date32()), ('at', pa.timestamp('us')),
                ('ok', pa.bool_()), ('raw', pa.binary()), pa.field('dt', pa.string(), False)])
AP = pa.schema([('n', pa.int32()), ('s', pa.string())])


def commit(t, data):
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def pk_rows(ids, tag):
    n = len(ids)
    return pa.table({
        'id': pa.array(ids, pa.int64()),
        'name': ['%s-%d' % (tag, i) if i % 4 else None for i in ids],
        'price': [decimal.Decimal('%d.%02d' % (i * 3, i % 100)) for i in ids],
        'score': [i / 8 for i in ids],
        'day': [datetime.date(2024, 1, 1) + datetime.timedelta(days=i) for i in ids],
        'at': [datetime.datetime(2024, 3, 1, 12, 0, 0, i * 1001) for i in ids],
        'ok': [i % 2 == 0 for i in ids],
        'raw': [bytes([i % 256, 255]) for i in ids],
        'dt': ['2024-0%d' % (1 + i % 2) for i in ids],
    }, schema=PK)


def write():
    CAT.create_database('d', True)
    CAT.create_table('d.pk', Schema.from_pyarrow_schema(
        PK, primary_keys=['dt', 'id'], partition_keys=['dt'], options={'bucket': '2'}), False)
    pk = CAT.get_table('d.pk')
    commit(pk, pk_rows(list(range(0, 10)), 'a'))
    commit(pk, pk_rows(list(range(5, 15)), 'b'))
    commit(pk, pk_rows([0, 3, 14, 20], 'c'))
    CAT.create_table('d.ap', Schema.from_pyarrow_schema(AP), False)
    ap = CAT.get_table('d.ap')
    commit(ap, pa.table({'n': pa.array([1, 2, 3], pa.int32()), 's': ['x', None, 'z']}, schema=AP))
    commit(ap, pa.table({'n': pa.array([4], pa.int32()), 's': ['w']}, schema=AP))


def canonical_lines(data):
    lines = [json.dumps({f.name: canon(row[f.name], f.type) for f in data.schema},
                        ensure_ascii=False, separators=(',', ':')) for row in data.to_pylist()]
    return sorted(lines, key=lambda s: s.encode('utf-8'))


def read(name, ids):
    table = CAT.get_table(name)
    for sid in ids:
        print('== %s' % sid)
        try:
            rb = table.copy({'scan.snapshot-id': sid}).new_read_builder()
            data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
            for line in canonical_lines(data):
                print(line)
        except Exception as e:  # noqa: BLE001 - reported to the test
            print('!! %s %s: %s' % (sid, type(e).__name__, str(e).replace('\n', ' ')[:400]))


if CMD == 'write':
    write()
elif CMD == 'latest':
    ts = CAT.load_snapshot(sys.argv[5])
    print(json.dumps({'id': ts.snapshot.id, 'commitKind': str(ts.snapshot.commit_kind),
                      'recordCount': ts.record_count}))
elif CMD == 'create_tag':
    CAT.create_tag(sys.argv[5], sys.argv[6], int(sys.argv[7]))
elif CMD == 'schema':
    s = CAT.get_table(sys.argv[5]).table_schema
    print(json.dumps({'id': s.id, 'fields': [[f.id, f.name, str(f.type)] for f in s.fields],
                      'options': s.options, 'comment': s.comment}, sort_keys=True))
elif CMD == 'tag':
    try:
        print(CAT.get_tag(sys.argv[5], sys.argv[6]).snapshot.id)
    except TagNotExistException:
        print('none')
elif CMD == 'parquet':
    import pyarrow.parquet as pq
    rows = pk_rows([int(i) for i in sys.argv[7:]], sys.argv[6])
    pq.write_table(rows, sys.argv[5])
    for line in canonical_lines(rows):
        print(line)
else:
    read(sys.argv[5], sys.argv[6:])
