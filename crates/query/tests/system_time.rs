//! Flink's `FOR SYSTEM_TIME AS OF TIMESTAMP '…'` on a Paimon table reads the snapshot that the
//! `scan.timestamp-millis` hint selects for the same instant (the latest one committed at or
//! before it). The literal is read in the session time zone, `table.local-time-zone`; unset, it
//! is UTC — our decision where Flink would take the client JVM's zone: the same query must read
//! the same snapshot in every browser and on every machine, and the explorer shows times in UTC.

mod common;

use common::{rows, session, LocalOpener};
use lakescope_engine::session::Session;
use lakescope_paimon::table::Table;
use lakescope_storage::LocalStore;
use std::rc::Rc;

/// `millis` as a `TIMESTAMP '…'` literal in UTC shifted by `offset_hours`.
fn literal(millis: i64, offset_hours: i64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(millis + offset_hours * 3_600_000).unwrap();
    format!(
        "TIMESTAMP '{}'",
        t.naive_utc().format("%Y-%m-%d %H:%M:%S%.3f")
    )
}

async fn error_of(session: &mut Session, sql: &str) -> String {
    let mut message = None;
    session
        .run_script(sql, false, &mut |_, r| {
            if let Err(e) = r {
                message = Some(e.to_string());
            }
        })
        .await;
    message.unwrap_or_else(|| panic!("{sql}: expected an error"))
}

#[tokio::test]
async fn for_system_time_as_of_reads_the_snapshot_of_that_instant() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap();
    let mut s = session(Rc::new(LocalOpener));
    let setup = format!(
        "CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '{warehouse}');
         USE CATALOG c;
         CREATE DATABASE db;
         CREATE TABLE db.t (id INT, v STRING);
         INSERT INTO db.t VALUES (1, 'a');
         INSERT INTO db.t VALUES (2, 'b');
         INSERT INTO db.t VALUES (3, 'c');"
    );
    assert_eq!(s.run_script(&setup, false, &mut |_, _| {}).await, 0);
    let table = Table::open(Rc::new(LocalStore::new(dir.path())), "db.db/t")
        .await
        .unwrap();
    let snapshots = table.snapshots().await.unwrap();
    assert_eq!(snapshots.len(), 3);

    for (k, snapshot) in snapshots.iter().enumerate() {
        let by_id = rows(
            &mut s,
            &format!(
                "SELECT * FROM db.t /*+ OPTIONS('scan.snapshot-id' = '{}') */",
                snapshot.id
            ),
        )
        .await;
        assert_eq!(by_id.len(), k + 1);
        let at_commit = literal(snapshot.time_millis, 0);
        let sql = format!("SELECT * FROM db.t FOR SYSTEM_TIME AS OF {at_commit}");
        assert_eq!(rows(&mut s, &sql).await, by_id, "{sql}");
        // Just before the next commit it is still this snapshot.
        if let Some(next) = snapshots.get(k + 1) {
            let before_next = literal(next.time_millis - 1, 0);
            let sql = format!("SELECT * FROM db.t FOR SYSTEM_TIME AS OF {before_next}");
            assert_eq!(rows(&mut s, &sql).await, by_id, "{sql}");
        }
    }

    // In another session zone the same instant is another wall-clock time.
    let second = snapshots[1].time_millis;
    let expected = rows(
        &mut s,
        &format!("SELECT * FROM db.t /*+ OPTIONS('scan.timestamp-millis' = '{second}') */"),
    )
    .await;
    s.run_script(
        "SET 'table.local-time-zone' = 'Asia/Shanghai';",
        false,
        &mut |_, _| {},
    )
    .await;
    let sql = format!(
        "SELECT * FROM db.t FOR SYSTEM_TIME AS OF {}",
        literal(second, 8)
    );
    assert_eq!(rows(&mut s, &sql).await, expected, "{sql}");
    // The UTC wall-clock time of the first commit is 8 hours before any commit in Shanghai.
    let utc_literal = format!(
        "SELECT * FROM db.t FOR SYSTEM_TIME AS OF {}",
        literal(snapshots[0].time_millis, 0)
    );
    let e = error_of(&mut s, &utc_literal).await;
    assert!(e.contains("no snapshot committed at or before"), "{e}");
    s.run_script("RESET 'table.local-time-zone';", false, &mut |_, _| {})
        .await;

    // Errors say what is wrong.
    let e = error_of(
        &mut s,
        "SELECT * FROM db.t FOR SYSTEM_TIME AS OF CURRENT_TIMESTAMP",
    )
    .await;
    assert!(e.contains("only a constant TIMESTAMP"), "{e}");
    let both = format!(
        "SELECT * FROM db.t /*+ OPTIONS('scan.snapshot-id' = '1') */ FOR SYSTEM_TIME AS OF {}",
        literal(second, 0)
    );
    let e = error_of(&mut s, &both).await;
    assert!(e.contains("keep one of the two"), "{e}");
    let before_all = format!(
        "SELECT * FROM db.t FOR SYSTEM_TIME AS OF {}",
        literal(snapshots[0].time_millis - 1, 0)
    );
    let e = error_of(&mut s, &before_all).await;
    let hint = error_of(
        &mut s,
        &format!(
            "SELECT * FROM db.t /*+ OPTIONS('scan.timestamp-millis' = '{}') */",
            snapshots[0].time_millis - 1
        ),
    )
    .await;
    assert_eq!(e, hint, "before the first snapshot: the hint's error");
}
