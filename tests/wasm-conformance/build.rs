//! Embeds a subset of ../shared/corpus (one Paimon and Iceberg table of each kind, with expected rows) for the browser tests.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// One table of each kind: append (Parquet/ORC/Avro, all types), schema evolution, tags,
/// primary key with dedup / partial-update / aggregation, deletion vectors, first-row, compaction.
const TABLES: &[&str] = &[
    "corpus.append_types_parquet",
    "corpus.append_types_orc",
    "corpus.append_types_avro",
    "corpus.append_dt",
    "corpus.schema_evolution",
    "corpus.tagged",
    "corpus.pk_dedup",
    "corpus.pk_partial_update",
    "corpus.pk_aggregation",
    "java09.pk_deletion_vectors",
    "java09.pk_first_row",
    "java09.pk_compacted",
];

/// Iceberg tables: hidden partitioning with stacked deletes, position deletes, partition evolution.
const ICEBERG_TABLES: &[&str] = &[
    "events",
    "mor_position_deletes",
    "partition_evolution",
    "v1_table",
];

fn files_below(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_below(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let corpus = manifest_dir.join("../../../shared/corpus");
    let warehouse = corpus.join("paimon/warehouse");
    let expected_root = corpus.join("expected/paimon");
    println!("cargo:rerun-if-changed={}", corpus.display());
    let mut code = String::from("pub static FILES: &[(&str, &[u8])] = &[\n");
    let mut expected = String::from("pub static EXPECTED: &[(&str, &str, &str)] = &[\n");
    for table in TABLES {
        let Some((db, name)) = table.split_once('.') else {
            continue;
        };
        let mut files = Vec::new();
        files_below(&warehouse.join(format!("{db}.db/{name}")), &mut files);
        files.sort();
        for file in files {
            let Ok(key) = file.strip_prefix(&warehouse) else {
                continue;
            };
            let _ = writeln!(
                code,
                "    ({:?}, include_bytes!({:?})),",
                key.to_string_lossy(),
                file.display().to_string()
            );
        }
        let mut results = Vec::new();
        files_below(&expected_root.join(table), &mut results);
        results.sort();
        for file in results
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        {
            let label = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let _ = writeln!(
                expected,
                "    ({table:?}, {label:?}, include_str!({:?})),",
                file.display().to_string()
            );
        }
    }
    let iceberg = corpus.join("iceberg/warehouse");
    let iceberg_expected = corpus.join("expected/iceberg");
    for name in ICEBERG_TABLES {
        let mut files = Vec::new();
        files_below(&iceberg.join("corpus").join(name), &mut files);
        files.sort();
        for file in files {
            let Ok(key) = file.strip_prefix(&iceberg) else {
                continue;
            };
            let _ = writeln!(
                code,
                "    ({:?}, include_bytes!({:?})),",
                key.to_string_lossy(),
                file.display().to_string()
            );
        }
        let mut results = Vec::new();
        files_below(&iceberg_expected.join(name), &mut results);
        results.sort();
        for file in results
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "jsonl"))
        {
            let label = file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let _ = writeln!(
                expected,
                "    (\"corpus.{name}\", {label:?}, include_str!({:?})),",
                file.display().to_string()
            );
        }
    }
    code.push_str("];\n");
    expected.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("corpus.rs");
    if let Err(e) = std::fs::write(&out, code + &expected) {
        panic!("cannot write {}: {e}", out.display());
    }
}
