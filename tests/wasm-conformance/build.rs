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

/// Appends one table's files (keys relative to `warehouse`) and expected `.jsonl` files.
fn embed_table(
    code: &mut String,
    expected: &mut String,
    warehouse: &Path,
    table_dir: &Path,
    expected_dir: &Path,
    table_ref: &str,
) {
    let mut files = Vec::new();
    files_below(table_dir, &mut files);
    files.sort();
    for file in files {
        let Ok(key) = file.strip_prefix(warehouse) else {
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
    files_below(expected_dir, &mut results);
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
            "    ({table_ref:?}, {label:?}, include_str!({:?})),",
            file.display().to_string()
        );
    }
}

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let corpus = manifest_dir.join("../../../shared/corpus");
    println!("cargo:rerun-if-changed={}", corpus.display());
    let mut code = String::from("pub static FILES: &[(&str, &[u8])] = &[\n");
    let mut expected = String::from("pub static EXPECTED: &[(&str, &str, &str)] = &[\n");
    let paimon = corpus.join("paimon/warehouse");
    for table in TABLES {
        let Some((db, name)) = table.split_once('.') else {
            continue;
        };
        let dir = paimon.join(format!("{db}.db/{name}"));
        let expected_dir = corpus.join("expected/paimon").join(table);
        embed_table(
            &mut code,
            &mut expected,
            &paimon,
            &dir,
            &expected_dir,
            table,
        );
    }
    let iceberg = corpus.join("iceberg/warehouse");
    for name in ICEBERG_TABLES {
        let dir = iceberg.join("corpus").join(name);
        let expected_dir = corpus.join("expected/iceberg").join(name);
        let table_ref = format!("corpus.{name}");
        embed_table(
            &mut code,
            &mut expected,
            &iceberg,
            &dir,
            &expected_dir,
            &table_ref,
        );
    }
    code.push_str("];\n");
    expected.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("corpus.rs");
    if let Err(e) = std::fs::write(&out, code + &expected) {
        panic!("cannot write {}: {e}", out.display());
    }
}
