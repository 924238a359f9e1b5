"""Oracle: pypaimon 2.1's streaming read of a table from snapshot 1, with row kinds.

usage: pypaimon_stream.py <warehouse dir> <db.table>
Follows the snapshots from 1 (no initial full read) with pypaimon's streaming scan, which reads
the changelog files of each snapshot for tables with a changelog producer; for each planned
snapshot prints "== <id>" then one canonical JSON line per record ("rowkind" first, then the
fields, as tests/oracles/read_pypaimon.py prints them). Stops after the latest snapshot. An
error prints "!! <id> <message>".
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../../../tests/oracles'))
from read_pypaimon import canon  # noqa: E402
from pypaimon import CatalogFactory  # noqa: E402


def main():
    wh, name = sys.argv[1], sys.argv[2]
    table = CatalogFactory.create({'warehouse': wh}).get_table(name)
    latest = table.snapshot_manager().get_latest_snapshot().id
    rb = table.new_stream_read_builder().with_include_row_kind(True)
    scan = rb.new_streaming_scan()
    scan.next_snapshot_id = 1
    read = rb.new_read()
    sid = 0
    try:
        for plan in scan.stream_sync():
            sid = scan.next_snapshot_id - 1
            print('== %d' % sid)
            data = read.to_arrow(plan.splits())
            for row in data.to_pylist():
                obj = {'rowkind': row['_row_kind']}
                for f in data.schema:
                    if f.name != '_row_kind':
                        obj[f.name] = canon(row[f.name], f.type)
                print(json.dumps(obj, ensure_ascii=False, separators=(',', ':')))
            if scan.next_snapshot_id > latest:
                break
    except Exception as e:  # noqa: BLE001 - reported to the test
        print('!! %d %s: %s' % (sid + 1, type(e).__name__, str(e).replace('\n', ' ')[:400]))


if __name__ == '__main__':
    main()
