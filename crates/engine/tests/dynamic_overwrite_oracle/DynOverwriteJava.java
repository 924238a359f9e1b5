// Oracle: Java Paimon 0.9's own writer on dynamic-bucket (bucket = -1) primary-key tables of the
// seed's shape (user_id BIGINT, item_id BIGINT, behavior STRING, dt STRING, hh STRING).
//
//   java -cp ... DynOverwriteJava upsert <tablePath> <row>...
//       one commit; buckets from Java's HashBucketAssigner over the table's HASH index
//   java -cp ... DynOverwriteJava overwrite <tablePath> <dynamic|all|dt=..,hh=..> <row>...
//       one INSERT OVERWRITE commit as Flink's batch sink does it: SimpleHashBucketAssigner
//       (empty index), a writer ignoring previous files, FileStoreCommit.overwrite; "all" and a
//       static spec run with 'dynamic-partition-overwrite' = 'false'
//   java -cp ... DynOverwriteJava cross <tablePath> [overwrite=<dynamic|all|dt=..,hh=..>] <row>...
//       one commit (or INSERT OVERWRITE, as Flink's GlobalDynamicBucketSink) to a cross-partition upsert table (primary key without the partition
//       fields): Java's GlobalIndexAssigner steps with its own pieces (IndexBootstrap,
//       crosspartition.BucketAssigner, ExistingProcessor, the bulk load of an empty table); only
//       its RocksDB key index is a HashMap here (rocksdbjni is not on the class path)
// A row is "user_id,item_id,behavior,dt,hh", optionally prefixed "-D:" (or another row kind).
// Prints "bucket <row> <bucket>" per row written.
import org.apache.paimon.codegen.CodeGenUtils;
import org.apache.paimon.codegen.RecordComparator;
import org.apache.paimon.crosspartition.ExistingProcessor;
import org.apache.paimon.crosspartition.IndexBootstrap;
import org.apache.paimon.crosspartition.KeyPartPartitionKeyExtractor;
import org.apache.paimon.data.BinaryRow;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.disk.IOManager;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.index.BucketAssigner;
import org.apache.paimon.index.HashBucketAssigner;
import org.apache.paimon.index.SimpleHashBucketAssigner;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.sink.RowPartitionKeyExtractor;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.ProjectToRowFunction;
import org.apache.paimon.utils.RowIterator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

public class DynOverwriteJava {
    public static void main(String[] args) throws Exception {
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        if (args[0].equals("cross")) {
            cross(t, args);
            return;
        }
        long target = t.coreOptions().dynamicBucketTargetRowNum();
        int first;
        BucketAssigner assigner;
        Map<String, String> overwrite = null;
        if (args[0].equals("upsert")) {
            first = 2;
            assigner = new HashBucketAssigner(
                    t.snapshotManager(), "java-upsert", t.store().newIndexFileHandler(), 1, 1, 0, target);
        } else if (args[0].equals("overwrite")) {
            first = 3;
            assigner = new SimpleHashBucketAssigner(1, 0, target);
            overwrite = new LinkedHashMap<>();
            if (!args[2].equals("dynamic")) {
                t = t.copy(Collections.singletonMap("dynamic-partition-overwrite", "false"));
                if (!args[2].equals("all")) {
                    for (String kv : args[2].split(",")) {
                        String[] p = kv.split("=", 2);
                        overwrite.put(p[0], p[1]);
                    }
                }
            }
        } else {
            throw new IllegalArgumentException("unknown command " + args[0]);
        }
        RowPartitionKeyExtractor keys = new RowPartitionKeyExtractor(t.schema());
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        if (overwrite != null) {
            wb = wb.withOverwrite(overwrite);
        }
        try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
            for (int i = first; i < args.length; i++) {
                String[] f = args[i].split(",", -1);
                InternalRow row = GenericRow.of(Long.parseLong(f[0]), Long.parseLong(f[1]),
                        BinaryString.fromString(f[2]), BinaryString.fromString(f[3]), BinaryString.fromString(f[4]));
                int bucket = assigner.assign(keys.partition(row), keys.trimmedPrimaryKey(row).hashCode());
                System.out.println("bucket " + args[i] + " " + bucket);
                w.write(row, bucket);
            }
            c.commit(w.prepareCommit());
        }
    }

    static InternalRow parse(String arg) {
        RowKind kind = RowKind.INSERT;
        String text = arg;
        int colon = arg.indexOf(':');
        if (colon > 0) {
            kind = RowKind.fromShortString(arg.substring(0, colon));
            text = arg.substring(colon + 1);
        }
        String[] f = text.split(",", -1);
        return GenericRow.ofKind(kind, Long.parseLong(f[0]), Long.parseLong(f[1]),
                BinaryString.fromString(f[2]), BinaryString.fromString(f[3]), BinaryString.fromString(f[4]));
    }

    static void cross(FileStoreTable t, String[] args) throws Exception {
        List<InternalRow> input = new ArrayList<>();
        int first = 2;
        Map<String, String> overwrite = null;
        if (args.length > 2 && args[2].startsWith("overwrite=")) {
            first = 3;
            overwrite = new LinkedHashMap<>();
            String mode = args[2].substring("overwrite=".length());
            if (!mode.equals("dynamic")) {
                t = t.copy(Collections.singletonMap("dynamic-partition-overwrite", "false"));
                if (!mode.equals("all")) {
                    for (String kv : mode.split(",")) {
                        String[] p = kv.split("=", 2);
                        overwrite.put(p[0], p[1]);
                    }
                }
            }
        }
        for (int i = first; i < args.length; i++) {
            input.add(parse(args[i]));
        }
        int target = (int) t.coreOptions().dynamicBucketTargetRowNum();
        RowPartitionKeyExtractor ext = new RowPartitionKeyExtractor(t.schema());
        org.apache.paimon.crosspartition.BucketAssigner buckets = new org.apache.paimon.crosspartition.BucketAssigner();
        List<InternalRow> outRows = new ArrayList<>();
        List<Integer> outBuckets = new ArrayList<>();
        ExistingProcessor processor = ExistingProcessor.create(t.coreOptions().mergeEngine(),
                new ProjectToRowFunction(t.rowType(), t.partitionKeys()), buckets,
                (row, bucket) -> { outRows.add(row); outBuckets.add(bucket); });
        // key -> {partition, bucket}: GlobalIndexAssigner's key index
        HashMap<BinaryRow, Object[]> keyIndex = new HashMap<>();
        RowType bootType = IndexBootstrap.bootstrapType(t.schema());
        KeyPartPartitionKeyExtractor keyPart = new KeyPartPartitionKeyExtractor(t.schema());
        new IndexBootstrap(t).bootstrap(1, 0, row -> {
            BinaryRow part = keyPart.partition(row).copy();
            int bucket = row.getInt(bootType.getFieldCount() - 1);
            buckets.bootstrapBucket(part, bucket);
            keyIndex.put(keyPart.trimmedPrimaryKey(row).copy(), new Object[] {part, bucket});
        });
        if (keyIndex.isEmpty()) {
            // GlobalIndexAssigner.bulkLoadBootstrapRecords: sorted by key, then input order
            RecordComparator keyOrder = CodeGenUtils.newRecordComparator(
                    t.rowType().project(t.primaryKeys()).getFieldTypes());
            processor.bulkLoadNewRecords(order -> {
                List<Integer> ids = new ArrayList<>();
                for (int i = 0; i < input.size(); i++) {
                    ids.add(i);
                }
                ids.sort((a, b) -> {
                    int c = keyOrder.compare(ext.trimmedPrimaryKey(input.get(a)).copy(),
                            ext.trimmedPrimaryKey(input.get(b)).copy());
                    if (c != 0) {
                        return c;
                    }
                    return order == ExistingProcessor.SortOrder.ASCENDING ? Integer.compare(a, b) : Integer.compare(b, a);
                });
                Iterator<Integer> it = ids.iterator();
                return (RowIterator) () -> it.hasNext() ? input.get(it.next()) : null;
            }, ext::trimmedPrimaryKey, ext::partition, part -> buckets.assignBucket(part, b -> true, target));
        } else {
            // GlobalIndexAssigner.processInput
            for (InternalRow row : input) {
                BinaryRow part = ext.partition(row).copy();
                BinaryRow key = ext.trimmedPrimaryKey(row).copy();
                Object[] previous = keyIndex.get(key);
                boolean placeNew = true;
                if (previous != null) {
                    if (previous[0].equals(part)) {
                        outRows.add(row);
                        outBuckets.add((Integer) previous[1]);
                        placeNew = false;
                    } else {
                        placeNew = processor.processExists(row, (BinaryRow) previous[0], (Integer) previous[1]);
                    }
                }
                if (placeNew) {
                    int bucket = buckets.assignBucket(part, b -> true, target);
                    keyIndex.put(key, new Object[] {part, bucket});
                    outRows.add(row);
                    outBuckets.add(bucket);
                }
            }
        }
        BatchWriteBuilder wb = t.newBatchWriteBuilder();
        if (overwrite != null) {
            wb = wb.withOverwrite(overwrite);
        }
        try (IOManager io = IOManager.create(System.getProperty("java.io.tmpdir"));
                BatchTableWrite w = (BatchTableWrite) wb.newWrite().withIOManager(io);
                BatchTableCommit c = wb.newCommit()) {
            for (int i = 0; i < outRows.size(); i++) {
                InternalRow row = outRows.get(i);
                System.out.println("bucket " + row.getRowKind().shortString() + ":" + row.getLong(0) + ","
                        + row.getString(2) + "," + row.getString(3) + "," + row.getString(4) + " " + outBuckets.get(i));
                w.write(row, outBuckets.get(i));
            }
            c.commit(w.prepareCommit());
        }
    }
}
