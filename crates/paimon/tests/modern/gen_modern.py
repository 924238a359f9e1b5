"""Writes one small Paimon table with a modern feature with pypaimon 2.1, then prints pypaimon's
rows of its latest snapshot (one line per row, cells joined by '|', bytes as hex) or
"!! <error>" when pypaimon cannot read it.

usage: gen_modern.py <warehouse dir> <feature>   (the table is m.<feature>)
"""
import json
import os
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

WH, FEATURE = sys.argv[1], sys.argv[2]
CAT = CatalogFactory.create({'warehouse': WH})
CAT.create_database('m', True)
KV = pa.schema([('id', pa.int64()), ('b', pa.string())])
PK = pa.schema([pa.field('id', pa.int64(), False), ('b', pa.string())])


def table(schema, options, pk=None):
    CAT.create_table('m.' + FEATURE, Schema.from_pyarrow_schema(schema, primary_keys=pk, options=options), False)
    return CAT.get_table('m.' + FEATURE)


def write(t, data):
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def rows(lo, hi, tag, schema=KV):
    return pa.table({'id': pa.array(range(lo, hi), pa.int64()), 'b': ['%s%d' % (tag, i) for i in range(lo, hi)]}, schema=schema)


def data_evolution():
    t = table(KV, {'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true'})
    write(t, rows(0, 8, 'a'))
    write(t, rows(8, 16, 'a'))
    wb = t.new_batch_write_builder()
    update = wb.new_update().with_update_type(['b'])
    msgs = update.update_by_arrow_with_row_id(pa.table({
        '_ROW_ID': pa.array(range(16), pa.int64()), 'b': ['u%d' % i for i in range(16)]}))
    c = wb.new_commit()
    c.commit(msgs)
    c.close()


KVC = pa.schema([('id', pa.int64()), ('b', pa.string()), ('c', pa.int32())])


def update(t, columns, data):
    wb = t.new_batch_write_builder()
    msgs = wb.new_update().with_update_type(columns).update_by_arrow_with_row_id(data)
    c = wb.new_commit()
    c.commit(msgs)
    c.close()


def data_evolution_some_rows():
    # Two columns updated by row id in two commits, each for only some rows (the ranges of
    # both files), then rows written with only some columns (the others null).
    t = table(KVC, {'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true', 'metadata.stats-mode': 'full'})
    write(t, pa.table({'id': pa.array(range(0, 8), pa.int64()), 'b': ['a%d' % i for i in range(8)],
                       'c': pa.array(range(0, 8), pa.int32())}, schema=KVC))
    write(t, pa.table({'id': pa.array(range(8, 16), pa.int64()), 'b': ['a%d' % i for i in range(8, 16)],
                       'c': pa.array(range(8, 16), pa.int32())}, schema=KVC))
    update(t, ['b'], pa.table({'_ROW_ID': pa.array([2, 3, 9], pa.int64()), 'b': ['u2', 'u3', 'u9']}))
    update(t, ['c'], pa.table({'_ROW_ID': pa.array([3, 10, 15], pa.int64()),
                               'c': pa.array([-3, -10, -15], pa.int32())}))
    wb = t.new_batch_write_builder()
    w, c = wb.new_write().with_write_type(['id', 'c']), wb.new_commit()
    w.write_arrow(pa.table({'id': pa.array([16, 17], pa.int64()), 'c': pa.array([160, 170], pa.int32())}))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def data_evolution_deletes():
    # Deletion vectors on a data-evolution table: a column update, then rows deleted.
    t = table(KV, {'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true',
                   'deletion-vectors.enabled': 'true'})
    write(t, rows(0, 8, 'a'))
    write(t, rows(8, 16, 'a'))
    update(t, ['b'], pa.table({'_ROW_ID': pa.array([1, 2, 12], pa.int64()), 'b': ['u1', 'u2', 'u12']}))
    wb = t.new_batch_write_builder()
    pb = t.new_read_builder().new_predicate_builder()
    msgs = wb.new_update().delete_by_predicate(pb.is_in('id', [2, 3, 12]))
    c = wb.new_commit()
    c.commit(msgs)
    c.close()


def consumers():
    # Streaming consumers' progress (consumer/consumer-<id>), listed by the $consumers table.
    from pypaimon.consumer.consumer import Consumer
    t = table(KV, {})
    write(t, rows(0, 2, 'a'))
    write(t, rows(2, 4, 'a'))
    manager = t.consumer_manager()
    manager.reset_consumer('flink-job-1', Consumer(next_snapshot=2))
    manager.reset_consumer('audit', Consumer(next_snapshot=3))
    return 'm.consumers$consumers'


def data_evolution_appends():
    t = table(KV, {'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true'})
    write(t, rows(0, 8, 'a'))
    write(t, rows(8, 16, 'a'))


def row_tracking():
    t = table(KV, {'row-tracking.enabled': 'true'})
    write(t, rows(0, 8, 'a'))
    write(t, rows(8, 16, 'a'))


def dv_merge_on_read():
    t = table(PK, {'bucket': '1', 'deletion-vectors.enabled': 'true',
                   'deletion-vectors.merge-on-read': 'true'}, pk=['id'])
    write(t, rows(0, 6, 'x', PK))
    write(t, rows(3, 9, 'y', PK))


def dv_level0_hidden():
    t = table(PK, {'bucket': '1', 'deletion-vectors.enabled': 'true'}, pk=['id'])
    write(t, rows(0, 6, 'x', PK))


def postpone():
    t = table(PK, {'bucket': '-2'}, pk=['id'])
    write(t, rows(0, 5, 'x', PK))


def blob():
    t = table(pa.schema([('id', pa.int64()), ('p', pa.large_binary())]),
              {'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true', 'blob-field': 'p'})
    write(t, pa.table({'id': pa.array([1, 2], pa.int64()), 'p': pa.array([b'ab', b'cd'], pa.large_binary())}))


def avro_xz():
    t = table(KV, {'file.format': 'avro', 'file.compression': 'xz'})
    write(t, rows(0, 4, 'a'))
    write(t, rows(4, 6, 'b'))


def avro_bzip2():
    t = table(KV, {'file.format': 'avro', 'file.compression': 'bzip2'})
    write(t, rows(0, 4, 'a'))


def fallback_branch():
    t = table(KV, {'scan.fallback-branch': 'other'})
    write(t, rows(0, 4, 'a'))


def unknown_index_type():
    """A deletion-vector delete, then its index manifest entry relabelled with an index type
    lakescope does not implement (as a global index would be listed)."""
    import glob
    import fastavro
    t = table(KV, {'deletion-vectors.enabled': 'true', 'row-tracking.enabled': 'true',
                   'data-evolution.enabled': 'true'})
    write(t, rows(0, 8, 'a'))
    wb = t.new_batch_write_builder()
    pb = t.new_read_builder().new_predicate_builder()
    msgs = wb.new_update().delete_by_predicate(pb.is_in('id', [1, 2]))
    c = wb.new_commit()
    c.commit(msgs)
    c.close()
    for path in glob.glob('%s/m.db/%s/manifest/index-manifest-*' % (WH, FEATURE)):
        with open(path, 'rb') as f:
            reader = fastavro.reader(f)
            schema, records, codec = reader.writer_schema, list(reader), reader.codec
        for r in records:
            r['_INDEX_TYPE'] = 'btree'
        with open(path, 'wb') as f:
            fastavro.writer(f, schema, records, codec=codec)


def lines(t):
    rb = t.new_read_builder()
    data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return ['|'.join('null' if v is None else v.hex() if isinstance(v, bytes) else str(v) for v in row.values())
            for row in data.to_pylist()]


def first_line(e):
    return str(e).splitlines()[0] if str(e) else type(e).__name__


# A feature may name the table whose rows to print (a system table); else m.<feature>.
target = globals()[FEATURE]() or 'm.' + FEATURE
t = CAT.get_table(target)
try:
    for line in lines(t):
        print(line)
except Exception as e:  # noqa: BLE001 - the oracle reports any failure as a line
    print('!! %s' % first_line(e))
if '$' not in target:
    # Every snapshot's rows (time travel by scan.snapshot-id), for the reader to compare each.
    snapshot_dir = os.path.join(WH, 'm.db', FEATURE, 'snapshot')
    per_snapshot = {}
    for sid in sorted(int(f[len('snapshot-'):]) for f in os.listdir(snapshot_dir) if f.startswith('snapshot-')):
        try:
            per_snapshot[sid] = sorted(lines(t.copy({'scan.snapshot-id': str(sid)})))
        except Exception as e:  # noqa: BLE001
            per_snapshot[sid] = '!! %s' % first_line(e)
    with open(os.path.join(WH, 'snapshots.json'), 'w') as f:
        json.dump(per_snapshot, f)
