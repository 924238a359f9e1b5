//! A SQL DELETE on an `ignore-delete` table commits nothing, as Java Paimon 0.9's batch write
//! does (recorded against Java in crates/engine/tests/ignore_delete_interop.rs); without the
//! option the same DELETE commits a snapshot and removes the rows.

mod common;

use common::{rows, session, LocalOpener};
use lakescope_paimon::table::Table;
use lakescope_storage::LocalStore;
use std::rc::Rc;

#[tokio::test]
async fn delete_on_an_ignore_delete_table_commits_no_snapshot() {
    for (ignore, snapshots, left) in [
        (
            "true",
            1,
            vec![r#"{"id":1,"v":"x"}"#, r#"{"id":2,"v":"y"}"#],
        ),
        ("false", 2, vec![r#"{"id":2,"v":"y"}"#]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let warehouse = dir.path().to_str().unwrap();
        let mut s = session(Rc::new(LocalOpener));
        let script = format!(
            "CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '{warehouse}');
             USE CATALOG c;
             CREATE DATABASE d;
             USE d;
             CREATE TABLE t (id BIGINT, v STRING, PRIMARY KEY (id) NOT ENFORCED)
                 WITH ('bucket' = '1', 'ignore-delete' = '{ignore}');
             INSERT INTO t VALUES (1, 'x'), (2, 'y');
             DELETE FROM t WHERE id = 1;"
        );
        let mut done = Vec::new();
        let failed = s
            .run_script(&script, false, &mut |p, r| {
                done.push(format!("{}: {r:?}", p.text));
            })
            .await;
        assert_eq!(failed, 0, "{done:?}");
        let table = Table::open(Rc::new(LocalStore::new(dir.path())), "d.db/t")
            .await
            .unwrap();
        assert_eq!(
            table.snapshot_ids().await.unwrap().len(),
            snapshots,
            "ignore-delete = {ignore}: {done:?}"
        );
        assert_eq!(rows(&mut s, "SELECT * FROM t").await, left);
    }
}
