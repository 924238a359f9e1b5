//! System tables ($files, $manifests, $partitions, $buckets, $audit_log, $ro, ...) over corpus
//! tables; `$statistics` of a table Java Paimon 0.9 analyzed.

use arrow_array::{Array, Int64Array, RecordBatch, StringArray};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::system::{scan, scan_at};
use lakescope_paimon::table::Table;
use lakescope_storage::{LocalStore, ObjectStore};
use std::path::Path;
use std::rc::Rc;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

fn warehouse() -> std::path::PathBuf {
    Path::new(CORPUS).join("paimon/warehouse")
}

async fn open(table: &str) -> Table {
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(warehouse()));
    Table::open(store, table).await.unwrap()
}

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

fn num_rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}

fn strings(batches: &[RecordBatch], col: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for b in batches {
        let i = b.schema().index_of(col).unwrap();
        let a = b.column(i).as_any().downcast_ref::<StringArray>().unwrap();
        out.extend((0..a.len()).map(|r| (!a.is_null(r)).then(|| a.value(r).to_string())));
    }
    out
}

fn sum_i64(batches: &[RecordBatch], col: &str) -> i64 {
    batches
        .iter()
        .map(|b| {
            let i = b.schema().index_of(col).unwrap();
            let a = b.column(i).as_any().downcast_ref::<Int64Array>().unwrap();
            a.iter().flatten().sum::<i64>()
        })
        .sum()
}

#[tokio::test(flavor = "current_thread")]
async fn files_lists_every_live_file_of_every_table() {
    for path in all_tables() {
        let t = open(&path).await;
        let out = scan(&t, "files").await.unwrap();
        let names: Vec<&str> = out
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        assert_eq!(
            &names[..16],
            &[
                "partition",
                "bucket",
                "file_path",
                "file_format",
                "schema_id",
                "level",
                "record_count",
                "file_size_in_bytes",
                "min_key",
                "max_key",
                "null_value_counts",
                "min_value_stats",
                "max_value_stats",
                "min_sequence_number",
                "max_sequence_number",
                "creation_time"
            ]
        );
        let Some(snapshot) = t.latest_snapshot().await.unwrap() else {
            assert_eq!(num_rows(&out.batches), 0);
            continue;
        };
        let p = plan(&t, &snapshot, &PartitionFilter::All).await.unwrap();
        assert_eq!(num_rows(&out.batches), p.file_count(), "{path}");
        assert_eq!(
            sum_i64(&out.batches, "record_count"),
            p.row_count(),
            "{path}"
        );
        // Every file_path exists.
        for f in strings(&out.batches, "file_path").into_iter().flatten() {
            assert!(warehouse().join(&f).exists(), "{path}: {f}");
        }
        // $buckets and $partitions add up to the same totals.
        let buckets = scan(&t, "buckets").await.unwrap();
        assert_eq!(
            sum_i64(&buckets.batches, "record_count"),
            p.row_count(),
            "{path}"
        );
        assert_eq!(
            sum_i64(&buckets.batches, "file_count") as usize,
            p.file_count()
        );
        let partitions = scan(&t, "partitions").await.unwrap();
        assert_eq!(
            sum_i64(&partitions.batches, "record_count"),
            p.row_count(),
            "{path}"
        );
        let manifests = scan(&t, "manifests").await.unwrap();
        let added = sum_i64(&manifests.batches, "num_added_files");
        let deleted = sum_i64(&manifests.batches, "num_deleted_files");
        assert!(added - deleted >= p.file_count() as i64, "{path}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn files_renders_keys_partitions_and_stats_like_paimon() {
    let t = open("java09.db/pk_compacted").await;
    let s4 = t.snapshot(4).await.unwrap();
    let out = scan_at(&t, "files", Some(&s4)).await.unwrap();
    let parts = strings(&out.batches, "partition");
    assert!(parts
        .iter()
        .all(|p| p.as_deref().is_some_and(|p| p.starts_with("{2024-03-0"))));
    let min_keys = strings(&out.batches, "min_key");
    // Trimmed primary key (id) only, as Arrays.toString.
    assert!(min_keys.iter().all(|k| k
        .as_deref()
        .is_some_and(|k| k.starts_with('[') && !k.contains(','))));
    let stats = strings(&out.batches, "null_value_counts");
    assert!(stats
        .iter()
        .all(|s| s.as_deref() == Some("{dt=0, id=0, name=0, price=0, qty=0}")));
    let mins = strings(&out.batches, "min_value_stats");
    assert!(mins.iter().any(|s| s
        .as_deref()
        .is_some_and(|s| s.contains("dt=2024-03-01, id=0"))));
    // Append table: no key.
    let t = open("corpus.db/append_dt").await;
    let out = scan(&t, "files").await.unwrap();
    assert!(strings(&out.batches, "min_key").iter().all(Option::is_none));
    let parts = scan(&t, "partitions").await.unwrap();
    assert_eq!(
        strings(&parts.batches, "partition"),
        [
            "dt=2024-01-02",
            "dt=2024-01-03",
            "dt=2024-01-04",
            "dt=2024-01-05"
        ]
        .iter()
        .map(|s| Some(s.to_string()))
        .collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "current_thread")]
async fn audit_log_keeps_deletes_with_rowkind() {
    let t = open("corpus.db/pk_dedup").await;
    let out = scan(&t, "audit_log").await.unwrap();
    assert_eq!(out.schema.field(0).name(), "rowkind");
    let kinds = strings(&out.batches, "rowkind");
    let live = kinds
        .iter()
        .filter(|k| matches!(k.as_deref(), Some("+I") | Some("+U")))
        .count();
    let expected = std::fs::read_to_string(
        Path::new(CORPUS).join("expected/paimon/corpus.pk_dedup/snapshot-5.jsonl"),
    )
    .unwrap();
    assert_eq!(live, expected.lines().count());
    assert!(kinds.iter().any(|k| k.as_deref() == Some("-D")));
    // Append table: every row +I.
    let t = open("corpus.db/append_dt").await;
    let out = scan(&t, "audit_log").await.unwrap();
    assert_eq!(
        strings(&out.batches, "rowkind")
            .iter()
            .filter(|k| k.as_deref() == Some("+I"))
            .count(),
        12
    );
}

#[tokio::test(flavor = "current_thread")]
async fn binlog_is_the_audit_log_with_each_value_in_an_array() {
    // Java's `BinlogTable` batch read: `AuditLogRead`'s rows, each column but rowkind made an
    // ARRAY of nullable elements holding the one value (only streaming reads pack [-U, +U]).
    for name in [
        "corpus.db/pk_dedup",
        "corpus.db/append_dt",
        "java09.db/pk_compacted",
    ] {
        let t = open(name).await;
        let audit = scan(&t, "audit_log").await.unwrap();
        let binlog = scan(&t, "binlog").await.unwrap();
        assert_eq!(binlog.schema.fields().len(), audit.schema.fields().len());
        assert_eq!(
            binlog.schema.field(0),
            audit.schema.field(0),
            "{name}: rowkind"
        );
        for (b, a) in binlog
            .schema
            .fields()
            .iter()
            .zip(audit.schema.fields())
            .skip(1)
        {
            assert_eq!(b.name(), a.name());
            assert!(b.is_nullable(), "{name}.{}", b.name());
            let arrow_schema::DataType::List(element) = b.data_type() else {
                panic!("{name}.{}: {}", b.name(), b.data_type());
            };
            assert!(element.is_nullable(), "{name}.{}", b.name());
            assert_eq!(element.data_type(), a.data_type(), "{name}.{}", b.name());
        }
        assert_eq!(
            num_rows(&binlog.batches),
            num_rows(&audit.batches),
            "{name}"
        );
        assert!(num_rows(&binlog.batches) > 0, "{name}");
        for (b, a) in binlog.batches.iter().zip(&audit.batches) {
            assert_eq!(
                b.column(0).as_ref(),
                a.column(0).as_ref(),
                "{name}: rowkind"
            );
            for i in 1..b.num_columns() {
                let list = b
                    .column(i)
                    .as_any()
                    .downcast_ref::<arrow_array::ListArray>()
                    .unwrap();
                assert_eq!(list.null_count(), 0);
                assert!((0..list.len()).all(|r| list.value_length(r) == 1), "{name}");
                assert_eq!(list.values().as_ref(), a.column(i).as_ref(), "{name}");
            }
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn ro_reads_only_the_top_level() {
    let t = open("java09.db/pk_compacted").await;
    // Snapshot 4 is a full compaction: $ro equals the merged read.
    let s4 = t.snapshot(4).await.unwrap();
    assert_eq!(
        num_rows(&scan_at(&t, "ro", Some(&s4)).await.unwrap().batches),
        14
    );
    // Snapshot 5 adds level-0 upserts: $ro still shows the level-5 values.
    let s5 = t.snapshot(5).await.unwrap();
    let out = scan_at(&t, "ro", Some(&s5)).await.unwrap();
    assert_eq!(num_rows(&out.batches), 14);
    let names = strings(&out.batches, "name");
    assert!(!names
        .iter()
        .any(|n| n.as_deref().is_some_and(|n| n.starts_with("v3_"))));
}

/// Decision (Paimon's `ReadOptimizedTable`, 0.9 to 2.x): `$ro` reads the files at level
/// `num-levels - 1`, not the highest level a bucket happens to have; with `num-levels` 10 the
/// fully compacted files of `pk_compacted` (level 5) are not read-optimized.
#[tokio::test(flavor = "current_thread")]
async fn ro_reads_the_fixed_top_level_of_num_levels() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("java09.db/pk_compacted");
    copy_dir(&warehouse().join("java09.db/pk_compacted"), &table);
    let schema_file = table.join("schema/schema-0");
    let mut schema: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&schema_file).unwrap()).unwrap();
    schema["options"]["num-levels"] = "10".into();
    std::fs::write(&schema_file, serde_json::to_vec(&schema).unwrap()).unwrap();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let t = Table::open(store, "java09.db/pk_compacted").await.unwrap();
    let s4 = t.snapshot(4).await.unwrap();
    assert_eq!(
        num_rows(&scan_at(&t, "ro", Some(&s4)).await.unwrap().batches),
        0
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn unknown_system_table_names_the_table() {
    let t = open("corpus.db/pk_dedup").await;
    let e = scan(&t, "nope").await.unwrap_err().to_string();
    assert!(e.contains("pk_dedup") && e.contains("nope"), "{e}");
}

#[tokio::test(flavor = "current_thread")]
async fn row_tracking_of_a_table_without_it_is_refused_naming_the_option() {
    // Java's `RowTrackingTable` refuses such a table too ("does not support row tracking").
    let t = open("corpus.db/pk_dedup").await;
    let e = scan(&t, "row_tracking").await.unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, lakescope_paimon::Error::Invalid(_)), "{msg}");
    assert!(
        msg.contains("pk_dedup$row_tracking") && msg.contains("'row-tracking.enabled'"),
        "{msg}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn paimon_system_tables_not_read_yet_are_unsupported_not_missing() {
    let t = open("corpus.db/pk_dedup").await;
    for name in [
        "all_tables",
        "all_partitions",
        "catalog_options",
        "sink_table_lineage",
    ] {
        let e = scan(&t, name).await.unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, lakescope_paimon::Error::Unsupported { .. }),
            "{name}: {msg}"
        );
        assert!(
            msg.contains("pk_dedup") && msg.contains(&format!("${name}")),
            "{msg}"
        );
    }
}

/// Java Paimon 0.9's `$statistics` rows (`StatsJava read`): the scalar columns joined by `|`,
/// and the `colstat` text.
fn java_statistics(out: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut lines = out.lines();
    while let Some(line) = lines.next() {
        let Some(scalars) = line.strip_prefix("row ") else {
            continue;
        };
        assert_eq!(lines.next(), Some("colstat-begin"), "{out}");
        let text: Vec<&str> = lines.by_ref().take_while(|l| *l != "colstat-end").collect();
        rows.push((scalars.to_string(), text.join("\n")));
    }
    rows
}

#[tokio::test(flavor = "current_thread")]
async fn statistics_show_what_java_analyze_committed_as_java_reads_them() {
    use lakescope_test_support::oracles::{oracles, run};
    let Some(o) = oracles() else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let classes = std::env::temp_dir().join("lakescope-stats-java-classes");
    let o = o.with_java(&repo.join("tests/oracles/StatsJava.java"), &classes);
    let wh = tempfile::tempdir().unwrap();
    let table_dir = wh.path().join("jw.db/app");
    run(
        o.java("ReadJava").arg("write-seed").arg(wh.path()),
        "Java write-seed",
    );
    run(
        o.java("StatsJava").arg("analyze").arg(&table_dir),
        "Java ANALYZE",
    );
    let want = java_statistics(&run(
        o.java("StatsJava").arg("read").arg(&table_dir),
        "Java reading $statistics",
    ));
    assert_eq!(want.len(), 1, "{want:?}");
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(wh.path()));
    let t = Table::open(store, "jw.db/app").await.unwrap();
    let out = scan(&t, "statistics").await.unwrap();
    let names: Vec<&str> = out
        .schema
        .fields()
        .iter()
        .map(|f| f.name().as_str())
        .collect();
    assert_eq!(
        names,
        [
            "snapshot_id",
            "schema_id",
            "mergedRecordCount",
            "mergedRecordSize",
            "colstat"
        ]
    );
    let rows = lakescope_test_support::tables::rows(&out.batches);
    assert_eq!(rows.len(), 1, "{rows:?}");
    let scalars: Vec<&str> = rows[0].splitn(5, '|').take(4).collect();
    assert_eq!(scalars.join("|"), want[0].0, "{}", scalars.join("|"));
    assert_eq!(strings(&out.batches, "colstat"), [Some(want[0].1.clone())]);
    // the ANALYZE is snapshot 2 (of snapshot 1's rows); snapshot 1 has no statistics
    assert_eq!(want[0].0, "1|0|6|1234");
    let first = t.snapshot(1).await.unwrap();
    let before = scan_at(&t, "statistics", Some(&first)).await.unwrap();
    assert_eq!(num_rows(&before.batches), 0);
    // statistics of a column the schema does not have: an error naming the file, as in Java
    let dir = table_dir.join("statistics");
    let file = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("\"dt\" :", "\"gone\" :")).unwrap();
    let err = scan(&t, "statistics").await.unwrap_err().to_string();
    assert!(
        err.contains("jw.db/app/statistics/stats-") && err.contains("column 'gone'"),
        "{err}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn file_indexes_list_embedded_and_separate_indexes_as_java_reads_their_headers() {
    use lakescope_test_support::oracles::{oracles, run};
    let Some(o) = oracles() else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let classes = std::env::temp_dir().join("lakescope-file-index-java-classes");
    let o = o.with_java(&repo.join("tests/oracles/FileIndexJava.java"), &classes);
    let wh = tempfile::tempdir().unwrap();
    run(
        o.java("FileIndexJava").arg("write").arg(wh.path()),
        "Java writing file indexes",
    );
    let out = run(
        o.java("FileIndexJava")
            .arg("meta")
            .arg(wh.path().join("fi.db/t")),
        "Java reading file index headers",
    );
    let mut want: Vec<String> = out.lines().map(String::from).collect();
    want.sort();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(wh.path()));
    let t = Table::open(store, "fi.db/t").await.unwrap();
    let out = scan(&t, "file_indexes").await.unwrap();
    let b = &out.batches[0];
    let text = |name: &str, r: usize| -> String {
        let c = b.column(b.schema().index_of(name).unwrap());
        if c.is_null(r) {
            return "null".into();
        }
        arrow_cast::display::array_value_to_string(c, r).unwrap()
    };
    let last = |p: String| p.rsplit('/').next().unwrap().to_string();
    let mut got: Vec<String> = (0..b.num_rows())
        .map(|r| {
            [
                text("partition", r).trim_matches(['{', '}']).to_string(),
                text("bucket", r),
                last(text("file_path", r)),
                text("column_name", r),
                text("index_type", r),
                text("index_size_in_bytes", r),
                text("is_empty", r),
                text("storage_type", r),
                last(text("index_file_path", r)),
                text("index_container_size_in_bytes", r),
            ]
            .join("|")
        })
        .collect();
    got.sort();
    assert_eq!(got, want);
    // both storages are covered: indexes in the manifest, and an `.index` file
    assert!(
        want.iter().any(|l| l.contains("|EMBEDDED|null|")),
        "{want:?}"
    );
    assert!(want.iter().any(|l| l.contains("|FILE|data-")), "{want:?}");
    assert!((0..b.num_rows()).all(|r| text("record_count", r) == "5"));
    let index_path = text(
        "index_file_path",
        (0..b.num_rows())
            .find(|r| !b.column(9).is_null(*r))
            .unwrap(),
    );
    assert!(
        index_path.starts_with("fi.db/t/dt=b/bucket-0/data-"),
        "{index_path}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn aggregation_fields_list_each_columns_options_as_java_does() {
    use lakescope_test_support::oracles::{oracles, run};
    let Some(o) = oracles() else {
        return;
    };
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let classes = std::env::temp_dir().join("lakescope-agg-java-classes");
    let o = o.with_java(&repo.join("tests/oracles/AggJava.java"), &classes);
    let wh = tempfile::tempdir().unwrap();
    run(
        o.java("AggJava").arg("write").arg(wh.path()),
        "Java creating an aggregation table",
    );
    let out = run(
        o.java("AggJava")
            .arg("read")
            .arg(wh.path().join("agg.db/t")),
        "Java reading $aggregation_fields",
    );
    let mut want: Vec<&str> = out.lines().collect();
    want.sort_unstable(); // `rows` sorts its lines
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(wh.path()));
    let t = Table::open(store, "agg.db/t").await.unwrap();
    let got = lakescope_test_support::tables::rows(
        &scan(&t, "aggregation_fields").await.unwrap().batches,
    );
    assert_eq!(got, want);
    // a column with several options, and one with none
    assert!(
        got.contains(&"k|INT NOT NULL|[]|[]|the key".to_string()),
        "{got:?}"
    );
    assert!(got
        .iter()
        .any(|r| r.starts_with("w|STRING|[") && r.contains("fields.w.list-agg-delimiter")));
}

/// The Data tab's audit-log view of an append table streams through [`SnapshotReader`] with
/// `with_row_kind`: its rows carry no row kind, so each is `+I` (it used to read the row kind
/// from the first data column and fail, or pair a projection with the wrong columns).
#[tokio::test(flavor = "current_thread")]
async fn an_append_tables_streamed_audit_log_with_columns_and_a_filter_is_its_audit_log() {
    use lakescope_paimon::predicate::parse::parse;
    use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
    let t = open("corpus.db/append_dt").await;
    let snapshot = t.latest_snapshot().await.unwrap();
    let audit = scan(&t, "audit_log").await.unwrap();
    let names: Vec<String> = audit
        .schema
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    // the last column first, then `rowkind`: a projection that a shifted column would break
    let columns = [names[names.len() - 1].clone(), "rowkind".to_string()];
    let data_columns = vec![names[names.len() - 1].clone()];
    for filter in [None, Some(format!("`{}` IS NOT NULL", names[1]))] {
        let request = ReadRequest {
            columns: Some(data_columns.clone()),
            with_row_kind: true,
            filter: filter.as_deref().map(|f| parse(f).unwrap()),
            ..ReadRequest::default()
        };
        let mut reader = SnapshotReader::open(&t, snapshot.as_ref(), &request)
            .await
            .unwrap();
        let mut batches = Vec::new();
        while let Some(batch) = reader.next_batch().await {
            batches.push(batch.unwrap_or_else(|e| panic!("{filter:?}: {e}")));
        }
        assert_eq!(reader.schema().field(0).name(), "rowkind");
        let streamed: Vec<RecordBatch> = batches
            .iter()
            .map(|b| b.project(&[1, 0]).unwrap())
            .collect();
        let expected: Vec<RecordBatch> = audit
            .batches
            .iter()
            .map(|b| {
                let idx: Vec<usize> = columns
                    .iter()
                    .map(|c| b.schema().index_of(c).unwrap())
                    .collect();
                b.project(&idx).unwrap()
            })
            .collect();
        let rows = |bs: &[RecordBatch]| {
            arrow_cast::pretty::pretty_format_batches(bs)
                .unwrap()
                .to_string()
                .lines()
                .skip(3)
                .map(str::to_string)
                .collect::<std::collections::BTreeSet<_>>()
        };
        assert_eq!(rows(&streamed), rows(&expected), "{filter:?}");
        assert_eq!(strings(&batches, "rowkind").len(), 12, "{filter:?}");
    }
}
