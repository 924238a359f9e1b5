//! A scan on several threads (`parallel_scan`) reads exactly the rows of a single-threaded scan,
//! in the same order: every Paimon table of ../shared/corpus at every snapshot and tag (primary
//! keys over several buckets and overlapping runs, deletion vectors, append tables, partitions,
//! time travel), every Iceberg table of the corpus at every snapshot (its data files shared
//! among the workers), projections, filters and limits, and a larger table written here with
//! many batches per split; a corrupt data file fails the scan with its name, without hanging.

use arrow_array::{Float64Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use lakescope_engine::canonical::batches_to_lines_unsorted;
use lakescope_engine::parallel_scan::{
    map_batches, scan, scan_into, touch_table, BatchMap, CatalogOpener, RowSink,
};
use lakescope_engine::scan::{parse_filter, ScanRequest, ScanResult};
use lakescope_engine::shared_read::SharedRead;
use lakescope_engine::write::{definition_from_arrow, insert_into_table, SystemEnv};
use lakescope_engine::{Catalog, Result, TableRef, Version};
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::{files_under, repo, temp_dir};
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// Each worker opens the same local warehouse folder.
struct LocalWarehouse(PathBuf);

#[async_trait::async_trait(?Send)]
impl CatalogOpener for LocalWarehouse {
    async fn open_catalog(&self) -> Result<Catalog> {
        Ok(catalog(&self.0))
    }
}

fn catalog(warehouse: &Path) -> Catalog {
    Catalog::new(Rc::new(LocalStore::new(warehouse)) as Rc<dyn ObjectStore>)
}

fn threads(n: usize) -> NonZeroUsize {
    NonZeroUsize::new(n).unwrap()
}

fn corpus_warehouse() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/paimon/warehouse")
}

/// The scan of `table` with `request` on `n` threads: the schema and the rows in order as
/// canonical lines, and the batch count; or the error's message.
async fn read(
    warehouse: &Path,
    table: &TableRef,
    request: &ScanRequest,
    n: usize,
) -> std::result::Result<(String, Vec<String>, usize), String> {
    let opener = Arc::new(LocalWarehouse(warehouse.to_path_buf()));
    let out = scan(&catalog(warehouse), opener, table, request, threads(n)).await;
    described(out)
}

/// A scan's schema, rows in order as canonical lines and batch count, or its error's message.
fn described(out: Result<ScanResult>) -> std::result::Result<(String, Vec<String>, usize), String> {
    let out = out.map_err(|e| e.to_string())?;
    let lines = batches_to_lines_unsorted(&out.batches).map_err(|e| e.to_string())?;
    Ok((format!("{:?}", out.schema), lines, out.batches.len()))
}

/// Asserts that 1, 2 and 3 threads read what the engine's scan on the calling thread
/// ([`Catalog::scan`]) reads; returns the splits of the plan when the version is a snapshot id
/// (how many the workers shared).
async fn same_as_one_thread(warehouse: &Path, table: &TableRef, request: &ScanRequest) -> usize {
    let one = described(catalog(warehouse).scan(table, request).await);
    for n in [1, 2, 3] {
        let many = read(warehouse, table, request, n).await;
        assert_eq!(
            many, one,
            "{table} at {} with {n} threads (columns {:?}, filter {:?}, limit {:?})",
            request.at, request.columns, request.filter, request.limit
        );
    }
    match &request.at {
        Version::SnapshotId(id) if one.is_ok() && table.system_table().is_none() => {
            let plan = catalog(warehouse)
                .plan_scan(table, Some(*id), request.filter.as_ref())
                .await
                .unwrap();
            plan.map_or(0, |p| p.splits)
        }
        _ => 0,
    }
}

/// Every version the corpus has expected rows for: (table, version).
fn corpus_versions() -> Vec<(TableRef, Version)> {
    let root = corpus_warehouse().join("../../expected/paimon");
    let mut out = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the corpus is beside the repository at ../shared/corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let table: TableRef = dir.file_name().unwrap().to_str().unwrap().parse().unwrap();
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".jsonl"))
            .collect();
        files.sort();
        for file in files {
            let stem = file.trim_end_matches(".jsonl");
            if let Some(id) = stem.strip_prefix("snapshot-") {
                out.push((table.clone(), Version::SnapshotId(id.parse().unwrap())));
            } else if let Some(tag) = stem.strip_prefix("tag-") {
                out.push((table.clone(), Version::Tag(tag.to_string())));
            }
        }
        out.push((table, Version::Latest));
    }
    out
}

#[tokio::test]
async fn every_corpus_table_and_version_reads_as_with_one_thread() {
    let warehouse = corpus_warehouse();
    let versions = corpus_versions();
    assert!(versions.len() > 50, "{} versions", versions.len());
    let mut shared_plans = Vec::new();
    for (table, at) in versions {
        let request = ScanRequest {
            at: at.clone(),
            ..ScanRequest::default()
        };
        let splits = same_as_one_thread(&warehouse, &table, &request).await;
        if splits > 1 {
            shared_plans.push(format!("{table} {at}"));
        }
    }
    // the workers really shared plans: PK tables with several buckets, partitioned tables
    for needed in [
        "corpus.pk_dedup",
        "corpus.append_dt",
        "corpus.append_fixed_bucket",
        "java09.pk_compacted",
    ] {
        assert!(
            shared_plans.iter().any(|p| p.starts_with(needed)),
            "{needed} never had 2 splits: {shared_plans:?}"
        );
    }
}

/// A table, the columns read, a filter and a limit.
type Case<'a> = (
    &'a str,
    Option<&'a [&'a str]>,
    Option<&'a str>,
    Option<usize>,
);

#[tokio::test]
async fn projections_filters_limits_and_deletion_vectors() {
    let warehouse = corpus_warehouse();
    let cases: [Case; 7] = [
        ("corpus.pk_dedup", Some(&["name", "id"]), None, None),
        ("corpus.pk_dedup", None, Some("id >= 3"), None),
        (
            "corpus.pk_dedup",
            Some(&["id"]),
            Some("dt = '2024-01-02'"),
            None,
        ),
        ("corpus.pk_dedup", None, None, Some(3)),
        (
            "java09.pk_compacted",
            Some(&["id"]),
            Some("id < 5"),
            Some(4),
        ),
        ("corpus.pk_dv", None, Some("id > 2"), None),
        ("java09.pk_deletion_vectors", None, None, None),
    ];
    for (table, columns, filter, limit) in cases {
        let table: TableRef = table.parse().unwrap();
        let request = ScanRequest {
            at: Version::Latest,
            columns: columns.map(|c| c.iter().map(|s| s.to_string()).collect()),
            filter: filter.map(|f| parse_filter(f).unwrap()),
            limit,
        };
        same_as_one_thread(&warehouse, &table, &request).await;
    }
}

#[tokio::test]
async fn an_iceberg_table_and_a_system_table_read_as_with_one_thread() {
    let demo = repo().join("public/demo/warehouse");
    for (table, at) in [
        ("iceberg.mor_position_deletes", Version::Latest),
        ("iceberg.branched", Version::Tag("t1".into())),
        ("corpus.pk_dedup$snapshots", Version::Latest),
        ("corpus.pk_dedup$audit_log", Version::Latest),
    ] {
        let table: TableRef = table.parse().unwrap();
        let request = ScanRequest {
            at,
            ..ScanRequest::default()
        };
        let one = read(&demo, &table, &request, 1).await;
        assert!(one.is_ok(), "{table}: {one:?}");
        same_as_one_thread(&demo, &table, &request).await;
    }
}

fn iceberg_corpus_warehouse() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/iceberg/warehouse")
}

/// Every Iceberg table of ../shared/corpus (format v1 to v3, position and equality deletes,
/// partition and schema evolution) at every snapshot it keeps, and at its current one, reads on
/// 2 and 3 threads (a data file each) exactly as on one.
#[tokio::test]
async fn every_corpus_iceberg_table_and_snapshot_reads_as_with_one_thread() {
    let warehouse = iceberg_corpus_warehouse();
    let mut names: Vec<String> = std::fs::read_dir(warehouse.join("corpus"))
        .expect("the Iceberg corpus is beside the repository at ../shared/corpus")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let (mut versions, mut several_files) = (0, 0);
    for name in names {
        let table: TableRef = format!("corpus.{name}").parse().unwrap();
        let iceberg = catalog(&warehouse)
            .open_iceberg(&table)
            .await
            .unwrap()
            .unwrap_or_else(|| panic!("{table} is an Iceberg table"));
        let mut ats = vec![Version::Latest];
        ats.extend(
            iceberg
                .metadata()
                .snapshots
                .iter()
                .map(|s| Version::SnapshotId(s.snapshot_id)),
        );
        for at in ats {
            let request = ScanRequest {
                at,
                ..ScanRequest::default()
            };
            let one = read(&warehouse, &table, &request, 1).await;
            assert!(one.is_ok(), "{table} at {}: {one:?}", request.at);
            for n in [2, 3] {
                let many = read(&warehouse, &table, &request, n).await;
                assert_eq!(many, one, "{table} at {} with {n} threads", request.at);
            }
            versions += 1;
            several_files += usize::from(one.unwrap().2 > 1);
        }
    }
    assert!(versions >= 20, "{versions} versions");
    assert!(
        several_files >= 10,
        "{several_files} versions of several batches"
    );
}

/// Counts the catalogs the workers open (one per worker that read a split).
struct CountingWarehouse(PathBuf, Arc<std::sync::atomic::AtomicUsize>);

#[async_trait::async_trait(?Send)]
impl CatalogOpener for CountingWarehouse {
    async fn open_catalog(&self) -> Result<Catalog> {
        self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        Ok(catalog(&self.0))
    }
}

/// An Iceberg table of 16 data files is read by the workers, its files shared among them, with a
/// projection and a limit; a table of one data file stays on the calling thread.
#[tokio::test]
async fn an_iceberg_table_is_read_on_the_workers() {
    let demo = repo().join("public/demo/warehouse");
    let table: TableRef = "iceberg.partition_evolution".parse().unwrap();
    let columns = ScanRequest {
        columns: Some(vec!["id".into()]),
        ..ScanRequest::default()
    };
    let limited = ScanRequest {
        limit: Some(3),
        ..ScanRequest::default()
    };
    for request in [ScanRequest::default(), columns, limited] {
        let one = read(&demo, &table, &request, 1).await.unwrap();
        for n in [2, 3] {
            let opened = Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let opener = Arc::new(CountingWarehouse(demo.clone(), opened.clone()));
            let out = scan(&catalog(&demo), opener, &table, &request, threads(n))
                .await
                .unwrap();
            let lines = batches_to_lines_unsorted(&out.batches).unwrap();
            assert_eq!(lines, one.1, "{n} threads, {request:?}");
            assert_eq!(out.batches.len(), one.2, "{n} threads, {request:?}");
            let opened = opened.load(std::sync::atomic::Ordering::SeqCst);
            assert_eq!(opened, n, "{n} threads: catalogs opened by workers");
        }
    }
    // a snapshot of one data file (the corpus has some) is read on the calling thread
    let warehouse = iceberg_corpus_warehouse();
    let mut one_file = None;
    for name in ["v1_table", "events", "all_types", "schema_evolution"] {
        let table: TableRef = format!("corpus.{name}").parse().unwrap();
        let iceberg = catalog(&warehouse)
            .open_iceberg(&table)
            .await
            .unwrap()
            .unwrap();
        for snapshot in &iceberg.metadata().snapshots {
            let at = lakescope_iceberg::SnapshotSelector::Id(snapshot.snapshot_id);
            let plan = lakescope_iceberg::PlannedRead::plan(&iceberg, &at, &Default::default())
                .await
                .unwrap();
            if plan.files().len() == 1 && one_file.is_none() {
                one_file = Some((table.clone(), snapshot.snapshot_id));
            }
        }
    }
    let (table, id) = one_file.expect("a corpus Iceberg snapshot of one data file");
    let request = ScanRequest {
        at: Version::SnapshotId(id),
        ..ScanRequest::default()
    };
    let opened = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let opener = Arc::new(CountingWarehouse(warehouse.clone(), opened.clone()));
    let out = scan(&catalog(&warehouse), opener, &table, &request, threads(2))
        .await
        .unwrap();
    let one = read(&warehouse, &table, &request, 1).await.unwrap();
    assert_eq!(batches_to_lines_unsorted(&out.batches).unwrap(), one.1);
    assert_eq!(
        opened.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "{table} at {id}"
    );
}

/// `bench-read`'s checksum of an Iceberg table: the same rows and batches on 1, 2 and 3 threads,
/// and the checksum of the rows the scan returns.
#[tokio::test]
async fn an_iceberg_tables_checksum_is_the_same_on_every_thread_count() {
    let demo = repo().join("public/demo/warehouse");
    let table: TableRef = "iceberg.partition_evolution".parse().unwrap();
    let scanned = read_batches(&demo, &table).await;
    let (rows, checksum) = lakescope_engine::checksum::touch(&scanned);
    for n in [1, 2, 3] {
        let touched = touch_table(&catalog(&demo), opener(&demo), &table, None, threads(n))
            .await
            .unwrap();
        assert_eq!(touched.rows, rows, "{n} threads");
        assert_eq!(touched.batches, scanned.len(), "{n} threads");
        assert!((touched.checksum - checksum).abs() < 1e-6 * checksum.abs().max(1.0));
    }
}

/// The batches of a single-threaded scan of `table`.
async fn read_batches(warehouse: &Path, table: &TableRef) -> Vec<RecordBatch> {
    scan(
        &catalog(warehouse),
        opener(warehouse),
        table,
        &ScanRequest::default(),
        threads(1),
    )
    .await
    .unwrap()
    .batches
}

/// Corrupt data files of an Iceberg table read on workers fail the scan naming the table and a
/// file, without hanging.
#[test]
fn a_corrupt_iceberg_data_file_fails_the_scan_with_its_name() {
    let warehouse = temp_dir("lakescope-parallel", "corrupt-iceberg");
    let from = repo().join("public/demo/warehouse/iceberg/partition_evolution");
    let to = warehouse.join("iceberg/partition_evolution");
    lakescope_test_support::copy_dir(&from, &to);
    let mut names = Vec::new();
    for file in files_under(&to.join("data")) {
        std::fs::write(&file, b"this is not a data file").unwrap();
        names.push(file.file_name().unwrap().to_string_lossy().into_owned());
    }
    let table: TableRef = "iceberg.partition_evolution".parse().unwrap();
    for n in [1, 2, 3] {
        let (warehouse, table) = (warehouse.clone(), table.clone());
        let message = within_a_minute(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(read(&warehouse, &table, &ScanRequest::default(), n))
                .err()
        })
        .expect("a corrupt file must fail the scan");
        assert!(
            names.iter().any(|name| message.contains(name)),
            "{n} threads: {message}"
        );
        if n > 1 {
            assert!(
                message.contains("iceberg.partition_evolution"),
                "{n} threads: {message}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&warehouse);
}

/// Writes `perf.wide` (primary key `id`, 4 buckets, 3 overlapping commits of 50,000 keys,
/// 100,000 in all): several batches per split.
async fn write_large_table(warehouse: &Path) -> TableRef {
    let schema = Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("price", DataType::Float64, true),
        Field::new("note", DataType::Utf8, true),
    ]);
    let table: TableRef = "perf.wide".parse().unwrap();
    let catalog = catalog(warehouse);
    let definition = definition_from_arrow(&schema, &["id"], &[("bucket", "4")]).unwrap();
    catalog
        .create_table(&table.database, &table.table, &definition)
        .await
        .unwrap();
    let env = SystemEnv::default();
    for commit in 0..3i64 {
        let ids: Vec<i64> = (0..50_000).map(|k| k * 3 + commit % 2).collect();
        let batch = RecordBatch::try_new(
            Arc::new(schema.clone()),
            vec![
                Arc::new(Int64Array::from(ids.clone())),
                Arc::new(Float64Array::from_iter(
                    ids.iter().map(|k| (k % 7 != 0).then_some(*k as f64 / 4.0)),
                )),
                Arc::new(StringArray::from_iter_values(
                    ids.iter().map(|k| format!("commit {commit} key {k}")),
                )),
            ],
        )
        .unwrap();
        let handle = catalog.open_table(&table).await.unwrap();
        insert_into_table(&env, &handle, &[batch], None)
            .await
            .unwrap();
    }
    table
}

#[tokio::test]
async fn a_larger_table_in_order_and_its_checksum() {
    let warehouse = temp_dir("lakescope-parallel", "large");
    let table = write_large_table(&warehouse).await;
    let splits = same_as_one_thread(
        &warehouse,
        &table,
        &ScanRequest {
            at: Version::SnapshotId(3),
            ..ScanRequest::default()
        },
    )
    .await;
    assert_eq!(splits, 4);
    let (_, lines, batches) = read(&warehouse, &table, &ScanRequest::default(), 4)
        .await
        .unwrap();
    assert_eq!(lines.len(), 100_000);
    assert!(batches >= 16, "{batches} batches");
    for request in [
        ScanRequest {
            columns: Some(vec!["note".into()]),
            filter: Some(parse_filter("price IS NULL OR id < 100").unwrap()),
            ..ScanRequest::default()
        },
        ScanRequest {
            limit: Some(20_000),
            ..ScanRequest::default()
        },
        ScanRequest {
            at: Version::SnapshotId(1),
            ..ScanRequest::default()
        },
    ] {
        same_as_one_thread(&warehouse, &table, &request).await;
    }
    let one = touch_table(
        &catalog(&warehouse),
        opener(&warehouse),
        &table,
        None,
        threads(1),
    )
    .await
    .unwrap();
    for n in [2, 4, 7] {
        let many = touch_table(
            &catalog(&warehouse),
            opener(&warehouse),
            &table,
            None,
            threads(n),
        )
        .await
        .unwrap();
        assert_eq!(
            (many.rows, many.batches),
            (one.rows, one.batches),
            "{n} threads"
        );
        let relative = (many.checksum - one.checksum).abs() / one.checksum.abs();
        assert!(
            relative < 1e-12,
            "{n} threads: {} vs {}",
            many.checksum,
            one.checksum
        );
    }
    let _ = std::fs::remove_dir_all(&warehouse);
}

/// What a streamed scan handed its sink: the schema (and when), the batches, and whether it
/// asks for more after `stop_after` batches.
#[derive(Default)]
struct Recorded {
    schema_first: Option<bool>,
    batches: Vec<RecordBatch>,
    stop_after: Option<usize>,
}

impl RowSink for Recorded {
    fn schema(&mut self, schema: &SchemaRef) -> Result<()> {
        assert!(!schema.fields().is_empty());
        self.schema_first = Some(self.batches.is_empty());
        Ok(())
    }

    fn batch(&mut self, batch: RecordBatch) -> Result<bool> {
        self.batches.push(batch);
        Ok(self.stop_after.is_none_or(|n| self.batches.len() < n))
    }
}

/// What `scan_into` on `n` threads handed `sink`.
async fn streamed(
    warehouse: &Path,
    table: &TableRef,
    request: &ScanRequest,
    n: usize,
    mut sink: Recorded,
) -> Recorded {
    let catalog = catalog(warehouse);
    scan_into(
        &catalog,
        opener(warehouse),
        table,
        request,
        threads(n),
        &mut sink,
    )
    .await
    .unwrap();
    sink
}

/// `scan_into` hands the batches over as they are read, in the order `scan` returns them, the
/// schema first; a sink that has had enough stops the read (the workers too, without hanging),
/// and a limit cuts the last batch.
#[test]
fn a_streamed_scan_gives_the_rows_in_order_and_stops_when_the_sink_has_enough() {
    within_a_minute(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                let warehouse = temp_dir("lakescope-parallel", "streamed");
                let table = write_large_table(&warehouse).await;
                let whole = read(&warehouse, &table, &ScanRequest::default(), 1)
                    .await
                    .unwrap();
                for n in [1, 3] {
                    let request = ScanRequest::default();
                    let all = streamed(&warehouse, &table, &request, n, Recorded::default()).await;
                    assert_eq!(all.schema_first, Some(true), "{n} threads");
                    let lines = batches_to_lines_unsorted(&all.batches).unwrap();
                    assert_eq!((lines.len(), &lines), (100_000, &whole.1), "{n} threads");
                    let stop = Recorded {
                        stop_after: Some(2),
                        ..Recorded::default()
                    };
                    let two = streamed(&warehouse, &table, &request, n, stop).await;
                    assert_eq!(two.batches.len(), 2, "{n} threads: the read went on");
                    let rows: usize = two.batches.iter().map(RecordBatch::num_rows).sum();
                    assert_eq!(
                        batches_to_lines_unsorted(&two.batches).unwrap(),
                        whole.1[..rows],
                        "{n} threads"
                    );
                    let limited = ScanRequest {
                        limit: Some(1_500),
                        ..ScanRequest::default()
                    };
                    let some = streamed(&warehouse, &table, &limited, n, Recorded::default()).await;
                    let rows: usize = some.batches.iter().map(RecordBatch::num_rows).sum();
                    assert_eq!(rows, 1_500, "{n} threads");
                    assert_eq!(
                        batches_to_lines_unsorted(&some.batches).unwrap(),
                        whole.1[..1_500],
                        "{n} threads"
                    );
                }
                let _ = std::fs::remove_dir_all(&warehouse);
            })
    })
}

/// A consumer's per-batch work runs where the batch was read: on the worker threads with 2 or
/// more threads (so it uses every core), on the calling thread with one; every row once.
#[tokio::test]
async fn a_batch_map_runs_on_the_thread_that_read_the_batch() {
    let warehouse = temp_dir("lakescope-parallel", "map");
    let table = write_large_table(&warehouse).await;
    let where_read: BatchMap<(Option<String>, usize)> = Arc::new(|batch: RecordBatch| {
        let thread = std::thread::current().name().map(str::to_string);
        (thread, batch.num_rows())
    });
    let caller = std::thread::current().name().map(str::to_string);
    for n in [1, 2, 3] {
        let mapped = map_batches(
            &catalog(&warehouse),
            opener(&warehouse),
            &table,
            None,
            threads(n),
            where_read.clone(),
        )
        .await
        .unwrap();
        let rows: usize = mapped.iter().map(|(_, rows)| rows).sum();
        assert_eq!(rows, 100_000, "{n} threads");
        let mut names: Vec<Option<String>> = mapped.into_iter().map(|(t, _)| t).collect();
        names.sort();
        names.dedup();
        if n == 1 {
            assert_eq!(names, vec![caller.clone()]);
        } else {
            // which workers took splits depends on the timing: none was mapped by the caller
            assert!(
                names.len() <= n
                    && names.iter().all(|t| t
                        .as_deref()
                        .is_some_and(|t| t.starts_with("lakescope-scan-"))),
                "{n} threads: batches mapped on {names:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&warehouse);
}

fn opener(warehouse: &Path) -> Arc<dyn CatalogOpener> {
    Arc::new(LocalWarehouse(warehouse.to_path_buf()))
}

/// Runs `f` on its own thread and fails the test if it does not end within a minute.
fn within_a_minute<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("the parallel scan hung")
}

#[test]
fn a_corrupt_data_file_fails_the_scan_with_its_name() {
    let warehouse = temp_dir("lakescope-parallel", "corrupt");
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    let table = runtime().block_on(write_large_table(&warehouse));
    // one data file of bucket 2 becomes garbage
    let bucket = warehouse.join("perf.db/wide/bucket-2");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&bucket)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let corrupt = files.last().unwrap().clone();
    std::fs::write(&corrupt, b"this is not a parquet file").unwrap();
    let name = corrupt.file_name().unwrap().to_string_lossy().into_owned();
    for (n, ordered) in [(3, true), (4, false), (2, true)] {
        let (warehouse, table) = (warehouse.clone(), table.clone());
        let message = within_a_minute(move || {
            runtime().block_on(async {
                if ordered {
                    read(&warehouse, &table, &ScanRequest::default(), n)
                        .await
                        .err()
                } else {
                    touch_table(
                        &catalog(&warehouse),
                        opener(&warehouse),
                        &table,
                        None,
                        threads(n),
                    )
                    .await
                    .err()
                    .map(|e| e.to_string())
                }
            })
        })
        .expect("a corrupt file must fail the scan");
        assert!(message.contains(&name), "{n} threads: {message}");
        assert!(message.contains("perf.wide"), "{n} threads: {message}");
    }
    // one thread names the same file
    let one = runtime()
        .block_on(read(&warehouse, &table, &ScanRequest::default(), 1))
        .unwrap_err();
    assert!(one.contains(&name), "{one}");
    let _ = std::fs::remove_dir_all(&warehouse);
}

/// Writes `perf.appended` (no primary key, no bucket: one split) in 5 commits of 20,000 rows.
async fn write_append_table(warehouse: &Path) -> TableRef {
    write_append_commits(warehouse, "perf.appended", 5, 20_000).await
}

/// Writes the append table `name` (unaware bucket): `commits` commits of `rows` rows, one data
/// file each.
async fn write_append_commits(warehouse: &Path, name: &str, commits: i64, rows: i64) -> TableRef {
    let schema = Schema::new(vec![
        Field::new("n", DataType::Int64, false),
        Field::new("word", DataType::Utf8, true),
    ]);
    let table: TableRef = name.parse().unwrap();
    let catalog = catalog(warehouse);
    let definition = definition_from_arrow(&schema, &[], &[("bucket", "-1")]).unwrap();
    catalog
        .create_table(&table.database, &table.table, &definition)
        .await
        .unwrap();
    let env = SystemEnv::default();
    for commit in 0..commits {
        let n: Vec<i64> = (0..rows).map(|i| commit * rows + i).collect();
        let batch = RecordBatch::try_new(
            Arc::new(schema.clone()),
            vec![
                Arc::new(Int64Array::from(n.clone())),
                Arc::new(StringArray::from_iter(
                    n.iter()
                        .map(|i| (i % 5 != 0).then(|| format!("w{}", i % 97))),
                )),
            ],
        )
        .unwrap();
        let handle = catalog.open_table(&table).await.unwrap();
        insert_into_table(&env, &handle, &[batch], None)
            .await
            .unwrap();
    }
    table
}

#[test]
fn an_append_table_of_one_split_is_read_file_by_file_in_order() {
    let warehouse = temp_dir("lakescope-parallel", "append");
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    let table = runtime().block_on(write_append_table(&warehouse));
    let splits = runtime().block_on(same_as_one_thread(
        &warehouse,
        &table,
        &ScanRequest {
            at: Version::SnapshotId(5),
            ..ScanRequest::default()
        },
    ));
    assert_eq!(splits, 1);
    // the workers read it file by file: a corrupt file's task names that file alone
    let bucket = warehouse.join("perf.db/appended/bucket-0");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&bucket)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 5);
    files.sort();
    std::fs::write(&files[2], b"not parquet").unwrap();
    let name = files[2].file_name().unwrap().to_string_lossy().into_owned();
    let (w, t) = (warehouse.clone(), table.clone());
    let message = within_a_minute(move || {
        runtime().block_on(async { read(&w, &t, &ScanRequest::default(), 3).await.err() })
    })
    .expect("a corrupt file must fail the scan");
    assert!(
        message.contains(&format!("bucket 0 (files {name})")),
        "{message}"
    );
    let _ = std::fs::remove_dir_all(&warehouse);
}

/// A few large append files are cut into pieces of rows for the threads (fewer files than
/// threads would leave threads idle): the pieces read exactly the rows of one thread, in order
/// and in the same batches, and readers that share no memory plan the same pieces.
#[test]
fn large_append_files_are_read_in_pieces_of_rows() {
    let warehouse = temp_dir("lakescope-parallel", "pieces");
    let runtime = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    };
    // 2 files of 270,000 rows: at least 2 x 131,072 rows each, so each can be cut in 2
    let table = runtime().block_on(write_append_commits(&warehouse, "perf.pieces", 2, 270_000));
    runtime().block_on(async {
        let (wh, tb) = (&warehouse, &table);
        let pieces = |readers| async move {
            let shared = SharedRead::plan(&catalog(wh), tb, None, readers)
                .await
                .unwrap();
            let rows: Vec<Option<(u64, u64)>> = shared.tickets().iter().map(|t| t.rows).collect();
            rows
        };
        // 2 readers: a file each, nothing cut
        assert_eq!(pieces(2).await, vec![None, None]);
        // 4 readers: each file in halves
        assert_eq!(
            pieces(4).await,
            vec![
                Some((0, 131_072)),
                Some((131_072, 270_000)),
                Some((0, 131_072)),
                Some((131_072, 270_000))
            ]
        );
        let one = read(&warehouse, &table, &ScanRequest::default(), 1)
            .await
            .unwrap();
        assert_eq!(one.1.len(), 540_000);
        for n in [2, 3, 4] {
            let many = read(&warehouse, &table, &ScanRequest::default(), n).await;
            assert_eq!(many.as_ref(), Ok(&one), "{n} threads");
        }
        let filtered = ScanRequest {
            columns: Some(vec!["word".into()]),
            filter: Some(parse_filter("n >= 130900 AND n < 131300").unwrap()),
            ..ScanRequest::default()
        };
        same_as_one_thread(&warehouse, &table, &filtered).await;
        // 4 threads read pieces: a filter across the pieces' boundary
        let one = read(&warehouse, &table, &filtered, 1).await.unwrap();
        assert_eq!(one.1.len(), 400, "n in [130900, 131300)");
        assert_eq!(read(&warehouse, &table, &filtered, 4).await, Ok(one));
    });
    let _ = std::fs::remove_dir_all(&warehouse);
}
