//! Metadata and scan planning over the real Paimon tables of ../shared/corpus (pypaimon 2.1, Java 0.9).

use lakescope_paimon::scan::{plan, plan_delta, PartitionFilter};
use lakescope_paimon::spec::{CommitKind, Datum};
use lakescope_paimon::table::Table;
use lakescope_paimon::Error;
use lakescope_storage::{LocalStore, ObjectStore};
use std::path::{Path, PathBuf};
use std::rc::Rc;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

fn warehouse() -> PathBuf {
    Path::new(CORPUS).join("paimon/warehouse")
}

/// Every `<db>.db/<table>` of the corpus warehouse.
fn all_tables() -> Vec<String> {
    let mut out = Vec::new();
    for db in ["corpus.db", "java09.db"] {
        let mut names: Vec<String> = std::fs::read_dir(warehouse().join(db))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        out.extend(names.into_iter().map(|n| format!("{db}/{n}")));
    }
    out
}

fn store_at(root: &Path) -> Rc<dyn ObjectStore> {
    Rc::new(LocalStore::new(root))
}

async fn open(table: &str) -> Table {
    Table::open(store_at(&warehouse()), table).await.unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Copies `db/table` into a temp warehouse and returns (tempdir guard, warehouse root).
fn copy_table(table: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("warehouse");
    copy_dir(&warehouse().join(table), &root.join(table));
    (dir, root)
}

#[tokio::test(flavor = "current_thread")]
async fn every_snapshot_of_every_table_plans_to_its_record_count() {
    let tables = all_tables();
    assert_eq!(tables.len(), 23, "{tables:?}");
    let mut checked_counts = 0;
    let mut data_files = 0;
    for name in &tables {
        let table = open(name).await;
        let snapshots = table.snapshots().await.unwrap();
        assert!(!snapshots.is_empty(), "{name}");
        let ids: Vec<i64> = snapshots.iter().map(|s| s.id).collect();
        let expected: Vec<i64> = (1..=ids.len() as i64).collect();
        assert_eq!(ids, expected, "{name}: snapshot ids");
        assert_eq!(
            table.latest_snapshot().await.unwrap().unwrap().id,
            *ids.last().unwrap()
        );
        assert_eq!(
            table.earliest_snapshot_id().await.unwrap(),
            Some(1),
            "{name}"
        );
        for snapshot in &snapshots {
            let schema = table.schema(snapshot.schema_id).await.unwrap();
            assert_eq!(schema.id, snapshot.schema_id);
            let p = plan(&table, snapshot, &PartitionFilter::All).await.unwrap();
            assert_eq!(p.snapshot_id, snapshot.id);
            if let Some(total) = snapshot.total_record_count {
                assert_eq!(p.row_count(), total, "{name} snapshot {}", snapshot.id);
                checked_counts += 1;
            }
            for split in &p.splits {
                assert_eq!(split.partition.len(), schema.partition_keys.len(), "{name}");
                for file in &split.files {
                    // The computed key must name a file that exists on disk.
                    let key = table
                        .data_file_path(&split.partition, split.bucket, file)
                        .unwrap();
                    let on_disk = warehouse().join(&key);
                    assert!(on_disk.is_file(), "{name}: {key} missing");
                    assert_eq!(
                        std::fs::metadata(&on_disk).unwrap().len() as i64,
                        file.file_size,
                        "{key}"
                    );
                    data_files += 1;
                }
                for dv in split.deletion_files.values() {
                    let len = std::fs::metadata(warehouse().join(&dv.index_file_path))
                        .unwrap()
                        .len() as i64;
                    assert!(dv.offset + dv.length <= len, "{name}: {dv:?}");
                }
                let levels: Vec<i32> = split.files.iter().map(|f| f.level).collect();
                assert!(
                    levels.windows(2).all(|w| w[0] <= w[1]),
                    "{name}: files not sorted by level"
                );
            }
            let parts: Vec<(&Vec<Datum>, i32)> =
                p.splits.iter().map(|s| (&s.partition, s.bucket)).collect();
            assert!(
                parts.windows(2).all(|w| {
                    let o = w[0]
                        .0
                        .iter()
                        .zip(w[1].0)
                        .map(|(a, b)| a.total_cmp(b))
                        .find(|o| o.is_ne())
                        .unwrap_or(std::cmp::Ordering::Equal);
                    o.is_lt() || (o.is_eq() && w[0].1 < w[1].1)
                }),
                "{name}: splits not sorted"
            );
            // The delta of a snapshot accounts for its deltaRecordCount.
            let d = plan_delta(&table, snapshot).await.unwrap();
            if let Some(delta) = snapshot.delta_record_count {
                let added: i64 = d.added.iter().map(|s| s.row_count()).sum();
                let deleted: i64 = d.deleted.iter().map(|s| s.row_count()).sum();
                assert_eq!(
                    added - deleted,
                    delta,
                    "{name} delta of snapshot {}",
                    snapshot.id
                );
            }
        }
    }
    assert!(
        checked_counts >= 60,
        "only {checked_counts} snapshots had totalRecordCount"
    );
    assert!(data_files > 100, "{data_files}");
}

#[tokio::test(flavor = "current_thread")]
async fn partitions_come_from_binary_rows() {
    let table = open("corpus.db/pk_dedup").await;
    let snap = table.snapshot(5).await.unwrap();
    let p = plan(&table, &snap, &PartitionFilter::All).await.unwrap();
    let parts: Vec<String> = p
        .splits
        .iter()
        .map(|s| format!("{}/{}", s.partition[0], s.bucket))
        .collect();
    assert_eq!(
        parts,
        [
            "2024-03-01/0",
            "2024-03-01/1",
            "2024-03-02/0",
            "2024-03-02/1",
            "2024-03-03/0"
        ]
    );
    assert!(p.splits.iter().all(|s| s.total_buckets == Some(2)));
    let filter = PartitionFilter::Eq(vec![("dt".into(), Datum::String("2024-03-02".into()))]);
    let only = plan(&table, &snap, &filter).await.unwrap();
    assert_eq!(only.splits.len(), 2);
    assert!(only
        .splits
        .iter()
        .all(|s| s.partition == [Datum::String("2024-03-02".into())]));
    let bad = PartitionFilter::Eq(vec![("id".into(), Datum::Int(1))]);
    assert!(matches!(
        plan(&table, &snap, &bad).await,
        Err(Error::Invalid(_))
    ));
    // Trimmed primary key: pk (dt, id) minus partition dt.
    assert_eq!(
        table.current_schema().trimmed_primary_keys(),
        vec!["id".to_string()]
    );
}

#[tokio::test(flavor = "current_thread")]
async fn java_compaction_and_deletion_vectors() {
    let table = open("java09.db/pk_compacted").await;
    let s4 = table.snapshot(4).await.unwrap();
    assert_eq!(s4.commit_kind, CommitKind::Compact);
    let p = plan(&table, &s4, &PartitionFilter::All).await.unwrap();
    assert!(p.splits.iter().flat_map(|s| &s.files).all(|f| f.level == 5));
    let p6 = plan(
        &table,
        &table.snapshot(6).await.unwrap(),
        &PartitionFilter::All,
    )
    .await
    .unwrap();
    assert!(p6
        .splits
        .iter()
        .flat_map(|s| &s.files)
        .any(|f| f.level == 0));
    // Java 0.9 manifests lack the pypaimon 2.x fields.
    let f = &p6.splits[0].files[0];
    assert_eq!(f.value_stats_cols, None);
    assert_eq!(f.external_path, None);
    assert!(f.creation_time.is_some());

    let dv = open("java09.db/pk_deletion_vectors").await;
    let s8 = dv.snapshot(8).await.unwrap();
    assert!(s8.index_manifest.is_some());
    let p = plan(&dv, &s8, &PartitionFilter::All).await.unwrap();
    let dvs: Vec<_> = p
        .splits
        .iter()
        .flat_map(|s| s.deletion_files.values())
        .collect();
    assert!(!dvs.is_empty());
    assert!(dvs.iter().all(|d| d
        .index_file_path
        .starts_with("java09.db/pk_deletion_vectors/index/index-")));

    let rt = open("corpus.db/append_dv_row_tracking").await;
    let s3 = rt.snapshot(3).await.unwrap();
    let p = plan(&rt, &s3, &PartitionFilter::All).await.unwrap();
    let mut cards: Vec<i64> = p
        .splits
        .iter()
        .flat_map(|s| s.deletion_files.values())
        .map(|d| d.cardinality.unwrap())
        .collect();
    cards.sort();
    assert_eq!(cards, vec![1, 2], "DELETE WHERE id IN (1,2,11)");
    assert!(p
        .splits
        .iter()
        .flat_map(|s| &s.files)
        .all(|f| f.first_row_id.is_some()));
    let s2 = rt.snapshot(2).await.unwrap();
    let p2 = plan(&rt, &s2, &PartitionFilter::All).await.unwrap();
    assert!(p2.splits.iter().all(|s| s.deletion_files.is_empty()));
}

#[tokio::test(flavor = "current_thread")]
async fn tags_resolve() {
    let table = open("corpus.db/tagged").await;
    let tags = table.tags().await.unwrap();
    let names: Vec<(&str, i64)> = tags
        .iter()
        .map(|(n, t)| (n.as_str(), t.snapshot.id))
        .collect();
    assert_eq!(names, [("v1", 1), ("v2", 2)]);
    let v1 = table.tag("v1").await.unwrap();
    let from_tag = plan(&table, &v1.snapshot, &PartitionFilter::All)
        .await
        .unwrap();
    assert_eq!(from_tag.row_count(), 3);
    let from_snapshot = plan(
        &table,
        &table.snapshot(1).await.unwrap(),
        &PartitionFilter::All,
    )
    .await
    .unwrap();
    assert_eq!(from_tag, from_snapshot);
    assert!(matches!(table.tag("v3").await, Err(Error::NotFound { .. })));
    // The tag stays readable after its snapshot expired.
    let (_dir, root) = copy_table("corpus.db/tagged");
    std::fs::remove_file(root.join("corpus.db/tagged/snapshot/snapshot-1")).unwrap();
    let copy = Table::open(store_at(&root), "corpus.db/tagged")
        .await
        .unwrap();
    assert!(matches!(
        copy.snapshot(1).await,
        Err(Error::NotFound { .. })
    ));
    assert_eq!(copy.earliest_snapshot_id().await.unwrap(), Some(2));
    let v1 = copy.tag("v1").await.unwrap();
    assert_eq!(
        plan(&copy, &v1.snapshot, &PartitionFilter::All)
            .await
            .unwrap()
            .row_count(),
        3
    );
}

#[tokio::test(flavor = "current_thread")]
async fn time_travel_by_timestamp() {
    let table = open("corpus.db/pk_dedup").await;
    let snaps = table.snapshots().await.unwrap();
    for s in &snaps {
        let got = table
            .snapshot_at_or_before_timestamp(s.time_millis)
            .await
            .unwrap()
            .unwrap();
        // Snapshots committed in the same millisecond: the latest of them wins.
        assert!(
            got.id >= s.id && got.time_millis == s.time_millis,
            "{} -> {}",
            s.id,
            got.id
        );
    }
    let first = snaps[0].time_millis;
    assert_eq!(
        table
            .snapshot_at_or_before_timestamp(first - 1)
            .await
            .unwrap(),
        None
    );
    let last = table
        .snapshot_at_or_before_timestamp(i64::MAX)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(last.id, 5);
}

#[tokio::test(flavor = "current_thread")]
async fn snapshot_hints_are_only_hints() {
    // pypaimon writes no EARLIEST hint.
    let table = open("corpus.db/pk_dedup").await;
    assert!(!warehouse()
        .join("corpus.db/pk_dedup/snapshot/EARLIEST")
        .exists());
    assert_eq!(table.earliest_snapshot_id().await.unwrap(), Some(1));

    let (_dir, root) = copy_table("corpus.db/pk_dedup");
    let snap_dir = root.join("corpus.db/pk_dedup/snapshot");
    let latest = || async {
        let t = Table::open(store_at(&root), "corpus.db/pk_dedup")
            .await
            .unwrap();
        (
            t.latest_snapshot().await.unwrap().unwrap().id,
            t.earliest_snapshot_id().await.unwrap(),
        )
    };
    for hint in ["2", "garbage", "", "-3", "999", "5\n"] {
        std::fs::write(snap_dir.join("LATEST"), hint).unwrap();
        std::fs::write(snap_dir.join("EARLIEST"), hint).unwrap();
        assert_eq!(latest().await, (5, Some(1)), "hint {hint:?}");
    }
    std::fs::remove_file(snap_dir.join("LATEST")).unwrap();
    assert_eq!(latest().await.0, 5);
    // Expire snapshots 1-2 behind a stale EARLIEST.
    std::fs::write(snap_dir.join("EARLIEST"), "1").unwrap();
    std::fs::remove_file(snap_dir.join("snapshot-1")).unwrap();
    std::fs::remove_file(snap_dir.join("snapshot-2")).unwrap();
    assert_eq!(latest().await, (5, Some(3)));
}

#[tokio::test(flavor = "current_thread")]
async fn truncated_manifest_is_an_error_naming_it() {
    let (_dir, root) = copy_table("corpus.db/pk_dedup");
    let table = Table::open(store_at(&root), "corpus.db/pk_dedup")
        .await
        .unwrap();
    let snap = table.snapshot(5).await.unwrap();
    let list = table
        .manifest_list(&snap.delta_manifest_list)
        .await
        .unwrap();
    let victim = list[0].file_name.clone();
    let path = root.join("corpus.db/pk_dedup/manifest").join(&victim);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    // A fresh handle (no cached manifests).
    let table = Table::open(store_at(&root), "corpus.db/pk_dedup")
        .await
        .unwrap();
    let err = plan(&table, &snap, &PartitionFilter::All)
        .await
        .unwrap_err();
    match &err {
        Error::Corrupt { file, .. } => assert!(file.ends_with(&victim), "{err}"),
        other => panic!("expected Corrupt, got {other}"),
    }
    // A truncated manifest list too (fresh handle: lists are cached).
    let list_path = root
        .join("corpus.db/pk_dedup/manifest")
        .join(&snap.base_manifest_list);
    let list_bytes = std::fs::read(&list_path).unwrap();
    std::fs::write(&list_path, b"Obj\x01").unwrap();
    let table = Table::open(store_at(&root), "corpus.db/pk_dedup")
        .await
        .unwrap();
    let err = plan(&table, &snap, &PartitionFilter::All)
        .await
        .unwrap_err();
    match &err {
        Error::Corrupt { file, .. } => assert!(file.ends_with(&snap.base_manifest_list), "{err}"),
        other => panic!("expected Corrupt, got {other}"),
    }
    // A missing manifest is NotFound naming it.
    std::fs::write(&list_path, list_bytes).unwrap();
    std::fs::remove_file(&path).unwrap();
    let table = Table::open(store_at(&root), "corpus.db/pk_dedup")
        .await
        .unwrap();
    let err = plan(&table, &snap, &PartitionFilter::All)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::NotFound { .. }) && err.to_string().contains(&victim),
        "{err}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn schemas_and_options() {
    let table = open("corpus.db/schema_evolution").await;
    let schemas = table.schemas().await.unwrap();
    assert_eq!(
        schemas.iter().map(|s| s.id).collect::<Vec<_>>(),
        [0, 1, 2, 3, 4, 5]
    );
    assert_eq!(table.latest_schema().await.unwrap().id, 5);
    assert_eq!(table.current_schema().id, 5);
    // The re-added `extra` has a new field id.
    let old = schemas[1].field("extra").unwrap().id;
    let new = schemas[5].field("extra").unwrap().id;
    assert_ne!(old, new);

    let agg = open("corpus.db/pk_aggregation").await;
    let o = agg.options();
    assert_eq!(o.bucket().unwrap(), 2);
    assert_eq!(
        o.merge_engine().unwrap(),
        lakescope_paimon::spec::MergeEngine::Aggregation
    );
    assert_eq!(
        o.field_option("tags", "aggregate-function"),
        Some("listagg")
    );
    let avro = open("corpus.db/pk_dedup_avro").await;
    assert_eq!(avro.options().file_format(), "avro");
    assert_eq!(avro.options().rowkind_field().as_deref(), Some("op"));
    let fb = open("corpus.db/append_fixed_bucket").await;
    assert_eq!(fb.options().bucket_key(), vec!["id"]);
    assert_eq!(fb.options().file_compression(), "gzip");
}

/// A store whose reads each wait once before answering (as a network store's do), counting them.
struct SlowReads {
    inner: LocalStore,
    reads: std::cell::Cell<usize>,
}

#[async_trait::async_trait(?Send)]
impl ObjectStore for SlowReads {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    async fn get(&self, path: &str) -> lakescope_storage::Result<bytes::Bytes> {
        self.reads.set(self.reads.get() + 1);
        tokio::task::yield_now().await;
        self.inner.get(path).await
    }
    async fn get_range(
        &self,
        path: &str,
        range: std::ops::Range<u64>,
    ) -> lakescope_storage::Result<bytes::Bytes> {
        self.inner.get_range(path, range).await
    }
    async fn head(&self, path: &str) -> lakescope_storage::Result<lakescope_storage::ObjectMeta> {
        self.inner.head(path).await
    }
    async fn list_dir(
        &self,
        prefix: &str,
    ) -> lakescope_storage::Result<lakescope_storage::Listing> {
        self.inner.list_dir(prefix).await
    }
    async fn put(&self, path: &str, data: bytes::Bytes) -> lakescope_storage::Result<()> {
        self.inner.put(path, data).await
    }
    async fn put_if_absent(
        &self,
        path: &str,
        data: bytes::Bytes,
    ) -> lakescope_storage::Result<lakescope_storage::PutOutcome> {
        self.inner.put_if_absent(path, data).await
    }
    async fn delete(&self, path: &str) -> lakescope_storage::Result<()> {
        self.inner.delete(path).await
    }
}

#[tokio::test(flavor = "current_thread")]
async fn concurrent_reads_of_one_manifest_share_one_read_and_decoding() {
    let store = Rc::new(SlowReads {
        inner: LocalStore::new(warehouse()),
        reads: std::cell::Cell::new(0),
    });
    let t = Table::open(store.clone(), "corpus.db/pk_dedup")
        .await
        .unwrap();
    let snapshot = t.latest_snapshot().await.unwrap().unwrap();
    let name = &snapshot.base_manifest_list;
    let before = store.reads.get();
    let (a, b) = futures::join!(t.manifest_list(name), t.manifest_list(name));
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(store.reads.get() - before, 1, "one read of {name}");
    assert!(Rc::ptr_eq(&a, &b), "one decoding");
    assert!(!a.is_empty());
    // Read again later: from the cache.
    let c = t.manifest_list(name).await.unwrap();
    assert!(Rc::ptr_eq(&a, &c));
    assert_eq!(store.reads.get() - before, 1);

    // A manifest that cannot be read fails each reader, and is tried again by the next one.
    let missing = "manifest-list-missing-0";
    let (x, y) = futures::join!(t.manifest_list(missing), t.manifest_list(missing));
    assert!(matches!(x, Err(Error::NotFound { .. })), "{x:?}");
    assert!(matches!(y, Err(Error::NotFound { .. })), "{y:?}");
    let reads = store.reads.get();
    assert!(t.manifest_list(missing).await.is_err());
    assert_eq!(store.reads.get(), reads + 1);
}
