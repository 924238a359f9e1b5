//! Shared by the changelog interop tests: the oracles with the streaming-read and writer Java
//! classes, Java's and pypaimon's streaming reads, Java's writer, lakescope's changelog read,
//! and the "kind;id;v;dt[;n]" rows the tests commit.

use arrow_array::{ArrayRef, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray};
use lakescope_engine::Version;
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::incremental::IncrementalMode;
use lakescope_paimon::spec::Snapshot;
use lakescope_paimon::write::ROW_KIND_COLUMN;
use lakescope_test_support::engine::canonical_rows;
use lakescope_test_support::oracles::{run, sections, Oracles, Sections};
use lakescope_test_support::tables::batch;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// The oracles, with `ChangelogJava` (streaming read) and `MergeEngineJava` (Java's writer)
/// compiled next to `ReadJava`.
pub fn oracles() -> Option<Oracles> {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    Some(
        lakescope_test_support::oracles::oracles()?
            .with_java(
                &tests.join("changelog_input_oracle/ChangelogJava.java"),
                &tmp.join("changelog-input-classes"),
            )
            .with_java(
                &tests.join("merge_engine_oracle/MergeEngineJava.java"),
                &tmp.join("changelog-input-writer-classes"),
            ),
    )
}

/// Java 0.9's streaming read from snapshot 1: the records of each planned snapshot.
pub fn java_stream(o: &Oracles, table_dir: &Path) -> Sections {
    let mut cmd = o.java("ChangelogJava");
    cmd.arg("stream").arg(table_dir).arg("1");
    sections(&run(&mut cmd, "Java Paimon 0.9 streaming read"))
}

/// pypaimon 2.1's streaming read from snapshot 1, with row kinds.
pub fn pypaimon_stream(o: &Oracles, warehouse: &Path, table: &str) -> Sections {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/changelog_input_oracle/pypaimon_stream.py");
    let mut cmd = Command::new(&o.python);
    cmd.arg(script).arg(warehouse).arg(table);
    sections(&run(&mut cmd, "pypaimon 2.1 streaming read"))
}

/// One commit of Java 0.9's own writer ("kind;id;v;dt[;n]" rows, fields in schema order).
pub fn java_write(o: &Oracles, table_dir: &Path, rows: &[&str]) {
    java_write_with(o, "write", table_dir, rows);
}

/// [`java_write`] with the writer's `command`: `write`, or `write-full-compaction` (a full
/// compaction of the written buckets before the commit, as Flink's batch sink does for
/// `changelog-producer` = `full-compaction`).
pub fn java_write_with(o: &Oracles, command: &str, table_dir: &Path, rows: &[&str]) {
    let mut cmd = o.java("MergeEngineJava");
    cmd.arg(command).arg(table_dir).args(rows);
    run(&mut cmd, "Java Paimon 0.9 write");
}

/// The rows of a commit, "kind;id;v;dt[;n]" (`null` for a NULL v or n), as a batch with
/// `_VALUE_KIND` (and the BIGINT column `n` when the rows have it).
pub fn input(rows: &[&str]) -> RecordBatch {
    let parts: Vec<Vec<&str>> = rows.iter().map(|r| r.split(';').collect()).collect();
    let kind = |k: &str| match k {
        "+I" => 0i8,
        "-U" => 1,
        "+U" => 2,
        "-D" => 3,
        other => panic!("row kind {other}"),
    };
    let mut cols: Vec<(&str, ArrayRef)> = vec![
        (
            "id",
            Arc::new(Int32Array::from(
                parts
                    .iter()
                    .map(|p| p[1].parse::<i32>().unwrap())
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "v",
            Arc::new(StringArray::from(
                parts
                    .iter()
                    .map(|p| (p[2] != "null").then_some(p[2]))
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "dt",
            Arc::new(StringArray::from(
                parts.iter().map(|p| p[3]).collect::<Vec<_>>(),
            )),
        ),
    ];
    if parts.iter().any(|p| p.len() > 4) {
        cols.push((
            "n",
            Arc::new(Int64Array::from(
                parts
                    .iter()
                    .map(|p| p.get(4).and_then(|n| n.parse::<i64>().ok()))
                    .collect::<Vec<_>>(),
            )),
        ));
    }
    cols.push((
        ROW_KIND_COLUMN,
        Arc::new(Int8Array::from(
            parts.iter().map(|p| kind(p[0])).collect::<Vec<_>>(),
        )),
    ));
    batch(cols)
}

/// The snapshot file `id` of the table folder.
pub fn snapshot_file(dir: &Path, id: i64) -> Snapshot {
    let bytes = std::fs::read(dir.join(format!("snapshot/snapshot-{id}"))).unwrap();
    Snapshot::from_json(&bytes).unwrap()
}

/// lakescope's own changelog read of snapshot `id` (`$audit_log`, incremental-between
/// `id-1,id`, scan mode changelog).
pub async fn our_changelog(catalog: &Catalog, table: &TableRef, id: i64) -> Vec<String> {
    let audit = TableRef {
        system: Some("audit_log".into()),
        ..table.clone()
    };
    canonical_rows(
        catalog,
        &audit,
        Version::IncrementalBetween {
            start: (id - 1).to_string(),
            end: id.to_string(),
            mode: Some(IncrementalMode::Changelog),
        },
    )
    .await
    .unwrap()
}
