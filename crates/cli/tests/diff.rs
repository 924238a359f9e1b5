//! `lakescope diff` on Paimon and Iceberg corpus tables: for every consecutive pair of snapshots,
//! applying the printed changes to the reference readers' rows of the older snapshot (deletes and
//! update_before removed, inserts and update_after added) gives their rows of the newer one.

mod common;

use common::repo_root;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn shared() -> PathBuf {
    repo_root().join("../shared/corpus")
}

/// A JSON value as text with object keys sorted (rows compare whatever their column order).
fn canon(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let sorted: BTreeMap<&String, String> = m.iter().map(|(k, v)| (k, canon(v))).collect();
            let fields: Vec<String> = sorted
                .iter()
                .map(|(k, v)| format!("{}:{v}", Value::String((*k).clone())))
                .collect();
            format!("{{{}}}", fields.join(","))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(canon).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// Rows as a multiset: canonical text → count.
type Rows = BTreeMap<String, i64>;

fn expected_rows(file: &Path) -> Rows {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let mut rows = Rows::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        *rows.entry(canon(&v)).or_default() += 1;
    }
    rows
}

/// `lakescope diff --format jsonl`: (row without `_change`, change kind) per printed line.
fn diff(warehouse: &Path, table: &str, from: &str, to: &str) -> Vec<(String, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_lakescope"))
        .arg("diff")
        .arg(warehouse)
        .args([table, "--from", from, "--to", to, "--format", "jsonl"])
        .output()
        .expect("run lakescope");
    assert!(
        out.status.success(),
        "lakescope diff {table} {from}..{to}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            let change = v
                .as_object_mut()
                .and_then(|m| m.remove("_change"))
                .and_then(|c| c.as_str().map(str::to_string))
                .unwrap_or_else(|| panic!("no _change in {line}"));
            (canon(&v), change)
        })
        .collect()
}

/// Checks `before` + diff = `after` for the pair, and that the diff is not empty when they differ.
fn check_pair(warehouse: &Path, table: &str, from: &str, to: &str, before: Rows, after: &Rows) {
    let changes = diff(warehouse, table, from, to);
    let mut rows = before.clone();
    for (row, change) in &changes {
        let delta = match change.as_str() {
            "insert" | "update_after" => 1,
            "delete" | "update_before" => -1,
            other => panic!("unknown change {other}"),
        };
        *rows.entry(row.clone()).or_default() += delta;
    }
    rows.retain(|_, n| *n != 0);
    assert_eq!(&rows, after, "{table}: {from} + diff != {to}");
    assert_eq!(changes.is_empty(), &before == after, "{table} {from}..{to}");
}

#[test]
fn paimon_diffs_turn_each_snapshot_into_the_next() {
    let warehouse = shared().join("paimon/warehouse");
    let expected = shared().join("expected/paimon/corpus.pk_dedup");
    let mut before = Rows::new();
    let mut from = "0".to_string();
    for id in 1.. {
        let file = expected.join(format!("snapshot-{id}.jsonl"));
        if !file.exists() {
            assert!(id > 2, "corpus.pk_dedup has several snapshots");
            break;
        }
        let after = expected_rows(&file);
        check_pair(
            &warehouse,
            "corpus.pk_dedup",
            &from,
            &id.to_string(),
            before,
            &after,
        );
        (before, from) = (after, id.to_string());
    }
}

#[test]
fn iceberg_diffs_turn_each_snapshot_into_the_next() {
    let warehouse = shared().join("iceberg/warehouse");
    let expected = shared().join("expected/iceberg/mor_position_deletes");
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string(expected.join("table.json")).unwrap())
            .unwrap();
    let snapshots = table["snapshots"].as_array().expect("snapshots");
    assert!(snapshots.len() > 2);
    let mut before = Rows::new();
    let mut from = "0".to_string();
    for s in snapshots {
        let id = s["snapshot_id"].to_string();
        let after = expected_rows(&expected.join(format!("snapshot-{id}.jsonl")));
        check_pair(
            &warehouse,
            "corpus.mor_position_deletes",
            &from,
            &id,
            before,
            &after,
        );
        (before, from) = (after, id);
    }
}
