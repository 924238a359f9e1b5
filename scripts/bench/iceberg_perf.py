"""Writes the Iceberg tables of P8's Iceberg row with pyiceberg (SqlCatalog on sqlite): the rows of
Java Paimon 0.9's perf.append_rows (its 5 Parquet files, scripts/bench.sh) appended to
perf.append_rows (5 appends: 5 data files) and, in halves, to perf.append_rows10 (10 data files).

    $LAKE_TOOLS/venv/bin/python scripts/bench/iceberg_perf.py PAIMON_WAREHOUSE OUT_DIR

(the venv of scripts/iceberg-oracle.sh). Then: lakescope bench-read OUT_DIR/warehouse perf.append_rows --threads N.
"""
import glob
import os
import sys

import pyarrow.parquet as pq
from pyiceberg.catalog.sql import SqlCatalog


def main(paimon_warehouse, out):
    files = sorted(glob.glob(os.path.join(paimon_warehouse, 'perf.db/append_rows/bucket-0/*.parquet')))
    if not files:
        sys.exit('no perf.append_rows data files under %s: run scripts/bench.sh first' % paimon_warehouse)
    warehouse = os.path.join(os.path.abspath(out), 'warehouse')
    os.makedirs(warehouse, exist_ok=True)
    catalog = SqlCatalog('perf', uri='sqlite:///%s/catalog.sqlite' % os.path.abspath(out),
                         warehouse='file://' + warehouse)
    catalog.create_namespace_if_not_exists('perf')
    schema = pq.read_schema(files[0])
    whole = catalog.create_table('perf.append_rows', schema=schema)
    halves = catalog.create_table('perf.append_rows10', schema=schema)
    for f in files:
        rows = pq.read_table(f)
        whole.append(rows)
        half = rows.num_rows // 2
        halves.append(rows.slice(0, half))
        halves.append(rows.slice(half))
    print('perf.append_rows and perf.append_rows10: %d rows each in %s' % (whole.scan().to_arrow().num_rows, warehouse))


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
