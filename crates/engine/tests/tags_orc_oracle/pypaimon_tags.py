"""Oracle for tags_orc_interop.rs: pypaimon 2.1's own tag and rollback operations, and reads at
a tag, printing rows in the canonical form of tests/oracles/read_pypaimon.py.

usage: pypaimon_tags.py <warehouse> <db.table> read <label>=<tag name or "latest">...
       pypaimon_tags.py <warehouse> <db.table> tags          ("tag <name> <snapshot id>" lines)
       pypaimon_tags.py <warehouse> <db.table> create-tag <name> <snapshot id> <retention or ->
       pypaimon_tags.py <warehouse> <db.table> rollback <snapshot id | tag:<name>>
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '../../../../tests/oracles'))
from read_pypaimon import canon  # noqa: E402
from pypaimon import CatalogFactory  # noqa: E402


def main():
    wh, name, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    table = CatalogFactory.create({'warehouse': wh}).get_table(name)
    if cmd == 'read':
        for arg in args:
            label, tag = arg.split('=', 1)
            print('== %s' % label)
            try:
                t = table if tag == 'latest' else table.copy({'scan.tag-name': tag})
                rb = t.new_read_builder()
                data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
                lines = sorted(
                    json.dumps({f.name: canon(row[f.name], f.type) for f in data.schema},
                               ensure_ascii=False, separators=(',', ':'))
                    for row in data.to_pylist())
                for line in lines:
                    print(line)
            except Exception as e:  # noqa: BLE001 - reported to the test
                print('!! %s %s' % (label, str(e).replace('\n', ' ')))
    elif cmd == 'tags':
        mgr = table.tag_manager()
        for tag in sorted(mgr.list_tags()):
            print('tag %s %d' % (tag, mgr.get_or_throw(tag).id))
    elif cmd == 'create-tag':
        retained = None if args[2] == '-' else args[2]
        table.create_tag(args[0], snapshot_id=int(args[1]), time_retained=retained)
    elif cmd == 'rollback':
        target = args[0][4:] if args[0].startswith('tag:') else int(args[0])
        table.rollback_to(target)
    else:
        raise SystemExit('unknown command ' + cmd)


if __name__ == '__main__':
    main()
