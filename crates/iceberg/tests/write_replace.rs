//! Writes that take files out, read back through the crate's own reader at every snapshot:
//! INSERT OVERWRITE (dynamic partition replace, whole unpartitioned table), copy-on-write
//! DELETE/UPDATE rewrites (also over equality deletes), upserts by identifier fields, and the
//! conflict of two rewrites of one file.

use arrow_array::{Array, BooleanArray, Int64Array, RecordBatch};
use arrow_select::filter::filter_record_batch;
use lakescope_iceberg::read::DeleteCache;
use lakescope_iceberg::spec::transform::Transform;
use lakescope_iceberg::write::{append, overwrite, upsert, IcebergTableDefinition, LiveFiles};
use lakescope_iceberg::{Error, SnapshotSelector, Table};
use std::collections::BTreeMap;

mod common;
use common::*;

fn kinds_def(partitioned: bool) -> IcebergTableDefinition {
    IcebergTableDefinition {
        columns: vec![col("id", bigint()), col("kind", string())],
        partition: if partitioned {
            vec![("kind".into(), Transform::Identity)]
        } else {
            Vec::new()
        },
        ..Default::default()
    }
}

fn kinds(ids: &[i64], kinds: &[&str]) -> RecordBatch {
    batch(vec![("id", longs(ids)), ("kind", strings(kinds))])
}

fn summary(t: &Table) -> BTreeMap<String, String> {
    t.metadata().current_snapshot().unwrap().summary.clone()
}

fn at(t: &Table) -> SnapshotSelector {
    SnapshotSelector::Id(t.metadata().current_snapshot_id.unwrap())
}

/// Copy-on-write DELETE of the rows whose `id` column (first) is in `ids`.
async fn delete_ids(t: &Table, ids: &[i64], w: &Warehouse) -> Result<Table, Error> {
    let mut cache = DeleteCache::default();
    let live = LiveFiles::of(t).await?;
    let mut removed = Vec::new();
    let mut kept = Vec::new();
    for task in &live.tasks {
        let mut hit = false;
        let mut rows = Vec::new();
        for b in live.read(task, &mut cache).await? {
            let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            let keep: BooleanArray = (0..b.num_rows())
                .map(|i| Some(id.is_null(i) || !ids.contains(&id.value(i))))
                .collect();
            hit |= keep.true_count() < b.num_rows();
            rows.push(filter_record_batch(&b, &keep).unwrap());
        }
        if hit {
            removed.push(task);
            kept.extend(rows);
        }
    }
    live.replace(&removed, &kept, &w.env).await
}

#[tokio::test(flavor = "current_thread")]
async fn overwrite_replaces_the_partitions_it_writes() {
    let w = Warehouse::new();
    let t = w.create("db", "p", kinds_def(true)).await;
    let t1 = append(&t, &[kinds(&[1, 2, 3], &["a", "b", "a"])], &w.env)
        .await
        .unwrap();
    let t2 = overwrite(&t1, &[kinds(&[10, 11], &["a", "c"])], &w.env)
        .await
        .unwrap();
    assert_eq!(
        rows(&t2, SnapshotSelector::Current).await,
        ["10|a", "11|c", "2|b"]
    );
    assert_eq!(rows(&t2, at(&t1)).await, ["1|a", "2|b", "3|a"]);
    let s = summary(&t2);
    assert_eq!(s["operation"], "overwrite");
    assert_eq!(s["deleted-data-files"], "1");
    assert_eq!(s["deleted-records"], "2");
    assert_eq!(s["total-records"], "3");
    assert_eq!(s["total-data-files"], "3");
    // No rows: nothing replaced, no snapshot.
    let same = overwrite(&t2, &[kinds(&[], &[])], &w.env).await.unwrap();
    assert_eq!(
        same.metadata().current_snapshot_id,
        t2.metadata().current_snapshot_id
    );
}

#[tokio::test(flavor = "current_thread")]
async fn overwrite_of_an_unpartitioned_table_replaces_it_whole() {
    let w = Warehouse::new();
    let t = w.create("db", "u", kinds_def(false)).await;
    let t1 = append(&t, &[kinds(&[1], &["a"])], &w.env).await.unwrap();
    let t2 = append(&t1, &[kinds(&[2], &["b"])], &w.env).await.unwrap();
    let t3 = overwrite(&t2, &[kinds(&[3], &["c"])], &w.env)
        .await
        .unwrap();
    assert_eq!(rows(&t3, SnapshotSelector::Current).await, ["3|c"]);
    assert_eq!(rows(&t3, at(&t2)).await, ["1|a", "2|b"]);
    assert_eq!(summary(&t3)["deleted-data-files"], "2");
    assert_eq!(summary(&t3)["total-data-files"], "1");
}

#[tokio::test(flavor = "current_thread")]
async fn overwrite_is_refused_on_upsert_tables() {
    let w = Warehouse::new();
    let mut def = kinds_def(false);
    def.identifier_fields = vec!["id".into()];
    def.properties = BTreeMap::from([("write.upsert.enabled".into(), "true".into())]);
    let t = w.create("db", "k", def).await;
    let err = overwrite(&t, &[kinds(&[1], &["a"])], &w.env)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("OVERWRITE mode"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn delete_rewrites_only_the_files_it_touches() {
    let w = Warehouse::new();
    let t = w.create("db", "d", kinds_def(true)).await;
    let t1 = append(&t, &[kinds(&[1, 2, 3], &["a", "b", "a"])], &w.env)
        .await
        .unwrap();
    let t2 = delete_ids(&t1, &[3], &w).await.unwrap();
    assert_eq!(rows(&t2, SnapshotSelector::Current).await, ["1|a", "2|b"]);
    assert_eq!(rows(&t2, at(&t1)).await, ["1|a", "2|b", "3|a"]);
    let s = summary(&t2);
    assert_eq!(s["operation"], "overwrite");
    assert_eq!(s["deleted-data-files"], "1");
    assert_eq!(s["added-data-files"], "1");
    assert_eq!(s["total-records"], "2");
    // Every row of a file gone: a pure delete.
    let t3 = delete_ids(&t2, &[1], &w).await.unwrap();
    assert_eq!(rows(&t3, SnapshotSelector::Current).await, ["2|b"]);
    assert_eq!(summary(&t3)["operation"], "delete");
    assert_eq!(summary(&t3)["total-data-files"], "1");
    // Nothing matches: no snapshot.
    let t4 = delete_ids(&t3, &[99], &w).await.unwrap();
    assert_eq!(
        t4.metadata().current_snapshot_id,
        t3.metadata().current_snapshot_id
    );
}

#[tokio::test(flavor = "current_thread")]
async fn delete_over_equality_deletes_and_update_by_key() {
    let w = Warehouse::new();
    let mut def = kinds_def(false);
    def.identifier_fields = vec!["id".into()];
    def.properties = BTreeMap::from([("write.upsert.enabled".into(), "true".into())]);
    let t = w.create("db", "k", def).await;
    let t1 = append(&t, &[kinds(&[1, 2], &["a", "b"])], &w.env)
        .await
        .unwrap();
    let t2 = append(&t1, &[kinds(&[1], &["a2"])], &w.env).await.unwrap();
    // The first file is rewritten with the upsert's delete applied; the delete file stays but
    // no longer applies to the rewritten rows (their sequence number is newer).
    let t3 = delete_ids(&t2, &[2], &w).await.unwrap();
    assert_eq!(rows(&t3, SnapshotSelector::Current).await, ["1|a2"]);
    assert_eq!(rows(&t3, at(&t2)).await, ["1|a2", "2|b"]);
    // UPDATE on a table with identifier fields: equality delete of the key + the new row.
    let t4 = upsert(&t3, &[kinds(&[1], &["a3"])], &w.env).await.unwrap();
    assert_eq!(rows(&t4, SnapshotSelector::Current).await, ["1|a3"]);
    assert_eq!(summary(&t4)["added-equality-deletes"], "1");
}

#[tokio::test(flavor = "current_thread")]
async fn upsert_needs_identifier_fields() {
    let w = Warehouse::new();
    let t = w.create("db", "n", kinds_def(false)).await;
    let err = upsert(&t, &[kinds(&[1], &["a"])], &w.env)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("Equality field columns"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn two_rewrites_of_one_file_conflict() {
    let w = Warehouse::new();
    let t = w.create("db", "c", kinds_def(false)).await;
    let t1 = append(&t, &[kinds(&[1, 2], &["a", "b"])], &w.env)
        .await
        .unwrap();
    let slow = LiveFiles::of(&t1).await.unwrap();
    let fast = delete_ids(&t1, &[1], &w).await.unwrap();
    let task = &slow.tasks[0];
    let rows_left = slow.read(task, &mut DeleteCache::default()).await.unwrap();
    let err = slow.replace(&[task], &rows_left, &w.env).await.unwrap_err();
    assert!(matches!(err, Error::Conflict { .. }), "{err}");
    assert_eq!(rows(&fast, SnapshotSelector::Current).await, ["2|b"]);
    let latest = Table::open(w.store.clone(), fast.key()).await.unwrap();
    assert_eq!(
        latest.metadata().current_snapshot_id,
        fast.metadata().current_snapshot_id
    );
}
