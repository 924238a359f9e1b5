// Oracle for tags_orc_interop.rs: Java Paimon 0.9's own tag and rollback operations, and reads
// at a tag. Compiled by the test against the jars scripts/oracles.sh sets up; rows are printed
// with ReadJava.json (tests/oracles/ReadJava.java), the canonical form every oracle shares.
//
//   java TagsJava read <tablePath> <label>=<tagName or "latest">...
//       prints "== <label>" then one JSON object per row; "!! <label> <error>" on failure
//   java TagsJava read-eq <tablePath> <field> <long>
//       the latest snapshot read with the filter field = value pushed down; prints "== eq" and
//       the rows the reader returned (a superset: pushdown only skips files and row groups)
//   java TagsJava tags <tablePath>          prints "tag <name> <snapshotId>" per tag
//   java TagsJava hints <tablePath>         prints "latest <id>" and "earliest <id>"
//   java TagsJava create-tag <tablePath> <name> <snapshotId> <retainedSeconds | ->
//   java TagsJava rollback <tablePath> <snapshotId | tag:<name>>
//   java TagsJava expire <tablePath> <retainMax> <retainMin> <maxDeletes>
//       ExpireSnapshots with these limits and no time retention; prints "expired <n>"
//   java TagsJava delete-rows <tablePath> <dt> <id>...
//       a batch write of -D rows (dt STRING, id BIGINT, v STRING) and its commit; prints
//       "latest <id>" after it
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.ExpireConfig;
import org.apache.paimon.predicate.PredicateBuilder;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.RowKind;
import org.apache.paimon.types.RowType;

import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;

public class TagsJava {
    public static void main(String[] args) throws Exception {
        FileStoreTable base = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        switch (args[0]) {
            case "read":
                for (int i = 2; i < args.length; i++) {
                    String[] lt = args[i].split("=", 2);
                    System.out.println("== " + lt[0]);
                    try {
                        Table t = lt[1].equals("latest")
                                ? base
                                : base.copy(Collections.singletonMap("scan.tag-name", lt[1]));
                        ReadBuilder rb = t.newReadBuilder();
                        RowType type = t.rowType();
                        try (RecordReader<InternalRow> r =
                                rb.newRead().createReader(rb.newScan().plan().splits())) {
                            r.forEachRemaining(row -> System.out.println(ReadJava.json(row, type)));
                        }
                    } catch (Throwable e) {
                        System.out.println("!! " + lt[0] + " " + e.toString().replace('\n', ' '));
                    }
                }
                break;
            case "read-eq":
                {
                    RowType type = base.rowType();
                    int idx = type.getFieldNames().indexOf(args[2]);
                    ReadBuilder rb = base.newReadBuilder()
                            .withFilter(new PredicateBuilder(type).equal(idx, Long.parseLong(args[3])));
                    System.out.println("== eq");
                    try (RecordReader<InternalRow> r =
                            rb.newRead().createReader(rb.newScan().plan().splits())) {
                        r.forEachRemaining(row -> System.out.println(ReadJava.json(row, type)));
                    }
                }
                break;
            case "tags":
                for (Map.Entry<Snapshot, List<String>> e : base.tagManager().tags().entrySet()) {
                    for (String name : e.getValue()) {
                        System.out.println("tag " + name + " " + e.getKey().id());
                    }
                }
                break;
            case "hints":
                System.out.println("latest " + base.snapshotManager().latestSnapshotId());
                System.out.println("earliest " + base.snapshotManager().earliestSnapshotId());
                break;
            case "create-tag":
                if (args[4].equals("-")) {
                    base.createTag(args[2], Long.parseLong(args[3]));
                } else {
                    base.createTag(args[2], Long.parseLong(args[3]),
                            Duration.ofSeconds(Long.parseLong(args[4])));
                }
                break;
            case "rollback":
                if (args[2].startsWith("tag:")) {
                    base.rollbackTo(args[2].substring(4));
                } else {
                    base.rollbackTo(Long.parseLong(args[2]));
                }
                break;
            case "expire":
                {
                    ExpireConfig config = ExpireConfig.builder()
                            .snapshotRetainMax(Integer.parseInt(args[2]))
                            .snapshotRetainMin(Integer.parseInt(args[3]))
                            .snapshotMaxDeletes(Integer.parseInt(args[4]))
                            .snapshotTimeRetain(Duration.ZERO)
                            .build();
                    int n = base.newExpireSnapshots().config(config).expire();
                    System.out.println("expired " + n);
                }
                break;
            case "delete-rows":
                {
                    BatchWriteBuilder wb = base.newBatchWriteBuilder();
                    try (BatchTableWrite w = wb.newWrite(); BatchTableCommit c = wb.newCommit()) {
                        for (int i = 3; i < args.length; i++) {
                            w.write(GenericRow.ofKind(RowKind.DELETE,
                                    BinaryString.fromString(args[2]), Long.parseLong(args[i]),
                                    BinaryString.fromString("gone")));
                        }
                        c.commit(w.prepareCommit());
                    }
                    System.out.println("latest " + base.snapshotManager().latestSnapshotId());
                }
                break;
            default:
                throw new IllegalArgumentException("unknown command " + args[0]);
        }
    }
}
