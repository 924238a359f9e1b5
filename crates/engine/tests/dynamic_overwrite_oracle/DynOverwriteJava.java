// Oracle: Java Paimon 0.9's own writer on dynamic-bucket (bucket = -1) primary-key tables of the
// seed's shape (user_id BIGINT, item_id BIGINT, behavior STRING, dt STRING, hh STRING).
//
//   java -cp ... DynOverwriteJava upsert <tablePath> <row>...
//       one commit; buckets from Java's HashBucketAssigner over the table's HASH index
//   java -cp ... DynOverwriteJava overwrite <tablePath> <dynamic|all|dt=..,hh=..> <row>...
//       one INSERT OVERWRITE commit as Flink's batch sink does it: SimpleHashBucketAssigner
//       (empty index), a writer ignoring previous files, FileStoreCommit.overwrite; "all" and a
//       static spec run with 'dynamic-partition-overwrite' = 'false'
// A row is "user_id,item_id,behavior,dt,hh". Prints "bucket <row> <bucket>" per row.
import org.apache.paimon.data.BinaryString;
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

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

public class DynOverwriteJava {
    public static void main(String[] args) throws Exception {
        FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
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
}
