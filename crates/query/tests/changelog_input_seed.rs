//! The seed's `primary_key_table` (`'changelog-producer' = 'input'`, bucket 4) is writable in
//! a SQL session (issue 6): its DDL, an INSERT, an UPDATE and a DELETE commit, the table reads
//! the merged rows, each snapshot lists its changelog, and the changelog read
//! (`$audit_log` with `incremental-between-scan-mode` = 'changelog') gives the written
//! records with their row kinds: the INSERT's `+I` rows, the UPDATE's `+U` row, the DELETE's
//! `-D` row.

mod common;

use common::{rows, seed_script, session, LocalOpener};
use lakescope_paimon::spec::CommitKind;
use lakescope_paimon::table::Table;
use lakescope_storage::LocalStore;
use std::rc::Rc;

/// The seed's CREATE TABLE statement of `primary_key_table` (its `-- expect:` comment cut).
fn seed_ddl() -> String {
    let script = seed_script();
    let line = script
        .lines()
        .find(|l| l.starts_with("CREATE TABLE IF NOT EXISTS primary_key_table "))
        .expect("the seed creates primary_key_table");
    let ddl = line.split("-- expect:").next().unwrap_or(line).trim();
    assert!(ddl.contains("'changelog-producer' = 'input'"), "{ddl}");
    ddl.to_string()
}

#[tokio::test]
async fn seed_primary_key_table_takes_insert_update_delete_with_input_changelog() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap();
    let mut s = session(Rc::new(LocalOpener));
    let script = format!(
        "CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '{warehouse}');
         USE CATALOG c;
         CREATE DATABASE IF NOT EXISTS test_db;
         USE test_db;
         {}
         INSERT INTO primary_key_table VALUES ('apple', 1), ('pear', 2), ('plum', 3);
         UPDATE primary_key_table SET cnt = 20 WHERE word = 'pear';
         DELETE FROM primary_key_table WHERE word = 'plum';",
        seed_ddl()
    );
    let mut errors = Vec::new();
    let failed = s
        .run_script(&script, false, &mut |p, r| {
            if let Err(e) = r {
                errors.push(format!("{}: {e}", p.text));
            }
        })
        .await;
    assert_eq!(failed, 0, "{errors:?}");

    assert_eq!(
        rows(&mut s, "SELECT * FROM primary_key_table").await,
        [r#"{"word":"apple","cnt":1}"#, r#"{"word":"pear","cnt":20}"#]
    );
    let table = Table::open(
        Rc::new(LocalStore::new(dir.path())),
        "test_db.db/primary_key_table",
    )
    .await
    .unwrap();
    let snapshots = table.snapshots().await.unwrap();
    let counts: Vec<_> = snapshots
        .iter()
        .map(|s| {
            (
                s.commit_kind,
                s.changelog_manifest_list.is_some(),
                s.changelog_record_count,
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            (CommitKind::Append, true, Some(3)),
            (CommitKind::Append, true, Some(1)),
            (CommitKind::Append, true, Some(1)),
        ]
    );
    let changelog = |range: &str| {
        format!(
            "SELECT * FROM `primary_key_table$audit_log` /*+ OPTIONS('incremental-between' = '{range}', 'incremental-between-scan-mode' = 'changelog') */"
        )
    };
    assert_eq!(
        rows(&mut s, &changelog("0,3")).await,
        [
            r#"{"rowkind":"+I","word":"apple","cnt":1}"#,
            r#"{"rowkind":"+I","word":"pear","cnt":2}"#,
            r#"{"rowkind":"+I","word":"plum","cnt":3}"#,
            r#"{"rowkind":"+U","word":"pear","cnt":20}"#,
            r#"{"rowkind":"-D","word":"plum","cnt":3}"#,
        ]
    );
    assert_eq!(
        rows(&mut s, &changelog("2,3")).await,
        [r#"{"rowkind":"-D","word":"plum","cnt":3}"#]
    );
}
