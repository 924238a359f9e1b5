//! Conformance: every snapshot and tag of every Paimon table in ../shared/corpus reads exactly as
//! Paimon itself read it (expected/paimon/<db>.<table>/{snapshot-N,tag-NAME}.jsonl).

use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};
use lakescope_storage::LocalStore;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// One expected file: which table, which version, the expected lines.
struct Case {
    table: TableRef,
    at: Version,
    label: String,
    expected: Vec<String>,
    order_insensitive: Vec<String>,
}

fn cases() -> Vec<Case> {
    let root = corpus().join("expected/paimon");
    let mut out = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("the corpus is beside the repository at ../shared/corpus")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .collect();
    dirs.sort_by_key(|e| e.file_name());
    for dir in dirs {
        let name = dir.file_name().to_string_lossy().into_owned();
        let table: TableRef = name.parse().expect("expected dirs are named <db>.<table>");
        let meta: Value = std::fs::read(dir.path().join("table.json"))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or(Value::Null);
        let order_insensitive: Vec<String> = meta
            .get("order_insensitive_columns")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        let mut files: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| f.ends_with(".jsonl"))
            .collect();
        files.sort();
        for file in files {
            let stem = file.trim_end_matches(".jsonl");
            let at = if let Some(id) = stem.strip_prefix("snapshot-") {
                Version::SnapshotId(id.parse().expect("snapshot id"))
            } else if let Some(tag) = stem.strip_prefix("tag-") {
                Version::Tag(tag.to_string())
            } else {
                continue;
            };
            let text = std::fs::read_to_string(dir.path().join(&file)).unwrap();
            out.push(Case {
                table: table.clone(),
                at,
                label: format!("{name}/{stem}"),
                expected: text.lines().map(str::to_string).collect(),
                order_insensitive: order_insensitive.clone(),
            });
        }
    }
    out
}

/// Canonical comparison form: columns listed as order-insensitive have their elements sorted,
/// then lines are sorted by their UTF-8 bytes.
fn normalise(lines: &[String], order_insensitive: &[String]) -> Vec<String> {
    let mut out: Vec<String> = lines
        .iter()
        .map(|line| {
            if order_insensitive.is_empty() {
                return line.clone();
            }
            let Ok(Value::Object(mut obj)) = serde_json::from_str::<Value>(line) else {
                return line.clone();
            };
            for col in order_insensitive {
                if let Some(Value::Array(items)) = obj.get_mut(col) {
                    items.sort_by_key(|v| v.to_string());
                }
            }
            Value::Object(obj).to_string()
        })
        .collect();
    out.sort();
    out
}

#[tokio::test(flavor = "current_thread")]
async fn every_paimon_snapshot_and_tag_matches() {
    let warehouse = corpus().join("paimon/warehouse");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&warehouse)));
    let cases = cases();
    assert!(
        cases.len() > 50,
        "expected the whole corpus, found {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let request = ScanRequest {
            at: case.at.clone(),
            ..ScanRequest::default()
        };
        let got = match catalog.scan(&case.table, &request).await {
            Ok(result) => match batches_to_lines(&result.batches) {
                Ok(lines) => lines,
                Err(e) => {
                    failures.push(format!("{}: cannot render rows: {e}", case.label));
                    continue;
                }
            },
            Err(e) => {
                failures.push(format!("{}: {e}", case.label));
                continue;
            }
        };
        let got = normalise(&got, &case.order_insensitive);
        let expected = normalise(&case.expected, &case.order_insensitive);
        if got != expected {
            let missing: Vec<_> = expected
                .iter()
                .filter(|l| !got.contains(l))
                .take(3)
                .collect();
            let extra: Vec<_> = got
                .iter()
                .filter(|l| !expected.contains(l))
                .take(3)
                .collect();
            failures.push(format!(
                "{}: {} rows, expected {}; missing e.g. {missing:?}; unexpected e.g. {extra:?}",
                case.label,
                got.len(),
                expected.len()
            ));
        }
    }
    println!(
        "paimon conformance: {} passed, {} failed",
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}
