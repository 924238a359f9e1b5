// Oracle for seed_interop.rs: Java Paimon 0.9 reads tables at the latest snapshot, at snapshot
// ids and at tags, printing one JSON object per row (schema field order).
//
//   java -cp "<lib>/*:<classes>" ReadRefs @<tableDir> <ref>... [@<tableDir> <ref>...]...
//       <ref> is `latest` (no time travel: latest snapshot, latest schema), `snapshot:<id>`
//       (scan.snapshot-id) or `tag:<name>` (scan.tag-name).
//       Prints "## <tableDir>", then per ref "== <ref>" and its rows, or "!! <ref> <error>".
// Numbers are printed with Java's toString; the test re-serializes every line through Python's
// json module, so only values matter, not their spelling.
import org.apache.paimon.data.*;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.*;

import java.time.LocalDate;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.*;

public class ReadRefs {
    private static final DateTimeFormatter TS = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS");
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");

    public static void main(String[] args) throws Exception {
        FileStoreTable base = null;
        String baseError = null;
        for (String arg : args) {
            if (arg.startsWith("@")) {
                String dir = arg.substring(1);
                System.out.println("## " + dir);
                try {
                    base = FileStoreTableFactory.create(LocalFileIO.create(), new Path(dir));
                    baseError = null;
                } catch (Throwable e) {
                    base = null;
                    baseError = e.toString().replace('\n', ' ');
                }
                continue;
            }
            if (base == null) {
                System.out.println("!! " + arg + " cannot open table: " + baseError);
                continue;
            }
            System.out.println("== " + arg);
            try {
                Table t;
                if (arg.equals("latest")) {
                    t = base;
                } else if (arg.startsWith("snapshot:")) {
                    t = base.copy(Collections.singletonMap("scan.snapshot-id", arg.substring(9)));
                } else if (arg.startsWith("tag:")) {
                    t = base.copy(Collections.singletonMap("scan.tag-name", arg.substring(4)));
                } else {
                    throw new IllegalArgumentException("unknown ref " + arg);
                }
                ReadBuilder rb = t.newReadBuilder();
                RowType type = t.rowType();
                List<String> lines = new ArrayList<>();
                try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
                    r.forEachRemaining(row -> lines.add(row(row, type)));
                }
                for (String l : lines) System.out.println(l);
            } catch (Throwable e) {
                System.out.println("!! " + arg + " " + e.toString().replace('\n', ' '));
            }
        }
        System.out.flush();
    }

    static String row(InternalRow row, RowType type) {
        StringBuilder sb = new StringBuilder();
        rowInto(sb, row, type);
        return sb.toString();
    }

    static void rowInto(StringBuilder sb, InternalRow row, RowType type) {
        sb.append('{');
        for (int i = 0; i < type.getFieldCount(); i++) {
            if (i > 0) sb.append(',');
            str(sb, type.getFields().get(i).name());
            sb.append(':');
            value(sb, InternalRow.createFieldGetter(type.getTypeAt(i), i).getFieldOrNull(row), type.getTypeAt(i));
        }
        sb.append('}');
    }

    static void value(StringBuilder sb, Object v, DataType t) {
        if (v == null) {
            sb.append("null");
            return;
        }
        switch (t.getTypeRoot()) {
            case BOOLEAN: case TINYINT: case SMALLINT: case INTEGER: case BIGINT:
                sb.append(v);
                break;
            case FLOAT: {
                float f = (Float) v;
                if (Float.isNaN(f)) str(sb, "NaN");
                else if (Float.isInfinite(f)) str(sb, f > 0 ? "Infinity" : "-Infinity");
                else sb.append(Float.toString(f));
                break;
            }
            case DOUBLE: {
                double d = (Double) v;
                if (Double.isNaN(d)) str(sb, "NaN");
                else if (Double.isInfinite(d)) str(sb, d > 0 ? "Infinity" : "-Infinity");
                else sb.append(Double.toString(d));
                break;
            }
            case DECIMAL: str(sb, ((Decimal) v).toBigDecimal().toPlainString()); break;
            case DATE: str(sb, LocalDate.ofEpochDay((Integer) v).toString()); break;
            case TIME_WITHOUT_TIME_ZONE:
                str(sb, LocalTime.ofNanoOfDay((Integer) v * 1_000_000L).format(TIME));
                break;
            case TIMESTAMP_WITHOUT_TIME_ZONE: str(sb, ((Timestamp) v).toLocalDateTime().format(TS)); break;
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE: str(sb, ((Timestamp) v).toLocalDateTime().format(TS) + "Z"); break;
            case BINARY: case VARBINARY: {
                StringBuilder h = new StringBuilder();
                for (byte b : (byte[]) v) h.append(String.format("%02x", b));
                str(sb, h.toString());
                break;
            }
            case ARRAY: {
                DataType et = ((ArrayType) t).getElementType();
                InternalArray a = (InternalArray) v;
                InternalArray.ElementGetter g = InternalArray.createElementGetter(et);
                sb.append('[');
                for (int i = 0; i < a.size(); i++) {
                    if (i > 0) sb.append(',');
                    value(sb, g.getElementOrNull(a, i), et);
                }
                sb.append(']');
                break;
            }
            case MULTISET:
            case MAP: {
                DataType kt = t instanceof MapType ? ((MapType) t).getKeyType() : ((MultisetType) t).getElementType();
                DataType vt = t instanceof MapType ? ((MapType) t).getValueType() : new IntType();
                InternalMap m = (InternalMap) v;
                InternalArray.ElementGetter kg = InternalArray.createElementGetter(kt);
                InternalArray.ElementGetter vg = InternalArray.createElementGetter(vt);
                sb.append('[');
                for (int i = 0; i < m.size(); i++) {
                    if (i > 0) sb.append(',');
                    sb.append('[');
                    value(sb, kg.getElementOrNull(m.keyArray(), i), kt);
                    sb.append(',');
                    value(sb, vg.getElementOrNull(m.valueArray(), i), vt);
                    sb.append(']');
                }
                sb.append(']');
                break;
            }
            case ROW: rowInto(sb, (InternalRow) v, (RowType) t); break;
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
