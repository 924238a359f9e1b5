//! Iceberg tables as other writers leave them ("in the wild"): written by pyiceberg 0.12 into a
//! local warehouse (tests/oracle/write_wild.py) and read by lakescope, row for row as pyiceberg
//! reads them: gzip-compressed metadata files (`NNNNN-<uuid>.gz.metadata.json`) and columns
//! added with `initial-default`s (top-level, required, and inside a struct).
//!
//! The oracle venv comes from `scripts/iceberg-oracle.sh`; without it these tests fail, unless
//! LAKESCOPE_SKIP_ORACLES=1 (then they are skipped with a loud message).

use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use lakescope_iceberg::{is_iceberg_table, read_table, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::{LocalStore, ObjectStore};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::OnceLock;

fn oracle_python() -> Option<PathBuf> {
    let root = std::env::var_os("LAKE_TOOLS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/lake-oracles")))?;
    let py = root.join("venv/bin/python");
    let ok = Command::new(&py)
        .args(["-c", "import pyiceberg, pyarrow, sqlalchemy"])
        .status()
        .is_ok_and(|s| s.success());
    if !ok && std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() != Ok("1") {
        panic!("pyiceberg oracle venv missing: run `bash scripts/iceberg-oracle.sh` (or set LAKESCOPE_SKIP_ORACLES=1 to skip)");
    }
    if !ok {
        eprintln!("\n*** SKIPPED wild: no pyiceberg oracle venv (LAKESCOPE_SKIP_ORACLES=1) ***\n");
    }
    ok.then_some(py)
}

/// The warehouse pyiceberg wrote (once per test binary) and what it printed about it.
fn fixtures() -> Option<&'static (PathBuf, Value)> {
    static FIXTURES: OnceLock<Option<(PathBuf, Value)>> = OnceLock::new();
    FIXTURES
        .get_or_init(|| {
            let py = oracle_python()?;
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

/// Rows as pyiceberg's canonical text (see write_wild.py), sorted.
fn canonical_rows(batches: &[RecordBatch]) -> Value {
    let options = FormatOptions::default()
        .with_null("null")
        .with_timestamp_format(Some("%Y-%m-%dT%H:%M:%S%.6f"))
        .with_timestamp_tz_format(Some("%Y-%m-%dT%H:%M:%S%.6f%:z"));
    let mut rows = Vec::new();
    for b in batches {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            rows.push(Value::Array(
                b.columns()
                    .iter()
                    .zip(&fmts)
                    .map(|(c, f)| {
                        if c.is_null(r) {
                            Value::Null
                        } else {
                            Value::String(f.value(r).to_string())
                        }
                    })
                    .collect(),
            ));
        }
    }
    rows.sort_by_key(|r| r.to_string());
    Value::Array(rows)
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
