// Oracle: Java Paimon 0.9 reads a table's branches (compiled by the tests with ReadJava's class
// path: lakescope_test_support::oracles().with_java).
//
//   java -cp ... BranchJava read <tablePath> <branch> <version>...
//       <version>: latest | <snapshot id> | tag:<name>. For each prints "== <version>" then one
//       JSON object per row (as ReadJava), or "!! <version> <error>". The branch is opened with
//       FileStoreTable.switchToBranch (its latest schema; `main`: the table itself), a version
//       with copy(scan.snapshot-id / scan.tag-name) as Paimon's time travel does.
//   java -cp ... BranchJava meta <tablePath> <branch>
//       a branch's metadata as 0.9's SnapshotManager, SchemaManager and TagManager (with the
//       branch) list it: "== snapshots" {"snapshot_id", "schema_id"} lines, "== schemas"
//       {"schema_id"} lines, "== tags" {"tag_name"} lines.
//   java -cp ... BranchJava branches <tablePath>
//       "== branches" then the rows of the $branches system table (BranchesTable) without
//       create_time (a folder time): {"branch_name", "created_from_tag", "created_from_snapshot"}.
import org.apache.paimon.Snapshot;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.SchemaManager;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.system.BranchesTable;
import org.apache.paimon.types.RowType;
import org.apache.paimon.utils.SnapshotManager;
import org.apache.paimon.utils.TagManager;

import java.util.Collections;

public class BranchJava {
    public static void main(String[] args) throws Exception {
        FileStoreTable base = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        if (args[0].equals("read")) {
            String branch = args[2];
            for (int i = 3; i < args.length; i++) {
                String version = args[i];
                System.out.println("== " + version);
                try {
                    Table t = branch.equals("main") ? base : base.switchToBranch(branch);
                    if (version.startsWith("tag:")) {
                        t = t.copy(Collections.singletonMap("scan.tag-name", version.substring(4)));
                    } else if (!version.equals("latest")) {
                        t = t.copy(Collections.singletonMap("scan.snapshot-id", version));
                    }
                    print(t);
                } catch (Throwable e) {
                    System.out.println("!! " + version + " " + e.toString().replace('\n', ' '));
                }
            }
        } else if (args[0].equals("meta")) {
            Path path = new Path(args[1]);
            String branch = args[2];
            LocalFileIO io = LocalFileIO.create();
            System.out.println("== snapshots");
            java.util.Iterator<Snapshot> it = new SnapshotManager(io, path, branch).snapshots();
            while (it.hasNext()) {
                Snapshot s = it.next();
                System.out.println("{\"snapshot_id\":" + s.id() + ",\"schema_id\":" + s.schemaId() + "}");
            }
            System.out.println("== schemas");
            for (Long id : new SchemaManager(io, path, branch).listAllIds()) {
                System.out.println("{\"schema_id\":" + id + "}");
            }
            System.out.println("== tags");
            for (String t : new TagManager(io, path, branch).allTagNames()) {
                StringBuilder sb = new StringBuilder("{\"tag_name\":");
                ReadJava.str(sb, t);
                System.out.println(sb.append('}'));
            }
        } else if (args[0].equals("branches")) {
            System.out.println("== branches");
            BranchesTable t = new BranchesTable(base);
            ReadBuilder rb = t.newReadBuilder();
            try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
                r.forEachRemaining(row -> {
                    StringBuilder sb = new StringBuilder("{\"branch_name\":");
                    ReadJava.str(sb, row.getString(0).toString());
                    sb.append(",\"created_from_tag\":");
                    if (row.isNullAt(1)) sb.append("null"); else ReadJava.str(sb, row.getString(1).toString());
                    sb.append(",\"created_from_snapshot\":");
                    sb.append(row.isNullAt(2) ? "null" : Long.toString(row.getLong(2)));
                    System.out.println(sb.append('}'));
                });
            }
        }
    }

    static void print(Table t) throws Exception {
        ReadBuilder rb = t.newReadBuilder();
        RowType type = t.rowType();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
            r.forEachRemaining(row -> System.out.println(ReadJava.json(row, type)));
        }
    }
}
