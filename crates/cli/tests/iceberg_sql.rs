//! `lakescope sql` on an Iceberg Hadoop catalog in a local folder: INSERT OVERWRITE (dynamic
//! partition replace), DELETE and UPDATE (copy-on-write; upsert by identifier fields), ALTER
//! TABLE schema changes and ADD / DROP PARTITION FIELD, each checked by the rows a later SELECT
//! prints (JSON Lines), and the refusals by their messages. `lakescope insert` appends a CSV file
//! to a table of the same warehouse (an upsert on a `write.upsert.enabled` table).

use std::process::Command;

/// Runs `statements` (after a catalog on `warehouse`) with --keep-going: (stdout, stderr).
fn sql(warehouse: &std::path::Path, statements: &str) -> (String, String) {
    let script = format!(
        "CREATE CATALOG ic WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '{}');\nUSE CATALOG ic;\nCREATE DATABASE IF NOT EXISTS db;\nUSE db;\n{statements}",
        warehouse.display()
    );
    let out = Command::new(env!("CARGO_BIN_EXE_lakescope"))
        .args(["sql", "--keep-going", "--format", "jsonl", "-e", &script])
        .output()
        .expect("run lakescope");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The JSON rows printed by the script's last SELECT (lines starting with `{`).
fn rows(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(str::to_string)
        .collect()
}

#[test]
fn overwrite_delete_update_on_a_partitioned_table() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let (_, err) = sql(
        w,
        "CREATE TABLE ev (id BIGINT, kind STRING, v INT) PARTITIONED BY (kind);
         INSERT INTO ev VALUES (1, 'a', 10), (2, 'b', 20), (3, 'a', 30), (4, 'c', 40);
         INSERT OVERWRITE ev VALUES (5, 'a', 50);
         INSERT OVERWRITE ev PARTITION (kind = 'b') SELECT 6, 60;",
    );
    assert!(!err.contains("error"), "{err}");
    let (out, _) = sql(w, "SELECT * FROM ev ORDER BY id;");
    assert_eq!(
        rows(&out),
        [
            r#"{"id":4,"kind":"c","v":40}"#,
            r#"{"id":5,"kind":"a","v":50}"#,
            r#"{"id":6,"kind":"b","v":60}"#
        ]
    );
    let (out, err) = sql(
        w,
        "DELETE FROM ev WHERE v >= 60 OR id = 4;
         UPDATE ev SET v = v + 1 WHERE kind = 'a';
         DELETE FROM ev WHERE id = 999;
         SELECT * FROM ev ORDER BY id;",
    );
    assert!(!err.contains("error"), "{err}");
    assert!(out.contains("2 row(s) deleted from ic.db.ev"), "{out}");
    assert!(out.contains("no rows matched"), "{out}");
    assert_eq!(rows(&out), [r#"{"id":5,"kind":"a","v":51}"#]);
}

#[test]
fn update_and_delete_by_primary_key() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = sql(
        dir.path(),
        "CREATE TABLE pk (id BIGINT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('write.upsert.enabled' = 'true');
         INSERT INTO pk VALUES (1, 'x'), (2, 'y'), (3, 'w');
         UPDATE pk SET name = 'z' WHERE id = 2;
         DELETE FROM pk WHERE id = 1;
         UPDATE pk SET id = 4 WHERE id = 2;
         INSERT OVERWRITE pk VALUES (9, 'q');
         SELECT * FROM pk ORDER BY id;",
    );
    assert_eq!(
        rows(&out),
        [r#"{"id":2,"name":"z"}"#, r#"{"id":3,"name":"w"}"#]
    );
    assert!(
        err.contains("UPDATE of identifier (primary-key) column 'id' is not supported"),
        "{err}"
    );
    assert!(err.contains("OVERWRITE mode shouldn't be enable"), "{err}");
    assert!(err.contains("2 statement(s) failed"), "{err}");
}

#[test]
fn update_by_key_needs_the_partition_sources_in_the_key() {
    let dir = tempfile::tempdir().unwrap();
    // The key does not hold the partition column: UPDATE rewrites the file instead of upserting.
    let (out, err) = sql(
        dir.path(),
        "CREATE TABLE k (id BIGINT, kind STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) PARTITIONED BY (kind);
         INSERT INTO k VALUES (1, 'a', 1), (2, 'b', 2);
         UPDATE k SET v = 10 WHERE id = 2;
         SELECT * FROM k ORDER BY id;",
    );
    assert!(!err.contains("error"), "{err}");
    assert!(out.contains("1 data file(s) rewritten"), "{out}");
    assert_eq!(
        rows(&out),
        [
            r#"{"id":1,"kind":"a","v":1}"#,
            r#"{"id":2,"kind":"b","v":10}"#
        ]
    );
}

#[test]
fn schema_and_partition_evolution() {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = sql(
        dir.path(),
        "CREATE TABLE t (id BIGINT, n INT, kind STRING, ts TIMESTAMP(3), gone STRING) PARTITIONED BY (kind);
         INSERT INTO t VALUES (1, 7, 'a', TIMESTAMP '2024-05-01 10:00:00', 'g');
         ALTER TABLE t ADD c STRING AFTER id;
         ALTER TABLE t RENAME kind TO category;
         ALTER TABLE t DROP gone;
         ALTER TABLE t MODIFY n BIGINT;
         ALTER TABLE t ADD PARTITION FIELD days(ts);
         ALTER TABLE t DROP PARTITION FIELD kind;
         INSERT INTO t VALUES (2, 'new', 5000000000, 'b', TIMESTAMP '2024-05-02 10:00:00');
         INSERT OVERWRITE t VALUES (3, 'o', 1, 'c', TIMESTAMP '2024-05-02 11:00:00');
         ALTER TABLE t MODIFY n STRING;
         ALTER TABLE t ADD PARTITION FIELD days(ts);
         SELECT * FROM t WHERE ts >= TIMESTAMP '2024-05-01 00:00:00' ORDER BY id;",
    );
    assert_eq!(
        rows(&out),
        [
            r#"{"id":1,"c":null,"n":7,"category":"a","ts":"2024-05-01T10:00:00.000000"}"#,
            r#"{"id":3,"c":"o","n":1,"category":"c","ts":"2024-05-02T11:00:00.000000"}"#
        ]
    );
    assert!(err.contains("cannot change column 'n'"), "{err}");
    assert!(err.contains("already partitions by day(ts)"), "{err}");
    assert!(err.contains("2 statement(s) failed"), "{err}");
}

#[test]
fn insert_appends_a_csv_file_and_upserts_where_the_table_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path();
    let (_, err) = sql(
        w,
        "CREATE TABLE ev (id BIGINT, kind STRING, v INT) PARTITIONED BY (kind);
         INSERT INTO ev VALUES (1, 'a', 10);
         CREATE TABLE up (id BIGINT NOT NULL, v STRING, PRIMARY KEY (id) NOT ENFORCED)
           WITH ('format-version' = '2', 'write.upsert.enabled' = 'true');
         INSERT INTO up VALUES (1, 'old'), (2, 'kept');",
    );
    assert!(!err.contains("error"), "{err}");
    let insert = |table: &str, csv: &str| {
        let file = w.join(format!("{table}.csv"));
        std::fs::write(&file, csv).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_lakescope"))
            .args(["insert", w.to_str().unwrap(), table, file.to_str().unwrap()])
            .output()
            .expect("run lakescope");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let printed = insert("db.ev", "v,kind,id\n20,b,2\n30,a,3\n");
    assert!(
        printed.starts_with("inserted 2 rows into db.ev: snapshot "),
        "{printed}"
    );
    insert("db.up", "id,v\n1,new\n3,added\n");
    let (out, err) = sql(
        w,
        "SELECT * FROM ev ORDER BY id; SELECT * FROM up ORDER BY id;",
    );
    assert!(!err.contains("error"), "{err}");
    assert_eq!(
        rows(&out),
        [
            r#"{"id":1,"kind":"a","v":10}"#,
            r#"{"id":2,"kind":"b","v":20}"#,
            r#"{"id":3,"kind":"a","v":30}"#,
            r#"{"id":1,"v":"new"}"#,
            r#"{"id":2,"v":"kept"}"#,
            r#"{"id":3,"v":"added"}"#
        ]
    );
}
