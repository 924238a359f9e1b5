//! Embeds a subset of ../shared/corpus (one Paimon and Iceberg table of each kind, with expected
//! rows), the modern corpus of issue 25 (written here by pypaimon 2.1) and Java Paimon 0.9's
//! system-table reads (with the tables it wrote for them) for the browser tests.

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
/// refuse): those of `crates/paimon/tests/modern/tables.json` with a `browser` expectation (the
/// one list of the modern corpus), one warehouse per feature, written at build time by
/// pypaimon 2.1 with pypaimon's rows beside it.
fn modern_features(tables_json: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(tables_json)
        .map_err(|e| format!("{}: {e}", tables_json.display()))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", tables_json.display()))?;
    let tables = json["tables"]
        .as_array()
        .ok_or_else(|| format!("{}: no 'tables' list", tables_json.display()))?;
    Ok(tables
        .iter()
        .filter(|t| !t["browser"].is_null())
        .filter_map(|t| t["table"].as_str().map(String::from))
        .collect())
}

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

/// Writes every table of `features`, three generators at a time; the first failure is returned.
fn generate_modern(
    python: &Path,
    script: &Path,
    out: &Path,
    features: &[String],
) -> Result<(), String> {
    for features in features.chunks(3) {
        let children = features
            .iter()
            .map(|f| Ok((f.as_str(), start_generator(python, script, out, f)?)))
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

/// `MODERN` (the generated warehouses with pypaimon's rows), `MODERN_TABLES` (tables.json) and
/// `MODERN_PROBLEM` (why they are missing when they must not be) as Rust source.
fn embed_modern(manifest_dir: &Path, out_dir: &Path) -> String {
    let script = manifest_dir.join("../../crates/paimon/tests/modern/gen_modern.py");
    let tables_json = manifest_dir.join("../../crates/paimon/tests/modern/tables.json");
    println!("cargo:rerun-if-changed={}", script.display());
    println!("cargo:rerun-if-changed={}", tables_json.display());
    println!("cargo:rerun-if-env-changed=LAKE_TOOLS");
    println!("cargo:rerun-if-env-changed=LAKESCOPE_SKIP_ORACLES");
    let skip = std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() == Ok("1");
    let out = out_dir.join("modern");
    let features = match modern_features(&tables_json) {
        Ok(features) => features,
        Err(problem) => panic!("{problem}"),
    };
    let generated = match oracle_python() {
        None if skip => {
            println!("cargo:warning=modern corpus skipped: no oracle venv and LAKESCOPE_SKIP_ORACLES=1");
            Ok(false)
        }
        None => Err("the oracle venv (pypaimon 2.1) is missing: run `bash scripts/oracles.sh` (or set LAKESCOPE_SKIP_ORACLES=1 to skip)".to_string()),
        Some(python) => generate_modern(&python, &script, &out, &features).map(|()| true),
    };
    let mut code = format!(
        "pub static MODERN_TABLES: &str = include_str!({:?});\n",
        tables_json.display().to_string()
    );
    code.push_str("pub static MODERN: &[crate::ModernTable] = &[\n");
    if generated == Ok(true) {
        for feature in &features {
            let warehouse = out.join(feature);
            let mut files = Vec::new();
            // the table, and the data files it keeps outside its folder (external data paths)
            files_below(&warehouse.join("m.db"), &mut files);
            files_below(&warehouse.join("external"), &mut files);
            files.sort();
            let _ = writeln!(
                code,
                "    crate::ModernTable {{ feature: {feature:?}, root_uri: {:?}, files: &[",
                format!("file://{}", warehouse.display())
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

/// The Java Paimon 0.9 oracle's class path (scripts/oracles.sh: its jars and ReadJava).
fn java_class_path() -> Option<String> {
    let root = std::env::var_os("LAKE_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/lake-oracles")
        });
    let (lib, classes) = (root.join("java/lib"), root.join("java/lakescope-classes"));
    classes
        .join("ReadJava.class")
        .exists()
        .then(|| format!("{}/*:{}", lib.display(), classes.display()))
}

/// Runs a Java oracle (`args`, the main class first) on `class_path`; its stdout.
fn run_java(class_path: &str, args: &[&str]) -> Result<String, String> {
    let out = Command::new("java")
        .args([
            "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC",
            "-cp",
            class_path,
        ])
        .args(args)
        .output()
        .map_err(|e| format!("java {args:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "java {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("java {args:?}: {e}"))
}

/// Writes Java Paimon 0.9's tables and reads of the system tables the browser checks against
/// Java: `$statistics` (StatsJava), `$file_indexes` (FileIndexJava's index headers) and `$ro`
/// of an embedded corpus table (SystemJava) at every snapshot. Each oracle output is written
/// into `out` as `<name>.out`; the tables it wrote are below `out/<name>/`.
fn run_java_oracles(
    class_path: &str,
    repo: &Path,
    corpus: &Path,
    out: &Path,
) -> Result<Vec<(&'static str, String)>, String> {
    let classes = out.join("classes");
    std::fs::create_dir_all(&classes).map_err(|e| format!("{}: {e}", classes.display()))?;
    let oracles = repo.join("tests/oracles");
    for source in ["StatsJava.java", "FileIndexJava.java", "SystemJava.java"] {
        println!("cargo:rerun-if-changed={}", oracles.join(source).display());
        let done = Command::new("javac")
            .args(["-nowarn", "-cp", class_path, "-d"])
            .arg(&classes)
            .arg(oracles.join(source))
            .output()
            .map_err(|e| format!("javac {source}: {e}"))?;
        if !done.status.success() {
            return Err(format!(
                "javac {source}: {}",
                String::from_utf8_lossy(&done.stderr)
            ));
        }
    }
    let cp = format!("{class_path}:{}", classes.display());
    let path = |p: PathBuf| p.display().to_string();
    let (stats, indexes) = (out.join("statistics"), out.join("file_indexes"));
    for dir in [&stats, &indexes] {
        let _ = std::fs::remove_dir_all(dir);
    }
    let app = path(stats.join("jw.db/app"));
    run_java(&cp, &["ReadJava", "write-seed", &path(stats.clone())])?;
    run_java(&cp, &["StatsJava", "analyze", &app])?;
    let mut outputs = vec![("statistics", run_java(&cp, &["StatsJava", "read", &app])?)];
    let t = path(indexes.join("fi.db/t"));
    run_java(&cp, &["FileIndexJava", "write", &path(indexes.clone())])?;
    outputs.push((
        "file_indexes",
        run_java(&cp, &["FileIndexJava", "meta", &t])?,
    ));
    // Not a table with deletion vectors: Java 0.9's batch scan replaces `$ro`'s level filter by
    // `level > 0` there, where Paimon 1.3+ (`withLevel`) and lakescope read only the top level.
    let dir = corpus.join("paimon/warehouse/java09.db/pk_compacted");
    let mut ids: Vec<u64> = std::fs::read_dir(dir.join("snapshot"))
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix("snapshot-")?
                .parse()
                .ok()
        })
        .collect();
    ids.sort();
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    let mut args = vec!["SystemJava", "read", dir.to_str().unwrap_or_default(), "ro"];
    args.extend(ids.iter().map(String::as_str));
    outputs.push(("ro_pk_compacted", run_java(&cp, &args)?));
    Ok(outputs)
}

/// `JAVA_SYSTEM` (Java Paimon 0.9's system-table reads, with the tables it wrote for them) and
/// `JAVA_PROBLEM` (why they are missing when they must not be) as Rust source.
fn embed_java_oracles(manifest_dir: &Path, corpus: &Path, out_dir: &Path) -> String {
    let out = out_dir.join("java");
    let skip = std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() == Ok("1");
    let ran = match java_class_path() {
        None if skip => Ok(Vec::new()),
        None => Err("the Java Paimon 0.9 oracle is missing: run `bash scripts/oracles.sh` (or set LAKESCOPE_SKIP_ORACLES=1 to skip)".to_string()),
        Some(cp) => run_java_oracles(&cp, &manifest_dir.join("../.."), corpus, &out),
    };
    let mut code = String::from("pub static JAVA_SYSTEM: &[crate::JavaRead] = &[\n");
    if let Ok(outputs) = &ran {
        for (name, text) in outputs {
            let file = out.join(format!("{name}.out"));
            if let Err(e) = std::fs::write(&file, text) {
                panic!("{}: {e}", file.display());
            }
            let warehouse = out.join(name);
            let mut files = Vec::new();
            files_below(&warehouse, &mut files);
            files.sort();
            let _ = writeln!(code, "    crate::JavaRead {{ name: {name:?}, files: &[");
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
                "    ], java: include_str!({:?}) }},",
                file.display().to_string()
            );
        }
    }
    code.push_str("];\n");
    let _ = writeln!(
        code,
        "pub static JAVA_PROBLEM: Option<&str> = {:?};",
        ran.err()
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
    let java = embed_java_oracles(&manifest_dir, &corpus, &out_dir);
    let out = out_dir.join("corpus.rs");
    if let Err(e) = std::fs::write(&out, code + &expected + &modern + &java) {
        panic!("cannot write {}: {e}", out.display());
    }
}
