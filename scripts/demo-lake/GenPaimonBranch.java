// Writes the demo lake's Paimon table java09.pk_branch with Java Paimon 0.9 (a tag and a branch),
// and Java's reads of each ref for the e2e tests (tests/e2e/expected/paimon_pk_branch.json).
//
//   bash scripts/demo-lake/gen-paimon-branch.sh [public/demo/warehouse]
//
// History: PK table (id INT, v STRING), bucket 1.
//   1. main: (1,a) (2,b) (3,c)             -> tag t1 at snapshot 1
//   2. branch dev created from tag t1; dev: (2,b-dev) (10,dev)
//   3. main: (4,d)
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.Table;
import org.apache.paimon.table.sink.BatchTableCommit;
import org.apache.paimon.table.sink.BatchTableWrite;
import org.apache.paimon.table.sink.BatchWriteBuilder;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.types.DataTypes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

public class GenPaimonBranch {
    public static void main(String[] args) throws Exception {
        String wh = args[0];
        String expected = args[1];
        Catalog catalog = CatalogFactory.createCatalog(CatalogContext.create(new Path(wh)));
        catalog.createDatabase("java09", true);
        Identifier id = Identifier.create("java09", "pk_branch");
        catalog.dropTable(id, true);
        Schema schema = Schema.newBuilder()
                .column("id", DataTypes.INT().notNull())
                .column("v", DataTypes.STRING())
                .primaryKey("id")
                .option("bucket", "1")
                .build();
        catalog.createTable(id, schema, false);
        FileStoreTable table = (FileStoreTable) catalog.getTable(id);
        write(table, 1, "a", 2, "b", 3, "c");
        table.createTag("t1", 1);
        table.createBranch("dev", "t1");
        write(table.switchToBranch("dev"), 2, "b-dev", 10, "dev");
        write(table, 4, "d");

        table = (FileStoreTable) catalog.getTable(id);
        String json = "{\n \"main\": " + rows(table)
                + ",\n \"t1\": " + rows(table.copy(Collections.singletonMap("scan.tag-name", "t1")))
                + ",\n \"dev\": " + rows(table.switchToBranch("dev"))
                + "\n}\n";
        Files.write(Paths.get(expected), json.getBytes(StandardCharsets.UTF_8));
        System.out.println("wrote " + table.location() + " and " + expected);
    }

    /** One commit of (id, v) pairs. */
    private static void write(FileStoreTable t, Object... pairs) throws Exception {
        BatchWriteBuilder builder = t.newBatchWriteBuilder();
        try (BatchTableWrite w = builder.newWrite(); BatchTableCommit c = builder.newCommit()) {
            for (int i = 0; i < pairs.length; i += 2) {
                w.write(GenericRow.of(pairs[i], BinaryString.fromString((String) pairs[i + 1])));
            }
            c.commit(w.prepareCommit());
        }
    }

    /** {"columns": [...], "rows": [[...]]} of a table as Java reads it, rows sorted by id. */
    private static String rows(Table t) throws Exception {
        ReadBuilder rb = t.newReadBuilder();
        List<String> out = new ArrayList<>();
        List<int[]> order = new ArrayList<>();
        try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
            r.forEachRemaining(row -> out.add(row.getInt(0) + "\u0000" + (row.isNullAt(1) ? null : row.getString(1).toString())));
        }
        out.sort((a, b) -> Integer.compare(Integer.parseInt(a.split("\u0000")[0]), Integer.parseInt(b.split("\u0000")[0])));
        StringBuilder s = new StringBuilder("{\"columns\": [\"id\", \"v\"], \"rows\": [");
        for (int i = 0; i < out.size(); i++) {
            String[] p = out.get(i).split("\u0000");
            s.append(i == 0 ? "" : ", ").append("[\"").append(p[0]).append("\", ")
                    .append(p[1].equals("null") ? "null" : "\"" + p[1] + "\"").append("]");
        }
        return s.append("]}").toString();
    }
}
