// Oracle: Java Paimon 0.9 writes and reads table statistics, as `ANALYZE TABLE` does (compiled by
// the tests with ReadJava's class path: lakescope_test_support::oracles().with_java).
//
//   java -cp ... StatsJava analyze <tablePath>
//       commits statistics of the latest snapshot of jw.app (ReadJava write-seed: id BIGINT,
//       name STRING, price DECIMAL(10, 2), dt STRING) with FileStoreCommit.commitStatistics (an
//       ANALYZE snapshot whose `statistics` names a file in <table>/statistics/); some column
//       stats leave fields out, a string holds a quote, a backslash and non-ASCII letters
//   java -cp ... StatsJava read <tablePath>
//       the $statistics table (StatisticTable) as Java reads it: per row a line
//       "row <snapshot_id>|<schema_id>|<mergedRecordCount>|<mergedRecordSize>", then the colstat
//       text between "colstat-begin" and "colstat-end" lines
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.operation.FileStoreCommit;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.stats.ColStats;
import org.apache.paimon.stats.Statistics;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.system.StatisticTable;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

public class StatsJava {
    public static void main(String[] args) throws Exception {
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        if (args[0].equals("analyze")) {
            Snapshot latest = t.snapshotManager().latestSnapshot();
            Map<String, ColStats<?>> cols = new LinkedHashMap<>();
            cols.put("id", ColStats.newColStats(0, 6L, 0L, 5L, 0L, 8L, 8L));
            cols.put("name", ColStats.newColStats(1, 6L, BinaryString.fromString("java0"),
                    BinaryString.fromString("jävä\"5\\"), 0L, 5L, 7L));
            cols.put("price", ColStats.newColStats(2, null,
                    Decimal.fromBigDecimal(new BigDecimal("0.00"), 10, 2),
                    Decimal.fromBigDecimal(new BigDecimal("6.25"), 10, 2), 1L, null, null));
            cols.put("dt", ColStats.newColStats(3, 2L, null, null, null, null, null));
            Statistics stats = new Statistics(latest.id(), latest.schemaId(), 6L, 1234L, cols);
            try (FileStoreCommit c = t.store().newCommit("stats-java")) {
                c.commitStatistics(stats, Long.MAX_VALUE);
            }
        } else if (args[0].equals("read")) {
            StatisticTable s = new StatisticTable(t);
            ReadBuilder rb = s.newReadBuilder();
            try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
                r.forEachRemaining(row -> {
                    System.out.println("row " + row.getLong(0) + "|" + row.getLong(1) + "|"
                            + (row.isNullAt(2) ? "null" : row.getLong(2)) + "|"
                            + (row.isNullAt(3) ? "null" : row.getLong(3)));
                    System.out.println("colstat-begin");
                    System.out.println(row.isNullAt(4) ? "null" : row.getString(4).toString());
                    System.out.println("colstat-end");
                });
            }
        }
    }
}
