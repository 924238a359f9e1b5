// Oracle: Java Paimon 0.9 reads a system table of a table at some snapshots (compiled with
// ReadJava's class path, whose `json` renders the rows; run by tests/wasm-conformance/build.rs).
//
//   java -cp ... SystemJava read <tablePath> <system table, e.g. ro> <snapshot id>...
//       per snapshot id a line "== <id>", then the system table's rows as ReadJava's JSON lines
//       (or "!! <id> <error>")
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.system.SystemTableLoader;
import org.apache.paimon.types.RowType;

import java.util.Collections;

public class SystemJava {
    public static void main(String[] args) throws Exception {
        if (!args[0].equals("read")) {
            throw new IllegalArgumentException("usage: SystemJava read <tablePath> <system> <snapshot id>...");
        }
        FileStoreTable base = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
        for (int i = 3; i < args.length; i++) {
            System.out.println("== " + args[i]);
            try {
                FileStoreTable at = base.copy(Collections.singletonMap("scan.snapshot-id", args[i]));
                Table system = SystemTableLoader.load(args[2], at);
                ReadBuilder rb = system.newReadBuilder();
                RowType type = system.rowType();
                try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
                    r.forEachRemaining(row -> System.out.println(ReadJava.json(row, type)));
                }
            } catch (Throwable e) {
                System.out.println("!! " + args[i] + " " + e.toString().replace('\n', ' '));
            }
        }
    }
}
