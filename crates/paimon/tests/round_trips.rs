//! Sequential round trips of opening a table at its latest snapshot, as the browser app does over
//! a static host (listings from the index file, every request one latency): each metadata file
//! is read once, the `LATEST` hint, the newest listed snapshot and the probe after it are read
//! together, planning the latest snapshot of an opened table takes 3 round trips, and opening a
//! table while reading its latest snapshot (a deep link to its data) 3 too.

use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, StringArray};
use lakescope_paimon::commit::{next_sequence_number, CommitOptions};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::spec::TypeKind;
use lakescope_paimon::table::{Snapshots, Table};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::{create_table, write, FixedEnv};
use lakescope_paimon::write_commit::commit_write;
use lakescope_storage::{
    join, CachingStore, IndexedStore, MemoryStore, ObjectMeta, ObjectStore, RequestTrace,
    TracedRequest, TracedStore, INDEX_FILE_NAME,
};
use lakescope_test_support::tables::{batch, string, t};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

const PATH: &str = "db.db/t";

/// A primary-key table with 2 fixed buckets and 3 commits of overlapping keys.
async fn written_table() -> Rc<dyn ObjectStore> {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 7);
    let definition = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
        ],
        primary_keys: vec!["id".into()],
        options: BTreeMap::from([("bucket".into(), "2".into())]),
        ..Default::default()
    };
    create_table(store.as_ref(), PATH, &definition, &env)
        .await
        .unwrap();
    for commit in 0..3i64 {
        let ids: Vec<i64> = (commit * 5..commit * 5 + 10).collect();
        let rows = batch(vec![
            ("id", Arc::new(Int64Array::from(ids.clone())) as ArrayRef),
            (
                "v",
                Arc::new(StringArray::from(
                    ids.iter()
                        .map(|i| format!("{i}@{commit}"))
                        .collect::<Vec<_>>(),
                )),
            ),
            (
                "_VALUE_KIND",
                Arc::new(Int8Array::from(vec![0i8; ids.len()])),
            ),
        ]);
        commit_rows(&store, &env, rows).await;
    }
    store
}

/// Writes `rows` to the table at [`PATH`] and commits them.
async fn commit_rows(store: &Rc<dyn ObjectStore>, env: &FixedEnv, rows: RecordBatch) {
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let seq = next_sequence_number(&table).await.unwrap();
    let message = write(&table, env, &[rows], seq).await.unwrap();
    let options = CommitOptions::for_table(&table, "round-trips").unwrap();
    commit_write(&table, env, options, message, None)
        .await
        .unwrap();
}

/// Every object below `prefix`, for the static host's index file.
async fn all_objects(store: &dyn ObjectStore, prefix: &str) -> Vec<ObjectMeta> {
    let mut out = Vec::new();
    let mut dirs = vec![prefix.to_string()];
    while let Some(dir) = dirs.pop() {
        let listing = store.list_dir(&dir).await.unwrap();
        out.extend(listing.files);
        dirs.extend(listing.dirs.iter().map(|d| join(&dir, d)));
    }
    out
}

/// The app's stack over a static host: an immutable-object cache over the index-listed store,
/// every request traced (and one latency long). The index is loaded (as the catalog listing
/// does) before the trace starts.
async fn app_store(lake: &Rc<dyn ObjectStore>) -> (Rc<dyn ObjectStore>, Rc<RequestTrace>) {
    let index = IndexedStore::<MemoryStore>::render_index(all_objects(lake.as_ref(), "").await);
    lake.put(INDEX_FILE_NAME, index.into()).await.unwrap();
    let trace = Rc::new(RequestTrace::default());
    let traced = TracedStore::new(lake.clone(), trace.clone());
    let store: Rc<dyn ObjectStore> =
        Rc::new(CachingStore::new(IndexedStore::new(traced), 16 << 20));
    store.list_dir("db.db").await.unwrap();
    assert_eq!(trace.round_trips(), 1, "the index file");
    trace.clear();
    (store, trace)
}

/// Reads of objects other than snapshot hints that were sent more than once.
fn repeated_reads(requests: &[TracedRequest]) -> Vec<String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for r in requests.iter().filter(|r| r.operation == "get") {
        *counts.entry(r.path.as_str()).or_default() += 1;
    }
    let mut repeated: Vec<String> = counts
        .into_iter()
        .filter(|(p, n)| *n > 1 && !p.ends_with("/LATEST") && !p.ends_with("/EARLIEST"))
        .map(|(p, _)| p.to_string())
        .collect();
    repeated.sort();
    repeated
}

/// Plans the latest snapshot; the snapshot and the number of manifests read.
async fn plan_latest(table: &Table) -> (Snapshot, usize) {
    let snapshot = table.latest_snapshot().await.unwrap().unwrap();
    let planned = plan(table, &snapshot, &PartitionFilter::All).await.unwrap();
    assert!(planned.file_count() > 0);
    (snapshot, planned.splits.len())
}

#[tokio::test(flavor = "current_thread")]
async fn an_opened_table_plans_its_latest_snapshot_in_three_round_trips() {
    let lake = written_table().await;
    let (store, trace) = app_store(&lake).await;
    // The catalog's badge opened the table already (schema read once).
    let table = Table::open(store.clone(), PATH).await.unwrap();
    assert_eq!(trace.round_trips(), 1, "{:#?}", trace.requests());
    trace.clear();
    let (snapshot, splits) = plan_latest(&table).await;
    assert_eq!((snapshot.id, splits), (3, 2));
    let requests = trace.requests();
    // LATEST with snapshot-3 (the newest the index lists) and the snapshot-4 probe; the
    // manifest lists; the manifests.
    assert_eq!(trace.round_trips(), 3, "{requests:#?}");
    let at = |depth: usize| -> Vec<String> {
        let mut paths: Vec<String> = requests
            .iter()
            .filter(|r| r.depth == depth)
            .map(|r| r.path.rsplit('/').next().unwrap_or_default().to_string())
            .collect();
        paths.sort();
        paths
    };
    assert_eq!(at(1), vec!["LATEST", "snapshot-3", "snapshot-4"]);
    assert!(
        at(2).iter().all(|p| p.starts_with("manifest-list-")),
        "{requests:#?}"
    );
    assert!(
        at(3).iter().all(|p| p.starts_with("manifest-")),
        "{requests:#?}"
    );
    assert!(repeated_reads(&requests).is_empty(), "{requests:#?}");

    // A stale hint costs nothing more: the listing names snapshot 3 (cached now), and only the
    // hint and the probe of 4 are sent.
    lake.put(&format!("{PATH}/snapshot/LATEST"), "2".into())
        .await
        .unwrap();
    trace.clear();
    assert_eq!(table.latest_snapshot().await.unwrap().unwrap().id, 3);
    assert_eq!(trace.round_trips(), 1, "{:#?}", trace.requests());
    assert_eq!(trace.requests().len(), 2, "{:#?}", trace.requests());
    // A listing older than the table's last commits (the index was made at snapshot 3, the
    // hint says 5): one more round trip, from the hint, finds snapshot 5.
    for seed in [8, 9] {
        commit_more(&lake, seed).await;
    }
    trace.clear();
    assert_eq!(table.latest_snapshot().await.unwrap().unwrap().id, 5);
    assert_eq!(trace.round_trips(), 2, "{:#?}", trace.requests());
    // The index names snapshot 3, which expired meanwhile: from the hint.
    lake.delete(&format!("{PATH}/snapshot/snapshot-3"))
        .await
        .unwrap();
    lake.put(&format!("{PATH}/snapshot/LATEST"), "4".into())
        .await
        .unwrap();
    let fresh: Rc<dyn ObjectStore> = Rc::new(CachingStore::new(
        IndexedStore::new(TracedStore::new(lake.clone(), trace.clone())),
        16 << 20,
    ));
    let stale_index = IndexedStore::<MemoryStore>::render_index(vec![ObjectMeta {
        path: format!("{PATH}/snapshot/snapshot-3"),
        size: 1,
    }]);
    lake.put(INDEX_FILE_NAME, stale_index.into()).await.unwrap();
    fresh.list_dir("db.db").await.unwrap();
    let latest = Snapshots::new(fresh.as_ref(), PATH).latest().await.unwrap();
    assert_eq!(latest.unwrap().id, 5);
}

/// One more commit of two rows to the table at [`PATH`] (`seed`: its file names).
async fn commit_more(store: &Rc<dyn ObjectStore>, seed: u64) {
    let env = FixedEnv::new(1_700_000_100_000, seed);
    let rows = batch(vec![
        ("id", Arc::new(Int64Array::from(vec![1i64, 2])) as ArrayRef),
        ("v", Arc::new(StringArray::from(vec!["a", "b"]))),
        ("_VALUE_KIND", Arc::new(Int8Array::from(vec![0i8; 2]))),
    ]);
    commit_rows(store, &env, rows).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_deep_link_opens_the_table_while_reading_its_latest_snapshot() {
    let lake = written_table().await;
    let (store, trace) = app_store(&lake).await;
    // As the Data tab opened by a link: the table (schema) and its latest snapshot together,
    // then the plan.
    let snapshots = Snapshots::new(store.as_ref(), PATH);
    let (table, latest) = futures::join!(Table::open(store.clone(), PATH), snapshots.latest());
    let (table, snapshot) = (table.unwrap(), latest.unwrap().unwrap());
    assert_eq!(snapshot.id, 3);
    assert_eq!(trace.round_trips(), 1, "{:#?}", trace.requests());
    let planned = plan(&table, &snapshot, &PartitionFilter::All)
        .await
        .unwrap();
    assert_eq!(planned.splits.len(), 2);
    let requests = trace.requests();
    // schema-0, LATEST, snapshot-3 and the snapshot-4 probe; manifest lists; manifests.
    assert_eq!(trace.round_trips(), 3, "{requests:#?}");
    assert!(repeated_reads(&requests).is_empty(), "{requests:#?}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_table_opened_at_once_by_several_views_reads_each_file_once() {
    let lake = written_table().await;
    let (store, trace) = app_store(&lake).await;
    // As the app opening a table on its Data tab: the catalog badge, the version picker (all
    // snapshots) and the grid (latest snapshot, planned), each with its own handle.
    let badge = async {
        Table::open(store.clone(), PATH).await.unwrap();
    };
    let versions = async {
        let t = Table::open(store.clone(), PATH).await.unwrap();
        assert_eq!(t.snapshots().await.unwrap().len(), 3);
    };
    let grid = async {
        let t = Table::open(store.clone(), PATH).await.unwrap();
        plan_latest(&t).await
    };
    let ((), (), (snapshot, _)) = futures::join!(badge, versions, grid);
    assert_eq!(snapshot.id, 3);
    let requests = trace.requests();
    assert!(repeated_reads(&requests).is_empty(), "{requests:#?}");
    // The schema; LATEST; the snapshot and the probe; the manifest lists; the manifests.
    assert!(trace.round_trips() <= 5, "{requests:#?}");
}
