"""Writes a Paimon table with branches with pypaimon 2.1 (filesystem catalog), then prints
pypaimon's reads of each branch.

usage: write_branches_pypaimon.py <warehouse dir>
Table br.t: (id INT NOT NULL, v STRING), primary key id, bucket 1.
  main: (1,a) (2,b)                      -> snapshot 1, then tag t1 on it
  branch dev from tag t1                 (branch/branch-dev: tag t1, snapshot 1, schema 0)
  main: (2,B) (3,c)                      -> main snapshot 2 (schema 0)
  dev: column `extra BIGINT` added       -> dev schema 1 (main keeps schema 0)
  dev: (1,A,10) (4,d,40)                 -> dev snapshot 2 (`br.t$branch_dev`), then dev tag d2 on it
  branch empty (no tag)                  (branch/branch-empty: main's latest schema, no snapshot)
Prints, for each read, "== <label>" then the canonical JSON lines (as read_pypaimon.py) or
"!! <label> <error>"; labels: main, dev, dev@1 (snapshot 1 of dev), dev@tag:t1, dev@tag:d2,
empty, and dev@ts:<ms> (dev at scan.timestamp-millis <ms>, resolved on dev's own snapshots) for
the commit time of dev's snapshot 2 and 1 ms before it (after main's snapshot 2: main would
read its snapshot 2 there).
"""
import json
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema
from pypaimon.schema.data_types import AtomicType
from pypaimon.schema.schema_change import SchemaChange

sys.path.insert(0, __file__.rsplit('/', 1)[0])
from read_pypaimon import canon  # noqa: E402

WH = sys.argv[1]
CAT = CatalogFactory.create({'warehouse': WH})
CAT.create_database('br', True)
BASE = pa.schema([pa.field('id', pa.int32(), False), ('v', pa.string())])
WIDE = pa.schema([pa.field('id', pa.int32(), False), ('v', pa.string()), ('extra', pa.int64())])


def write(name, data):
    t = CAT.get_table(name)
    wb = t.new_batch_write_builder()
    w, c = wb.new_write(), wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def rows(schema, *values):
    cols = list(zip(*values))
    return pa.table({f.name: pa.array(c, f.type) for f, c in zip(schema, cols)}, schema=schema)


def read(label, name, options=None):
    print('== %s' % label)
    try:
        t = CAT.get_table(name)
        if options:
            t = t.copy(options)
        rb = t.new_read_builder()
        data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
        lines = [json.dumps({f.name: canon(r[f.name], f.type) for f in data.schema},
                            ensure_ascii=False, separators=(',', ':'))
                 for r in data.to_pylist()]
        for line in sorted(lines, key=lambda s: s.encode('utf-8')):
            print(line)
    except Exception as e:  # noqa: BLE001 - reported to the test
        print('!! %s %s: %s' % (label, type(e).__name__, str(e).replace('\n', ' ')[:400]))


def main():
    CAT.create_table('br.t', Schema.from_pyarrow_schema(BASE, primary_keys=['id'], options={'bucket': '1'}), False)
    write('br.t', rows(BASE, (1, 'a'), (2, 'b')))
    CAT.create_tag('br.t', 't1', 1)
    CAT.create_branch('br.t', 'dev', 't1')
    write('br.t', rows(BASE, (2, 'B'), (3, 'c')))
    CAT.alter_table('br.t$branch_dev', [SchemaChange.add_column('extra', AtomicType('BIGINT'))])
    write('br.t$branch_dev', rows(WIDE, (1, 'A', 10), (4, 'd', 40)))
    CAT.create_tag('br.t$branch_dev', 'd2', 2)
    CAT.create_branch('br.t', 'empty')
    read('main', 'br.t')
    read('dev', 'br.t$branch_dev')
    read('dev@1', 'br.t$branch_dev', {'scan.snapshot-id': '1'})
    read('dev@tag:t1', 'br.t$branch_dev', {'scan.tag-name': 't1'})
    read('dev@tag:d2', 'br.t$branch_dev', {'scan.tag-name': 'd2'})
    read('empty', 'br.t$branch_empty')
    with open('%s/br.db/t/branch/branch-dev/snapshot/snapshot-2' % WH) as f:
        dev_2 = json.load(f)['timeMillis']
    for ms in (dev_2 - 1, dev_2):
        read('dev@ts:%d' % ms, 'br.t$branch_dev', {'scan.timestamp-millis': str(ms)})


if __name__ == '__main__':
    main()
