//! Embeds a subset of ../shared/corpus (one Paimon and Iceberg table of each kind, with expected
//! rows) and the modern corpus of issue 25 (written here by pypaimon 2.1) for the browser tests.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

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

/// The tables of `crates/paimon/tests/modern/gen_modern.py` the browser tests read (or must
/// refuse): one warehouse per feature, written at build time by pypaimon 2.1 with pypaimon's rows
/// beside it. Its `$`-system-table features other than `consumers` stay with the native tests.
const MODERN: &[&str] = &[
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
    "row_format_types",
    "variant",
    "variant_shredded",
    "variant_row_format",
    "variant_pk",
    "variant_nested",
    "vector_parquet",
    "vector_orc",
    "vector_avro",
    "vector_row",
    "mosaic_format",
    "mosaic_pk",
    "mosaic_buckets",
    "blob",
    "blob_rolled",
    "modern_refs",
    "consumers",
    "avro_xz",
    "avro_bzip2",
    "parquet_brotli",
    "lance_format",
    "vortex_format",
    "vortex_pk",
    "vortex_buckets",
    "vector_files",
    "blob_as_descriptor",
    "fallback_branch",
    "unknown_index_type",
    "unknown_file_source",
    "variant_empty_key",
    "variant_corrupt",
    "variant_avro",
    "variant_orc",
];

/// The oracle venv's python (scripts/oracles.sh), as the native tests find it.
fn oracle_python() -> Option<PathBuf> {
    let root = std::env::var_os("LAKE_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/lake-oracles")
        });
    let python = root.join("venv/bin/python");
    python.exists().then_some(python)
}

/// Starts gen_modern.py writing `m.<feature>` into `<out>/<feature>/` (pypaimon's latest rows,
/// or its error line, on stdout, kept in `<out>/<feature>.out`).
fn start_generator(
    python: &Path,
    script: &Path,
    out: &Path,
    feature: &str,
) -> Result<Child, String> {
    let warehouse = out.join(feature);
    let _ = std::fs::remove_dir_all(&warehouse);
    std::fs::create_dir_all(&warehouse).map_err(|e| format!("{}: {e}", warehouse.display()))?;
    let stdout = std::fs::File::create(out.join(format!("{feature}.out")))
        .map_err(|e| format!("{feature}.out: {e}"))?;
    Command::new(python)
        .arg(script)
        .arg(&warehouse)
        .arg(feature)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("gen_modern.py {feature}: {e}"))
}

/// Writes every [`MODERN`] table, three generators at a time; the first failure is returned.
fn generate_modern(python: &Path, script: &Path, out: &Path) -> Result<(), String> {
    for features in MODERN.chunks(3) {
        let children = features
            .iter()
            .map(|f| Ok((*f, start_generator(python, script, out, f)?)))
            .collect::<Result<Vec<_>, String>>()?;
        for (feature, child) in children {
            let done = child
                .wait_with_output()
                .map_err(|e| format!("gen_modern.py {feature}: {e}"))?;
            if !done.status.success() {
                return Err(format!(
                    "gen_modern.py {feature} (pypaimon 2.1) failed: {}",
                    String::from_utf8_lossy(&done.stderr)
                ));
            }
        }
    }
    Ok(())
}

/// The optional `include_str!` of a JSON file pypaimon's generator left in a warehouse.
fn optional_text(path: &Path) -> String {
    if path.exists() {
        format!("Some(include_str!({:?}))", path.display().to_string())
    } else {
        "None".to_string()
    }
}

/// `MODERN` (the generated warehouses with pypaimon's rows) and `MODERN_PROBLEM` (why they are
/// missing when they must not be) as Rust source.
fn embed_modern(manifest_dir: &Path, out_dir: &Path) -> String {
    let script = manifest_dir.join("../../crates/paimon/tests/modern/gen_modern.py");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-env-changed=LAKE_TOOLS");
    println!("cargo:rerun-if-env-changed=LAKESCOPE_SKIP_ORACLES");
    let skip = std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() == Ok("1");
    let out = out_dir.join("modern");
    let generated = match oracle_python() {
        None if skip => {
            println!("cargo:warning=modern corpus skipped: no oracle venv and LAKESCOPE_SKIP_ORACLES=1");
            Ok(false)
        }
        None => Err("the oracle venv (pypaimon 2.1) is missing: run `bash scripts/oracles.sh` (or set LAKESCOPE_SKIP_ORACLES=1 to skip)".to_string()),
        Some(python) => generate_modern(&python, &script, &out).map(|()| true),
    };
    let mut code = String::from("pub static MODERN: &[crate::ModernTable] = &[\n");
    if generated == Ok(true) {
        for feature in MODERN {
            let warehouse = out.join(feature);
            let mut files = Vec::new();
            files_below(&warehouse.join("m.db"), &mut files);
            files.sort();
            let _ = writeln!(
                code,
                "    crate::ModernTable {{ feature: {feature:?}, files: &["
            );
            for file in files {
                let Ok(key) = file.strip_prefix(&warehouse) else {
                    continue;
                };
                let _ = writeln!(
                    code,
                    "        ({:?}, include_bytes!({:?})),",
                    key.to_string_lossy(),
                    file.display().to_string()
                );
            }
            let _ = writeln!(
                code,
                "    ], pypaimon_latest: include_str!({:?}), snapshots: {}, refs: {}, row_tracking: {} }},",
                out.join(format!("{feature}.out")).display().to_string(),
                optional_text(&warehouse.join("snapshots.json")),
                optional_text(&warehouse.join("refs.json")),
                optional_text(&warehouse.join("row_tracking.json")),
            );
        }
    }
    code.push_str("];\n");
    let problem = generated.err();
    let _ = writeln!(
        code,
        "pub static MODERN_PROBLEM: Option<&str> = {problem:?};"
    );
    code
}

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
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    let modern = embed_modern(&manifest_dir, &out_dir);
    let out = out_dir.join("corpus.rs");
    if let Err(e) = std::fs::write(&out, code + &expected + &modern) {
        panic!("cannot write {}: {e}", out.display());
    }
}
