//! What the app keeps open over a catalog (`lakescope_engine::open_tables::OpenTables`): shared
//! and bounded table handles, formats decided once, latest-snapshot reads shared for two seconds,
//! the prefetch that plans a table's manifests before its views ask, and the Data tab's read
//! through `Table::scan` and the Snapshots tab's tags through `Table`, natively, counting the
//! requests each step sends.

use lakescope_engine::open_tables::{OpenTables, TableBadge, TABLE_HANDLES};
use lakescope_engine::scan::{parse_filter, ScanRequest};
use lakescope_engine::table::{Format, Table};
use lakescope_engine::{Catalog, TableRef, Version};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::clock::Clock;
use lakescope_storage::{IoMeter, LocalStore, MeteredStore, ObjectStore};
use lakescope_test_support::tables::{behavior_rows, behavior_table, rows};
use lakescope_test_support::{repo, temp_dir};
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// A catalog over `dir` whose requests `meter` counts, and a clock the test moves.
struct Lake {
    catalog: Catalog,
    meter: Arc<IoMeter>,
    millis: Rc<Cell<u64>>,
    /// The writers' clock and ids, one for all commits (each file name is new).
    env: FixedEnv,
    /// The test's own folder, removed when the lake goes (`None`: the demo lake).
    own: Option<std::path::PathBuf>,
}

impl Lake {
    fn at(dir: &std::path::Path) -> Self {
        let meter = Arc::new(IoMeter::default());
        let store = MeteredStore::new(Rc::new(LocalStore::new(dir)), meter.clone());
        Self {
            catalog: Catalog::new(Rc::new(store) as Rc<dyn ObjectStore>),
            meter,
            millis: Rc::new(Cell::new(1_790_000_000_000)),
            env: FixedEnv::new(1_790_000_000_000, 7),
            own: None,
        }
    }

    /// An empty lake in a folder of its own, removed with the lake.
    fn fresh(name: &str) -> Self {
        let dir = temp_dir("lakescope-open-tables", name);
        let mut lake = Self::at(&dir);
        lake.own = Some(dir);
        lake
    }

    /// The demo lake of the app (read only).
    fn demo() -> Self {
        Self::at(&repo().join("public/demo/warehouse"))
    }

    /// Fresh open tables of this lake's warehouse, on the test's clock.
    fn tables(&self) -> OpenTables {
        let millis = self.millis.clone();
        let clock: Clock =
            Rc::new(move || SystemTime::UNIX_EPOCH + Duration::from_millis(millis.get()));
        OpenTables::new(self.catalog.clone(), clock)
    }

    fn advance(&self, ms: u64) {
        self.millis.set(self.millis.get() + ms);
    }

    fn requests(&self) -> u64 {
        self.meter.read().requests
    }

    /// Requests `step` sends.
    async fn requests_of<T>(&self, step: impl std::future::Future<Output = T>) -> (T, u64) {
        let before = self.requests();
        let out = step.await;
        (out, self.requests() - before)
    }
}

impl Drop for Lake {
    fn drop(&mut self) {
        if let Some(dir) = &self.own {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A warehouse with `n` empty primary-key tables `ls.t0` … (`ls.db/t<i>`).
async fn lake_with_tables(name: &str, n: usize) -> (Lake, Vec<String>) {
    let lake = Lake::fresh(name);
    let mut paths = Vec::new();
    for i in 0..n {
        let table = lake
            .catalog
            .create_table_with(&lake.env, "ls", &format!("t{i}"), &behavior_table(false))
            .await
            .unwrap();
        paths.push(table.path());
    }
    (lake, paths)
}

async fn commit(lake: &Lake, table: &str, users: &[i64]) {
    let table_ref: TableRef = table.parse().unwrap();
    lake.catalog
        .insert_with(
            &lake.env,
            &table_ref,
            &[behavior_rows(users, "buy", "2026-12-04", "10")],
            None,
        )
        .await
        .unwrap();
}

#[tokio::test]
async fn table_handles_are_shared_and_the_least_recently_asked_for_closes_first() {
    let (lake, paths) = lake_with_tables("handles", TABLE_HANDLES + 1).await;
    let tables = lake.tables();
    let (first, opened) = lake.requests_of(tables.paimon(&paths[0])).await;
    let first = first.unwrap();
    assert!(opened > 0);
    let (again, cost) = lake.requests_of(tables.paimon(&paths[0])).await;
    assert!(Rc::ptr_eq(&first, &again.unwrap()));
    assert_eq!(cost, 0, "a handle asked for again is the open one");

    // Two views asking at once share one open.
    let other = lake.tables();
    let ((a, b), both) = lake
        .requests_of(async { futures::join!(other.paimon(&paths[1]), other.paimon(&paths[1])) })
        .await;
    assert!(Rc::ptr_eq(&a.unwrap(), &b.unwrap()));
    let (_, single) = lake.requests_of(lake.tables().paimon(&paths[1])).await;
    assert_eq!(
        both, single,
        "concurrent asks send the requests of one open"
    );

    // TABLE_HANDLES more tables: the first, asked for least recently, is closed.
    let mut kept = Vec::new();
    for path in &paths[1..] {
        kept.push(tables.paimon(path).await.unwrap());
    }
    let reopened = tables.paimon(&paths[0]).await.unwrap();
    assert!(
        !Rc::ptr_eq(&first, &reopened),
        "the 17th table closed the first"
    );
    let last = tables.paimon(&paths[TABLE_HANDLES]).await.unwrap();
    assert!(Rc::ptr_eq(&last, &kept[TABLE_HANDLES - 1]));

    tables.forget();
    let after = tables.paimon(&paths[TABLE_HANDLES]).await.unwrap();
    assert!(!Rc::ptr_eq(&last, &after), "forget closes every handle");
}

#[tokio::test]
async fn a_failed_open_is_tried_again_and_names_the_table() {
    let lake = Lake::fresh("retry");
    let tables = lake.tables();
    let err = tables.paimon("ls.db/late").await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Cannot open table ls.db/late: "),
        "{err}"
    );
    lake.catalog
        .create_table_with(&lake.env, "ls", "late", &behavior_table(false))
        .await
        .unwrap();
    let table = tables.paimon("ls.db/late").await.unwrap();
    assert_eq!(table.current_schema().primary_keys, ["dt", "hh", "user_id"]);
}

#[tokio::test]
async fn a_latest_snapshot_read_stands_for_two_seconds_then_is_read_again() {
    let (lake, paths) = lake_with_tables("latest", 1).await;
    let path = &paths[0];
    let tables = lake.tables();
    assert_eq!(tables.latest_snapshot(path).await.unwrap(), None);
    commit(&lake, "ls.t0", &[1, 2]).await;
    // An empty table's read is shared as any other: within two seconds it still stands.
    lake.advance(1_999);
    let (shared, cost) = lake.requests_of(tables.latest_snapshot(path)).await;
    assert_eq!((shared.unwrap(), cost), (None, 0));
    lake.advance(1);
    let first = tables.latest_snapshot(path).await.unwrap().unwrap();
    assert_eq!(first.id, 1);

    commit(&lake, "ls.t0", &[3]).await;
    lake.advance(500);
    let (reused, cost) = lake.requests_of(tables.latest_snapshot(path)).await;
    assert_eq!((reused.unwrap().map(|s| s.id), cost), (Some(1), 0));
    lake.advance(1_500);
    let fresh = tables.latest_snapshot(path).await.unwrap().unwrap();
    assert_eq!(fresh.id, 2);

    commit(&lake, "ls.t0", &[4]).await;
    tables.forget();
    let after_commit = tables.latest_snapshot(path).await.unwrap().unwrap();
    assert_eq!(
        after_commit.id, 3,
        "a commit through the page forgets the read"
    );
}

#[tokio::test]
async fn prefetch_leaves_the_latest_plan_decoded_in_the_shared_handle() {
    let (lake, paths) = lake_with_tables("prefetch", 1).await;
    let path = &paths[0];
    for users in [&[1, 2][..], &[3], &[4, 5]] {
        commit(&lake, "ls.t0", users).await;
    }

    // Without a prefetch, the views' plan reads the manifests.
    let cold = lake.tables();
    let table = cold.paimon(path).await.unwrap();
    let snapshot = cold.latest_snapshot(path).await.unwrap().unwrap();
    let (planned, cold_cost) = lake
        .requests_of(plan(&table, &snapshot, &PartitionFilter::All))
        .await;
    assert!(cold_cost > 0);
    let files = planned.unwrap().splits.len();

    let tables = lake.tables();
    tables.prefetch(path).await;
    let table = tables.paimon(path).await.unwrap();
    let (snapshot, cost) = lake.requests_of(tables.latest_snapshot(path)).await;
    let snapshot = snapshot.unwrap().unwrap();
    assert_eq!(
        (snapshot.id, cost),
        (3, 0),
        "the prefetch's latest read is shared"
    );
    let (planned, cost) = lake
        .requests_of(plan(&table, &snapshot, &PartitionFilter::All))
        .await;
    assert_eq!(planned.unwrap().splits.len(), files);
    assert_eq!(cost, 0, "the prefetch decoded every manifest of the plan");

    // A snapshot read while idle is planned as a guess beside the read that finds a newer one:
    // both plans end up decoded.
    let idle = lake.tables();
    idle.read_latest_snapshots(std::slice::from_ref(path)).await;
    let guess = idle.latest_snapshot(path).await.unwrap().unwrap();
    commit(&lake, "ls.t0", &[6]).await;
    lake.advance(2_000);
    idle.prefetch(path).await;
    let table = idle.paimon(path).await.unwrap();
    let newest = idle.latest_snapshot(path).await.unwrap().unwrap();
    assert_eq!((guess.id, newest.id), (3, 4));
    for snapshot in [&guess, &newest] {
        let (planned, cost) = lake
            .requests_of(plan(&table, snapshot, &PartitionFilter::All))
            .await;
        planned.unwrap();
        assert_eq!(cost, 0, "snapshot {} was planned ahead", snapshot.id);
    }
}

#[tokio::test]
async fn formats_are_probed_once_and_badges_say_what_a_table_is() {
    let lake = Lake::demo();
    let tables = lake.tables();
    let (format, probed) = lake.requests_of(tables.format("iceberg/branched")).await;
    assert_eq!(format, Format::Iceberg);
    assert!(probed > 0);
    let (again, cost) = lake.requests_of(tables.format("iceberg/branched")).await;
    assert_eq!((again, cost), (Format::Iceberg, 0));
    assert_eq!(tables.format("corpus.db/pk_dedup").await, Format::Paimon);

    let badge = |label: &str, title: &str| TableBadge {
        label: label.into(),
        title: title.into(),
    };
    assert_eq!(
        tables.badge("corpus.db/pk_dedup").await,
        badge("pk·dedup", "Primary key (dt, id), merge engine deduplicate")
    );
    assert_eq!(
        tables.badge("corpus.db/append_dt").await,
        badge("append", "Append table (no primary key)")
    );
    assert_eq!(
        tables.badge("iceberg/branched").await,
        badge("iceberg", "Apache Iceberg table")
    );
    assert_eq!(tables.badge("corpus.db/missing").await.label, "error");

    assert!(matches!(
        tables.table("iceberg/branched").await.unwrap(),
        Table::Iceberg(_)
    ));
    let columns = tables.current_columns("corpus.db/pk_dedup").await.unwrap();
    let schemas = tables
        .table("corpus.db/pk_dedup")
        .await
        .unwrap()
        .schemas()
        .await
        .unwrap();
    let latest: Vec<String> = schemas
        .versions
        .last()
        .unwrap()
        .fields
        .iter()
        .map(|f| f.name.clone())
        .collect();
    assert_eq!(columns, latest);
}

/// The rows of `Table::scan` as the Data tab reads them, next to the engine's `Catalog::scan`
/// of the same request.
async fn both_reads(
    lake: &Lake,
    path: &str,
    name: &str,
    at: Version,
    columns: Option<Vec<String>>,
    filter: Option<&str>,
) -> (Vec<String>, Vec<String>, Option<i64>) {
    let tables = lake.tables();
    let table = tables.table(path).await.unwrap();
    let table_ref: TableRef = name.parse().unwrap();
    let filter = filter.map(|f| parse_filter(f).unwrap());
    let mut streamed = table
        .scan(table_ref.clone())
        .at(at.clone())
        .select(columns.clone())
        .filter(filter.clone())
        .first_rows()
        .stream()
        .await
        .unwrap();
    let mut batches = Vec::new();
    while let Some(batch) = streamed.next_batch().await {
        batches.push(batch.unwrap());
    }
    assert_eq!(streamed.remaining_splits(), 0);
    let request = ScanRequest {
        at,
        columns,
        filter,
        limit: None,
    };
    let whole = lake.catalog.scan(&table_ref, &request).await.unwrap();
    (rows(&batches), rows(&whole.batches), streamed.snapshot_id())
}

#[tokio::test]
async fn the_data_tabs_scan_reads_the_rows_of_the_engines_scan() {
    let lake = Lake::demo();
    let (streamed, whole, snapshot) = both_reads(
        &lake,
        "corpus.db/pk_dedup",
        "corpus.pk_dedup",
        Version::Latest,
        None,
        None,
    )
    .await;
    assert_eq!(streamed, whole);
    assert_eq!((streamed.len(), snapshot), (17, Some(5)));

    let (streamed, whole, snapshot) = both_reads(
        &lake,
        "corpus.db/pk_dedup",
        "corpus.pk_dedup",
        Version::SnapshotId(3),
        Some(vec!["id".into(), "dt".into()]),
        Some("id >= 3"),
    )
    .await;
    assert_eq!(streamed, whole);
    assert!(!streamed.is_empty());
    assert_eq!(snapshot, Some(3));

    // An Iceberg table (streamed data file by data file) and a Paimon branch (read whole by the
    // engine's scan) give the engine scan's rows.
    for (path, name, at) in [
        (
            "iceberg/branched",
            "iceberg.branched",
            Version::Tag("t1".into()),
        ),
        (
            "java09.db/pk_branch",
            "java09.pk_branch",
            Version::Branch("dev".into()),
        ),
    ] {
        let (streamed, whole, snapshot) = both_reads(&lake, path, name, at, None, None).await;
        assert_eq!(streamed, whole, "{name}");
        assert!(!streamed.is_empty(), "{name}");
        assert_eq!(snapshot, None);
    }

    // The audit log leads with each row's kind.
    let table = lake.tables().table("corpus.db/pk_dedup").await.unwrap();
    let mut audit = table
        .scan("corpus.pk_dedup".parse().unwrap())
        .audit_log(true)
        .stream()
        .await
        .unwrap();
    assert_eq!(audit.schema().field(0).name(), "rowkind");
    let mut batches = Vec::new();
    while let Some(batch) = audit.next_batch().await {
        batches.push(batch.unwrap());
    }
    let system: TableRef = "corpus.pk_dedup$audit_log".parse().unwrap();
    let whole = lake
        .catalog
        .scan(&system, &ScanRequest::default())
        .await
        .unwrap();
    assert_eq!(rows(&batches), rows(&whole.batches));
}

/// The Data tab's read of an Iceberg table shows the first data file's rows before the other
/// data files are fetched, and counts its data files as splits.
#[tokio::test]
async fn an_iceberg_table_streams_data_file_by_data_file() {
    let lake = Lake::demo();
    let table = lake
        .tables()
        .table("iceberg/partition_evolution")
        .await
        .unwrap();
    let mut rows = table
        .scan("iceberg.partition_evolution".parse().unwrap())
        .stream()
        .await
        .unwrap();
    let files = rows.total_splits();
    assert!(files > 2, "{files} data files");
    assert_eq!(rows.remaining_splits(), files);
    let (first, first_requests) = lake.requests_of(rows.next_batch()).await;
    assert!(first.unwrap().unwrap().num_rows() > 0);
    assert_eq!(rows.remaining_splits(), files - 1);
    assert!(
        first_requests >= 1,
        "{first_requests} requests for the first batch"
    );
    let mut rest = 0;
    let (_, rest_requests) = lake
        .requests_of(async {
            while let Some(batch) = rows.next_batch().await {
                rest += batch.unwrap().num_rows();
            }
        })
        .await;
    assert!(rest > 0);
    assert_eq!(rows.remaining_splits(), 0);
    // every other data file was fetched after the first rows came
    assert!(
        rest_requests >= (files - 1) as u64,
        "{rest_requests} requests after the first batch for {} more data files",
        files - 1
    );
}

#[tokio::test]
async fn tags_and_rollback_through_the_table_and_refused_on_iceberg() {
    let (lake, paths) = lake_with_tables("tags", 1).await;
    for users in [&[1][..], &[2], &[3]] {
        commit(&lake, "ls.t0", users).await;
    }
    let tables = lake.tables();
    let table = tables.table(&paths[0]).await.unwrap();
    assert_eq!(
        table
            .create_tag("before", Some(2), &lake.env)
            .await
            .unwrap(),
        2
    );
    assert_eq!(table.create_tag("now", None, &lake.env).await.unwrap(), 3);
    assert!(table.delete_tag("now").await.unwrap());
    assert!(!table.delete_tag("now").await.unwrap());
    let done = table.rollback_to_snapshot(1).await.unwrap();
    assert_eq!(done.snapshot.id, 1);
    assert_eq!(done.removed_snapshots, [3, 2]);
    assert_eq!(done.removed_tags, ["before"]);
    tables.forget();
    let versions = tables
        .table(&paths[0])
        .await
        .unwrap()
        .versions()
        .await
        .unwrap();
    assert_eq!(
        versions.snapshots.iter().map(|s| s.0).collect::<Vec<_>>(),
        [1]
    );
    assert!(versions.tags.is_empty());

    let demo = Lake::demo().tables();
    let iceberg = demo.table("iceberg/branched").await.unwrap();
    let err = iceberg.create_tag("x", None, &lake.env).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("creating a tag is done on Paimon tables"),
        "{err}"
    );
}
