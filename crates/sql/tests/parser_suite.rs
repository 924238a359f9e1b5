//! Parser and validator suite: valid statements parse and validate; invalid ones fail at the exact
//! line:column of the offending token with a recognisable message.

use lakescope_format::spec::schema::TableSchema;
use lakescope_sql::ast::*;
use lakescope_sql::{
    create_table_schema, parse_script, parse_statement, validate, TableFormat, ValidationContext,
};

fn check(sql: &str, ctx: &ValidationContext) -> lakescope_sql::Result<Statement> {
    let s = parse_statement(sql)?;
    validate(&s, ctx)?;
    Ok(s)
}

fn base_schema() -> TableSchema {
    let sql = "CREATE TABLE test (user_id BIGINT, item_id BIGINT, behavior STRING, dt STRING, hh STRING, tags ARRAY<STRING>, d DATE, PRIMARY KEY (dt, hh, user_id) NOT ENFORCED) PARTITIONED BY (dt, hh) WITH ('bucket' = '2', 'bucket-key' = 'user_id')";
    let Statement::CreateTable(t) = parse_statement(sql).expect("base") else {
        panic!("base")
    };
    create_table_schema(&t).expect("schema")
}

/// Valid under the Paimon rules without an existing schema.
const OK: &[&str] = &[
    "CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = 's3://b/w')",
    "CREATE CATALOG c WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '/tmp/w')",
    "CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'filesystem', 'warehouse' = '/w')",
    "CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://h:1', 'warehouse' = 'wh', 'token.provider' = 'bear', 'token' = 't')",
    "CREATE CATALOG c WITH ('type' = 'iceberg', 'catalog-type' = 'rest', 'uri' = 'http://h:1', 'warehouse' = 'w', 'prefix' = 'dev', 'token' = 't')",
    "CREATE CATALOG c WITH ('type' = 'iceberg', 'catalog-type' = 'rest', 'uri' = 'http://h:1')",
    "CREATE CATALOG c WITH ('type' = 'iceberg', 'catalog-type' = 'rest', 'uri' = 'http://h:1', 'credential' = 'id:secret', 'oauth2-server-uri' = 'http://idp/token', 'scope' = 'PRINCIPAL_ROLE:ALL')",
    "USE CATALOG c",
    "USE CATALOG `my catalog`",
    "SHOW CATALOGS",
    "show catalogs;",
    "SHOW CURRENT CATALOG",
    "SHOW CURRENT DATABASE",
    "SHOW DATABASES",
    "SHOW TABLES",
    "SHOW TABLES FROM c.db",
    "SHOW TABLES IN db",
    "SHOW CREATE TABLE t",
    "SHOW CREATE TABLE c.db.t",
    "DESCRIBE t",
    "DESC c.db.t",
    "CREATE DATABASE db",
    "CREATE DATABASE IF NOT EXISTS c.db",
    "CREATE DATABASE db COMMENT 'x' WITH ('k' = 'v')",
    "DROP DATABASE db",
    "DROP DATABASE IF EXISTS c.db CASCADE",
    "DROP DATABASE db RESTRICT",
    "USE db",
    "USE c.db",
    "DROP TABLE t",
    "DROP TABLE IF EXISTS c.db.t",
    "DROP TEMPORARY TABLE t",
    "SET",
    "SET 'execution.runtime-mode' = 'batch'",
    "SET 'execution.runtime-mode' = 'STREAMING'",
    "SET 'table.exec.sink.upsert-materialize' = 'NONE'",
    "RESET",
    "RESET 'execution.checkpointing.interval'",
    "CREATE TABLE t (a INT)",
    "CREATE TABLE IF NOT EXISTS db.t (a INT)",
    "CREATE TEMPORARY TABLE t (a INT) WITH ('connector' = 'datagen')",
    "CREATE TABLE t (a TINYINT, b SMALLINT, c INTEGER, d BIGINT, e FLOAT, f DOUBLE, g DOUBLE PRECISION, h REAL)",
    "CREATE TABLE t (a DECIMAL, b DECIMAL(10), c DECIMAL(10, 2), d NUMERIC(38, 38), e DEC(5, 0))",
    "CREATE TABLE t (a CHAR, b CHAR(10), c VARCHAR(20), d STRING, e BINARY(4), f VARBINARY(8), g BYTES)",
    "CREATE TABLE t (a DATE, b TIME, c TIME(3), d TIMESTAMP, e TIMESTAMP(3), f TIMESTAMP(9) WITHOUT TIME ZONE)",
    "CREATE TABLE t (a TIMESTAMP_LTZ, b TIMESTAMP_LTZ(3), c TIMESTAMP(6) WITH LOCAL TIME ZONE)",
    "CREATE TABLE t (a BOOLEAN NOT NULL, b INT NULL, c STRING NOT NULL COMMENT 'c')",
    "CREATE TABLE t (a ARRAY<INT>, b ARRAY<ARRAY<STRING>>, c MAP<STRING, INT>, d MULTISET<STRING>)",
    "CREATE TABLE t (a ARRAY<ROW<x STRING, y TIMESTAMP(3)>>)",
    "CREATE TABLE t (a ROW<x INT, y ROW<z STRING>>)",
    "CREATE TABLE t (a ROW(x INT, y STRING), b ARRAY<INT NOT NULL> NOT NULL)",
    "CREATE TABLE t (a MAP<STRING, ARRAY<ROW<k INT, v MAP<INT, STRING>>>>)",
    "CREATE TABLE t (a ROW<`x y` INT 'desc'>)",
    "CREATE TABLE t (a INT ARRAY)",
    "CREATE TABLE t (a VARIANT)",
    "CREATE TABLE t (id INT PRIMARY KEY NOT ENFORCED, v STRING)",
    "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED)",
    "CREATE TABLE t (id INT, v STRING, CONSTRAINT pk PRIMARY KEY (id) NOT ENFORCED)",
    "CREATE TABLE t (id INT, dt STRING, PRIMARY KEY (id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4')",
    "CREATE TABLE t (id INT, dt STRING, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (dt)",
    "CREATE TABLE t (id INT, dt STRING, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '-1')",
    "CREATE TABLE t (id INT, v STRING) WITH ('bucket' = '2', 'bucket-key' = 'id')",
    "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', 'bucket-key' = 'id')",
    "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'partial-update')",
    "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'first-row', 'changelog-producer' = 'lookup')",
    "CREATE TABLE t (id INT, v BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'sum')",
    "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'aggregation', 'fields.v.aggregate-function' = 'listagg')",
    "CREATE TABLE t (id INT, v STRING) WITH ('metadata.stats-mode' = 'truncate(16)')",
    "CREATE TABLE t (id INT, v STRING) WITH ('metadata.stats-mode' = 'counts', 'fields.v.stats-mode' = 'full')",
    "CREATE TABLE t (id INT, v STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('fields.v.default-value' = 'x')",
    "CREATE TABLE t (id INT, ts BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('sequence.field' = 'ts')",
    "CREATE TABLE t (id INT, v STRING) WITH ('write-buffer-size' = '256 MB', 'target-file-size' = '128mb')",
    "CREATE TABLE t (id INT, v STRING) PARTITIONED BY (v) WITH ('snapshot.time-retained' = '1 h', 'partition.expiration-time' = '7 d')",
    "CREATE TABLE t (id INT, v STRING) WITH ('file.format' = 'orc')",
    "CREATE TABLE t (id INT, v STRING) WITH ('file.format' = 'PARQUET')",
    "CREATE TABLE t (id INT, v STRING) WITH ('bucket' = '-2')",
    "CREATE TABLE t (id INT, v STRING) WITH ('unknown.option' = 'anything')",
    "CREATE TABLE t (id INT, v STRING) COMMENT 'a table'",
    "CREATE TABLE t (id INT, v STRING) COMMENT 'a table' PARTITIONED BY (v) WITH ('k' = 'v')",
    "CREATE TABLE t (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)",
    "CREATE TABLE t (id INT, ts BIGINT, et AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR et AS et - INTERVAL '1' SECOND)",
    "CREATE TABLE t (id INT, pt AS PROCTIME())",
    "CREATE TABLE t (id INT, c AS id + 1 COMMENT 'computed')",
    "CREATE TABLE t (id INT, off BIGINT METADATA FROM 'offset' VIRTUAL) WITH ('connector' = 'kafka')",
    "CREATE TABLE t2 LIKE t",
    "CREATE TABLE t2 LIKE c.db.t (EXCLUDING OPTIONS)",
    "CREATE TABLE t2 WITH ('bucket' = '2') LIKE t (INCLUDING ALL, OVERWRITING OPTIONS)",
    "CREATE TABLE t2 (extra INT) LIKE t (EXCLUDING PARTITIONS)",
    "CREATE TABLE t2 AS SELECT * FROM t",
    "CREATE TABLE t2 WITH ('partition' = 'dt') AS SELECT * FROM t",
    "CREATE TABLE t2 WITH ('primary-key' = 'dt,hh', 'partition' = 'dt') AS SELECT a, b FROM t WHERE a > 1",
    "ALTER TABLE t SET ('write-buffer-size' = '256 MB')",
    "ALTER TABLE t SET ('bucket' = '8')",
    "ALTER TABLE t RESET ('write-buffer-size')",
    "ALTER TABLE t RESET ('a', 'b')",
    "ALTER TABLE t RENAME TO t2",
    "ALTER TABLE IF EXISTS c.db.t RENAME TO c.db.t2",
    "ALTER TABLE t RENAME a TO b",
    "ALTER TABLE t ADD c INT",
    "ALTER TABLE t ADD c INT COMMENT 'c' FIRST",
    "ALTER TABLE t ADD c INT AFTER a",
    "ALTER TABLE t ADD (c1 INT, c2 STRING)",
    "ALTER TABLE t ADD (c1 INT COMMENT 'x' AFTER a, c2 STRING FIRST)",
    "ALTER TABLE t ADD (et AS TO_TIMESTAMP_LTZ(ts, 3), WATERMARK FOR et AS et - INTERVAL '1' SECOND)",
    "ALTER TABLE t ADD WATERMARK FOR ts AS ts",
    "ALTER TABLE t ADD PRIMARY KEY (id) NOT ENFORCED",
    "ALTER TABLE t DROP (a, b)",
    "ALTER TABLE t DROP a",
    "ALTER TABLE t DROP WATERMARK",
    "ALTER TABLE t DROP PRIMARY KEY",
    "ALTER TABLE t DROP PARTITION (dt = '2024-01-01')",
    "ALTER TABLE t DROP PARTITION (dt = '2024-01-01', hh = 1), PARTITION (dt = '2024-01-02')",
    "ALTER TABLE t DROP IF EXISTS PARTITION (dt = 'x')",
    "ALTER TABLE t MODIFY a DOUBLE",
    "ALTER TABLE t MODIFY a FLOAT NOT NULL",
    "ALTER TABLE t MODIFY a INT COMMENT 'x'",
    "ALTER TABLE t MODIFY a INT FIRST",
    "ALTER TABLE t MODIFY a INT AFTER b",
    "ALTER TABLE t MODIFY (a INT, b STRING)",
    "ALTER TABLE t MODIFY WATERMARK FOR et AS et - INTERVAL '2' SECOND",
    "INSERT INTO t VALUES (1, 'a')",
    "INSERT INTO t VALUES (1, 'a'), (2, 'b')",
    "INSERT INTO c.db.t (id) VALUES (7)",
    "INSERT INTO t SELECT * FROM s",
    "INSERT INTO t PARTITION (dt = '2023-07-01', hh = '1') VALUES (3, 3, 'pv')",
    "INSERT OVERWRITE t SELECT * FROM s",
    "INSERT OVERWRITE t PARTITION (dt = '2023-07-01') SELECT a, b FROM s",
    "INSERT OVERWRITE t /*+ OPTIONS('dynamic-partition-overwrite' = 'false') */ SELECT * FROM t WHERE false",
    "INSERT INTO t VALUES (1, TIMESTAMP '2024-05-01 10:00:00', 12.50)",
    "INSERT INTO t SELECT id, DATE_FORMAT(ts, 'yyyy-MM-dd') AS dt FROM s",
    "INSERT INTO t WITH x AS (SELECT 1 AS a) SELECT a FROM x",
    "UPDATE t SET a = 4, b = 'pv' WHERE c = 3",
    "UPDATE c.db.t SET a = a + 1",
    "DELETE FROM t WHERE a = 2",
    "DELETE FROM c.db.t",
    "SELECT 1",
    "SELECT * FROM t",
    "SELECT * FROM c.db.t WHERE a >= TIMESTAMP '2024-05-02 00:00:00'",
    "SELECT a, COUNT(*) AS n FROM t GROUP BY a ORDER BY a LIMIT 10",
    "SELECT * FROM t /*+ OPTIONS('scan.snapshot-id' = '1') */",
    "SELECT * FROM t /*+ OPTIONS('scan.timestamp-millis' = '4102444800000') */",
    "SELECT * FROM t /*+ OPTIONS('scan.tag-name' = 'my-tag') */",
    "SELECT * FROM t /*+ OPTIONS('incremental-between' = '1,4') */",
    "SELECT * FROM t /*+ OPTIONS('scan.mode' = 'latest') */",
    "SELECT * FROM t$snapshots",
    "SELECT * FROM `t$schemas`",
    "SELECT * FROM t$audit_log /*+ OPTIONS('incremental-between' = '1,4') */",
    "SELECT * FROM db.t$files",
    "SELECT id, _ROW_ID, _SEQUENCE_NUMBER FROM t$row_tracking",
    "SELECT snapshot_id, colstat FROM t$statistics",
    "SELECT rowkind, id FROM t$binlog",
    "SELECT file_path, column_name, index_type FROM t$file_indexes",
    "SELECT file_path, min_key, max_key FROM t$file_key_ranges",
    "SELECT field_name, function FROM t$aggregation_fields",
    "SELECT a.x, b.y FROM a JOIN b ON a.id = b.id",
    "SELECT * FROM (SELECT * FROM t) s",
    "SELECT a FROM t UNION ALL SELECT a FROM u",
    "WITH x AS (SELECT 1 AS a) SELECT * FROM x",
    "SELECT COALESCE(a, 0), CAST(b AS STRING), DATE_FORMAT(ts, 'yyyy') FROM t",
    "VALUES (1), (2)",
    "SELECT * FROM t FOR SYSTEM_TIME AS OF TIMESTAMP '2024-01-01 00:00:00'",
    "SELECT o.id, d.name FROM orders AS o JOIN dim FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k",
    "SELECT * FROM t$branch_dev",
    "SELECT * FROM `t$branch_dev$snapshots`",
    "SELECT * FROM t /*+ OPTIONS('branch' = 'dev') */",
    "SELECT * FROM t /*+ OPTIONS('tag' = 't1') */",
    "CALL sys.create_tag(`table` => 'db.t', tag => 'my-tag', snapshot_id => 1)",
    "CALL sys.delete_tag(`table` => 'db.t', tag => 'my-tag')",
    "CALL sys.rollback_to(`table` => 'db.t', snapshot_id => 2)",
    "CALL sys.compact('db.t')",
    "CALL sys.compact(`table` => 'db.t', partitions => 'dt=1')",
    "CALL sys.expire_snapshots()",
    "-- a comment\nSELECT 1 -- trailing\n",
    "/* block */ SELECT /* inner */ 1",
];

#[test]
fn valid_statements() {
    let ctx = ValidationContext::default();
    for sql in OK {
        if let Err(e) = check(sql, &ctx) {
            panic!("{sql}\n  -> {e}");
        }
    }
    assert!(OK.len() >= 150, "{} valid cases", OK.len());
}

/// (sql, marker whose first occurrence is the error column on line 1, message fragment).
const ERR: &[(&str, &str, &str)] = &[
    ("SELEC 1", "SELEC", "expected a statement"),
    ("CREATE TABLE t (a INTEGRAL)", "INTEGRAL", "unknown data type 'INTEGRAL'"),
    ("CREATE TABLE t (a DECIMAL(39, 2))", "39", "Decimal precision must be between 1 and 38"),
    ("CREATE TABLE t (a DECIMAL(5, 6))", "6)", "Decimal scale"),
    ("CREATE TABLE t (a TIMESTAMP(10))", "10", "TIMESTAMP precision"),
    ("CREATE TABLE t (a VARCHAR(0))", "0)", "VARCHAR length"),
    ("CREATE TABLE t (a ARRAY<INT)", ")", "expected \">\""),
    ("CREATE TABLE t (a MAP<INT>)", ">)", "expected \",\""),
    ("CREATE TABLE t (a ROW<x INT, x STRING>)", "x STRING", "Field names must be unique"),
    ("CREATE TABLE t (a TIMESTAMP WITH TIME ZONE)", "WITH", "TIMESTAMP_LTZ"),
    ("CREATE TABLE t (a INT, a STRING)", "a STRING", "A column named 'a' already exists"),
    ("CREATE TABLE t (a INT,)", ")", "expected an identifier"),
    ("CREATE TABLE t (a INT", "", "expected \",\""),
    ("CREATE TABLE t", "t", "CREATE TABLE needs a column list"),
    ("CREATE TABLE t (a INT) PARTITIONED (a)", "(a)", "expected BY"),
    ("CREATE TABLE t (a INT) WITH ('k' 'v')", "'v'", "expected \"=\""),
    ("CREATE TABLE t (a INT) WITH ('k' = 1)", "1)", "expected a string literal"),
    ("CREATE TABLE t (a INT, PRIMARY KEY (a))", "PRIMARY", "NOT ENFORCED"),
    ("CREATE TABLE t (a INT, PRIMARY KEY (a) ENFORCED)", "ENFORCED", "NOT ENFORCED mode"),
    ("CREATE TABLE t (a INT, PRIMARY KEY (b) NOT ENFORCED)", "b)", "Primary key column 'b' is not defined"),
    ("CREATE TABLE t (a INT, c AS a + 1, PRIMARY KEY (c) NOT ENFORCED)", "c) NOT", "must be declared on physical columns"),
    ("CREATE TABLE t (a ARRAY<INT>, PRIMARY KEY (a) NOT ENFORCED)", "a) NOT", "in primary key field a is unsupported"),
    ("CREATE TABLE t (a INT) PARTITIONED BY (b)", "b)", "Partition column 'b' not defined"),
    ("CREATE TABLE t (a INT, dt STRING) PARTITIONED BY (days(dt))", "days", "partition transforms"),
    ("CREATE TABLE bad (word STRING, dt STRING, PRIMARY KEY (word) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4')", "word) NOT", "cross partition update case (Primary key constraint [word] not include all partition fields [dt])"),
    ("CREATE TABLE t (id BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('fields.id.default-value' = '0')", "'fields.id", "Primary key id should not be assign default column"),
    ("CREATE TABLE t (id BIGINT, dt STRING) PARTITIONED BY (dt) WITH ('fields.dt.default-value' = 'x')", "'fields.dt", "Partition key dt should not be assign default column"),
    ("CREATE TABLE t (id INT) WITH ('bucket' = 'not-a-number')", "'not-a-number'", "Could not parse value 'not-a-number' for key 'bucket'"),
    ("CREATE TABLE t (id INT) WITH ('bucket' = '0')", "'0'", "The number of buckets must be"),
    ("CREATE TABLE t (id INT) WITH ('bucket' = '-3')", "'-3'", "The number of buckets must be"),
    ("CREATE TABLE t (id INT) WITH ('bucket' = '4')", "'bucket'", "You should define a 'bucket-key' for bucketed append mode"),
    ("CREATE TABLE t (id INT) WITH ('merge-engine' = 'no-such-engine')", "'no-such-engine'", "Could not parse value 'no-such-engine' for key 'merge-engine'"),
    ("CREATE TABLE t (id INT) WITH ('changelog-producer' = 'always')", "'always'", "for key 'changelog-producer'"),
    ("CREATE TABLE t (id INT) WITH ('metadata.stats-mode' = 'most')", "'most'", "none, counts, full or truncate(N)"),
    ("CREATE TABLE t (id INT) WITH ('metadata.stats-mode' = 'truncate(0)')", "'truncate(0)'", "truncate(N)"),
    ("CREATE TABLE t (id INT, v INT) WITH ('fields.v.stats-mode' = 'some')", "'some'", "stats mode"),
    ("CREATE TABLE t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('fields.v.aggregate-function' = 'median')", "'median'", "unsupported aggregation 'median'"),
    ("CREATE TABLE t (id INT, v INT) WITH ('fields.w.aggregate-function' = 'sum')", "'fields.w", "Field w can not be found in table schema"),
    ("CREATE TABLE t (id INT) WITH ('ignore-delete' = 'yes')", "'yes'", "expected true or false"),
    ("CREATE TABLE t (id INT) WITH ('write-buffer-size' = 'big')", "'big'", "memory size"),
    ("CREATE TABLE t (id INT) WITH ('snapshot.time-retained' = 'long')", "'long'", "duration"),
    ("CREATE TABLE t (id INT) WITH ('file.format' = 'xlsx')", "'xlsx'", "for key 'file.format'"),
    ("CREATE TABLE t (id INT) WITH ('num-sorted-run.stop-trigger' = 'x')", "'x'", "expected an integer"),
    ("CREATE TABLE t (id INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('sequence.field' = 'ts')", "'ts'", "'sequence.field' refers to column 'ts', which can not be found"),
    ("CREATE TABLE t (id INT, v INT) WITH ('bucket-key' = 'id')", "'bucket-key'", "Cannot define 'bucket-key' in unaware or dynamic bucket mode"),
    ("CREATE TABLE t (id INT, v INT) WITH ('changelog-producer' = 'input')", "'changelog-producer'", "Can not set changelog-producer on table without primary keys"),
    ("CREATE TABLE t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'first-row', 'changelog-producer' = 'input')", "'input'", "Only support 'none' and 'lookup' changelog-producer on FIRST_ROW"),
    ("CREATE TABLE t (id INT, v INT) WITH ('partition.expiration-time' = '7 d')", "'partition.expiration-time'", "for non-partitioned table"),
    ("CREATE TABLE t (id INT) WITH ('snapshot.num-retained.min' = '0')", "'0'", "should be at least 1"),
    ("CREATE TABLE t (id INT) WITH ('snapshot.num-retained.min' = '20', 'snapshot.num-retained.max' = '10')", "'20'", "should not be larger than"),
    ("CREATE TABLE t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('fields.v.default-value' = 'abc')", "'abc'", "The default value abc of the column v can not be cast to datatype: INT"),
    ("CREATE TABLE t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('sequence.field' = 'v', 'merge-engine' = 'first-row')", "'sequence.field'", "Do not support use sequence field on FIRST_ROW"),
    ("CREATE TABLE t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('merge-engine' = 'aggregation', 'sequence.field' = 'v', 'fields.v.aggregate-function' = 'sum')", "'v'", "Should not define aggregation on sequence field: 'v'"),
    ("CREATE TABLE t (id INT, dt STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (dt) WITH ('sequence.field' = 'v')", "'sequence.field'", "You can not use sequence.field in cross partition update case"),
    ("CREATE TABLE t (id INT, _KEY_id INT)", "_KEY_id", "is reserved by Paimon"),
    ("CREATE TABLE t (id INT, v INT) WITH ('bucket' = '2', 'bucket-key' = 'w')", "'w'", "Bucket key field 'w' is not a column"),
    ("CREATE TABLE t (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('bucket' = '2', 'bucket-key' = 'v')", "'v'", "should include all bucket key fields"),
    ("CREATE TABLE t (id INT, ts BIGINT, WATERMARK FOR ts AS ts)", "ts AS", "Invalid data type of time field for watermark"),
    ("CREATE TABLE t (id INT, WATERMARK FOR ts AS ts)", "ts AS", "The rowtime attribute field 'ts' is not defined"),
    ("CREATE TABLE t (a INT FIRST)", "a INT", "FIRST / AFTER are only allowed in ALTER TABLE"),
    ("CREATE TABLE t (a INT, c AS )", ")", "expected an expression"),
    ("CREATE VIEW v AS SELECT 1", "VIEW", "CREATE VIEW"),
    ("CREATE TABLE t2 LIKE t (EXCLUDING STUFF)", "STUFF", "expected one of ALL"),
    ("CREATE TABLE t2 (a INT) AS SELECT 1", "AS", "CREATE TABLE AS SELECT does not support explicit columns"),
    ("CREATE CATALOG c WITH ('warehouse' = '/w')", "c WITH", "must contain 'type'"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'hive', 'warehouse' = '/w')", "'hive'", "metastore"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://h:1', 'warehouse' = 'wh')", "c WITH", "needs the option 'token.provider'"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://h:1', 'token.provider' = 'bear', 'token' = 't')", "c WITH", "needs the option 'warehouse'"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'warehouse' = 'wh', 'token.provider' = 'bear', 'token' = 't')", "c WITH", "needs the option 'uri'"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://h:1', 'warehouse' = 'wh', 'token.provider' = 'bear')", "c WITH", "needs the option 'token'"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://h:1', 'warehouse' = 'wh', 'token.provider' = 'dlf')", "'dlf'", "'token.provider' = 'dlf' is not supported"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://h:1', 'warehouse' = 'wh', 'token.provider' = 'dlf', 'dlf.access-key-id' = 'k')", "'dlf.access-key-id'", "bearer token only"),
    ("CREATE CATALOG c WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = 'http://h:1', 'warehouse' = 'wh', 'token.provider' = 'bear', 'token' = 'secret-value', 'cache-enabled' = 'false')", "'cache-enabled'", "Paimon REST catalog: option 'cache-enabled' is not supported"),
    ("CREATE CATALOG c WITH ('type' = 'iceberg', 'catalog-type' = 'rest')", "c WITH", "needs the option 'uri'"),
    ("CREATE CATALOG c WITH ('type' = 'iceberg', 'catalog-type' = 'rest', 'uri' = 'http://h:1', 'io-impl' = 'x')", "'io-impl'", "Iceberg REST catalog: option 'io-impl' is not supported"),
    ("CREATE CATALOG c WITH ('type' = 'iceberg', 'warehouse' = '/w')", "'iceberg'", "'catalog-type' = 'hive' (the default) is not supported"),
    ("CREATE CATALOG c WITH ('type' = 'iceberg', 'catalog-type' = 'hive', 'warehouse' = '/w')", "'hive'", "'catalog-type' = 'hive' is not supported"),
    ("CREATE CATALOG c WITH ('type' = 'hive')", "'hive'", "Catalog type 'hive' is not supported"),
    ("CREATE CATALOG c WITH ('type' = 'paimon')", "c WITH", "must contain 'warehouse'"),
    ("CREATE CATALOG c ('type' = 'paimon')", "(", "expected WITH"),
    ("USE", "", "expected an identifier"),
    ("SHOW FUNCTIONS", "FUNCTIONS", "expected CATALOGS"),
    ("SET 'execution.runtime-mode' = 'fast'", "'fast'", "execution.runtime-mode"),
    ("SET execution.runtime-mode = 'batch'", "execution", "expected a string literal"),
    ("ALTER TABLE t SET ('bucket' = 'not-a-number')", "'not-a-number'", "for key 'bucket'"),
    ("ALTER TABLE t SET ('merge-engine' = 'no-such-engine')", "'no-such-engine'", "for key 'merge-engine'"),
    ("ALTER TABLE t SET 'k' = 'v'", "'k'", "expected \"(\""),
    ("ALTER TABLE t FROB", "FROB", "expected SET, RESET, RENAME, ADD, MODIFY or DROP"),
    ("ALTER TABLE t ADD PARTITION (dt = '1')", "PARTITION", "ADD PARTITION is not supported"),
    ("ALTER TABLE t RENAME a b", "b", "expected TO"),
    ("ALTER VIEW v RENAME TO w", "VIEW", "only ALTER TABLE"),
    ("INSERT t VALUES (1)", "t VALUES", "expected INTO"),
    ("INSERT INTO t", "", "expected VALUES or SELECT"),
    ("INSERT INTO t VALUES (1,)", ")", "expected an expression"),
    ("INSERT INTO t PARTITION (dt) VALUES (1)", ")", "expected \"=\""),
    ("SELECT * FROM t /*+ OPTIONS('scan.snapshot-id' = 'one') */", "'one'", "'scan.snapshot-id' must be a positive snapshot id"),
    ("SELECT * FROM t /*+ OPTIONS('incremental-between' = '5') */", "'5'", "'incremental-between' must be 'start,end'"),
    ("SELECT * FROM t /*+ OPTIONS('scan.mode' = 'sometimes') */", "'sometimes'", "for key 'scan.mode'"),
    ("SELECT * FROM t /*+ OPTIONS('scan.snapshot-id' '1') */", "'1'", "expected \"=\""),
    ("SELECT * FROM t$nonsense", "t$nonsense", "Unknown system table 'nonsense'"),
    (
        "SELECT * FROM t$all_tables",
        "t$all_tables",
        "System table 'all_tables' in 't$all_tables': Paimon has it, lakescope does not read it yet (it reads: snapshots, schemas, options, tags, branches, files, manifests, partitions, buckets, audit_log, ro, consumers, table_indexes, row_tracking, statistics, binlog, file_indexes, file_key_ranges, aggregation_fields)",
    ),
    ("SELECT * FROM t FOR SYSTEM_TIME AS OF", "", "expected an expression after FOR SYSTEM_TIME AS OF"),
    ("SELECT * FROM t FOR SYSTEM_TIME AS OF )", ")", "expected an expression after FOR SYSTEM_TIME AS OF"),
    // Flink 1.19 has no version clause: refused, pointing at the hints that read a branch or tag
    ("SELECT * FROM t FOR SYSTEM_VERSION AS OF 'dev'", "FOR", "OPTIONS('branch' = 'dev')"),
    ("SELECT * FROM t /*+ OPTIONS('branch' = '') */", "''", "the branch name is empty"),
    ("SELECT FROM WHERE", "WHERE", "expected an expression"),
    ("SELECT 'unterminated", "'unterminated", "Unterminated string literal"),
    ("CALL sys.no_such_proc()", "sys", "Procedure 'sys.no_such_proc' is not found"),
    ("CALL create_tag('t', 'x')", "create_tag", "is not found"),
    ("CALL sys.create_tag(`table` => )", ")", "expected an argument"),
    ("DROP VIEW v", "VIEW", "expected TABLE"),
    ("EXPLAIN SELECT 1", "EXPLAIN", "not supported"),
    ("DESCRIBE", "", "expected an identifier"),
    ("SHOW CREATE TABLE a.b.c.d", "a.b", "more than three parts"),
    ("SELECT 1; SELECT 2", "SELECT 2", "expected a single statement"),
];

fn column_of(sql: &str, marker: &str) -> u64 {
    if marker.is_empty() {
        return sql.chars().count() as u64 + 1;
    }
    let byte = sql
        .find(marker)
        .unwrap_or_else(|| panic!("marker {marker:?} not in {sql}"));
    sql[..byte].chars().count() as u64 + 1
}

#[test]
fn invalid_statements_point_at_the_token() {
    let ctx = ValidationContext::default();
    let mut bad = Vec::new();
    for (sql, marker, fragment) in ERR {
        let e = match check(sql, &ctx) {
            Ok(s) => {
                bad.push(format!("{sql}\n  -> accepted: {s:.80?}"));
                continue;
            }
            Err(e) => e,
        };
        let want = column_of(sql, marker);
        if (e.pos.line, e.pos.column) != (1, want) || !e.message.contains(fragment) {
            bad.push(format!(
                "{sql}\n  -> {e}\n  wanted column {want}: {fragment}"
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} cases failed:\n{}",
        bad.len(),
        ERR.len(),
        bad.join("\n")
    );
}

/// (ALTER statement, marker, fragment or "" when valid) against `base_schema()`.
const ALTER: &[(&str, &str, &str)] = &[
    ("ALTER TABLE test DROP (user_id)", "user_id", "Cannot drop partition key or primary key: [user_id]"),
    ("ALTER TABLE test DROP dt", "dt", "Cannot drop partition key or primary key: [dt]"),
    ("ALTER TABLE test DROP (behavior, nope)", "nope", "The column [nope] doesn't exist"),
    ("ALTER TABLE test DROP (behavior, item_id)", "", ""),
    ("ALTER TABLE test RENAME dt TO day", "dt", "Cannot rename partition column: [dt]"),
    ("ALTER TABLE test RENAME nope TO x", "nope", "doesn't exist"),
    ("ALTER TABLE test RENAME behavior TO item_id", "item_id", "already exists"),
    ("ALTER TABLE test RENAME behavior TO b", "", ""),
    ("ALTER TABLE test ADD behavior INT", "behavior", "already exists"),
    ("ALTER TABLE test ADD (x INT, x STRING)", "x STRING", "already exists"),
    ("ALTER TABLE test ADD x INT NOT NULL", "INT", "cannot specify NOT NULL"),
    ("ALTER TABLE test ADD x INT AFTER nope", "nope", "doesn't exist"),
    ("ALTER TABLE test ADD (x INT, y INT AFTER x)", "", ""),
    ("ALTER TABLE test ADD PRIMARY KEY (item_id) NOT ENFORCED", "PRIMARY", "already defined the primary key"),
    ("ALTER TABLE test MODIFY behavior INT", "", ""),
    ("ALTER TABLE test MODIFY item_id DOUBLE", "", ""),
    ("ALTER TABLE test MODIFY d TIMESTAMP(3)", "", ""),
    ("ALTER TABLE test MODIFY d BOOLEAN", "BOOLEAN", "cannot be converted to BOOLEAN"),
    ("ALTER TABLE test MODIFY tags STRING", "STRING", "cannot be converted to STRING"),
    ("ALTER TABLE test MODIFY item_id BYTES", "BYTES", "cannot be converted"),
    ("ALTER TABLE test MODIFY dt INT", "INT", "Cannot update partition column: [dt]"),
    ("ALTER TABLE test MODIFY user_id INT", "INT", "Cannot update primary key column: [user_id]"),
    ("ALTER TABLE test MODIFY user_id BIGINT COMMENT 'user id'", "", ""),
    ("ALTER TABLE test MODIFY behavior STRING NOT NULL", "STRING", "from nullable to non nullable"),
    ("ALTER TABLE test MODIFY nope INT", "nope", "doesn't exist"),
    ("ALTER TABLE test MODIFY behavior STRING AFTER nope", "nope", "doesn't exist"),
    ("ALTER TABLE test SET ('bucket-key' = 'item_id')", "'bucket-key'", "Change 'bucket-key' is not supported yet"),
    ("ALTER TABLE test SET ('fields.nope.default-value' = '1')", "'fields.nope", "Field nope can not be found in table schema"),
    ("ALTER TABLE test SET ('fields.user_id.default-value' = '1')", "'fields.user_id", "Primary key user_id should not be assign default column"),
    ("ALTER TABLE test SET ('record-level.time-field' = 'item_id', 'record-level.expire-time' = '30 d')", "", ""),
    ("ALTER TABLE test RESET ('bucket')", "'bucket'", "Cannot reset bucket"),
    ("ALTER TABLE test DROP PARTITION (nope = '1')", "nope", "'nope' is not a partition column"),
    ("ALTER TABLE test DROP PARTITION (dt = '1', hh = '2')", "", ""),
    ("ALTER TABLE test DROP PRIMARY KEY", "PRIMARY", "does not support dropping the primary key"),
    ("INSERT INTO test VALUES (1, 1, 'pv', '2023-07-01', '1', ARRAY['a'], DATE '2024-01-01')", "", ""),
    ("INSERT INTO test VALUES (1, 1, 'pv')", "1,", "the query has 3 columns, the sink expects 7"),
    ("INSERT INTO test PARTITION (dt = '1', hh = '2') VALUES (3, 3, 'pv', ARRAY['a'], NULL)", "", ""),
    ("INSERT INTO test PARTITION (dt = '1', nope = '2') VALUES (3)", "nope", "'nope' is not a partition column"),
    ("INSERT INTO test (user_id, nope) VALUES (1, 2)", "nope", "Unknown target column 'nope'"),
    ("INSERT INTO test PARTITION (dt = '1') (dt) VALUES (1)", "dt) VALUES", "static partition column"),
    ("INSERT INTO test (user_id) VALUES (1, 2)", "1,", "the query has 2 columns, the sink expects 1"),
];

#[test]
fn alter_against_existing_schema() {
    let schema = base_schema();
    let ctx = ValidationContext {
        format: TableFormat::Paimon,
        existing: Some(&schema),
    };
    for (sql, marker, fragment) in ALTER {
        let r = check(sql, &ctx);
        match (r, fragment.is_empty()) {
            (Ok(_), true) => {}
            (Err(e), true) => panic!("{sql}\n  -> {e}"),
            (Ok(_), false) => panic!("{sql}\n  -> accepted, wanted {fragment}"),
            (Err(e), false) => {
                assert_eq!(
                    (e.pos.line, e.pos.column),
                    (1, column_of(sql, marker)),
                    "{sql}\n  -> {e}"
                );
                assert!(
                    e.message.contains(fragment),
                    "{sql}\n  -> {e}\n  wanted: {fragment}"
                );
            }
        }
    }
}

#[test]
fn iceberg_transforms() {
    let ctx = ValidationContext {
        format: TableFormat::Iceberg,
        existing: None,
    };
    let s = check("CREATE TABLE t (id STRING, ts TIMESTAMP(3)) PARTITIONED BY (days(ts), bucket(16, id), truncate(4, id), years(ts), months(ts), hours(ts), id)", &ctx).unwrap();
    let Statement::CreateTable(t) = s else {
        panic!()
    };
    let tf: Vec<_> = t.partitioned_by.iter().map(|p| p.transform).collect();
    assert_eq!(
        tf,
        vec![
            Some(Transform::Days),
            Some(Transform::Bucket(16)),
            Some(Transform::Truncate(4)),
            Some(Transform::Years),
            Some(Transform::Months),
            Some(Transform::Hours),
            None
        ]
    );
    let sql = "CREATE TABLE t (id STRING) PARTITIONED BY (days(id))";
    let e = check(sql, &ctx).unwrap_err();
    assert_eq!((e.pos.line, e.pos.column), (1, column_of(sql, "days")));
    assert!(e.message.contains("needs a DATE or TIMESTAMP column"));
    let sql = "CREATE TABLE t (id STRING) PARTITIONED BY (bucket(0, id))";
    let e = check(sql, &ctx).unwrap_err();
    assert_eq!((e.pos.line, e.pos.column), (1, column_of(sql, "0,")));
    let e = check(
        "CREATE TABLE t (id STRING) PARTITIONED BY (weeks(id))",
        &ctx,
    )
    .unwrap_err();
    assert!(
        e.message.contains("unknown partition transform 'weeks'"),
        "{e}"
    );
    let sql = "CREATE TABLE t (id STRING) PARTITIONED BY (days(nope))";
    let e = check(sql, &ctx).unwrap_err();
    assert_eq!((e.pos.line, e.pos.column), (1, column_of(sql, "nope")));
}

#[test]
fn ast_shapes() {
    let Statement::CreateTable(t) = parse_statement("CREATE TEMPORARY TABLE IF NOT EXISTS c.db.t (a INT NOT NULL COMMENT 'x', b AS a * 2, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND, PRIMARY KEY (a) NOT ENFORCED) COMMENT 'tc' WITH ('k' = 'v')").unwrap() else { panic!() };
    assert!(t.temporary && t.if_not_exists);
    assert_eq!(t.name.parts, vec!["c", "db", "t"]);
    assert_eq!(t.columns.len(), 3);
    assert!(matches!(&t.columns[1].kind, ColumnKind::Computed { text, .. } if text == "a * 2"));
    assert_eq!(
        t.watermark.as_ref().unwrap().text,
        "ts - INTERVAL '1' SECOND"
    );
    assert_eq!(t.comment.as_deref(), Some("tc"));
    assert!(t.primary_key.as_ref().unwrap().not_enforced);
    let Statement::CreateTable(t) =
        parse_statement("CREATE TABLE x LIKE y (EXCLUDING OPTIONS)").unwrap()
    else {
        panic!()
    };
    assert!(t.like.as_ref().unwrap().excludes_options());
    let Statement::Insert(i) = parse_statement(
        "INSERT OVERWRITE t /*+ OPTIONS('a' = 'b') */ PARTITION (dt = '1') (x, y) SELECT 1, 2",
    )
    .unwrap() else {
        panic!()
    };
    assert!(i.overwrite);
    assert_eq!(i.hints[0].key, "a");
    assert_eq!(i.partition[0].value, "1");
    assert_eq!(i.columns.len(), 2);
    let Statement::Insert(i) = parse_statement("INSERT INTO t VALUES (1, 'a'), (2, 'b')").unwrap()
    else {
        panic!()
    };
    assert!(
        matches!(&i.source, InsertSource::Values { rows, .. } if rows.len() == 2 && rows[0].len() == 2)
    );
    let Statement::Query(q) = parse_statement(
        "SELECT * FROM a /*+ OPTIONS('scan.snapshot-id' = '3') */ JOIN b$snapshots ON true",
    )
    .unwrap() else {
        panic!()
    };
    assert_eq!(q.tables.len(), 2);
    assert_eq!(q.tables[0].hints[0].value, "3");
    assert!(q.tables[1].hints.is_empty());
    assert_eq!(q.tables[1].system_table.as_deref(), Some("snapshots"));
    let Statement::Query(q) = parse_statement("SELECT * FROM o JOIN c.db.dim /*+ OPTIONS('lookup.cache' = 'full') */ FOR SYSTEM_TIME AS OF o.proc_time AS d ON o.k = d.k").unwrap() else { panic!() };
    assert_eq!(q.tables[1].as_of.as_deref(), Some("o.proc_time"));
    assert_eq!(q.tables[1].hints[0].key, "lookup.cache");
    assert_eq!(q.tables[0].as_of, None);
    let Statement::Call { procedure, args } =
        parse_statement("CALL sys.create_tag(`table` => 'db.t', tag => 'x', snapshot_id => 1)")
            .unwrap()
    else {
        panic!()
    };
    assert_eq!(procedure.to_string(), "sys.create_tag");
    assert_eq!(
        args.iter()
            .map(|a| a.name.as_ref().unwrap().name.as_str())
            .collect::<Vec<_>>(),
        vec!["table", "tag", "snapshot_id"]
    );
    assert_eq!(args[2].text, "1");
    let Statement::AlterTable(a) = parse_statement("ALTER TABLE t ADD b INT AFTER a").unwrap()
    else {
        panic!()
    };
    let AlterAction::Add(ch) = a.action else {
        panic!()
    };
    assert_eq!(
        ch.columns[0].position,
        Some(ColumnPosition::After(Ident {
            name: "a".into(),
            pos: lakescope_sql::Pos::new(1, 31)
        }))
    );
}

#[test]
fn script_splitting_numbers_lines_and_columns() {
    let script = "-- header\nSELECT ';' AS x; /* c; */\n  CREATE TABLE t (a INT);\n\n;  SELECT `a;b` FROM t\n";
    let p = parse_script(script);
    assert_eq!(p.len(), 3);
    assert_eq!((p[0].number, p[0].pos.line, p[0].pos.column), (1, 2, 1));
    assert_eq!(p[0].text, "SELECT ';' AS x");
    assert_eq!((p[1].number, p[1].pos.line, p[1].pos.column), (2, 3, 3));
    assert_eq!((p[2].number, p[2].pos.line, p[2].pos.column), (3, 5, 4));
    assert!(p.iter().all(|s| s.statement.is_ok()));
    // An error on a later line reports that line.
    let p = parse_script("SELECT 1;\nCREATE TABLE t (a INT,\n  b FOO);");
    let e = p[1].statement.as_ref().unwrap_err();
    assert_eq!((e.pos.line, e.pos.column), (3, 5));
    // An unterminated string ends the script with an error; earlier statements survive.
    let p = parse_script("SELECT 1;\nSELECT 'x");
    assert!(p[0].statement.is_ok());
    assert_eq!(p[1].statement.as_ref().unwrap_err().pos.line, 2);
    // Hint positions on a second line.
    let p = parse_script("SELECT 1;\nSELECT * FROM t /*+ OPTIONS('scan.snapshot-id' = 'x') */");
    let Ok(s) = &p[1].statement else { panic!() };
    let e = validate(s, &ValidationContext::default()).unwrap_err();
    assert_eq!((e.pos.line, e.pos.column), (2, 50));
}
