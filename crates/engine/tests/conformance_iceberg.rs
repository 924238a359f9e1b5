//! Conformance: every snapshot of every Iceberg table in ../shared/corpus reads exactly as
//! pyiceberg read it (expected/iceberg/<table>/snapshot-<id>.jsonl), through `Catalog::scan`.

use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};
use lakescope_storage::LocalStore;
use std::path::{Path, PathBuf};
use std::rc::Rc;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

/// One expected file: which table, which snapshot, the expected lines.
struct Case {
    table: TableRef,
    snapshot: i64,
    label: String,
    expected: Vec<String>,
}

fn cases() -> Vec<Case> {
    let root = corpus().join("expected/iceberg");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("the corpus is beside the repository at ../shared/corpus")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .collect();
    dirs.sort_by_key(|e| e.file_name());
    let mut out = Vec::new();
    for dir in dirs {
        let name = dir.file_name().to_string_lossy().into_owned();
        let table: TableRef = format!("corpus.{name}").parse().expect("table name");
        let mut files: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|f| f.starts_with("snapshot-") && f.ends_with(".jsonl"))
            .collect();
        files.sort();
        for file in files {
            let stem = file.trim_end_matches(".jsonl");
            let id = stem["snapshot-".len()..].parse().expect("snapshot id");
            let text = std::fs::read_to_string(dir.path().join(&file)).unwrap();
            let mut expected: Vec<String> = text.lines().map(str::to_string).collect();
            expected.sort();
            out.push(Case {
                table: table.clone(),
                snapshot: id,
                label: format!("{name}/{stem}"),
                expected,
            });
        }
    }
    out
}

#[tokio::test(flavor = "current_thread")]
async fn every_iceberg_snapshot_matches() {
    let warehouse = corpus().join("iceberg/warehouse");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&warehouse)));
    let cases = cases();
    assert!(
        cases.len() >= 27,
        "expected the whole corpus, found {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let request = ScanRequest {
            at: Version::SnapshotId(case.snapshot),
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
        if got != case.expected {
            let missing: Vec<_> = case
                .expected
                .iter()
                .filter(|l| !got.contains(l))
                .take(3)
                .collect();
            let extra: Vec<_> = got
                .iter()
                .filter(|l| !case.expected.contains(l))
                .take(3)
                .collect();
            failures.push(format!(
                "{}: {} rows, expected {}; missing e.g. {missing:?}; unexpected e.g. {extra:?}",
                case.label,
                got.len(),
                case.expected.len()
            ));
        }
    }
    println!(
        "iceberg conformance: {} passed, {} failed",
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}
