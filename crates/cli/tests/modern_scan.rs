//! Issue 25's acceptance, literally: the modern Paimon tables pypaimon 2.1 writes
//! (`crates/paimon/tests/modern/gen_modern.py`) read exactly by the CLI's `lakescope scan` at
//! every snapshot, tag and branch, as pypaimon reads them.

mod common;

use common::{lakescope, python_with, repo_root};
use std::collections::BTreeMap;
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
/// unquoted, lists as `[a, b]` with nested nulls empty, a top-level null as `null`.
fn cell(value: &serde_json::Value, top: bool) -> String {
    match value {
        serde_json::Value::Null if top => "null".to_string(),
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Array(items) => {
            let items: Vec<String> = items.iter().map(|v| cell(v, false)).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
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
    let mut rows: Vec<String> = scan_json(dir, table, extra)
        .iter()
        .map(|row| {
            row.values()
                .map(|v| cell(v, true))
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
    for feature in [
        "data_evolution",
        "data_evolution_some_rows",
        "data_evolution_deletes",
        "data_evolution_appends",
        "row_tracking",
        "dv_merge_on_read",
        "dv_level0_hidden",
        "postpone",
        "avro_xz",
        "avro_bzip2",
        "parquet_brotli",
        "row_format",
        "row_format_pk",
        "row_format_evolution",
        "variant",
        "variant_shredded",
        "variant_row_format",
        "variant_pk",
        "vector_parquet",
        "vector_orc",
        "vector_avro",
        "vector_row",
    ] {
        if every_snapshot_as_pypaimon(feature).is_none() {
            return;
        }
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

/// Every type of `m.<feature>` (three commits) scans as the same rows pypaimon wrote to its
/// Parquet twin `m.<feature>_parquet`, at every snapshot.
fn scans_as_its_parquet_twin(feature: &str) {
    let Some(dir) = generate(feature) else {
        return;
    };
    let table = format!("m.{feature}");
    let twin = format!("m.{feature}_parquet");
    for id in ["1", "2", "3"] {
        let rows = scan(dir.path(), &table, &["--snapshot", id]);
        assert!(!rows.is_empty(), "{feature} snapshot {id}");
        assert_eq!(
            rows,
            scan(dir.path(), &twin, &["--snapshot", id]),
            "{feature} snapshot {id}"
        );
    }
}

#[test]
fn mosaic_tables_scan_as_pypaimon_reads_them_at_every_snapshot() {
    // Primary-key mosaic files, and files of two buckets (paged: 20000 rows).
    for feature in ["mosaic_pk", "mosaic_buckets"] {
        if every_snapshot_as_pypaimon(feature).is_none() {
            return;
        }
    }
    scans_as_its_parquet_twin("mosaic_format");
}

#[test]
fn vortex_tables_scan_as_pypaimon_reads_them_at_every_snapshot() {
    // Nulls, primary-key files updated twice, a partitioned table of two buckets (5007 rows).
    for feature in ["vortex_format", "vortex_pk", "vortex_buckets"] {
        if every_snapshot_as_pypaimon(feature).is_none() {
            return;
        }
    }
    scans_as_its_parquet_twin("vortex_types");
}

#[test]
fn blob_tables_scan_as_references_to_pypaimons_bytes_at_every_snapshot() {
    // The CLI prints a BLOB value as its reference into a `.blob` file ({file, offset, length}),
    // never its bytes; every other cell, the nulls and each value's length are pypaimon's.
    for feature in ["blob", "blob_rolled"] {
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
                            cell(&row["id"], true),
                            cell(&row["name"], true)
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
    let cases: [(&str, &[&str]); 9] = [
        ("lance_format", &["data file format 'lance'", ".lance"]),
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
        ("variant_avro", &[".avro", "VARIANT column 'v'"]),
        ("variant_orc", &[".orc", "VARIANT column 'v'"]),
    ];
    for (feature, words) in cases {
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
            assert!(err.contains(word), "{feature}: '{word}' not in: {err}");
        }
    }
}
