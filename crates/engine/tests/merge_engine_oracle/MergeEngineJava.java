// Oracle: one commit by Java Paimon 0.9's own batch writer on a table of any merge engine.
//
//   java -cp ... MergeEngineJava write <tablePath> <row>...
//       a row is "<kind>;<v1>;<v2>;..." in schema field order: kind +I, -U, +U or -D; "null" is
//       NULL; values of INT, BIGINT, STRING, DECIMAL, BOOLEAN and DOUBLE columns. Fixed-bucket
//       tables only (the writer computes the bucket). Prints the snapshot ids after the commit.
//
//   java -cp ... MergeEngineJava write-full-compaction <tablePath> <row>...
//       the same, then a full compaction of every bucket written before the commit, as Flink's
//       batch sink of a changelog-producer=full-compaction table does at the end of its input
//       (GlobalFullCompactionSinkWrite): the commit is an APPEND then a COMPACT snapshot.
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.SinkRecord;
import org.apache.paimon.table.sink.TableWriteImpl;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.math.BigDecimal;
import java.util.AbstractMap.SimpleEntry;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

public class MergeEngineJava {
    public static void main(String[] args) throws Exception {
        boolean fullCompaction = args[0].equals("write-full-compaction");
        if (!args[0].equals("write") && !fullCompaction) {
            throw new IllegalArgumentException("unknown command " + args[0]);
        }
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        RowType type = t.rowType();
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        // Lookup compactions (first-row tables) spill to a temp directory, as Flink's writer does.
        try (IOManager io = IOManager.create(System.getProperty("java.io.tmpdir"));
                BatchTableWrite w = (BatchTableWrite) wb.newWrite().withIOManager(io);
                BatchTableCommit c = wb.newCommit()) {
            Set<Map.Entry<BinaryRow, Integer>> written = new LinkedHashSet<>();
            for (int i = 2; i < args.length; i++) {
                String[] f = args[i].split(";", -1);
                if (f.length != type.getFieldCount() + 1) {
                    throw new IllegalArgumentException("row " + args[i] + ": expected kind and "
                            + type.getFieldCount() + " values");
                }
                GenericRow row = new GenericRow(RowKind.fromShortString(f[0]), type.getFieldCount());
                for (int j = 0; j < type.getFieldCount(); j++) {
                    row.setField(j, value(f[j + 1], type.getTypeAt(j)));
                }
                SinkRecord record = ((TableWriteImpl<?>) w).writeAndReturn(row);
                written.add(new SimpleEntry<>(record.partition().copy(), record.bucket()));
            }
            if (fullCompaction) {
                for (Map.Entry<BinaryRow, Integer> b : written) {
                    w.compact(b.getKey(), b.getValue(), true);
                }
            }
            c.commit(w.prepareCommit());
        }
        System.out.println("latest " + t.snapshotManager().latestSnapshotId());
    }

    static Object value(String s, DataType t) {
        if (s.equals("null")) {
            return null;
        }
        switch (t.getTypeRoot()) {
            case INTEGER: return Integer.parseInt(s);
            case BIGINT: return Long.parseLong(s);
            case BOOLEAN: return Boolean.parseBoolean(s);
            case DOUBLE: return Double.parseDouble(s);
            case CHAR: case VARCHAR: return BinaryString.fromString(s);
            case DECIMAL: {
                DecimalType d = (DecimalType) t;
                return Decimal.fromBigDecimal(new BigDecimal(s), d.getPrecision(), d.getScale());
            }
            default: throw new IllegalArgumentException("unsupported type " + t);
        }
    }
}
