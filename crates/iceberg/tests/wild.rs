//! Iceberg tables as other writers leave them ("in the wild"): written by pyiceberg 0.12 into a
//! local warehouse (tests/oracle/write_wild.py) and read by lakescope, row for row as pyiceberg
//! reads them: gzip-compressed metadata files (`NNNNN-<uuid>.gz.metadata.json`) and columns
//! added with `initial-default`s (top-level, required, and inside a struct).
//!
//! The oracle venv comes from `scripts/iceberg-oracle.sh`; without it these tests fail, unless
//! LAKESCOPE_SKIP_ORACLES=1 (then they are skipped with a loud message).

use lakescope_iceberg::{is_iceberg_table, read_table, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::{LocalStore, ObjectStore};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::OnceLock;

mod common;
use common::{canonical_rows, pyiceberg_python};

/// The warehouse pyiceberg wrote (once per test binary) and what it printed about it.
fn fixtures() -> Option<&'static (PathBuf, Value)> {
    static FIXTURES: OnceLock<Option<(PathBuf, Value)>> = OnceLock::new();
    FIXTURES
        .get_or_init(|| {
            let py = pyiceberg_python("wild")?;
            let root =
                std::env::temp_dir().join(format!("lakescope-iceberg-wild-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&root);
            std::fs::create_dir_all(&root).unwrap();
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/write_wild.py");
            let out = Command::new(py).arg(&script).arg(&root).output().unwrap();
            assert!(
                out.status.success(),
                "write_wild.py failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            Some((root, serde_json::from_slice(&out.stdout).unwrap()))
        })
        .as_ref()
}

fn sorted(v: &Value) -> Value {
    let mut rows = v.as_array().unwrap().clone();
    rows.sort_by_key(|r| r.to_string());
    Value::Array(rows)
}

async fn read(table: &Table, at: SnapshotSelector) -> Value {
    let out = read_table(table, &at, &ReadRequest::default())
        .await
        .unwrap();
    canonical_rows(&out.batches)
}

#[tokio::test(flavor = "current_thread")]
async fn gzip_metadata_is_found_and_read_like_pyiceberg() {
    let Some((root, fx)) = fixtures() else { return };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(root.join("wh")));
    assert!(is_iceberg_table(store.as_ref(), "wild/gz").await);
    let table = Table::open(store.clone(), "wild/gz").await.unwrap();
    assert!(
        table.metadata_key().ends_with(".gz.metadata.json"),
        "{}",
        table.metadata_key()
    );
    let expected = &fx["gz"];
    assert!(expected["metadata"]
        .as_str()
        .unwrap()
        .ends_with(table.metadata_key()));
    assert_eq!(
        read(&table, SnapshotSelector::Current).await,
        sorted(&expected["rows"])
    );
    // The first snapshot, and the metadata log's (compressed) files.
    let first = expected["snapshots"][0].as_i64().unwrap();
    let rows = read(&table, SnapshotSelector::Id(first)).await;
    assert_eq!(rows.as_array().unwrap().len(), 2, "{rows}");
    for entry in &table.metadata().metadata_log {
        let key = table
            .resolve(&entry.metadata_file, table.metadata_key())
            .unwrap();
        assert!(key.ends_with(".gz.metadata.json"), "{key}");
        let bytes = store.get(&key).await.unwrap();
        lakescope_iceberg::spec::TableMetadata::parse(&key, &bytes).unwrap();
    }
    // version-hint.text naming an older version by number: that (compressed) file is read.
    let hint = root.join("wh/wild/gz/metadata/version-hint.text");
    std::fs::write(&hint, "1\n").unwrap();
    let t1 = Table::open(store.clone(), "wild/gz").await.unwrap();
    std::fs::remove_file(&hint).unwrap();
    assert!(
        t1.metadata_key().contains("/00001-"),
        "{}",
        t1.metadata_key()
    );
    assert_eq!(t1.metadata().snapshots.len(), 1);
}

#[tokio::test(flavor = "current_thread")]
async fn initial_defaults_fill_older_files_like_pyiceberg() {
    let Some((root, fx)) = fixtures() else { return };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(root.join("wh")));
    let table = Table::open(store.clone(), "wild/defaults").await.unwrap();
    let expected = &fx["defaults"];
    // Rows of the first append read c_int = 7 (required, added with a default), the other
    // defaults, and s.b = 42 inside the struct (null where the struct is null).
    assert_eq!(
        read(&table, SnapshotSelector::Current).await,
        sorted(&expected["rows"])
    );
    // The first snapshot reads with its own schema: no added columns.
    let first = expected["snapshots"][0].as_i64().unwrap();
    let rows = read(&table, SnapshotSelector::Id(first)).await;
    assert_eq!(
        rows,
        serde_json::json!([["1", "{a: 10}"], ["2", null]]),
        "{rows}"
    );
    // Only some columns: the projection fills its defaults too.
    let only = ReadRequest {
        columns: Some(vec!["c_int".into(), "id".into()]),
        limit: None,
    };
    let out = read_table(&table, &SnapshotSelector::Current, &only)
        .await
        .unwrap();
    assert_eq!(
        canonical_rows(&out.batches),
        serde_json::json!([["7", "1"], ["7", "2"], ["70", "3"]])
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_malformed_default_is_a_named_error() {
    let Some((root, fx)) = fixtures() else { return };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(root.join("wh")));
    let current = fx["defaults"]["metadata"].as_str().unwrap();
    let current = current.strip_prefix("file://").unwrap_or(current);
    let text = std::fs::read_to_string(current).unwrap();
    let bad = text.replacen("\"initial-default\":7", "\"initial-default\":\"seven\"", 1);
    assert_ne!(bad, text, "the fixture's c_int default is written as 7");
    // Outside the table folder: the other tests of this binary list its metadata concurrently.
    let key = "wild-bad/99999-bad.metadata.json";
    store
        .put(key, bytes::Bytes::from(bad.into_bytes()))
        .await
        .unwrap();
    let options = lakescope_iceberg::OpenOptions {
        metadata_key: Some(key.into()),
        location_override: None,
    };
    let table = Table::open_with(store.clone(), "wild/defaults", &options)
        .await
        .unwrap();
    store.delete(key).await.unwrap();
    let err = read_table(&table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(key) && err.contains("c_int") && err.contains("seven"),
        "{err}"
    );
}

/// A Parquet file without field ids (plain pyarrow, added with `add_files`), columns and struct
/// fields renamed since: matched through the table's name mapping, as pyiceberg reads it.
#[tokio::test(flavor = "current_thread")]
async fn files_without_field_ids_read_through_the_name_mapping() {
    let Some((root, fx)) = fixtures() else { return };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(root.join("wh")));
    let table = Table::open(store.clone(), "wild/noids").await.unwrap();
    let expected = &fx["noids"];
    assert!(expected["mapping"].as_str().unwrap().contains("\"label\""));
    let rows = read(&table, SnapshotSelector::Current).await;
    assert_eq!(rows, sorted(&expected["rows"]));
    // The renamed column of the imported file is read (not null).
    assert!(rows.to_string().contains("\"x\""), "{rows}");
}

/// Without a name mapping a file without field ids is refused, naming the file (pyiceberg
/// refuses it too).
#[tokio::test(flavor = "current_thread")]
async fn files_without_field_ids_and_no_mapping_are_refused() {
    let Some((root, fx)) = fixtures() else { return };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(root.join("wh")));
    let table = Table::open(store.clone(), "wild/noids_nomap")
        .await
        .unwrap();
    assert!(fx["noids_nomap"]["error"]
        .as_str()
        .unwrap()
        .contains("field-ids"));
    let err = read_table(&table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("plain.parquet")
            && err.contains("no Iceberg field ids")
            && err.contains("schema.name-mapping.default"),
        "{err}"
    );
}

/// Spec "Column Projection": data files without the source column of an identity partition
/// (Hive files migrated by metadata only) read its value from their partition tuple, and a
/// column with an `initial-default` they lack reads the default; row for row as pyiceberg.
#[tokio::test(flavor = "current_thread")]
async fn identity_partition_values_fill_columns_files_lack_like_pyiceberg() {
    let Some((root, fx)) = fixtures() else { return };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(root.join("wh")));
    let table = Table::open(store, "wild/hive").await.unwrap();
    let expected = &fx["hive"];
    assert_eq!(
        read(&table, SnapshotSelector::Current).await,
        sorted(&expected["rows"])
    );
    // Only the partition column: filled from the partition tuple alone.
    let only = ReadRequest {
        columns: Some(vec!["region".into()]),
        limit: None,
    };
    let out = read_table(&table, &SnapshotSelector::Current, &only)
        .await
        .unwrap();
    let regions: Vec<Value> = sorted(&expected["rows"])
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Value::Array(vec![r[1].clone()]))
        .collect();
    assert_eq!(canonical_rows(&out.batches), sorted(&Value::Array(regions)));
}

/// DuckDB 1.5.5's iceberg_scan reads the pyiceberg-written tables row for row as lakescope does
/// (gzip metadata, initial-defaults, name-mapped files, identity-partition values). The one
/// difference: files without field ids and without a name mapping, which lakescope (and
/// pyiceberg) refuse, DuckDB reads as all-null rows — by the spec such columns cannot be
/// projected by id, so refusing stays.
#[tokio::test(flavor = "current_thread")]
async fn duckdb_reads_the_wild_tables_like_lakescope() {
    let Some((root, fx)) = fixtures() else { return };
    let Some(py) = common::duckdb_python("duckdb_reads_the_wild_tables_like_lakescope") else {
        return;
    };
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(root.join("wh")));
    let meta = |t: &str| {
        let m = fx[t]["metadata"].as_str().unwrap();
        m.strip_prefix("file://").unwrap_or(m).to_string()
    };
    for name in ["gz", "defaults", "noids", "hive"] {
        let table = Table::open(store.clone(), &format!("wild/{name}"))
            .await
            .unwrap();
        let ours = read(&table, SnapshotSelector::Current).await;
        assert_eq!(
            Ok(ours),
            common::duckdb_rows(&py, &meta(name), &["*"]),
            "{name}"
        );
    }
    let theirs = common::duckdb_rows(&py, &meta("noids_nomap"), &["*"]).unwrap();
    let rows = theirs.as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r.as_array().unwrap().iter().all(Value::is_null)),
        "{theirs}"
    );
}
