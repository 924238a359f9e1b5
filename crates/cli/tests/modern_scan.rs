//! Issue 25's acceptance, literally: the modern Paimon tables pypaimon 2.1 writes
//! (`crates/paimon/tests/modern/gen_modern.py`) read exactly by the CLI's `lakescope scan` at
//! every snapshot, tag and branch, as pypaimon reads them, or refused by name. Which tables and
//! what to expect of each: `crates/paimon/tests/modern/tables.json` (key `cli`), the list the
//! browser tests use too.

mod common;

use common::{lakescope, python_with, repo_root};
use lakescope_test_support::files_under;
use lakescope_test_support::modern::{expectations, tables_expecting, Expect};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Writes `m.<feature>` with pypaimon into a fresh warehouse (`None`: no oracle, skipped).
fn generate(feature: &str) -> Option<tempfile::TempDir> {
    let python = python_with("pypaimon", feature)?;
    let dir = tempfile::tempdir().expect("temp dir");
    let script = repo_root().join("crates/paimon/tests/modern/gen_modern.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(dir.path())
        .arg(feature)
        .output()
        .expect("run gen_modern.py");
    assert!(
        out.status.success(),
        "gen_modern.py {feature}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dir)
}

/// pypaimon's rows per read (a JSON file of gen_modern.py: label → sorted `a|b` lines).
fn expected(dir: &Path, file: &str) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let json: BTreeMap<String, serde_json::Value> = serde_json::from_slice(&text).expect(file);
    json.into_iter()
        .map(|(label, rows)| {
            let rows = rows
                .as_array()
                .unwrap_or_else(|| panic!("pypaimon cannot read {label}: {rows}"))
                .iter()
                .map(|r| r.as_str().expect("a row line").to_string())
                .collect();
            (label, rows)
        })
        .collect()
}

/// A JSON value of a `--format jsonl` row as gen_modern.py prints pypaimon's cell: strings
/// unquoted, lists as `[a, b]` and rows as `{x: a, y: b}` with nested nulls empty, a top-level
/// null as `null`; a MAP (`is_map`: printed as `[[k, v], …]`) as `{k: v, …}`.
fn cell(value: &serde_json::Value, top: bool, is_map: bool) -> String {
    match value {
        serde_json::Value::Null if top => "null".to_string(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(entries) if is_map => {
            let entries: Vec<String> = entries
                .iter()
                .map(|entry| match entry.as_array().map(Vec::as_slice) {
                    Some([k, v]) => format!("{}: {}", cell(k, false, false), cell(v, false, false)),
                    _ => panic!("a MAP entry printed as [key, value]: {entry}"),
                })
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| cell(v, false, false)).collect();
            format!("[{}]", items.join(", "))
        }
        serde_json::Value::Object(fields) => {
            let fields: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{k}: {}", cell(v, false, false)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        other => other.to_string(),
    }
}

/// The top-level MAP columns of `m.<feature>`, from its latest schema file.
fn map_columns(dir: &Path, feature: &str) -> BTreeSet<String> {
    let schemas = dir.join(format!("m.db/{feature}/schema"));
    let latest = std::fs::read_dir(&schemas)
        .unwrap_or_else(|e| panic!("{}: {e}", schemas.display()))
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix("schema-")?
                .parse::<u32>()
                .ok()
        })
        .max()
        .unwrap_or_else(|| panic!("{}: no schema", schemas.display()));
    let text = std::fs::read(schemas.join(format!("schema-{latest}"))).expect("schema file");
    let schema: serde_json::Value = serde_json::from_slice(&text).expect("schema JSON");
    schema["fields"]
        .as_array()
        .expect("schema fields")
        .iter()
        .filter(|f| {
            f["type"]["type"] == "MAP" || f["type"].as_str().is_some_and(|t| t.starts_with("MAP"))
        })
        .map(|f| f["name"].as_str().expect("a field name").to_string())
        .collect()
}

/// `lakescope scan <dir> <table> <extra…> --format jsonl`: its rows, as JSON objects.
fn scan_json(
    dir: &Path,
    table: &str,
    extra: &[&str],
) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let dir = dir.to_str().expect("a UTF-8 path");
    let mut args = vec!["scan", dir, table];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--format", "jsonl"]);
    let (ok, out, err) = lakescope(&args);
    assert!(ok, "lakescope {args:?}: {err}");
    out.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect()
}

/// `lakescope scan <dir> <table> <extra…> --format jsonl` as pypaimon's sorted `a|b` lines.
fn scan(dir: &Path, table: &str, extra: &[&str]) -> Vec<String> {
    let feature = table.split(['.', '$']).nth(1).expect("m.<feature>");
    let maps = map_columns(dir, feature);
    let mut rows: Vec<String> = scan_json(dir, table, extra)
        .iter()
        .map(|row| {
            row.iter()
                .map(|(name, v)| cell(v, true, maps.contains(name)))
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect();
    rows.sort();
    rows
}

/// Every snapshot of `m.<feature>` (and its latest, without `--snapshot`) equals pypaimon's.
fn every_snapshot_as_pypaimon(feature: &str) -> Option<tempfile::TempDir> {
    let dir = generate(feature)?;
    let table = format!("m.{feature}");
    let per_snapshot = expected(dir.path(), "snapshots.json");
    assert!(!per_snapshot.is_empty(), "{feature}: no snapshots");
    for (id, want) in &per_snapshot {
        assert_eq!(
            scan(dir.path(), &table, &["--snapshot", id]),
            *want,
            "{feature} at snapshot {id}"
        );
    }
    let latest = per_snapshot
        .iter()
        .max_by_key(|(id, _)| id.parse::<i64>().unwrap_or(0))
        .map(|(_, rows)| rows.clone())
        .unwrap_or_default();
    assert_eq!(scan(dir.path(), &table, &[]), latest, "{feature} latest");
    Some(dir)
}

#[test]
fn modern_tables_scan_as_pypaimon_reads_them_at_every_snapshot() {
    // incl. VARIANTs nested in ROW / ARRAY / MAP, vortex and mosaic files, external data paths
    let features = tables_expecting("cli", &Expect::Exact);
    assert!(features.len() > 20, "{features:?}");
    for feature in &features {
        if every_snapshot_as_pypaimon(feature).is_none() {
            return;
        }
    }
}

#[test]
fn external_data_files_outside_the_warehouse_are_refused_naming_the_file() {
    // The same tables with the warehouse copied elsewhere (without `external/`): their
    // `_EXTERNAL_PATH`s now point outside the store the CLI reads through, and are refused.
    for feature in ["external_paths", "external_paths_pk"] {
        let Some(dir) = generate(feature) else {
            return;
        };
        let copy = tempfile::tempdir().expect("temp dir");
        let from = dir.path().join("m.db");
        for entry in files_under(&from) {
            let to = copy
                .path()
                .join("m.db")
                .join(entry.strip_prefix(&from).expect("below"));
            std::fs::create_dir_all(to.parent().expect("a folder")).expect("mkdir");
            std::fs::copy(&entry, &to).expect("copy");
        }
        let path = copy.path().to_str().expect("a UTF-8 path");
        let (ok, out, err) =
            lakescope(&["scan", path, &format!("m.{feature}"), "--format", "jsonl"]);
        assert!(!ok && out.trim().is_empty(), "{feature}: read {out}");
        let outside = format!("file:{}/external/", dir.path().display());
        assert!(
            err.contains(&format!("m.db/{feature}/data-"))
                && err.contains("unsupported: external data path")
                && err.contains(&outside)
                && err.contains("'data-file.external-paths'"),
            "{feature}: {err}"
        );
    }
}

#[test]
fn row_ids_named_as_columns_scan_as_pypaimon_projects_them_at_every_snapshot() {
    // `scan --columns …,_ROW_ID,_SEQUENCE_NUMBER`: the hidden columns of a row-tracking table,
    // against pypaimon's projection of them (gen_modern.py's row_tracking.json).
    for feature in [
        "row_tracking",
        "data_evolution_some_rows",
        "data_evolution_deletes",
    ] {
        let Some(dir) = generate(feature) else {
            return;
        };
        let text = std::fs::read(dir.path().join("row_tracking.json")).expect("row_tracking.json");
        let tracked: serde_json::Value = serde_json::from_slice(&text).expect("row_tracking.json");
        let columns: Vec<&str> = tracked["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .map(|c| c.as_str().expect("a column name"))
            .collect();
        assert!(
            columns.ends_with(&["_ROW_ID", "_SEQUENCE_NUMBER"]),
            "{columns:?}"
        );
        let columns = columns.join(",");
        let per_snapshot: BTreeMap<String, Vec<String>> =
            serde_json::from_value(tracked["snapshots"].clone())
                .unwrap_or_else(|e| panic!("pypaimon cannot read {feature} at a snapshot: {e}"));
        assert!(!per_snapshot.is_empty(), "{feature}: no snapshots");
        for (id, want) in &per_snapshot {
            let got = scan(
                dir.path(),
                &format!("m.{feature}"),
                &["--snapshot", id, "--columns", &columns],
            );
            assert_eq!(&got, want, "{feature} at snapshot {id}");
        }
    }
}

#[test]
fn tags_and_branches_of_a_modern_table_scan_as_pypaimon_reads_them() {
    let Some(dir) = every_snapshot_as_pypaimon("modern_refs") else {
        return;
    };
    let refs = expected(dir.path(), "refs.json");
    let reads: [(&str, &str, &[&str]); 4] = [
        ("tag:t1", "m.modern_refs", &["--tag", "t1"]),
        ("branch:dev", "m.modern_refs", &["--branch", "dev"]),
        (
            "branch:dev@1",
            "m.modern_refs$branch_dev",
            &["--snapshot", "1"],
        ),
        (
            "branch:dev@tag:d2",
            "m.modern_refs$branch_dev",
            &["--tag", "d2"],
        ),
    ];
    for (label, table, args) in reads {
        let want = refs
            .get(label)
            .unwrap_or_else(|| panic!("no {label} in refs.json"));
        assert_eq!(&scan(dir.path(), table, args), want, "{label}");
    }
    // The tag is the table before the column update; the branch has its own rows.
    assert_ne!(refs["tag:t1"], refs["branch:dev"]);
}

#[test]
fn every_type_of_a_format_scans_as_its_parquet_twin_at_every_snapshot() {
    // Every type of `m.<feature>` (mosaic, vortex, the row format) scans as the same rows
    // pypaimon wrote to its Parquet twin `m.<feature>_parquet`, at every snapshot, with
    // pypaimon's row count.
    let features = tables_expecting("cli", &Expect::Twin);
    assert!(features.len() >= 3, "{features:?}");
    for feature in &features {
        let Some(dir) = generate(feature) else {
            return;
        };
        let table = format!("m.{feature}");
        let twin = format!("m.{feature}_parquet");
        for (id, pypaimon) in expected(dir.path(), "snapshots.json") {
            let rows = scan(dir.path(), &table, &["--snapshot", &id]);
            assert_eq!(rows.len(), pypaimon.len(), "{feature} snapshot {id}");
            assert!(!rows.is_empty(), "{feature} snapshot {id}");
            assert_eq!(
                rows,
                scan(dir.path(), &twin, &["--snapshot", &id]),
                "{feature} snapshot {id}"
            );
        }
    }
}

#[test]
fn blob_tables_scan_as_references_to_pypaimons_bytes_at_every_snapshot() {
    // The CLI prints a BLOB value as its reference into a `.blob` file ({file, offset, length}),
    // never its bytes; every other cell, the nulls and each value's length are pypaimon's.
    let features = tables_expecting("cli", &Expect::Blob);
    assert!(!features.is_empty());
    for feature in &features {
        let Some(dir) = generate(feature) else {
            return;
        };
        let per_snapshot = expected(dir.path(), "snapshots.json");
        for (id, want) in &per_snapshot {
            let shown = |line: &String| {
                let mut cells: Vec<String> = line.split('|').map(String::from).collect();
                if cells[2] != "null" {
                    cells[2] = format!("{} bytes", cells[2].len() / 2);
                }
                cells.join("|")
            };
            let mut want: Vec<String> = want.iter().map(shown).collect();
            want.sort();
            let mut got: Vec<String> =
                scan_json(dir.path(), &format!("m.{feature}"), &["--snapshot", id])
                    .iter()
                    .map(|row| {
                        let blob = match &row["p"] {
                            serde_json::Value::Null => "null".to_string(),
                            reference => {
                                let file = reference["file"].as_str().unwrap_or_default();
                                assert!(
                                    file.starts_with(&format!("m.db/{feature}/bucket-0/data-"))
                                        && file.ends_with(".blob"),
                                    "{feature}@{id}: {reference}"
                                );
                                format!("{} bytes", reference["length"])
                            }
                        };
                        format!(
                            "{}|{}|{blob}",
                            cell(&row["id"], true, false),
                            cell(&row["name"], true, false)
                        )
                    })
                    .collect();
            got.sort();
            assert_eq!(got, want, "{feature} at snapshot {id}");
        }
    }
}

#[test]
fn features_lakescope_does_not_read_are_refused_by_the_cli_naming_the_table_and_feature() {
    // "Unknown means refuse": a non-zero exit with the table and the feature named, no rows.
    let cases: Vec<(String, Vec<String>)> = expectations("cli")
        .into_iter()
        .filter_map(|(feature, e)| match e {
            Expect::Refused(words) => Some((feature, words)),
            _ => None,
        })
        .collect();
    assert!(cases.len() >= 9, "{cases:?}");
    for (feature, words) in cases {
        let feature = feature.as_str();
        let Some(dir) = generate(feature) else {
            return;
        };
        let path = dir.path().to_str().expect("a UTF-8 path");
        let table = format!("m.{feature}");
        let (ok, out, err) = lakescope(&["scan", path, &table, "--format", "jsonl"]);
        assert!(!ok, "{feature} must be refused; printed {out}");
        assert!(out.trim().is_empty(), "{feature}: rows printed: {out}");
        assert!(err.contains(&format!("m.db/{feature}")), "{feature}: {err}");
        assert!(err.contains("unsupported"), "{feature}: {err}");
        for word in words {
            assert!(err.contains(&word), "{feature}: '{word}' not in: {err}");
        }
    }
}

#[test]
fn a_malformed_variant_is_an_error_naming_the_data_file() {
    for feature in tables_expecting("cli", &Expect::Malformed) {
        let Some(dir) = generate(&feature) else {
            return;
        };
        let path = dir.path().to_str().expect("a UTF-8 path");
        let (ok, out, err) =
            lakescope(&["scan", path, &format!("m.{feature}"), "--format", "jsonl"]);
        assert!(!ok && out.trim().is_empty(), "{feature}: read {out}");
        assert!(
            err.contains(&format!("m.db/{feature}/bucket-0/data-"))
                && err.contains(".parquet: malformed VARIANT value"),
            "{feature}: {err}"
        );
    }
}

#[test]
fn every_table_of_the_modern_corpus_has_an_expectation_here() {
    // tables.json is the one list: the CLI reads every table of it but the system-table ones
    let cli = expectations("cli");
    let all = expectations("browser")
        .into_iter()
        .filter(|(_, e)| *e != Expect::System)
        .map(|(t, _)| t);
    for table in all {
        assert!(
            cli.iter().any(|(t, _)| *t == table),
            "{table}: no 'cli' expectation"
        );
    }
}
