"""Oracle: read a Paimon table at snapshots with pypaimon 2.1, print canonical JSON lines.

usage: read_pypaimon.py <warehouse dir> <db.table> <snapshot id>...
For each snapshot prints "== <id>" then the sorted canonical lines (same canonical form as
lakescope_engine::canonical: keys in schema order, compact separators, decimals as strings,
dates/timestamps ISO text, binary as hex). An error prints "!! <id> <message>".
"""
import datetime
import decimal
import json
import math
import sys

import pyarrow as pa
from pypaimon import CatalogFactory


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
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return bytes(v).hex()
    if pa.types.is_list(t):
        return [canon(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: canon(v.get(t.field(i).name), t.field(i).type) for i in range(t.num_fields)}
    return v


def main():
    wh, name, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
    table = CatalogFactory.create({'warehouse': wh}).get_table(name)
    for sid in ids:
        print('== %s' % sid)
        try:
            t = table.copy({'scan.snapshot-id': sid})
            rb = t.new_read_builder()
            data = rb.new_read().to_arrow(rb.new_scan().plan().splits())
            lines = []
            for row in data.to_pylist():
                obj = {f.name: canon(row[f.name], f.type) for f in data.schema}
                lines.append(json.dumps(obj, ensure_ascii=False, separators=(',', ':')))
            for line in sorted(lines, key=lambda s: s.encode('utf-8')):
                print(line)
        except Exception as e:  # noqa: BLE001 - reported to the test
            print('!! %s %s: %s' % (sid, type(e).__name__, str(e).replace('\n', ' ')[:400]))


if __name__ == '__main__':
    main()
