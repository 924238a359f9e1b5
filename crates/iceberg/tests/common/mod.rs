//! Helpers shared by the tests: corpus tables loaded into memory, column types, Arrow columns, an
//! in-memory warehouse, and rows as sorted text lines.
#![allow(dead_code)] // each test binary uses its own subset

use arrow_array::{
    make_array, Array, ArrayRef, Decimal128Array, Int64Array, RecordBatch, StringArray,
    TimestampMillisecondArray,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use bytes::Bytes;
use lakescope_format::spec::{DataType, TypeKind};
use lakescope_format::write_env::FixedEnv;
use lakescope_iceberg::write::{HadoopCatalog, IcebergTableDefinition};
use lakescope_iceberg::{read_table, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::{MemoryStore, ObjectStore};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;

/// 2024-05-01T10:00:00 in ms.
pub const MAY_1_10H: i64 = 1_714_557_600_000;
pub const DAY_MS: i64 = 86_400_000;

pub fn string() -> DataType {
    DataType::nullable(TypeKind::VarChar(i32::MAX as u32))
}

pub fn ts3() -> DataType {
    DataType::nullable(TypeKind::Timestamp(3))
}

pub fn bigint() -> DataType {
    DataType::nullable(TypeKind::BigInt)
}

/// DECIMAL(10, 2).
pub fn decimal() -> DataType {
    DataType::nullable(TypeKind::Decimal {
        precision: 10,
        scale: 2,
    })
}

pub fn col(name: &str, t: DataType) -> (String, DataType, Option<String>) {
    (name.into(), t, None)
}

pub fn strings(v: &[&str]) -> ArrayRef {
    Arc::new(StringArray::from(v.to_vec()))
}

pub fn longs(v: &[i64]) -> ArrayRef {
    Arc::new(Int64Array::from(v.to_vec()))
}

pub fn millis(v: &[i64]) -> ArrayRef {
    Arc::new(TimestampMillisecondArray::from(v.to_vec()))
}

/// DECIMAL(10, 2) values from their unscaled cents.
pub fn cents(v: &[i128]) -> ArrayRef {
    Arc::new(
        Decimal128Array::from(v.to_vec())
            .with_precision_and_scale(10, 2)
            .unwrap(),
    )
}

pub fn batch(columns: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(columns).unwrap()
}

/// A Hadoop-catalog warehouse in memory with a fixed clock and UUIDs.
pub struct Warehouse {
    pub store: Rc<MemoryStore>,
    pub catalog: HadoopCatalog,
    pub env: FixedEnv,
}

impl Warehouse {
    pub fn new() -> Self {
        Self {
            store: Rc::new(MemoryStore::new()),
            catalog: HadoopCatalog::new("wh/iceberg", "s3://lake/wh/iceberg"),
            env: FixedEnv::new(1_700_000_000_000, 42),
        }
    }

    pub async fn create(&self, ns: &str, name: &str, def: IcebergTableDefinition) -> Table {
        self.catalog
            .create_namespace(self.store.as_ref(), ns)
            .await
            .unwrap();
        self.catalog
            .create_table(self.store.as_ref(), ns, name, &def, &self.env)
            .await
            .unwrap();
        Table::open(
            self.store.clone(),
            &self.catalog.table_key(ns, name).unwrap(),
        )
        .await
        .unwrap()
    }
}

/// Rows as sorted text lines (`a|b|c`).
pub async fn rows(table: &Table, at: SnapshotSelector) -> Vec<String> {
    let out = read_table(table, &at, &ReadRequest::default())
        .await
        .unwrap();
    let mut lines = Vec::new();
    for b in &out.batches {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| {
                ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default().with_null("null"))
                    .unwrap()
            })
            .collect();
        for r in 0..b.num_rows() {
            lines.push(
                fmts.iter()
                    .map(|f| f.value(r).to_string())
                    .collect::<Vec<_>>()
                    .join("|"),
            );
        }
    }
    lines.sort();
    lines
}

/// The folder of a corpus table in `../shared`.
pub fn corpus_table(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/iceberg/warehouse/corpus")
        .join(name)
}

/// A memory store holding one corpus table under `corpus/<name>`.
pub async fn load_corpus(name: &str) -> MemoryStore {
    let store = MemoryStore::new();
    let root = corpus_table(name);
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let key = format!("corpus/{name}/{rel}");
                store
                    .put(&key, Bytes::from(std::fs::read(&path).unwrap()))
                    .await
                    .unwrap();
            }
        }
    }
    store
}

/// The oracle venv's python (pyiceberg, pyarrow, SQLAlchemy; `scripts/iceberg-oracle.sh`).
/// Missing, a panic, or with `LAKESCOPE_SKIP_ORACLES=1` a loud skip of `test` (`None`), as the
/// other interop tests do (lakescope-test-support).
pub fn pyiceberg_python(test: &str) -> Option<PathBuf> {
    oracle_python(test, "import pyiceberg, pyarrow, sqlalchemy")
}

/// The oracle venv's python with DuckDB and its iceberg extension, missing or skipped as
/// [`pyiceberg_python`].
pub fn duckdb_python(test: &str) -> Option<PathBuf> {
    oracle_python(
        test,
        "import duckdb, duckdb_extension_avro, duckdb_extension_iceberg",
    )
}

fn oracle_python(test: &str, imports: &str) -> Option<PathBuf> {
    let root = std::env::var_os("LAKE_TOOLS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/lake-oracles")))?;
    let py = root.join("venv/bin/python");
    let ok = std::process::Command::new(&py)
        .args(["-c", imports])
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(py);
    }
    let root = root.display();
    if std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() != Ok("1") {
        panic!(
            "pyiceberg/DuckDB oracle venv missing under {root}: run `bash scripts/iceberg-oracle.sh` \
             (or set LAKESCOPE_SKIP_ORACLES=1 to skip)"
        );
    }
    eprintln!("\n*** SKIPPED {test}: no oracle venv (`{imports}`) under {root} (LAKESCOPE_SKIP_ORACLES=1) ***\n");
    None
}

/// Rows as pyiceberg's canonical text (tests/oracle/write_wild.py's `canon`), sorted. Zoned timestamps (UTC
/// instants) are shown as `…+00:00`, formatted without the zone (whose name "UTC" the formatter
/// cannot resolve without chrono-tz).
pub fn canonical_rows(batches: &[RecordBatch]) -> serde_json::Value {
    let naive = FormatOptions::default()
        .with_null("null")
        .with_timestamp_format(Some("%Y-%m-%dT%H:%M:%S%.6f"));
    let zoned = naive
        .clone()
        .with_timestamp_format(Some("%Y-%m-%dT%H:%M:%S%.6f+00:00"));
    let mut rows = Vec::new();
    for b in batches {
        let columns: Vec<ArrayRef> = b
            .columns()
            .iter()
            .map(|c| match c.data_type() {
                arrow_schema::DataType::Timestamp(unit, Some(_)) => make_array(
                    c.to_data()
                        .into_builder()
                        .data_type(arrow_schema::DataType::Timestamp(*unit, None))
                        .build()
                        .unwrap(),
                ),
                _ => c.clone(),
            })
            .collect();
        let fmts: Vec<_> = columns
            .iter()
            .zip(b.columns())
            .map(|(c, orig)| {
                let options = match orig.data_type() {
                    arrow_schema::DataType::Timestamp(_, Some(_)) => &zoned,
                    _ => &naive,
                };
                ArrayFormatter::try_new(c.as_ref(), options).unwrap()
            })
            .collect();
        for r in 0..b.num_rows() {
            rows.push(serde_json::Value::Array(
                columns
                    .iter()
                    .zip(&fmts)
                    .map(|(c, f)| {
                        if c.logical_nulls().is_some_and(|n| n.is_null(r)) {
                            serde_json::Value::Null
                        } else {
                            serde_json::Value::String(f.value(r).to_string())
                        }
                    })
                    .collect(),
            ));
        }
    }
    rows.sort_by_key(|r| r.to_string());
    serde_json::Value::Array(rows)
}

/// Rows of `columns` (`*`: all) as DuckDB's iceberg_scan reads the table whose metadata file is
/// `meta`, canonical as [`canonical_rows`] (tests/oracle/duckdb_scan.py); `Err`: its refusal.
pub fn duckdb_rows(py: &Path, meta: &str, columns: &[&str]) -> Result<serde_json::Value, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/duckdb_scan.py");
    let out = std::process::Command::new(py)
        .arg(script)
        .arg(meta)
        .args(columns)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "duckdb_scan.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    match v.get("rows").and_then(|r| r.as_array()) {
        Some(rows) => {
            let mut rows = rows.clone();
            rows.sort_by_key(|r| r.to_string());
            Ok(serde_json::Value::Array(rows))
        }
        None => Err(v["error"].to_string()),
    }
}
