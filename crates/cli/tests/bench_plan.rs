//! `lakescope bench-plan`: a table's plan, and a system table (a tab's rows) read in-process —
//! the rows it counts are the rows `scan` prints; flags that only apply to a table's plan are
//! refused by name.

mod common;

use common::{lakescope, repo_root};

fn corpus() -> String {
    repo_root()
        .join("../shared/corpus/paimon/warehouse")
        .to_string_lossy()
        .into_owned()
}

fn json_of(args: &[&str]) -> serde_json::Value {
    let (ok, out, err) = lakescope(args);
    assert!(ok, "lakescope {args:?} failed: {err}");
    serde_json::from_str(out.trim()).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

#[test]
fn bench_plan_of_a_system_table_counts_the_rows_scan_prints() {
    let warehouse = corpus();
    for table in ["java09.pk_compacted$files", "corpus.pk_dedup$snapshots"] {
        let (ok, printed, err) = lakescope(&["scan", &warehouse, table, "--format", "jsonl"]);
        assert!(ok, "scan {table}: {err}");
        let lines = printed.lines().count();
        assert!(lines > 0, "{table} has rows");
        let timed = json_of(&["bench-plan", &warehouse, table, "--runs", "3"]);
        assert_eq!(
            timed["rows"].as_u64(),
            Some(lines as u64),
            "{table}: {timed}"
        );
        assert_eq!(timed["table"].as_str(), Some(table));
        assert_eq!(timed["millis"].as_array().map(Vec::len), Some(3), "{timed}");
    }
    // a table's plan: the live files of its latest snapshot, as many as `$files` lists
    let files = json_of(&[
        "bench-plan",
        &warehouse,
        "java09.pk_compacted$files",
        "--runs",
        "1",
    ]);
    let plan = json_of(&[
        "bench-plan",
        &warehouse,
        "java09.pk_compacted",
        "--runs",
        "1",
    ]);
    assert_eq!(
        plan["files"].as_u64(),
        files["rows"].as_u64(),
        "{plan} {files}"
    );
}

#[test]
fn bench_plan_refuses_a_filter_or_snapshot_on_a_system_table() {
    let warehouse = corpus();
    for extra in [["--filter", "id < 3"], ["--snapshot", "1"]] {
        let args = [
            &["bench-plan", &warehouse, "java09.pk_compacted$files"][..],
            &extra[..],
        ]
        .concat();
        let (ok, _, err) = lakescope(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(
            err.contains("java09.pk_compacted$files") && err.contains("not to a system table"),
            "{err}"
        );
    }
}
