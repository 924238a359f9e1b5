// Oracle: Java Paimon 0.9 reads (and, for the reverse interop test, writes) tables.
//
//   java -cp "<lib>/*:<classes>" ReadJava read <tablePath> <snapshotId>...
//       prints "== <id>" then one JSON object per row (schema field order); "!! <id> <error>"
//   java -cp ... ReadJava write-seed <warehouse>
//       creates jw.app (append, partitioned by dt) and jw.pk (PK (dt,id), bucket=2) with one
//       commit each, written by Java's own writer
//   java -cp ... ReadJava upsert-int-string <tablePath> <id> <v> [<id> <v>]...
//       one commit of (id INT, v STRING) rows with Java's writer (dynamic buckets use the index)
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.*;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.*;
import org.apache.paimon.table.source.*;
import org.apache.paimon.types.*;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.*;

public class ReadJava {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS");

    public static void main(String[] args) throws Exception {
        if (args[0].equals("read")) {
            FileStoreTable base = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
            for (int i = 2; i < args.length; i++) {
                System.out.println("== " + args[i]);
                try {
                    Table t = base.copy(Collections.singletonMap("scan.snapshot-id", args[i]));
                    ReadBuilder rb = t.newReadBuilder();
                    RowType type = t.rowType();
                    try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
                        r.forEachRemaining(row -> System.out.println(json(row, type)));
                    }
                } catch (Throwable e) {
                    System.out.println("!! " + args[i] + " " + e.toString().replace('\n', ' '));
                }
            }
        } else if (args[0].equals("write-seed")) {
            writeSeed(args[1]);
        } else if (args[0].equals("upsert-int-string")) {
            // upsert-int-string <tablePath> <id> <v>...: rows (INT id, STRING v) with Java's writer
            FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
            // Dynamic buckets: assign as Flink's assigner operator does (one assigner), reading
            // the HASH index lakescope wrote; the writer then maintains the index.
            org.apache.paimon.index.HashBucketAssigner assigner = new org.apache.paimon.index.HashBucketAssigner(
                    t.snapshotManager(), "java-upsert", t.store().newIndexFileHandler(), 1, 1, 0,
                    t.coreOptions().dynamicBucketTargetRowNum());
            org.apache.paimon.table.sink.RowPartitionKeyExtractor keys =
                    new org.apache.paimon.table.sink.RowPartitionKeyExtractor(t.schema());
            BatchWriteBuilder wb = t.newBatchWriteBuilder();
            try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
                for (int i = 2; i + 1 < args.length; i += 2) {
                    InternalRow row = GenericRow.of(Integer.parseInt(args[i]), BinaryString.fromString(args[i + 1]));
                    int bucket = assigner.assign(keys.partition(row), keys.trimmedPrimaryKey(row).hashCode());
                    System.out.println("bucket " + args[i] + " " + bucket);
                    w.write(row, bucket);
                }
                c.commit(w.prepareCommit());
            }
        }
    }

    static void writeSeed(String warehouse) throws Exception {
        Options o = new Options();
        o.set("warehouse", warehouse);
        Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(o));
        cat.createDatabase("jw", true);
        Schema app = Schema.newBuilder().column("id", DataTypes.BIGINT()).column("name", DataTypes.STRING())
                .column("price", DataTypes.DECIMAL(10, 2)).column("dt", DataTypes.STRING()).partitionKeys("dt").build();
        Schema pk = Schema.newBuilder().column("dt", DataTypes.STRING()).column("id", DataTypes.INT())
                .column("v", DataTypes.STRING()).partitionKeys("dt").primaryKey("dt", "id").option("bucket", "2").build();
        cat.createTable(Identifier.create("jw", "app"), app, false);
        cat.createTable(Identifier.create("jw", "pk"), pk, false);
        List<InternalRow> a = new ArrayList<>();
        List<InternalRow> p = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            String dt = i % 2 == 0 ? "x" : "y";
            a.add(GenericRow.of((long) i, BinaryString.fromString("java" + i),
                    Decimal.fromBigDecimal(new BigDecimal(i * 125).movePointLeft(2), 10, 2), BinaryString.fromString(dt)));
            p.add(GenericRow.of(BinaryString.fromString(dt), i, BinaryString.fromString("java" + i)));
        }
        write(cat.getTable(Identifier.create("jw", "app")), a);
        write(cat.getTable(Identifier.create("jw", "pk")), p);
    }

    static void write(Table t, List<InternalRow> rows) throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            for (InternalRow r : rows) w.write(r);
            c.commit(w.prepareCommit());
        }
    }

    static String json(InternalRow row, RowType type) {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < type.getFieldCount(); i++) {
            if (i > 0) sb.append(',');
            str(sb, type.getFields().get(i).name());
            sb.append(':');
            value(sb, InternalRow.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(row), type.getTypeAt(i));
        }
        return sb.append('}').toString();
    }

    static void value(StringBuilder sb, Object v, DataType t) {
        if (v == null) {
            sb.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN: case TINYINT: case SMALLINT: case INTEGER: case BIGINT: case FLOAT: case DOUBLE:
                sb.append(v); break;
            case DECIMAL: str(sb, ((Decimal) v).toBigDecimal().toPlainString()); break;
            case DATE: str(sb, LocalDate.ofEpochDay((Integer) v).toString()); break;
            case TIMESTAMP_WITHOUT_TIME_ZONE: str(sb, ((Timestamp) v).toLocalDateTime().format(TS)); break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: str(sb, ((Timestamp) v).toLocalDateTime().format(TS) + "Z"); break;
            case BINARY: case VARBINARY: {
                StringBuilder h = new StringBuilder();
                for (byte b : (byte[]) v) h.append(String.format("%02x", b));
                str(sb, h.toString());
                break;
            }
            default: str(sb, v.toString());
        }
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') sb.append('\\').append(c);
            else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        sb.append('"');
    }
}
