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

/// `lakescope scan <dir> <table> <extra…> --format jsonl` as pypaimon's sorted `a|b` lines.
fn scan(dir: &Path, table: &str, extra: &[&str]) -> Vec<String> {
    let dir = dir.to_str().expect("a UTF-8 path");
    let mut args = vec!["scan", dir, table];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--format", "jsonl"]);
    let (ok, out, err) = lakescope(&args);
    assert!(ok, "lakescope {args:?}: {err}");
    let mut rows: Vec<String> = out
        .lines()
        .map(|line| {
            let row: serde_json::Map<String, serde_json::Value> =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}"));
            row.values()
                .map(|v| match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
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
        "postpone",
        "avro_xz",
        "parquet_brotli",
        "row_format",
        "row_format_pk",
        "row_format_evolution",
        "variant",
        "variant_shredded",
    ] {
        if every_snapshot_as_pypaimon(feature).is_none() {
            return;
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
fn mosaic_tables_scan_as_pypaimon_reads_them_at_every_snapshot() {
    // Primary-key mosaic files, and files of two buckets (paged: 20000 rows).
    for feature in ["mosaic_pk", "mosaic_buckets"] {
        if every_snapshot_as_pypaimon(feature).is_none() {
            return;
        }
    }
    // Every type Mosaic stores scans as the same rows written to Parquet, at every snapshot.
    let Some(dir) = generate("mosaic_format") else {
        return;
    };
    for id in ["1", "2", "3"] {
        let mosaic = scan(dir.path(), "m.mosaic_format", &["--snapshot", id]);
        assert!(!mosaic.is_empty(), "snapshot {id}");
        assert_eq!(
            mosaic,
            scan(dir.path(), "m.mosaic_format_parquet", &["--snapshot", id]),
            "snapshot {id}"
        );
    }
}
