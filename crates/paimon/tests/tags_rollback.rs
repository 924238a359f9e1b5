//! Tags and rollback (`sys.create_tag`, `sys.delete_tag`, `sys.rollback_to`): the files they
//! leave, their errors, and that the table reads as the target snapshot afterwards — also on a
//! pypaimon-written corpus table with tags.

use arrow_array::{ArrayRef, Int64Array, StringArray};
use lakescope_paimon::commit::tags::{
    create_tag, delete_tag, parse_duration, rollback_to, RollbackTarget,
};
use lakescope_paimon::spec::TypeKind;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::{FixedEnv, WriteEnv};
use lakescope_paimon::Error;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::copy_dir;
use lakescope_test_support::tables::{batch, create, rows, rows_at, string, t, write_and_commit};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

/// Rows of the table's latest snapshot, read through a fresh handle.
async fn latest_rows(store: &Rc<dyn ObjectStore>, path: &str) -> (i64, Vec<String>) {
    let table = Table::open(store.clone(), path).await.unwrap();
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let r = read_snapshot(&table, Some(&s), &ReadRequest::default())
        .await
        .unwrap();
    (s.id, rows(&r.batches))
}

async fn append(table: &Table, env: &dyn WriteEnv, ids: &[i64]) -> i64 {
    let b = batch(vec![
        ("id", Arc::new(Int64Array::from(ids.to_vec())) as ArrayRef),
        (
            "v",
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ),
    ]);
    write_and_commit(table, env, &[b], None, "tags-test")
        .await
        .1
        .id
}

/// A local append table `db.db/t` with snapshots 1..=3 adding ids {1}, {2}, {3}.
async fn three_snapshots(dir: &Path, env: &FixedEnv) -> (Rc<dyn ObjectStore>, Table) {
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir));
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
        ],
        ..Default::default()
    };
    let table = create(&store, "db.db/t", &def, env).await;
    for i in 1..=3 {
        assert_eq!(append(&table, env, &[i]).await, i);
    }
    (store, table)
}

fn file(dir: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(dir.join("db.db/t").join(rel)).ok()
}

#[tokio::test]
async fn create_list_and_delete_tags() {
    let dir = tempfile::tempdir().unwrap();
    let env = FixedEnv::new(1_700_000_000_000, 11);
    let (_store, table) = three_snapshots(dir.path(), &env).await;

    // Without a retention the tag file is the snapshot's JSON, nothing more.
    let t1 = create_tag(&table, "t1", Some(1), None, &env).await.unwrap();
    assert_eq!(t1.snapshot, table.snapshot(1).await.unwrap());
    let raw: serde_json::Value =
        serde_json::from_str(&file(dir.path(), "tag/tag-t1").unwrap()).unwrap();
    let snap: serde_json::Value =
        serde_json::from_str(&file(dir.path(), "snapshot/snapshot-1").unwrap()).unwrap();
    assert_eq!(raw, snap);

    // Default: the latest snapshot; a retention adds tagCreateTime and tagTimeRetained.
    let clock = env.now_millis() + 1;
    let day = create_tag(
        &table,
        "daily",
        None,
        Some(parse_duration("1 d").unwrap()),
        &env,
    )
    .await
    .unwrap();
    assert_eq!(day.snapshot.id, 3);
    let raw: serde_json::Value =
        serde_json::from_str(&file(dir.path(), "tag/tag-daily").unwrap()).unwrap();
    assert_eq!(raw["id"], 3);
    assert_eq!(raw["tagTimeRetained"].as_f64(), Some(86_400.0));
    // 1_700_000_000_00x ms = 2023-11-14T22:13:20.00x (UTC), as Jackson's LocalDateTime array.
    assert_eq!(
        raw["tagCreateTime"],
        serde_json::json!([
            2023,
            11,
            14,
            22,
            13,
            20,
            (clock - 1_700_000_000_000) * 1_000_000
        ])
    );

    let listed: Vec<(String, i64)> = table
        .tags()
        .await
        .unwrap()
        .into_iter()
        .map(|(n, t)| (n, t.snapshot.id))
        .collect();
    assert_eq!(listed, vec![("daily".into(), 3), ("t1".into(), 1)]);
    assert_eq!(rows_at(&table, t1.snapshot.id).await, vec!["1|v1"]);

    // Errors: existing tag, blank / path-like names, a snapshot that never existed.
    let err = create_tag(&table, "t1", Some(2), None, &env)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("Tag 't1' already exists"), "{err}");
    assert!(err.to_string().contains("db.db/t"), "{err}");
    for bad in ["", "  ", "a/b", ".."] {
        assert!(
            create_tag(&table, bad, None, None, &env).await.is_err(),
            "{bad:?}"
        );
    }
    let err = create_tag(&table, "t9", Some(9), None, &env)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
    assert!(err.to_string().contains("snapshot #9"), "{err}");
    assert_eq!(file(dir.path(), "tag/tag-t9"), None);

    // Deleting returns the tag; deleting again is a no-op, as in Java.
    assert_eq!(
        delete_tag(&table, "t1")
            .await
            .unwrap()
            .map(|t| t.snapshot.id),
        Some(1)
    );
    assert!(delete_tag(&table, "t1").await.unwrap().is_none());
    assert_eq!(file(dir.path(), "tag/tag-t1"), None);
    assert_eq!(table.tags().await.unwrap().len(), 1);
}

#[tokio::test]
async fn table_option_sets_the_default_retention() {
    let dir = tempfile::tempdir().unwrap();
    let env = FixedEnv::new(1_700_000_000_000, 12);
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let def = TableDefinition {
        columns: vec![("id".into(), t(TypeKind::BigInt), None)],
        options: [("tag.default-time-retained".to_string(), "2 h".to_string())].into(),
        ..Default::default()
    };
    let table = create(&store, "db.db/t", &def, &env).await;
    let b = batch(vec![(
        "id",
        Arc::new(Int64Array::from(vec![1])) as ArrayRef,
    )]);
    write_and_commit(&table, &env, &[b], None, "u").await;
    let tag = create_tag(&table, "x", None, None, &env).await.unwrap();
    assert_eq!(
        tag.tag_time_retained.and_then(|v| v.as_f64()),
        Some(7_200.0)
    );
    assert!(tag.tag_create_time.is_some());
    // A table without snapshots has nothing to tag.
    let def = TableDefinition {
        columns: vec![("id".into(), t(TypeKind::BigInt), None)],
        ..Default::default()
    };
    let empty = create(&store, "db.db/empty", &def, &env).await;
    let err = create_tag(&empty, "x", None, None, &env).await.unwrap_err();
    assert!(
        err.to_string().contains("latest snapshot doesn't exist"),
        "{err}"
    );
}

#[tokio::test]
async fn rollback_to_snapshot_removes_newer_snapshots_and_tags() {
    let dir = tempfile::tempdir().unwrap();
    let env = FixedEnv::new(1_700_000_000_000, 13);
    let (store, table) = three_snapshots(dir.path(), &env).await;
    for (name, id) in [("a", 1), ("b", 2), ("c", 3), ("c2", 3)] {
        create_tag(&table, name, Some(id), None, &env)
            .await
            .unwrap();
    }
    let before = rows_at(&table, 2).await;
    // Long-lived changelogs (changelog.num-retained.*) newer than the target go too.
    let changelog = dir.path().join("db.db/t/changelog");
    std::fs::create_dir_all(&changelog).unwrap();
    for id in 1..=3 {
        std::fs::copy(
            dir.path().join(format!("db.db/t/snapshot/snapshot-{id}")),
            changelog.join(format!("changelog-{id}")),
        )
        .unwrap();
    }
    std::fs::write(changelog.join("LATEST"), "3").unwrap();

    let rb = rollback_to(&table, RollbackTarget::Snapshot(2))
        .await
        .unwrap();
    assert_eq!(file(dir.path(), "changelog/changelog-3"), None);
    assert!(file(dir.path(), "changelog/changelog-2").is_some());
    assert_eq!(file(dir.path(), "changelog/LATEST").as_deref(), Some("2"));
    assert_eq!(rb.snapshot.id, 2);
    assert_eq!(rb.removed_snapshots, vec![3]);
    assert_eq!(rb.removed_tags, vec!["c".to_string(), "c2".to_string()]);
    assert!(!rb.recreated);
    assert_eq!(file(dir.path(), "snapshot/snapshot-3"), None);
    assert_eq!(file(dir.path(), "snapshot/LATEST").as_deref(), Some("2"));
    assert_eq!(latest_rows(&store, "db.db/t").await, (2, before.clone()));
    let tags: Vec<String> = table
        .tags()
        .await
        .unwrap()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(tags, vec!["a", "b"]);

    // The next commit is snapshot 3 again, on top of snapshot 2's data only.
    assert_eq!(append(&table, &env, &[30]).await, 3);
    assert_eq!(
        latest_rows(&store, "db.db/t").await,
        (3, vec!["1|v1".into(), "2|v2".into(), "30|v30".into()])
    );

    // Rolling back to a tag; unknown targets fail and change nothing.
    let rb = rollback_to(&table, RollbackTarget::Tag("a".into()))
        .await
        .unwrap();
    assert_eq!(rb.removed_snapshots, vec![3, 2]);
    assert_eq!(rb.removed_tags, vec!["b".to_string()]);
    assert_eq!(
        latest_rows(&store, "db.db/t").await,
        (1, vec!["1|v1".into()])
    );
    let err = rollback_to(&table, RollbackTarget::Snapshot(7))
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("Rollback snapshot '7' doesn't exist"),
        "{err}"
    );
    let err = rollback_to(&table, RollbackTarget::Tag("zz".into()))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("Rollback tag 'zz' doesn't exist"),
        "{err}"
    );
    assert_eq!(table.latest_snapshot_id().await.unwrap(), Some(1));
}

#[tokio::test]
async fn rollback_to_an_expired_tagged_snapshot_recreates_it() {
    let dir = tempfile::tempdir().unwrap();
    let env = FixedEnv::new(1_700_000_000_000, 14);
    let (store, table) = three_snapshots(dir.path(), &env).await;
    create_tag(
        &table,
        "first",
        Some(1),
        Some(Duration::from_secs(60)),
        &env,
    )
    .await
    .unwrap();
    let tagged_rows = rows_at(&table, 1).await;
    // Expire snapshot 1 the way Paimon does: delete the file, move EARLIEST.
    std::fs::remove_file(dir.path().join("db.db/t/snapshot/snapshot-1")).unwrap();
    std::fs::write(dir.path().join("db.db/t/snapshot/EARLIEST"), "2").unwrap();

    // An expired snapshot is still taggable through the tag that keeps it (Java's findSnapshot);
    // an expired untagged one is not.
    create_tag(&table, "again", Some(1), None, &env)
        .await
        .unwrap();
    std::fs::remove_file(dir.path().join("db.db/t/snapshot/snapshot-2")).unwrap();
    assert!(create_tag(&table, "gone", Some(2), None, &env)
        .await
        .is_err());

    // rollback_to(snapshot 1) finds it through a tag and recreates it.
    let rb = rollback_to(&table, RollbackTarget::Snapshot(1))
        .await
        .unwrap();
    assert!(rb.recreated);
    assert_eq!(rb.removed_snapshots, vec![3]);
    assert_eq!(file(dir.path(), "snapshot/EARLIEST").as_deref(), Some("1"));
    assert_eq!(file(dir.path(), "snapshot/LATEST").as_deref(), Some("1"));
    // The recreated snapshot is the tagged snapshot without the tag fields.
    let recreated = file(dir.path(), "snapshot/snapshot-1").unwrap();
    assert!(!recreated.contains("tagCreateTime"), "{recreated}");
    assert_eq!(
        table.snapshot(1).await.unwrap(),
        table.tag("first").await.unwrap().snapshot
    );
    assert_eq!(latest_rows(&store, "db.db/t").await, (1, tagged_rows));
    assert_eq!(table.snapshot_ids().await.unwrap(), vec![1]);
}

#[tokio::test]
async fn pypaimon_tags_read_and_roll_back() {
    let src = Path::new(CORPUS).join("paimon/warehouse/corpus.db/tagged");
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&src, &dir.path().join("corpus.db/tagged"));
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let table = Table::open(store.clone(), "corpus.db/tagged")
        .await
        .unwrap();
    let tags = table.tags().await.unwrap();
    let names: Vec<&str> = tags.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, vec!["v1", "v2"]);
    let v1 = tags[0].1.snapshot.id;
    let expected = rows_at(&table, v1).await;
    assert!(!expected.is_empty());
    // Our tag of the same snapshot holds the same snapshot as pypaimon's.
    let env = FixedEnv::new(1_800_000_000_000, 15);
    let ours = create_tag(&table, "ours", Some(v1), None, &env)
        .await
        .unwrap();
    assert_eq!(ours.snapshot, tags[0].1.snapshot);
    let rb = rollback_to(&table, RollbackTarget::Tag("v1".into()))
        .await
        .unwrap();
    assert_eq!(rb.snapshot.id, v1);
    assert_eq!(
        latest_rows(&store, "corpus.db/tagged").await,
        (v1, expected)
    );
}
