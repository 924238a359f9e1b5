// Oracle: Java Paimon 0.9 writes data files with file indexes and reads their index metadata
// (compiled by the tests with ReadJava's class path: lakescope_test_support::oracles().with_java).
//
//   java -cp ... FileIndexJava write <warehouse>
//       creates fi.t (id INT, name STRING, dt STRING, partitioned by dt) with a small bloom filter
//       on id and a bitmap on name, then two commits: the first with small indexes kept in
//       the manifest (embedded), the second with 'file-index.in-manifest-threshold' = 1 (an
//       `.index` file beside the data file); `name` is all null in the second commit
//   java -cp ... FileIndexJava meta <tablePath>
//       per data file of the latest snapshot and index in it, a line
//       "<partition dt>|<bucket>|<data file name>|<column>|<index type>|<length>|<empty>|<storage>|<index file name or null>|<container size>",
//       read with 0.9's FileIndexFormat.Reader (its parsed header)
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fileindex.FileIndexFormat;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.SeekableInputStream;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.io.DataFileMeta;
import org.apache.paimon.options.Options;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.DataSplit;
import org.apache.paimon.types.DataTypes;
import org.apache.paimon.utils.Pair;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Collections;
import java.util.Map;

public class FileIndexJava {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("write")) {
            Options o = new Options();
            o.set("warehouse", args[1]);
            Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(o));
            cat.createDatabase("fi", true);
            Schema s = Schema.newBuilder().column("id", DataTypes.INT()).column("name", DataTypes.STRING())
                    .column("dt", DataTypes.STRING()).partitionKeys("dt")
                    .option("file-index.bloom-filter.columns", "id")
                    .option("file-index.bloom-filter.id.items", "10")
                    .option("file-index.bitmap.columns", "name").build();
            cat.createTable(Identifier.create("fi", "t"), s, false);
            Table t = cat.getTable(Identifier.create("fi", "t"));
            write(t, 0, "a", false);
            write(t.copy(Collections.singletonMap("file-index.in-manifest-threshold", "1")), 10, "b", true);
        } else if (args[0].equals("meta")) {
            FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
            for (DataSplit split : t.newSnapshotReader().read().dataSplits()) {
                String dt = split.partition().getString(0).toString();
                for (DataFileMeta f : split.dataFiles()) {
                    if (f.embeddedIndex() != null) {
                        print(dt, split.bucket(), f, header(new ByteSeekable(f.embeddedIndex()), t),
                                "EMBEDDED", "null", f.embeddedIndex().length);
                    }
                    for (String extra : f.extraFiles()) {
                        if (!extra.endsWith(".index")) continue;
                        Path p = new Path(split.bucketPath(), extra);
                        long size = t.fileIO().getFileSize(p);
                        print(dt, split.bucket(), f, header(t.fileIO().newInputStream(p), t), "FILE", extra, size);
                    }
                }
            }
        }
    }

    static void write(Table t, int from, String dt, boolean nullNames) throws Exception {
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            for (int i = from; i < from + 5; i++) {
                w.write(GenericRow.of(i, nullNames ? null : BinaryString.fromString("n" + i), BinaryString.fromString(dt)));
            }
            c.commit(w.prepareCommit());
        }
    }

    @SuppressWarnings("unchecked")
    static Map<String, Map<String, Pair<Integer, Integer>>> header(SeekableInputStream in, FileStoreTable t)
            throws Exception {
        FileIndexFormat.Reader r = FileIndexFormat.createReader(in, t.rowType());
        java.lang.reflect.Field h = FileIndexFormat.Reader.class.getDeclaredField("header");
        h.setAccessible(true);
        return (Map<String, Map<String, Pair<Integer, Integer>>>) h.get(r);
    }

    static void print(String dt, int bucket, DataFileMeta f, Map<String, Map<String, Pair<Integer, Integer>>> header,
            String storage, String indexFile, long container) {
        for (Map.Entry<String, Map<String, Pair<Integer, Integer>>> col : header.entrySet()) {
            for (Map.Entry<String, Pair<Integer, Integer>> idx : col.getValue().entrySet()) {
                System.out.println(dt + "|" + bucket + "|" + f.fileName() + "|" + col.getKey() + "|" + idx.getKey()
                        + "|" + idx.getValue().getRight() + "|" + (idx.getValue().getLeft() == -1) + "|" + storage
                        + "|" + indexFile + "|" + container);
            }
        }
    }

    /** An in-memory SeekableInputStream over the embedded index bytes. */
    static class ByteSeekable extends SeekableInputStream {
        private final byte[] b;
        private int pos;
        ByteSeekable(byte[] b) { this.b = b; }
        public void seek(long p) { pos = (int) p; }
        public long getPos() { return pos; }
        public int read() { return pos < b.length ? (b[pos++] & 0xff) : -1; }
        public int read(byte[] out, int off, int len) {
            if (pos >= b.length) return -1;
            int n = Math.min(len, b.length - pos);
            System.arraycopy(b, pos, out, off, n);
            pos += n;
            return n;
        }
        public void close() {}
    }
}
