"""Writes one small Paimon table with a modern feature with pypaimon 2.1, then prints pypaimon's
rows of its latest snapshot (one line per row, cells joined by '|', bytes as hex) or
"!! <error>" when pypaimon cannot read it. Beside the warehouse it leaves each snapshot's rows
(snapshots.json) and, for a table with row tracking, each snapshot's rows with `_ROW_ID` and
`_SEQUENCE_NUMBER` (row_tracking.json).

usage: gen_modern.py <warehouse dir> <feature>   (the table is m.<feature>)
"""
import json
import os
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

# pylance, paimon-mosaic and vortex-data for the lance / mosaic / vortex tables (scripts/oracles.sh
# installs them beside the venv); appended, so the venv's own pyarrow and numpy come first.
sys.path.append(os.path.join(os.environ.get('LAKE_TOOLS', os.path.expanduser('~/.cache/lake-oracles')), 'formats'))

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


def data_evolution_deletes(extra=None):
    # Deletion vectors on a data-evolution table: a column update, then rows deleted.
    t = table(KV, dict({'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true',
                        'deletion-vectors.enabled': 'true'}, **(extra or {})))
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


def table_indexes_dv():
    # The deletion-vector index files of data_evolution_deletes, listed by $table_indexes.
    data_evolution_deletes()
    return 'm.table_indexes_dv$table_indexes'


def table_indexes_hash():
    # A partitioned dynamic-bucket table (bucket = -1): the writer keeps a HASH index per bucket.
    schema = pa.schema([pa.field('dt', pa.string(), False), pa.field('id', pa.int64(), False), ('b', pa.string())])
    CAT.create_table('m.table_indexes_hash', Schema.from_pyarrow_schema(
        schema, primary_keys=['dt', 'id'], partition_keys=['dt'], options={'bucket': '-1'}), False)
    t = CAT.get_table('m.table_indexes_hash')
    write(t, pa.table({'dt': ['d1', 'd1', 'd2'], 'id': pa.array([1, 2, 3], pa.int64()), 'b': ['a', 'b', 'c']}, schema=schema))
    write(t, pa.table({'dt': ['d1', 'd2'], 'id': pa.array([4, 3], pa.int64()), 'b': ['d', 'C']}, schema=schema))
    return 'm.table_indexes_hash$table_indexes'


def file_key_ranges_pk():
    # A partitioned primary-key table in two buckets, two commits: files with key ranges.
    schema = pa.schema([pa.field('dt', pa.string(), False), pa.field('id', pa.int64(), False), ('b', pa.string())])
    CAT.create_table('m.file_key_ranges_pk', Schema.from_pyarrow_schema(
        schema, primary_keys=['dt', 'id'], partition_keys=['dt'], options={'bucket': '2'}), False)
    t = CAT.get_table('m.file_key_ranges_pk')
    write(t, pa.table({'dt': ['d1', 'd1', 'd2'], 'id': pa.array([1, 2, 3], pa.int64()), 'b': ['a', 'b', 'c']}, schema=schema))
    write(t, pa.table({'dt': ['d1', 'd2'], 'id': pa.array([4, 3], pa.int64()), 'b': ['d', 'C']}, schema=schema))
    return 'm.file_key_ranges_pk$file_key_ranges'


def file_key_ranges_evolution():
    # The files of data_evolution (first row ids, column updates) in $file_key_ranges.
    data_evolution()
    return 'm.file_key_ranges_evolution$file_key_ranges'


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


def postpone_merge_on_read():
    # Paimon 2.0's postpone.merge-on-read (batch reads merge the postpone bucket's files too):
    # pypaimon 2.1 keeps the option but does not implement it, so it is no oracle for the rows.
    t = table(PK, {'bucket': '-2', 'postpone.merge-on-read': 'true'}, pk=['id'])
    write(t, rows(0, 5, 'x', PK))


BLOB = pa.schema([('id', pa.int64()), ('name', pa.string()), ('p', pa.large_binary())])
BLOB_OPTIONS = {'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true', 'blob-field': 'p'}


def blob_rows(lo, values):
    return pa.table({'id': pa.array(range(lo, lo + len(values)), pa.int64()),
                     'name': ['n%d' % i for i in range(lo, lo + len(values))],
                     'p': pa.array(values, pa.large_binary())}, schema=BLOB)


def blob():
    # BLOB values in .blob files next to the data files: a NULL, an empty value, 64 KiB; then
    # another column updated by row id (stitched with the blob files).
    t = table(BLOB, BLOB_OPTIONS)
    write(t, blob_rows(0, [b'ab', None, b'']))
    write(t, blob_rows(3, [bytes(range(256)) * 256, b'xyz', None]))
    update(t, ['name'], pa.table({'_ROW_ID': pa.array([1, 4], pa.int64()), 'name': ['u1', 'u4']}))


def blob_rolled():
    # blob.target-file-size below one value: several .blob files cover one data file's rows.
    t = table(BLOB, dict(BLOB_OPTIONS, **{'blob.target-file-size': '1 b'}))
    write(t, blob_rows(0, [b'ab', b'cd', b'ef']))
    write(t, blob_rows(3, [b'gh', None]))


def blob_as_descriptor():
    # blob-as-descriptor: reads return serialized descriptors instead of the bytes.
    t = table(BLOB, dict(BLOB_OPTIONS, **{'blob-as-descriptor': 'true'}))
    write(t, blob_rows(0, [b'ab']))


def vector_table(fmt, options=None):
    """VECTOR columns of three element types in `fmt` files, two commits (pypaimon 2.1 cannot read
    a NULL vector back from Parquet, so every vector is set)."""
    schema = pa.schema([('id', pa.int64()), ('v', pa.list_(pa.float32(), 3)),
                        ('d', pa.list_(pa.float64(), 2)), ('i', pa.list_(pa.int32(), 2))])
    t = table(schema, dict({'file.format': fmt}, **(options or {})))
    for lo, hi in ((0, 3), (3, 5)):
        write(t, pa.table({'id': pa.array(range(lo, hi), pa.int64()),
                           'v': pa.array([[i + 0.5, -i, 2.0 ** i] for i in range(lo, hi)], pa.list_(pa.float32(), 3)),
                           'd': pa.array([[i / 4, 1250.0] for i in range(lo, hi)], pa.list_(pa.float64(), 2)),
                           'i': pa.array([[i, -2 ** 31] for i in range(lo, hi)], pa.list_(pa.int32(), 2))},
                          schema=schema))


def vector_parquet():
    vector_table('parquet')


def vector_orc():
    vector_table('orc')


def vector_avro():
    vector_table('avro')


def vector_row():
    # Paimon's row format: a varint size, then the elements (no null bitmap).
    vector_table('row')


def vector_files():
    # vector-field: VECTOR columns kept in separate vector files.
    vector_table('parquet', {'vector-field': 'v', 'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true'})


def external_paths():
    # Data files outside the table folder (data-file.external-paths, round-robin over two
    # roots under <warehouse>/external, each file's location in the manifest's _EXTERNAL_PATH):
    # a partitioned append table written twice.
    schema = pa.schema([('dt', pa.string()), ('id', pa.int64()), ('b', pa.string())])
    roots = ','.join('file://%s/external/%s' % (os.path.abspath(WH), r) for r in ('a', 'b'))
    CAT.create_table('m.' + FEATURE, Schema.from_pyarrow_schema(schema, partition_keys=['dt'], options={
        'data-file.external-paths': roots, 'data-file.external-paths.strategy': 'round-robin'}), False)
    t = CAT.get_table('m.' + FEATURE)
    for lo, hi in ((0, 6), (6, 9)):
        write(t, pa.table({'dt': ['d%d' % (i % 2) for i in range(lo, hi)], 'id': pa.array(range(lo, hi), pa.int64()),
                           'b': ['e%d' % i for i in range(lo, hi)]}, schema=schema))


def external_paths_pk():
    # A primary-key table whose files go to one external root with entropy-inject (hash
    # folders between the bucket and the file): updated twice, so files of several commits merge.
    t = table(PK, {'bucket': '1', 'data-file.external-paths': 'file://%s/external/pk' % os.path.abspath(WH),
                   'data-file.external-paths.strategy': 'entropy-inject'}, pk=['id'])
    write(t, rows(0, 6, 'x', PK))
    write(t, rows(3, 9, 'y', PK))
    write(t, pa.table({'id': pa.array([1, 7], pa.int64()), 'b': [None, 'z']}, schema=PK))


def lance_format():
    t = table(KV, {'file.format': 'lance'})
    write(t, rows(0, 3, 'a'))


def vortex_format():
    t = table(KV, {'file.format': 'vortex'})
    write(t, rows(0, 3, 'a'))
    write(t, pa.table({'id': pa.array([3, None], pa.int64()), 'b': [None, 'n']}, schema=KV))


def vortex_pk():
    # Primary-key vortex files (`_KEY_id`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`), updated twice.
    t = table(PK, {'file.format': 'vortex', 'bucket': '1'}, pk=['id'])
    write(t, rows(0, 6, 'x', PK))
    write(t, rows(3, 9, 'y', PK))
    write(t, pa.table({'id': pa.array([1, 7], pa.int64()), 'b': [None, 'z']}, schema=PK))


def vortex_buckets():
    # A partitioned append table of two buckets (bucket-key id), written twice; many rows.
    schema = pa.schema([('dt', pa.string()), ('id', pa.int64()), ('b', pa.string())])
    CAT.create_table('m.' + FEATURE, Schema.from_pyarrow_schema(
        schema, partition_keys=['dt'], options={'file.format': 'vortex', 'bucket': '2', 'bucket-key': 'id'}), False)
    t = CAT.get_table('m.' + FEATURE)
    for lo, n in ((0, 5000), (5000, 7)):
        ids = range(lo, lo + n)
        write(t, pa.table({'dt': ['d%d' % (i % 2) for i in ids], 'id': pa.array(ids, pa.int64()),
                           'b': ['v%07d' % (i * 7919 % 100003) for i in ids]}, schema=schema))


def vortex_types():
    # Three commits of every type (TYPES, with nested lists and maps), written by pypaimon to a
    # vortex table and to m.vortex_types_parquet (Parquet) for the reader to compare both.
    schema = mosaic_types()
    schema = schema.append(pa.field('r', pa.struct([('x', pa.int32()), ('y', pa.string())])))
    for name, options in [('m.vortex_types_parquet', {}), ('m.vortex_types', {'file.format': 'vortex'})]:
        CAT.create_table(name, Schema.from_pyarrow_schema(schema, options=options), False)
        for lo, n in ((0, 3), (3, 40), (43, 1)):
            batch = mosaic_batch(lo, n)
            r = pa.array([None if i % 5 == 2 else {'x': i if i % 2 else None, 'y': 'q%d' % i}
                          for i in range(lo, lo + n)], schema.field('r').type)
            write(CAT.get_table(name), batch.append_column(schema.field('r'), r))


def mosaic_types():
    # TYPES (below) without the ROW column Mosaic cannot store, with nested containers.
    return pa.schema([f for f in TYPES if f.name != 'r'] + [
        ('ll', pa.list_(pa.list_(pa.string()))), ('ml', pa.map_(pa.int32(), pa.list_(pa.float64())))])


def mosaic_batch(lo, n):
    """n rows from id lo of every type Mosaic stores (ROW is not one), nulls at the top and inside;
    columns constant, dictionary-encoded or plain depending on the batch."""
    import datetime
    import decimal
    ids = list(range(lo, lo + n))
    return pa.table({
        'id': ids, 'b': [None if i % 4 == 3 else 's%d\u00e9' % (i % 3) for i in ids],
        'f': [None if i % 5 == 0 else i % 2 == 0 for i in ids], 't8': [i % 100 - 50 for i in ids],
        't16': [None if i % 2 else -300 + i for i in ids], 'i': [7] * n, 'fl': [i / 4 for i in ids],
        'd': [None] * n, 'dc': [decimal.Decimal(i * 101) / 100 for i in ids],
        'dw': [None if i % 3 == 0 else decimal.Decimal('1234567890123456789012.12345') * (i - 4) for i in ids],
        'dt': [datetime.date(2024, 1, 1) + datetime.timedelta(days=i) for i in ids],
        'ts3': [datetime.datetime(2024, 1, 2, 3, 4, 5, 678000) + datetime.timedelta(hours=i) for i in ids],
        'ts6': [datetime.datetime(1969, 12, 31, 23, 59, 59, 999999) + datetime.timedelta(microseconds=i) for i in ids],
        'ts9': pa.array([1_700_000_000_123_456_789 + i for i in ids], pa.timestamp('ns')),
        'bin': [bytes([i % 256, 0]) if i % 3 else None for i in ids],
        'l': [None if i % 4 == 0 else [i, None, -i][:i % 3 + 1] for i in ids],
        'm': [None if i % 4 == 1 else [('k%d' % j, j if j % 2 else None) for j in range(i % 3)] for i in ids],
        'll': [[['a', None], [], None][:i % 4] for i in ids],
        'ml': [[(i, [i / 2, None])] if i % 2 else [] for i in ids]}, schema=mosaic_types())


def mosaic_format():
    # Three commits of every type Mosaic stores, also written to m.mosaic_format_parquet (Parquet)
    # for the reader to compare both at each snapshot.
    for name, options in [('m.mosaic_format_parquet', {}), ('m.mosaic_format', {'file.format': 'mosaic'})]:
        CAT.create_table(name, Schema.from_pyarrow_schema(mosaic_types(), options=options), False)
        for lo, n in ((0, 3), (3, 40), (43, 1)):
            write(CAT.get_table(name), mosaic_batch(lo, n))


def mosaic_pk():
    # Primary-key mosaic files (`_KEY_id`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`), updated twice.
    t = table(PK, {'file.format': 'mosaic', 'bucket': '1'}, pk=['id'])
    write(t, rows(0, 6, 'x', PK))
    write(t, rows(3, 9, 'y', PK))
    write(t, pa.table({'id': pa.array([1, 7], pa.int64()), 'b': [None, 'z']}, schema=PK))


def mosaic_buckets():
    # mosaic.num-buckets 2: columns spread over two buckets; many rows (paged buckets).
    t = table(KV, {'file.format': 'mosaic', 'mosaic.num-buckets': '2'})
    write(t, pa.table({'id': pa.array(range(20000), pa.int64()),
                       'b': ['v%07d' % (i * 7919 % 100003) for i in range(20000)]}, schema=KV))
    write(t, rows(20000, 20003, 'a'))


def avro_xz():
    # Data files, manifests and manifest lists all xz-compressed Avro.
    t = table(KV, {'file.format': 'avro', 'file.compression': 'xz', 'manifest.compression': 'xz'})
    write(t, rows(0, 4, 'a'))
    write(t, rows(4, 6, 'b'))


def parquet_brotli():
    t = table(KV, {'file.format': 'parquet', 'file.compression': 'brotli'})
    write(t, rows(0, 4, 'a'))
    write(t, rows(4, 6, 'b'))


def avro_bzip2():
    t = table(KV, {'file.format': 'avro', 'file.compression': 'bzip2', 'manifest.compression': 'bzip2'})
    write(t, rows(0, 4, 'a'))


def manifests_xz_deletes():
    # data_evolution_deletes with xz manifests: its deletion vectors listed in an xz index manifest.
    data_evolution_deletes({'manifest.compression': 'xz'})


def fallback_branch():
    t = table(KV, {'scan.fallback-branch': 'other'})
    write(t, rows(0, 4, 'a'))


def row_format():
    # Paimon's own row format (file.format = row): zstd blocks of serialised rows.
    t = table(KV, {'file.format': 'row'})
    write(t, rows(0, 5, 'a'))
    write(t, pa.table({'id': pa.array([5, None], pa.int64()), 'b': [None, 'n']}, schema=KV))


def row_format_pk():
    t = table(PK, {'file.format': 'row', 'bucket': '1'}, pk=['id'])
    write(t, rows(0, 6, 'x', PK))
    write(t, rows(3, 9, 'y', PK))


def row_format_thin():
    # data-file.thin-mode on a primary-key row-format table (pypaimon 2.1 does not implement it
    # and still writes the _KEY_ columns; Java's thin files leave them out): refused by name.
    t = table(PK, {'file.format': 'row', 'bucket': '1', 'data-file.thin-mode': 'true'}, pk=['id'])
    write(t, rows(0, 4, 'x', PK))


def row_format_evolution():
    # A data-evolution table in the row format: a column updated by row id lands in a row file
    # holding only that column (_WRITE_COLS), stitched by row id.
    t = table(KVC, {'file.format': 'row', 'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true'})
    write(t, pa.table({'id': pa.array(range(0, 6), pa.int64()), 'b': ['a%d' % i for i in range(6)],
                       'c': pa.array(range(0, 6), pa.int32())}, schema=KVC))
    update(t, ['c'], pa.table({'_ROW_ID': pa.array([1, 4], pa.int64()), 'c': pa.array([-1, -4], pa.int32())}))


def modern_refs():
    # Tags and branches of a data-evolution table: tag t1 on snapshot 1, branch dev from it;
    # main then updates column b by row id, dev appends rows and gets tag d2. refs.json holds
    # pypaimon's rows of each tag and branch (and of dev's snapshots).
    t = table(KV, {'row-tracking.enabled': 'true', 'data-evolution.enabled': 'true'})
    write(t, rows(0, 6, 'a'))
    CAT.create_tag('m.modern_refs', 't1', 1)
    CAT.create_branch('m.modern_refs', 'dev', 't1')
    update(t, ['b'], pa.table({'_ROW_ID': pa.array([1, 4], pa.int64()), 'b': ['u1', 'u4']}))
    write(CAT.get_table('m.modern_refs$branch_dev'), rows(6, 9, 'd'))
    CAT.create_tag('m.modern_refs$branch_dev', 'd2', 2)
    refs = {}
    for label, name, options in [('latest', 'm.modern_refs', None),
                                 ('tag:t1', 'm.modern_refs', {'scan.tag-name': 't1'}),
                                 ('branch:dev', 'm.modern_refs$branch_dev', None),
                                 ('branch:dev@1', 'm.modern_refs$branch_dev', {'scan.snapshot-id': '1'}),
                                 ('branch:dev@tag:d2', 'm.modern_refs$branch_dev', {'scan.tag-name': 'd2'})]:
        rt = CAT.get_table(name)
        refs[label] = sorted(lines(rt.copy(options) if options else rt))
    with open(os.path.join(WH, 'refs.json'), 'w') as f:
        json.dump(refs, f)


TYPES = pa.schema([
    ('id', pa.int64()), ('b', pa.string()), ('f', pa.bool_()), ('t8', pa.int8()), ('t16', pa.int16()),
    ('i', pa.int32()), ('fl', pa.float32()), ('d', pa.float64()), ('dc', pa.decimal128(10, 2)),
    ('dw', pa.decimal128(30, 5)), ('dt', pa.date32()), ('ts3', pa.timestamp('ms')), ('ts6', pa.timestamp('us')),
    ('ts9', pa.timestamp('ns')), ('bin', pa.binary()), ('l', pa.list_(pa.int32())),
    ('m', pa.map_(pa.string(), pa.int32())), ('r', pa.struct([('x', pa.int32()), ('y', pa.string())]))])


def row_format_types():
    # Every type the row format serialises, with nulls at the top and inside; the same rows are
    # also written to m.row_format_types_parquet (Parquet) for the reader to compare both.
    import datetime
    import decimal
    data = pa.table({
        'id': [1, 2, None], 'b': ['x', None, 'z\u00e9'], 'f': [True, False, None], 't8': [-1, 127, None],
        't16': [-300, 3, None], 'i': [7, -8, None], 'fl': [1.5, -0.25, None], 'd': [2.5, 1e300, None],
        'dc': [decimal.Decimal('12.34'), decimal.Decimal('-0.01'), None],
        'dw': [decimal.Decimal('1234567890123456789012.12345'), decimal.Decimal('-1.00001'), None],
        'dt': [datetime.date(2024, 1, 2), datetime.date(1969, 12, 31), None],
        'ts3': [datetime.datetime(2024, 1, 2, 3, 4, 5, 678000), datetime.datetime(1960, 1, 1), None],
        'ts6': [datetime.datetime(2024, 1, 2, 3, 4, 5, 678901), datetime.datetime(1969, 12, 31, 23, 59, 59, 999999), None],
        'ts9': pa.array([1_700_000_000_123_456_000, -1000, None], pa.timestamp('ns')),
        'bin': [b'\x00\x01', b'', None], 'l': [[1, None, 3], [], None], 'm': [[('a', 1), ('b', None)], [], None],
        'r': [{'x': 1, 'y': 'q'}, {'x': None, 'y': None}, None]}, schema=TYPES)
    for name, options in [('m.row_format_types_parquet', {}), ('m.row_format_types', {'file.format': 'row'})]:
        CAT.create_table(name, Schema.from_pyarrow_schema(TYPES, options=options), False)
        write(CAT.get_table(name), data)


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


def unknown_file_source():
    """An append table whose data manifest entries are relabelled with a `_FILE_SOURCE` value
    Paimon does not define (0 is APPEND, 1 COMPACT), as a newer writer's file source would be."""
    import glob
    import fastavro
    t = table(KV, {})
    write(t, rows(0, 4, 'a'))
    for path in glob.glob('%s/m.db/%s/manifest/manifest-*' % (WH, FEATURE)):
        if 'manifest-list-' in path:
            continue
        with open(path, 'rb') as f:
            reader = fastavro.reader(f)
            schema, records, codec = reader.writer_schema, list(reader), reader.codec
        for r in records:
            r['_FILE']['_FILE_SOURCE'] = 7
        with open(path, 'wb') as f:
            fastavro.writer(f, schema, records, codec=codec)


def unknown_snapshot_version():
    """Two commits, then the latest snapshot's format version raised past the 3 Paimon writes
    (as a future Paimon's snapshot would be): snapshot 1 stays readable."""
    t = table(KV, {})
    write(t, rows(0, 2, 'a'))
    write(t, rows(2, 4, 'a'))
    path = '%s/m.db/%s/snapshot/snapshot-2' % (WH, FEATURE)
    with open(path) as f:
        snapshot = json.load(f)
    snapshot['version'] = 4
    with open(path, 'w') as f:
        json.dump(snapshot, f)


VARIANT = pa.struct([pa.field('value', pa.binary(), False), pa.field('metadata', pa.binary(), False)])
VKV = pa.schema([('id', pa.int64()), ('v', VARIANT)])


def variants(values):
    """A VARIANT column of Python values (None: a SQL NULL; NULL_VARIANT: the variant null)."""
    from pypaimon.data.generic_variant import GenericVariant
    return GenericVariant.to_arrow_array(
        [None if v is None else GenericVariant.from_python(None if v is NULL_VARIANT else v) for v in values])


NULL_VARIANT = object()


def variant_rows(lo, values, schema=VKV):
    return pa.table({'id': pa.array(range(lo, lo + len(values)), pa.int64()), 'v': variants(values)}, schema=schema)


def variant_values():
    import datetime
    import decimal
    import uuid
    return [
        {'name': 'ann', 'age': 30, 'tags': ['a', 'b'], 'nested': {'k': [1, {'z': None}]}},
        [1, -7, 300, 70000, 2 ** 40, -2 ** 63, 'two', True, False, None],
        {'doubles': [1.5, 100.0, 1.5e10, -2.5e-7, 0.001, 1e-4, 1e7, 0.1 + 0.2, 2.0 ** 70]},
        {'decimals': [decimal.Decimal('1.50'), decimal.Decimal('-0.005'), decimal.Decimal('0'),
                      decimal.Decimal('123456789012345678901234567.8901')]},
        'quote " backslash \\ slash / tab \t newline \n bell \x07 unit \x1f é 😀 中',
        {'k"ey': 'quoted key', 'b': True, 'é': 'unicode key'},
        {'date': datetime.date(2024, 2, 29), 'ntz': datetime.datetime(2024, 1, 2, 3, 4, 5, 600000),
         'utc': datetime.datetime(1969, 12, 31, 23, 59, 59, 999999, tzinfo=datetime.timezone.utc),
         'whole': datetime.datetime(2000, 1, 1)},
        {'bytes': b'\x00\xffab', 'uuid': uuid.UUID('123e4567-e89b-12d3-a456-426614174000')},
        42, 1.5, True, '', [], {},
        NULL_VARIANT,
        None,
    ]


def variant():
    # Plain VARIANT groups (value, metadata), in three commits.
    t = table(VKV, {})
    values = variant_values()
    write(t, variant_rows(0, values[:6]))
    write(t, variant_rows(6, values[6:12]))
    write(t, variant_rows(12, values[12:]))


def variant_row_format():
    # The same VARIANT values in Paimon's row format (value bytes, then metadata bytes).
    t = table(VKV, {'file.format': 'row'})
    values = variant_values()
    write(t, variant_rows(0, values[:8]))
    write(t, variant_rows(8, values[8:]))


def variant_empty_key():
    # An empty object key: valid in the variant encoding, rejected by the parquet-variant 59 decoder.
    t = table(VKV, {})
    write(t, variant_rows(0, [{'a': 1}, {'': 'empty key', 'k': 2}]))


def variant_corrupt():
    # A VARIANT whose metadata is not the variant encoding (version 2 in its header byte).
    from pypaimon.data.generic_variant import GenericVariant
    good = GenericVariant.from_python({'a': 1})
    t = table(VKV, {})
    write(t, pa.table({'id': pa.array([0, 1], pa.int64()),
                       'v': pa.array([{'value': good.value(), 'metadata': good.metadata()},
                                      {'value': good.value(), 'metadata': b'\x02' + good.metadata()[1:]}],
                                     VARIANT)}, schema=VKV))


def variant_shredded():
    # Shredded VARIANT groups (variant.shreddingSchema): typed sub-columns of every kind pypaimon
    # writes, overflow fields in `value`, missing fields, non-object values, TIMESTAMP(3) millis.
    import datetime
    import decimal
    fields = [{'name': 'a', 'type': 'BIGINT'}, {'name': 's', 'type': 'STRING'},
              {'name': 'd', 'type': 'DECIMAL(10,2)'}, {'name': 'f', 'type': 'DOUBLE'},
              {'name': 'b', 'type': 'BOOLEAN'}, {'name': 'ts', 'type': 'TIMESTAMP(6)'},
              {'name': 't3', 'type': 'TIMESTAMP(3)'}, {'name': 'dt', 'type': 'DATE'},
              {'name': 'o', 'type': {'type': 'ROW', 'fields': [{'name': 'x', 'type': 'INT'},
                                                               {'name': 'y', 'type': 'STRING'}]}}]
    shredding = json.dumps({'type': 'ROW', 'fields': [{'name': 'v', 'type': {'type': 'ROW', 'fields': fields}}]})
    t = table(VKV, {'variant.shreddingSchema': shredding})
    write(t, variant_rows(0, [
        {'a': 1, 's': 'x"y', 'd': decimal.Decimal('1.50'), 'f': 2.5, 'b': True,
         'ts': datetime.datetime(2024, 1, 2, 3, 4, 5, 600000), 't3': datetime.datetime(2024, 1, 2, 3, 4, 5, 123000),
         'dt': datetime.date(2024, 2, 29), 'o': {'x': 5, 'y': 'q', 'extra': [1, None]}, 'other': 'ov'},
        {'a': 2}, 'scalar', None, {'o': {'y': 'only'}}, NULL_VARIANT]))
    write(t, variant_rows(6, [
        {'a': -2 ** 63, 'd': decimal.Decimal('-0.01'), 'f': 1e-4, 'zz': {'deep': [True]}},
        [1, {'a': 2}], {}, {'f': 1e300, 'b': False, 'o': {}}]))


def variant_nested():
    # VARIANT inside a ROW, an ARRAY and a MAP (plain groups nested in the Parquet schema).
    row = pa.struct([('x', pa.int32()), ('v', VARIANT)])
    schema = pa.schema([('id', pa.int64()), ('r', row), ('l', pa.list_(VARIANT)),
                        ('m', pa.map_(pa.string(), VARIANT))])
    from pypaimon.data.generic_variant import GenericVariant

    def st(v):
        g = GenericVariant.from_python(v)
        return {'value': g.value(), 'metadata': g.metadata()}
    t = table(schema, {})
    write(t, pa.table({'id': pa.array([1, 2, 3], pa.int64()),
                       'r': [{'x': 1, 'v': st({'a': [1, 2]})}, None, {'x': 3, 'v': None}],
                       'l': [[st({'k': 'v'}), None, st([1, 'x'])], [], None],
                       'm': [[('a', st({'x': 1.5})), ('b', None)], None, [('c', st('s'))]]}, schema=schema))


def variant_pk():
    # A primary-key table with a VARIANT value column: the second commit updates keys 1 and 2.
    schema = pa.schema([pa.field('id', pa.int64(), False), ('v', VARIANT)])
    t = table(schema, {'bucket': '1'}, pk=['id'])
    write(t, variant_rows(0, [{'n': 0}, {'n': 1}, [1]], schema))
    write(t, variant_rows(1, [{'n': 'one'}, None], schema))


def variant_avro():
    # pypaimon writes VARIANT into Avro files; Paimon (Java) writes VARIANT only to Parquet.
    t = table(VKV, {'file.format': 'avro'})
    write(t, variant_rows(0, [{'a': 1}, None]))


def variant_orc():
    t = table(VKV, {'file.format': 'orc'})
    write(t, variant_rows(0, [{'a': 1}, None]))


def java_json(g):
    """Paimon Java's GenericVariant.toJson() (toJsonImpl, UTC) of a pypaimon GenericVariant: pypaimon
    has no JSON rendering of its own (to_python gives dicts, floats, Decimals), so its decoded values
    are rendered here as Java renders them."""
    from pypaimon.data import generic_variant as gv
    value, metadata, pos = g._value, g._metadata, g._pos
    kind = gv._variant_get_type(value, pos)
    at = lambda p: java_json(gv.GenericVariant(value, metadata, p))  # noqa: E731
    if kind == gv._Type.OBJECT:
        def obj(size, id_size, offset_size, id_start, offset_start, data_start):
            parts = []
            for i in range(size):
                key = gv._get_metadata_key(metadata, gv._read_unsigned(value, id_start + id_size * i, id_size))
                offset = gv._read_unsigned(value, offset_start + offset_size * i, offset_size)
                parts.append(jackson_string(key) + ':' + at(data_start + offset))
            return '{' + ','.join(parts) + '}'
        return gv._handle_object(value, pos, obj)
    if kind == gv._Type.ARRAY:
        def arr(size, offset_size, offset_start, data_start):
            return '[' + ','.join(at(data_start + gv._read_unsigned(value, offset_start + offset_size * i, offset_size))
                                  for i in range(size)) + ']'
        return gv._handle_array(value, pos, arr)
    v = g.to_python()
    if kind == gv._Type.NULL:
        return 'null'
    if kind == gv._Type.BOOLEAN:
        return 'true' if v else 'false'
    if kind == gv._Type.LONG:
        return str(v)
    if kind == gv._Type.STRING:
        return jackson_string(v)
    if kind in (gv._Type.DOUBLE, gv._Type.FLOAT):
        if v != v or v in (float('inf'), float('-inf')):
            return '"%s"' % ('NaN' if v != v else 'Infinity' if v > 0 else '-Infinity')
        return java_float_text(v, kind == gv._Type.FLOAT)
    if kind == gv._Type.DECIMAL:
        return format(v, 'f')  # BigDecimal.toPlainString
    if kind == gv._Type.DATE:
        return '"%s"' % v.isoformat()
    if kind in (gv._Type.TIMESTAMP, gv._Type.TIMESTAMP_NTZ):
        text = v.strftime('%Y-%m-%d %H:%M:%S')
        if v.microsecond:
            text += ('.%06d' % v.microsecond).rstrip('0')
        return '"%s%s"' % (text, '+00:00' if kind == gv._Type.TIMESTAMP else '')
    if kind == gv._Type.BINARY:
        import base64
        return '"%s"' % base64.b64encode(v).decode()
    if kind == gv._Type.UUID:
        return '"%s"' % v
    raise ValueError('variant type %s' % kind)


def jackson_string(s):
    """Jackson's JsonGenerator.writeString: short escapes for quote, backslash and \\b \\t \\n \\f \\r,
    other control characters as \\u00XX in upper-case hex, everything else as is."""
    short = {'"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r'}
    return '"' + ''.join(short.get(c) or ('\\u%04X' % ord(c) if ord(c) < 0x20 else c) for c in s) + '"'


def java_float_text(v, is_float):
    """Java's Double.toString / Float.toString (JDK 19+: shortest digits; 2 digits when 1 would do and
    a 2-digit decimal is closer)."""
    import decimal
    if is_float:
        import numpy as np
        f = np.float32(v)
        shortest, same = str(f), (lambda t: np.float32(t) == f)
    else:
        shortest, same = repr(v), (lambda t: float(t) == v)
    if v == 0:
        return '-0.0' if str(v).startswith('-') else '0.0'
    sign, digits, exp = decimal.Decimal(shortest).normalize().as_tuple()
    if len(digits) == 1 and same('%.1e' % abs(v)):
        sign, digits, exp = decimal.Decimal('%.1e' % abs(v)).normalize().as_tuple()
    digits = ''.join(map(str, digits))
    sci = exp + len(digits) - 1  # v = d.ddd x 10^sci
    text = '-' if sign else ''
    if -3 <= sci < 7:
        if sci < 0:
            return text + '0.' + '0' * (-sci - 1) + digits
        whole = digits[:sci + 1].ljust(sci + 1, '0')
        return text + whole + '.' + (digits[sci + 1:] or '0')
    return text + digits[0] + '.' + (digits[1:] or '0') + 'E' + str(sci)


def cell(v, top=True):
    """A value as lakescope's test rows print it (Arrow's display: nested nulls empty, no quotes)."""
    if v is None:
        return 'null' if top else ''
    if isinstance(v, dict) and set(v) == {'value', 'metadata'}:
        from pypaimon.data.generic_variant import GenericVariant
        return java_json(GenericVariant.from_arrow_struct(v))
    if isinstance(v, dict):
        return '{' + ', '.join('%s: %s' % (k, cell(x, False)) for k, x in v.items()) + '}'
    if isinstance(v, list) and v and all(isinstance(x, tuple) for x in v):  # a MAP's entries
        return '{' + ', '.join('%s: %s' % (k, cell(x, False)) for k, x in v) + '}'
    if isinstance(v, list):
        return '[' + ', '.join(cell(x, False) for x in v) + ']'
    return v.hex() if isinstance(v, bytes) else str(v)


def lines(t):
    rb = t.new_read_builder()
    data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
    return ['|'.join(cell(v) for v in row.values()) for row in data.to_pylist()]


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
    if t.options.row_tracking_enabled():
        # `_ROW_ID` and `_SEQUENCE_NUMBER` of every snapshot's rows (a projection naming them),
        # for `$row_tracking`; BLOB columns left out (lakescope reads them as references).
        blobs = set((t.table_schema.options.get('blob-field') or '').split(','))
        names = [f.name for f in t.fields if f.name not in blobs] + ['_ROW_ID', '_SEQUENCE_NUMBER']
        tracked = {'columns': names, 'snapshots': {}}
        for sid in per_snapshot:
            try:
                rb = t.copy({'scan.snapshot-id': str(sid)}).new_read_builder().with_projection(names)
                data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
                tracked['snapshots'][sid] = sorted('|'.join(cell(v) for v in row.values()) for row in data.to_pylist())
            except Exception as e:  # noqa: BLE001
                tracked['snapshots'][sid] = '!! %s' % first_line(e)
        with open(os.path.join(WH, 'row_tracking.json'), 'w') as f:
            json.dump(tracked, f)
