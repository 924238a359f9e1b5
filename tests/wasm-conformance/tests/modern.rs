//! Issue 25's acceptance in headless Chromium: the modern corpus pypaimon 2.1 writes
//! (`crates/paimon/tests/modern/gen_modern.py`, generated at build time) read by the wasm core
//! exactly as pypaimon reads it at every snapshot, tag and branch, or refused by name where the
//! browser does not read a feature.
#![cfg(target_arch = "wasm32")]

use arrow_array::{Array, ArrayRef, BinaryArray, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use lakescope_engine::scan::ScanRequest;
use lakescope_engine::version::BranchPoint;
use lakescope_engine::{Catalog, Error, TableRef, Version};
use lakescope_paimon::read::blob;
use lakescope_storage::ObjectStore;
use lakescope_wasm_conformance::{pypaimon_lines, ModernTable, MODERN, MODERN_PROBLEM};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Read exactly at every snapshot (and the latest) as pypaimon reads them.
const EXACT: &[&str] = &[
    "data_evolution",
    "data_evolution_some_rows",
    "data_evolution_deletes",
    "data_evolution_appends",
    "row_tracking",
    "dv_merge_on_read",
    "dv_level0_hidden",
    "postpone",
    "row_format",
    "row_format_pk",
    "row_format_evolution",
    "variant",
    "variant_shredded",
    "variant_row_format",
    "variant_pk",
    // VARIANTs inside ROW / ARRAY / MAP, in Arrow's display as gen_modern.py prints pypaimon's
    "variant_nested",
    "vector_parquet",
    "vector_orc",
    "vector_avro",
    "vector_row",
    "mosaic_pk",
    "mosaic_buckets",
    "modern_refs",
];

/// Every type of a format, read as the same rows pypaimon wrote to the Parquet twin
/// `m.<feature>_parquet` (pypaimon's own display of these types differs from Arrow's).
const TWINS: &[&str] = &["mosaic_format", "row_format_types"];

/// BLOB columns: references, each value's bytes fetched on demand.
const BLOBS: &[&str] = &["blob", "blob_rolled"];

/// Refused in the browser, with the words of the error (besides the table's name).
const REFUSED: &[(&str, &[&str])] = &[
    ("avro_xz", &["Avro compression codec 'xz'", "CLI"]),
    ("avro_bzip2", &["Avro compression codec 'bzip2'", "CLI"]),
    ("parquet_brotli", &["compressed with BROTLI", "CLI"]),
    ("lance_format", &["data file format 'lance'", ".lance"]),
    (
        "vortex_format",
        &["format vortex is not supported in the browser; the lakescope CLI reads it"],
    ),
    (
        "vortex_pk",
        &["format vortex is not supported in the browser; the lakescope CLI reads it"],
    ),
    (
        "vortex_buckets",
        &["format vortex is not supported in the browser; the lakescope CLI reads it"],
    ),
    ("vector_files", &["vector-field"]),
    ("blob_as_descriptor", &["blob-as-descriptor"]),
    ("fallback_branch", &["scan.fallback-branch"]),
    (
        "unknown_index_type",
        &["index-manifest-", "index type 'btree'"],
    ),
    (
        "unknown_file_source",
        &["unknown file source 7 (_FILE_SOURCE)"],
    ),
    ("variant_empty_key", &[".parquet", "empty key"]),
    (
        "variant_avro",
        &[".avro", "VARIANT column 'v'", "only to Parquet"],
    ),
    (
        "variant_orc",
        &[".orc", "VARIANT column 'v'", "only to Parquet"],
    ),
];

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
    let expected: Vec<&str> = EXACT
        .iter()
        .chain(TWINS)
        .chain(BLOBS)
        .copied()
        .chain(REFUSED.iter().map(|(f, _)| *f))
        .chain(["consumers", "variant_corrupt"])
        .collect();
    for table in MODERN {
        assert_eq!(
            expected.iter().filter(|f| **f == table.feature).count(),
            1,
            "{}: one expectation each",
            table.feature
        );
        assert!(!table.files.is_empty(), "{}: no files", table.feature);
    }
    assert_eq!(expected.len(), MODERN.len());
}

#[wasm_bindgen_test]
async fn modern_tables_read_as_pypaimon_reads_them_at_every_snapshot() {
    if !embedded() {
        return;
    }
    let mut failures = Vec::new();
    for feature in EXACT {
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
    for table in MODERN.iter().filter(|t| EXACT.contains(&t.feature)) {
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
    for feature in TWINS {
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
    for feature in BLOBS {
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
    for (feature, words) in REFUSED {
        let table = modern(feature);
        let (_, catalog) = catalog_of(table);
        let name = format!("m.{feature}");
        match lines(&catalog, &name, Version::Latest).await {
            Ok(rows) => panic!("{feature} must be refused, read {rows:?}"),
            Err(e) => assert_refused(feature, "latest", &e, words),
        }
        for (id, pypaimon) in snapshots(table) {
            match lines(&catalog, &name, Version::SnapshotId(id)).await {
                Ok(rows) => assert_eq!(
                    Ok(&rows),
                    pypaimon.as_ref(),
                    "{feature}@{id}: read, so exactly as pypaimon"
                ),
                Err(e) => assert_refused(feature, &id.to_string(), &e, words),
            }
        }
    }
}

#[wasm_bindgen_test]
async fn a_malformed_variant_is_an_error_naming_the_file_in_the_browser() {
    if !embedded() {
        return;
    }
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
