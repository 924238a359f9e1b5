// Oracle: Java Paimon 0.9's streaming read of a table, as a Flink streaming source reads it.
//
//   java -cp ... ChangelogJava stream <tablePath> <fromSnapshotId>
//       a stream scan with 'scan.mode' = 'from-snapshot' (no initial full read); for every
//       snapshot the follow-up scanner plans (changelog-producer=input: the changelog files of
//       each APPEND snapshot; COMPACT snapshots are skipped) prints "== <snapshotId>", then one
//       JSON object per record: "rowkind" (+I, -U, +U, -D), then the fields in schema order.
//       Stops after the latest snapshot.
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.source.SnapshotNotExistPlan;
import org.apache.paimon.table.source.StreamTableScan;
import org.apache.paimon.table.source.TableRead;
import org.apache.paimon.table.source.TableScan;
import org.apache.paimon.types.RowType;

import java.util.HashMap;
import java.util.Map;

public class ChangelogJava {
    public static void main(String[] args) throws Exception {
        if (!args[0].equals("stream")) {
            throw new IllegalArgumentException("unknown command " + args[0]);
        }
        FileStoreTable base = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        Map<String, String> options = new HashMap<>();
        options.put("scan.mode", "from-snapshot");
        options.put("scan.snapshot-id", args[2]);
        FileStoreTable t = base.copy(options);
        Long latest = t.snapshotManager().latestSnapshotId();
        if (latest == null) {
            return;
        }
        RowType type = t.rowType();
        ReadBuilder rb = t.newReadBuilder();
        StreamTableScan scan = rb.newStreamScan();
        TableRead read = rb.newRead();
        for (int i = 0; i < 10_000; i++) {
            TableScan.Plan plan = scan.plan();
            Long next = scan.checkpoint();
            if (!(plan instanceof SnapshotNotExistPlan)) {
                System.out.println("== " + (next - 1));
                try (RecordReader<InternalRow> r = read.createReader(plan.splits())) {
                    r.forEachRemaining(row -> {
                        String fields = ReadJava.json(row, type);
                        String kind = "{\"rowkind\":\"" + row.getRowKind().shortString() + "\"";
                        System.out.println(fields.equals("{}") ? kind + "}" : kind + "," + fields.substring(1));
                    });
                }
            }
            if (next == null || next > latest) {
                break;
            }
        }
    }
}
