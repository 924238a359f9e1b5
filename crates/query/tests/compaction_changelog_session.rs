//! Tables with `'changelog-producer' = 'lookup'`, `'full-compaction'` or
//! `'deletion-vectors.enabled' = 'true'` are writable in a SQL session (issue 6): INSERT, UPDATE
//! and DELETE each commit an APPEND then a COMPACT snapshot, the table reads the merged rows,
//! and for the changelog producers each COMPACT snapshot lists the commit's changelog (+I for
//! new keys, -U/+U for updated ones, -D for deleted ones), which the changelog read
//! (`$audit_log` with `incremental-between-scan-mode` = 'changelog') gives back.

mod common;

use common::{rows, session, LocalOpener};
use lakescope_paimon::spec::CommitKind;
use lakescope_paimon::table::Table;
use lakescope_storage::LocalStore;
use std::rc::Rc;

#[tokio::test]
async fn insert_update_delete_on_lookup_full_compaction_and_deletion_vector_tables() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap();
    let mut s = session(Rc::new(LocalOpener));
    let setup = format!(
        "CREATE CATALOG c WITH ('type' = 'paimon', 'warehouse' = '{warehouse}');
         USE CATALOG c;
         CREATE DATABASE d;
         USE d;"
    );
    assert_eq!(s.run_script(&setup, false, &mut |_, _| {}).await, 0);
    for (name, option, changelog) in [
        ("lk", "'changelog-producer' = 'lookup'", true),
        ("fc", "'changelog-producer' = 'full-compaction'", true),
        ("dv", "'deletion-vectors.enabled' = 'true'", false),
    ] {
        let script = format!(
            "CREATE TABLE {name} (word STRING, cnt INT, PRIMARY KEY (word) NOT ENFORCED) WITH ('bucket' = '2', {option});
             INSERT INTO {name} VALUES ('apple', 1), ('pear', 2), ('plum', 3);
             UPDATE {name} SET cnt = 20 WHERE word = 'pear';
             DELETE FROM {name} WHERE word = 'plum';"
        );
        let mut errors = Vec::new();
        let failed = s
            .run_script(&script, false, &mut |p, r| {
                if let Err(e) = r {
                    errors.push(format!("{}: {e}", p.text));
                }
            })
            .await;
        assert_eq!(failed, 0, "{name}: {errors:?}");
        assert_eq!(
            rows(&mut s, &format!("SELECT * FROM {name}")).await,
            [r#"{"word":"apple","cnt":1}"#, r#"{"word":"pear","cnt":20}"#],
            "{name}"
        );
        let table = Table::open(
            Rc::new(LocalStore::new(dir.path())),
            &format!("d.db/{name}"),
        )
        .await
        .unwrap();
        let counts: Vec<_> = table
            .snapshots()
            .await
            .unwrap()
            .iter()
            .map(|s| (s.commit_kind, s.changelog_record_count))
            .collect();
        let (append, compact) = (CommitKind::Append, CommitKind::Compact);
        let n = |c: i64| Some(if changelog { c } else { 0 });
        assert_eq!(
            counts,
            [
                (append, Some(0)),
                (compact, n(3)),
                (append, Some(0)),
                (compact, n(2)),
                (append, Some(0)),
                (compact, n(1)),
            ],
            "{name}"
        );
        if !changelog {
            continue;
        }
        let changelog = |range: &str| {
            format!(
                "SELECT * FROM `{name}$audit_log` /*+ OPTIONS('incremental-between' = '{range}', 'incremental-between-scan-mode' = 'changelog') */"
            )
        };
        assert_eq!(
            rows(&mut s, &changelog("0,6")).await,
            [
                r#"{"rowkind":"+I","word":"apple","cnt":1}"#,
                r#"{"rowkind":"+I","word":"pear","cnt":2}"#,
                r#"{"rowkind":"+I","word":"plum","cnt":3}"#,
                r#"{"rowkind":"+U","word":"pear","cnt":20}"#,
                r#"{"rowkind":"-D","word":"plum","cnt":3}"#,
                r#"{"rowkind":"-U","word":"pear","cnt":2}"#,
            ],
            "{name}"
        );
        assert_eq!(
            rows(&mut s, &changelog("5,6")).await,
            [r#"{"rowkind":"-D","word":"plum","cnt":3}"#],
            "{name}"
        );
    }
}
