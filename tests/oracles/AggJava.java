// Oracle: Java Paimon 0.9's $aggregation_fields (compiled by the tests with ReadJava's class
// path: lakescope_test_support::oracles().with_java).
//
//   java -cp ... AggJava write <warehouse>
//       creates agg.t, an aggregation table with column comments, nested types and several
//       `fields.<name>.*` options per column (and a `fields.default-aggregate-function`)
//   java -cp ... AggJava read <tablePath>
//       the rows of AggregationFieldsTable, cells joined by "|" (null as "null")
import org.apache.paimon.catalog.Catalog;
import org.apache.paimon.catalog.CatalogContext;
import org.apache.paimon.catalog.CatalogFactory;
import org.apache.paimon.catalog.Identifier;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.fs.Path;
import org.apache.paimon.fs.local.LocalFileIO;
import org.apache.paimon.options.Options;
import org.apache.paimon.reader.RecordReader;
import org.apache.paimon.schema.Schema;
import org.apache.paimon.table.FileStoreTable;
import org.apache.paimon.table.FileStoreTableFactory;
import org.apache.paimon.table.source.ReadBuilder;
import org.apache.paimon.table.system.AggregationFieldsTable;
import org.apache.paimon.types.DataTypes;

public class AggJava {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("write")) {
            Options o = new Options();
            o.set("warehouse", args[1]);
            Catalog cat = CatalogFactory.createCatalog(CatalogContext.create(o));
            cat.createDatabase("agg", true);
            Schema s = Schema.newBuilder()
                    .column("k", DataTypes.INT().notNull(), "the key")
                    .column("v", DataTypes.BIGINT(), "total")
                    .column("w", DataTypes.STRING())
                    .column("d", DataTypes.DECIMAL(10, 2))
                    .column("a", DataTypes.ARRAY(DataTypes.INT()))
                    .column("r", DataTypes.ROW(DataTypes.FIELD(0, "x", DataTypes.INT()),
                            DataTypes.FIELD(1, "y", DataTypes.STRING().notNull())))
                    .column("m", DataTypes.MAP(DataTypes.STRING(), DataTypes.TIMESTAMP(3)))
                    .primaryKey("k")
                    .option("merge-engine", "aggregation")
                    .option("fields.default-aggregate-function", "last_value")
                    .option("fields.v.aggregate-function", "sum")
                    .option("fields.v.ignore-retract", "true")
                    .option("fields.w.aggregate-function", "listagg")
                    .option("fields.w.list-agg-delimiter", ";")
                    .option("fields.w.ignore-retract", "false")
                    .option("fields.d.aggregate-function", "max")
                    .option("fields.a.aggregate-function", "collect")
                    .option("fields.a.distinct", "true")
                    .build();
            cat.createTable(Identifier.create("agg", "t"), s, false);
        } else if (args[0].equals("read")) {
            FileStoreTable t = FileStoreTableFactory.create(LocalFileIO.create(), new Path(args[1]));
            AggregationFieldsTable a = new AggregationFieldsTable(t);
            ReadBuilder rb = a.newReadBuilder();
            try (RecordReader<InternalRow> r = rb.newRead().createReader(rb.newScan().plan().splits())) {
                r.forEachRemaining(row -> {
                    StringBuilder sb = new StringBuilder();
                    for (int i = 0; i < 5; i++) {
                        if (i > 0) sb.append('|');
                        sb.append(row.isNullAt(i) ? "null" : row.getString(i).toString());
                    }
                    System.out.println(sb);
                });
            }
        }
    }
}
