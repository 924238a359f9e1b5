//! Issue 25's acceptance in headless Chromium: the modern corpus pypaimon 2.1 writes
//! (`crates/paimon/tests/modern/gen_modern.py`, generated at build time) read by the wasm core
//! exactly as pypaimon reads it at every snapshot, tag and branch, or refused by name where the
//! browser does not read a feature. The newer system tables are checked here too: `$statistics`,
//! `$file_indexes` and `$ro` against Java Paimon 0.9's reads (run by build.rs), `$binlog` against
//! `$audit_log` (the oracle of the native tests: no oracle here has `$binlog`).
#![cfg(target_arch = "wasm32")]

use arrow_array::{Array, ArrayRef, BinaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::version::BranchPoint;
use lakescope_engine::{Catalog, Error, TableRef, Version};
use lakescope_paimon::read::blob;
use lakescope_storage::MemoryStore;
use lakescope_storage::ObjectStore;
use lakescope_wasm_conformance::{
    browser_expectations, browser_tables, corpus_warehouse, pypaimon_lines, Expect, JavaRead,
    ModernTable, JAVA_PROBLEM, JAVA_SYSTEM, MODERN, MODERN_PROBLEM,
};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The modern tables the browser reads exactly at every snapshot (and the latest), as pypaimon
/// reads them (incl. VARIANTs inside ROW / ARRAY / MAP, in Arrow's display as gen_modern.py
/// prints pypaimon's, and data files at external paths).
fn exact() -> Vec<String> {
    browser_tables(&Expect::Exact)
}

/// The embedded table of `feature`.
fn modern(feature: &str) -> &'static ModernTable {
    MODERN
        .iter()
        .find(|t| t.feature == feature)
        .unwrap_or_else(|| panic!("{feature} is not embedded"))
}

/// Whether the modern corpus is there (false only when skipped with LAKESCOPE_SKIP_ORACLES=1).
fn embedded() -> bool {
    if let Some(problem) = MODERN_PROBLEM {
        panic!("modern corpus: {problem}");
    }
    !MODERN.is_empty()
}

/// A JSON file of gen_modern.py: label → pypaimon's sorted lines (a string is pypaimon's error).
fn per_label(json: &str) -> BTreeMap<String, Result<Vec<String>, String>> {
    let map: BTreeMap<String, serde_json::Value> = serde_json::from_str(json).unwrap();
    map.into_iter()
        .map(|(label, rows)| {
            let rows = match rows.as_array() {
                Some(lines) => Ok(lines
                    .iter()
                    .map(|l| l.as_str().unwrap().to_string())
                    .collect()),
                None => Err(rows.to_string()),
            };
            (label, rows)
        })
        .collect()
}

/// pypaimon's rows per snapshot id of `table`.
fn snapshots(table: &ModernTable) -> BTreeMap<i64, Result<Vec<String>, String>> {
    let json = table
        .snapshots
        .unwrap_or_else(|| panic!("{}: no snapshots.json", table.feature));
    let map: BTreeMap<i64, Result<Vec<String>, String>> = per_label(json)
        .into_iter()
        .map(|(id, rows)| (id.parse().unwrap(), rows))
        .collect();
    assert!(!map.is_empty(), "{}: no snapshots", table.feature);
    map
}

/// `table_ref` of `catalog` read at `at` (only `columns`, if given).
async fn scan(
    catalog: &Catalog,
    table_ref: &str,
    at: Version,
    columns: Option<Vec<String>>,
) -> Result<Vec<RecordBatch>, Error> {
    let table_ref: TableRef = table_ref.parse().unwrap();
    let request = ScanRequest {
        at,
        columns,
        ..ScanRequest::default()
    };
    Ok(catalog.scan(&table_ref, &request).await?.batches)
}

/// [`scan`]'s rows as pypaimon's lines.
async fn lines(catalog: &Catalog, table_ref: &str, at: Version) -> Result<Vec<String>, Error> {
    Ok(pypaimon_lines(&scan(catalog, table_ref, at, None).await?).unwrap())
}

fn catalog_of(table: &ModernTable) -> (Rc<dyn ObjectStore>, Catalog) {
    let store: Rc<dyn ObjectStore> = Rc::new(table.warehouse());
    (store.clone(), Catalog::new(store))
}

#[wasm_bindgen_test]
fn every_embedded_modern_table_has_an_expectation() {
    if !embedded() {
        return;
    }
    // tables.json is the one list: build.rs embeds each table with a `browser` expectation
    let expected: Vec<String> = browser_expectations().into_iter().map(|(t, _)| t).collect();
    let embedded: Vec<&str> = MODERN.iter().map(|t| t.feature).collect();
    assert_eq!(embedded, expected);
    for table in MODERN {
        assert!(!table.files.is_empty(), "{}: no files", table.feature);
    }
}

#[wasm_bindgen_test]
async fn modern_tables_read_as_pypaimon_reads_them_at_every_snapshot() {
    if !embedded() {
        return;
    }
    let mut failures = Vec::new();
    let features = exact();
    assert!(features.len() > 20, "{features:?}");
    for feature in &features {
        let table = modern(feature);
        let (_, catalog) = catalog_of(table);
        let name = format!("m.{feature}");
        let per_snapshot = snapshots(table);
        for (id, want) in &per_snapshot {
            let want = want
                .as_ref()
                .unwrap_or_else(|e| panic!("pypaimon cannot read {feature} at snapshot {id}: {e}"));
            match lines(&catalog, &name, Version::SnapshotId(*id)).await {
                Ok(got) if &got == want => {}
                Ok(got) => failures.push(format!("{feature}@{id}: {got:?}, pypaimon {want:?}")),
                Err(e) => failures.push(format!("{feature}@{id}: {e}")),
            }
        }
        let mut latest: Vec<String> = table.pypaimon_latest.lines().map(String::from).collect();
        latest.sort();
        match lines(&catalog, &name, Version::Latest).await {
            Ok(got) if got == latest => {}
            Ok(got) => failures.push(format!("{feature} latest: {got:?}, pypaimon {latest:?}")),
            Err(e) => failures.push(format!("{feature} latest: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[wasm_bindgen_test]
async fn tags_and_branches_of_a_modern_table_read_as_pypaimon_reads_them() {
    if !embedded() {
        return;
    }
    let table = modern("modern_refs");
    let refs = per_label(table.refs.expect("modern_refs: refs.json"));
    let (_, catalog) = catalog_of(table);
    let dev = |at| Version::OnBranch {
        branch: "dev".into(),
        at,
    };
    let reads = [
        ("latest", "m.modern_refs", Version::Latest),
        ("tag:t1", "m.modern_refs", Version::Tag("t1".into())),
        ("branch:dev", "m.modern_refs", Version::Branch("dev".into())),
        ("branch:dev", "m.modern_refs$branch_dev", Version::Latest),
        (
            "branch:dev@1",
            "m.modern_refs",
            dev(BranchPoint::SnapshotId(1)),
        ),
        (
            "branch:dev@1",
            "m.modern_refs$branch_dev",
            Version::SnapshotId(1),
        ),
        (
            "branch:dev@tag:d2",
            "m.modern_refs",
            dev(BranchPoint::Tag("d2".into())),
        ),
        (
            "branch:dev@tag:d2",
            "m.modern_refs$branch_dev",
            Version::Tag("d2".into()),
        ),
    ];
    for (label, name, at) in reads {
        let want = refs[label].as_ref().unwrap();
        let got = lines(&catalog, name, at.clone())
            .await
            .unwrap_or_else(|e| panic!("{label} ({name} at {at:?}): {e}"));
        assert_eq!(&got, want, "{label} ({name} at {at:?})");
    }
    // `$branches` lists the one branch
    let branches = lines(&catalog, "m.modern_refs$branches", Version::Latest)
        .await
        .unwrap();
    assert!(
        branches.len() == 1 && branches[0].starts_with("dev|"),
        "{branches:?}"
    );
    // the tag is main before its column update; the branch has rows of its own
    assert_ne!(refs["tag:t1"], refs["branch:dev"]);
    assert_ne!(refs["latest"], refs["tag:t1"]);
}

#[wasm_bindgen_test]
async fn row_ids_of_modern_tables_read_as_pypaimon_projects_them() {
    if !embedded() {
        return;
    }
    // `_ROW_ID` and `_SEQUENCE_NUMBER` named as columns (hidden otherwise), at every snapshot.
    let mut tables = 0;
    let exact = exact();
    for table in MODERN
        .iter()
        .filter(|t| exact.iter().any(|f| f == t.feature))
    {
        let Some(json) = table.row_tracking else {
            continue;
        };
        tables += 1;
        let tracked: serde_json::Value = serde_json::from_str(json).unwrap();
        let columns: Vec<String> = tracked["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        let (_, catalog) = catalog_of(table);
        let name = format!("m.{}", table.feature);
        for (id, want) in per_label(&tracked["snapshots"].to_string()) {
            let want = want.unwrap_or_else(|e| panic!("pypaimon {name}@{id}: {e}"));
            let at = Version::SnapshotId(id.parse().unwrap());
            let batches = scan(&catalog, &name, at.clone(), Some(columns.clone()))
                .await
                .unwrap_or_else(|e| panic!("{name}@{id} with row ids: {e}"));
            assert_eq!(pypaimon_lines(&batches).unwrap(), want, "{name}@{id}");
            // `$row_tracking`: every column, then the two (no BLOB column in these tables)
            let system = lines(&catalog, &format!("{name}$row_tracking"), at)
                .await
                .unwrap_or_else(|e| panic!("{name}$row_tracking@{id}: {e}"));
            assert_eq!(system, want, "{name}$row_tracking@{id}");
        }
    }
    assert!(tables >= 6, "row-tracking tables compared: {tables}");
}

#[wasm_bindgen_test]
async fn every_type_of_mosaic_and_row_files_reads_as_its_parquet_twin() {
    if !embedded() {
        return;
    }
    let twins = browser_tables(&Expect::Twin);
    assert!(twins.len() >= 2, "{twins:?}");
    for feature in &twins {
        let table = modern(feature);
        let (_, catalog) = catalog_of(table);
        let per_snapshot = snapshots(table);
        let mut last = Vec::new();
        for id in per_snapshot.keys() {
            let at = Version::SnapshotId(*id);
            let got = lines(&catalog, &format!("m.{feature}"), at.clone())
                .await
                .unwrap_or_else(|e| panic!("{feature}@{id}: {e}"));
            let twin = lines(&catalog, &format!("m.{feature}_parquet"), at)
                .await
                .unwrap_or_else(|e| panic!("{feature}_parquet@{id}: {e}"));
            assert_eq!(got, twin, "{feature}@{id}");
            last = got;
        }
        assert!(!last.is_empty(), "{feature}");
        assert_eq!(
            last.len(),
            table.pypaimon_latest.lines().count(),
            "{feature}: pypaimon's row count"
        );
    }
}

/// `batch` with each BLOB column (references) replaced by the bytes fetched from `store`.
async fn with_blob_bytes(store: &dyn ObjectStore, batch: &RecordBatch) -> RecordBatch {
    let mut fields = Vec::new();
    let mut columns: Vec<ArrayRef> = Vec::new();
    for (field, column) in batch.schema().fields().iter().zip(batch.columns()) {
        if column.data_type() != &blob::reference_type() {
            fields.push(field.as_ref().clone());
            columns.push(column.clone());
            continue;
        }
        let mut values = Vec::new();
        for row in 0..column.len() {
            values.push(match blob::reference(column.as_ref(), row).unwrap() {
                Some(r) => Some(blob::fetch(store, &r).await.unwrap()),
                None => None,
            });
        }
        fields.push(Field::new(field.name(), DataType::Binary, true));
        columns.push(Arc::new(BinaryArray::from_iter(
            values.iter().map(|v| v.as_deref()),
        )));
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

#[wasm_bindgen_test]
async fn blob_values_fetched_on_demand_are_pypaimons_bytes_at_every_snapshot() {
    if !embedded() {
        return;
    }
    let blobs = browser_tables(&Expect::Blob);
    assert!(!blobs.is_empty());
    for feature in &blobs {
        let table = modern(feature);
        let (store, catalog) = catalog_of(table);
        for (id, want) in snapshots(table) {
            let want = want.unwrap_or_else(|e| panic!("pypaimon {feature}@{id}: {e}"));
            let batches = scan(
                &catalog,
                &format!("m.{feature}"),
                Version::SnapshotId(id),
                None,
            )
            .await
            .unwrap_or_else(|e| panic!("{feature}@{id}: {e}"));
            let mut fetched = Vec::new();
            for batch in &batches {
                fetched.push(with_blob_bytes(store.as_ref(), batch).await);
            }
            assert_eq!(pypaimon_lines(&fetched).unwrap(), want, "{feature}@{id}");
        }
    }
}

#[wasm_bindgen_test]
async fn consumers_of_a_modern_table_are_listed_as_pypaimon_lists_them() {
    if !embedded() {
        return;
    }
    assert_eq!(browser_tables(&Expect::System), ["consumers"]);
    let table = modern("consumers");
    let (_, catalog) = catalog_of(table);
    let mut want: Vec<String> = table.pypaimon_latest.lines().map(String::from).collect();
    want.sort();
    assert_eq!(want.len(), 2, "{want:?}");
    let got = lines(&catalog, "m.consumers$consumers", Version::Latest)
        .await
        .unwrap();
    assert_eq!(got, want);
}

/// Asserts `err` is an [`Error::Unsupported`] of the paimon crate naming `m.db/<feature>` and
/// holding every one of `words`.
fn assert_refused(feature: &str, at: &str, err: &Error, words: &[&str]) {
    let msg = err.to_string();
    assert!(
        matches!(
            err,
            Error::Paimon(lakescope_paimon::Error::Unsupported { .. })
        ),
        "{feature}@{at}: not an Unsupported error: {msg}"
    );
    assert!(
        msg.contains(&format!("m.db/{feature}")),
        "{feature}@{at}: {msg}"
    );
    for word in words {
        assert!(msg.contains(word), "{feature}@{at}: '{word}' not in: {msg}");
    }
}

#[wasm_bindgen_test]
async fn features_the_browser_does_not_read_are_refused_by_name_never_misread() {
    if !embedded() {
        return;
    }
    // The latest snapshot uses the feature and is refused; an older snapshot (before the feature
    // was used, e.g. before the first index file) is either refused alike or read exactly.
    let refused: Vec<(String, Vec<String>)> = browser_expectations()
        .into_iter()
        .filter_map(|(feature, e)| match e {
            Expect::Refused(words) => Some((feature, words)),
            _ => None,
        })
        .collect();
    assert!(refused.len() >= 10, "{refused:?}");
    for (feature, words) in &refused {
        let feature: &str = feature;
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let table = modern(feature);
        let (_, catalog) = catalog_of(table);
        let name = format!("m.{feature}");
        match lines(&catalog, &name, Version::Latest).await {
            Ok(rows) => panic!("{feature} must be refused, read {rows:?}"),
            Err(e) => assert_refused(feature, "latest", &e, &words),
        }
        for (id, pypaimon) in snapshots(table) {
            match lines(&catalog, &name, Version::SnapshotId(id)).await {
                Ok(rows) => assert_eq!(
                    Ok(&rows),
                    pypaimon.as_ref(),
                    "{feature}@{id}: read, so exactly as pypaimon"
                ),
                Err(e) => assert_refused(feature, &id.to_string(), &e, &words),
            }
        }
    }
}

#[wasm_bindgen_test]
async fn a_malformed_variant_is_an_error_naming_the_file_in_the_browser() {
    if !embedded() {
        return;
    }
    let malformed = browser_tables(&Expect::Malformed);
    assert_eq!(malformed, ["variant_corrupt"]);
    let table = modern("variant_corrupt");
    assert!(
        table.pypaimon_latest.contains("MALFORMED_VARIANT"),
        "pypaimon reads it: {}",
        table.pypaimon_latest
    );
    let (_, catalog) = catalog_of(table);
    let err = lines(&catalog, "m.variant_corrupt", Version::Latest)
        .await
        .expect_err("a malformed variant must not be read");
    let msg = err.to_string();
    assert!(
        msg.starts_with("m.db/variant_corrupt/bucket-0/data-")
            && msg.contains(".parquet: malformed VARIANT value"),
        "{msg}"
    );
}

#[wasm_bindgen_test]
async fn external_data_files_outside_the_store_are_refused_naming_the_file() {
    if !embedded() {
        return;
    }
    // The embedded warehouses hold the external files and stand for the folder pypaimon wrote
    // them in (read exactly above); the same files in a store standing for another location, or
    // for none (an in-memory or OPFS store), cannot reach the `_EXTERNAL_PATH`s: refused.
    for feature in ["external_paths", "external_paths_pk"] {
        let table = modern(feature);
        let elsewhere = [
            MemoryStore::from_static(table.files),
            MemoryStore::from_static(table.files).with_root_uri("s3://lake/warehouse"),
            MemoryStore::from_static(table.files).with_root_uri(format!("{}/m.db", table.root_uri)),
        ];
        for store in elsewhere {
            let root = lakescope_storage::ObjectStore::root_uri(&store);
            let catalog = Catalog::new(Rc::new(store));
            let err = lines(&catalog, &format!("m.{feature}"), Version::Latest)
                .await
                .expect_err("an external file outside the store");
            assert_refused(
                feature,
                &format!("{root:?}"),
                &err,
                &["external data path file:", "'data-file.external-paths'"],
            );
        }
    }
}

/// Whether Java Paimon 0.9's reads are there (false only when skipped with
/// LAKESCOPE_SKIP_ORACLES=1).
fn java_embedded() -> bool {
    if let Some(problem) = JAVA_PROBLEM {
        panic!("Java oracle reads: {problem}");
    }
    !JAVA_SYSTEM.is_empty()
}

/// `table_ref$system` of `catalog` at `at`, read whole.
async fn system(catalog: &Catalog, table_ref: &str, at: Version) -> Vec<RecordBatch> {
    scan(catalog, table_ref, at.clone(), None)
        .await
        .unwrap_or_else(|e| panic!("{table_ref} at {at:?}: {e}"))
}

#[wasm_bindgen_test]
async fn statistics_read_in_the_browser_as_java_reads_them() {
    if !java_embedded() {
        return;
    }
    // StatsJava's output: "row <snapshot>|<schema>|<count>|<size>", then the colstat text
    // between "colstat-begin" and "colstat-end"
    let read = JavaRead::named("statistics");
    let mut want = Vec::new();
    let mut lines = read.java.lines();
    while let Some(line) = lines.next() {
        let Some(scalars) = line.strip_prefix("row ") else {
            continue;
        };
        assert_eq!(lines.next(), Some("colstat-begin"), "{}", read.java);
        let text: Vec<&str> = lines.by_ref().take_while(|l| *l != "colstat-end").collect();
        want.push(format!("{scalars}|{}", text.join("\n")));
    }
    assert_eq!(want.len(), 1, "{}", read.java);
    let catalog = Catalog::new(Rc::new(read.warehouse()));
    let batches = system(&catalog, "jw.app$statistics", Version::Latest).await;
    let mut got = Vec::new();
    for b in &batches {
        let schema = b.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
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
        for r in 0..b.num_rows() {
            let cells: Vec<String> = b
                .columns()
                .iter()
                .map(|c| {
                    if c.is_null(r) {
                        "null".to_string()
                    } else {
                        arrow_cast::display::array_value_to_string(c, r).unwrap()
                    }
                })
                .collect();
            got.push(cells.join("|"));
        }
    }
    assert_eq!(got, want);
    // the ANALYZE is snapshot 2; snapshot 1 has no statistics (time travel applies)
    let before = system(&catalog, "jw.app$statistics", Version::SnapshotId(1)).await;
    assert_eq!(before.iter().map(RecordBatch::num_rows).sum::<usize>(), 0);
}

#[wasm_bindgen_test]
async fn file_indexes_read_in_the_browser_as_java_reads_their_headers() {
    if !java_embedded() {
        return;
    }
    let read = JavaRead::named("file_indexes");
    let mut want: Vec<String> = read.java.lines().map(String::from).collect();
    want.sort();
    let catalog = Catalog::new(Rc::new(read.warehouse()));
    let batches = system(&catalog, "fi.t$file_indexes", Version::Latest).await;
    let mut got = Vec::new();
    for b in &batches {
        let text = |name: &str, r: usize| -> String {
            let c = b.column(b.schema().index_of(name).unwrap());
            if c.is_null(r) {
                return "null".into();
            }
            arrow_cast::display::array_value_to_string(c, r).unwrap()
        };
        let last = |p: String| p.rsplit('/').next().unwrap().to_string();
        for r in 0..b.num_rows() {
            got.push(
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
                .join("|"),
            );
        }
    }
    got.sort();
    assert_eq!(got, want);
    // both storages: indexes in the manifest, and an `.index` file beside the data file
    assert!(
        want.iter().any(|l| l.contains("|EMBEDDED|null|")),
        "{want:?}"
    );
    assert!(want.iter().any(|l| l.contains("|FILE|data-")), "{want:?}");
}

#[wasm_bindgen_test]
async fn read_optimized_tables_read_in_the_browser_as_java_reads_them_at_every_snapshot() {
    if !java_embedded() {
        return;
    }
    let catalog = Catalog::new(Rc::new(corpus_warehouse()));
    // A compacted primary-key table: snapshot 5 adds level-0 upserts `$ro` does not show. Not a
    // table with deletion vectors: there Java 0.9's batch scan replaces `$ro`'s level filter by
    // `level > 0`, where Paimon 1.3+ (`withLevel`) and lakescope read only the top level.
    {
        let (name, table) = ("ro_pk_compacted", "java09.pk_compacted");
        // SystemJava's output: "== <snapshot id>", then that snapshot's `$ro` rows
        let java = JavaRead::named(name).java;
        let mut per_snapshot: Vec<(i64, Vec<String>)> = Vec::new();
        for line in java.lines() {
            if let Some(id) = line.strip_prefix("== ") {
                per_snapshot.push((id.parse().unwrap(), Vec::new()));
            } else if let Some((_, rows)) = per_snapshot.last_mut() {
                assert!(
                    !line.starts_with("!! "),
                    "Java 0.9 cannot read {table}$ro: {line}"
                );
                rows.push(line.to_string());
            }
        }
        assert!(per_snapshot.len() >= 2, "{name}: {java}");
        for (id, mut want) in per_snapshot {
            want.sort();
            let batches = system(&catalog, &format!("{table}$ro"), Version::SnapshotId(id)).await;
            let mut got = batches_to_lines(&batches).unwrap();
            got.sort();
            assert_eq!(got, want, "{table}$ro at snapshot {id}");
        }
    }
}

#[wasm_bindgen_test]
async fn binlog_reads_in_the_browser_as_the_audit_log_with_each_value_in_an_array() {
    if !embedded() {
        return;
    }
    // Java's `BinlogTable` batch read: `$audit_log`'s rows, each column but rowkind an ARRAY
    // holding the one value; primary-key (merge-on-read, VARIANT, mosaic) and append tables.
    for feature in [
        "dv_merge_on_read",
        "variant_pk",
        "mosaic_pk",
        "row_tracking",
    ] {
        let table = modern(feature);
        let (_, catalog) = catalog_of(table);
        for id in snapshots(table).keys() {
            let at = Version::SnapshotId(*id);
            let name = format!("m.{feature}");
            let audit = system(&catalog, &format!("{name}$audit_log"), at.clone()).await;
            let binlog = system(&catalog, &format!("{name}$binlog"), at).await;
            let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
            assert_eq!(rows(&binlog), rows(&audit), "{feature}@{id}");
            assert!(rows(&audit) > 0, "{feature}@{id}");
            for (b, a) in binlog.iter().zip(&audit) {
                assert_eq!(b.num_columns(), a.num_columns(), "{feature}@{id}");
                assert_eq!(
                    b.column(0).as_ref(),
                    a.column(0).as_ref(),
                    "{feature}@{id}: rowkind"
                );
                for i in 1..b.num_columns() {
                    let list = b
                        .column(i)
                        .as_any()
                        .downcast_ref::<arrow_array::ListArray>()
                        .unwrap_or_else(|| panic!("{feature}@{id}: column {i} not a list"));
                    assert_eq!(list.null_count(), 0, "{feature}@{id}");
                    assert!(
                        (0..list.len()).all(|r| list.value_length(r) == 1),
                        "{feature}@{id}"
                    );
                    assert_eq!(
                        list.values().as_ref(),
                        a.column(i).as_ref(),
                        "{feature}@{id}"
                    );
                }
            }
        }
    }
}
