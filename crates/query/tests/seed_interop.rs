//! Interop of the seed script's tables: the script (../shared/seeds/seed-statements.sql) runs in
//! a lakescope session against a fresh local warehouse (statement outcomes are seed_script.rs's
//! business, not this test's), then every Paimon table found under the warehouse (any folder
//! with a `schema/` folder of `schema-N` files: the catalogs' tables and external tables alike)
//! that has at least one snapshot is read by lakescope, Java Paimon 0.9 and pypaimon 2.1 at the
//! latest snapshot without time travel, at every snapshot id and at every tag; the three must
//! give the same multiset of rows (canonical JSON lines, sorted).
//!
//! The oracles are subprocesses set up by `scripts/oracles.sh` (tests/oracle/ReadRefs.java is
//! compiled against its Java Paimon 0.9 jars on first use, tests/oracle/read_refs.py runs in its
//! pypaimon 2.1 venv); without them the test fails (`LAKESCOPE_SKIP_ORACLES=1` skips it).

mod common;

use common::{seed_script, session, LocalOpener};
use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::TableRef;
use lakescope_engine::{
    scan::{scan_table, ScanRequest},
    Version,
};
use lakescope_paimon::table::Table;
use lakescope_storage::LocalStore;
use lakescope_test_support::oracles::{run, run_with_input, Oracles};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle")
}

/// The oracles, with ReadRefs.java compiled (again when the source is newer than the class).
fn oracles() -> Option<Oracles> {
    Some(lakescope_test_support::oracles::oracles()?.with_java(
        &oracle_dir().join("ReadRefs.java"),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("seed-interop-classes"),
    ))
}

/// A version of a table to read.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ref {
    /// No time travel: the latest snapshot, read with the latest schema.
    Latest,
    Snapshot(i64),
    Tag(String),
}

impl fmt::Display for Ref {
    /// The form the oracle scripts take and print.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ref::Latest => write!(f, "latest"),
            Ref::Snapshot(id) => write!(f, "snapshot:{id}"),
            Ref::Tag(name) => write!(f, "tag:{name}"),
        }
    }
}

/// Rows of one read (sorted canonical lines), or the reader's error.
type Read = Result<Vec<String>, String>;

/// Every folder under `root` holding a `schema/schema-N` file (not looking inside tables).
fn discover_tables(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let schema = dir.join("schema");
        let is_table = std::fs::read_dir(&schema).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                e.file_name()
                    .to_str()
                    .and_then(|n| n.strip_prefix("schema-"))
                    .is_some_and(|n| n.parse::<i64>().is_ok())
            })
        });
        if is_table {
            out.push(dir.to_path_buf());
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                walk(&entry.path(), out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, &mut out);
    out.sort();
    out
}

/// File names `<prefix><rest>` in `dir`, as `rest`.
fn names_with_prefix(dir: &Path, prefix: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            Some(name.strip_prefix(prefix)?.to_string())
        })
        .collect()
}

/// `latest`, every snapshot id, every tag; empty for a table without snapshots.
fn refs_of(table_dir: &Path) -> Vec<Ref> {
    let mut ids: Vec<i64> = names_with_prefix(&table_dir.join("snapshot"), "snapshot-")
        .iter()
        .filter_map(|n| n.parse().ok())
        .collect();
    if ids.is_empty() {
        return Vec::new();
    }
    ids.sort();
    let mut tags = names_with_prefix(&table_dir.join("tag"), "tag-");
    tags.sort();
    std::iter::once(Ref::Latest)
        .chain(ids.into_iter().map(Ref::Snapshot))
        .chain(tags.into_iter().map(Ref::Tag))
        .collect()
}

/// Parses "## <table dir>" / "== <ref>" / "!! <ref> <error>" sections into reads by table, ref.
fn sections(output: &str) -> BTreeMap<String, BTreeMap<String, Read>> {
    let mut out: BTreeMap<String, BTreeMap<String, Read>> = BTreeMap::new();
    let mut table = String::new();
    let mut current: Option<String> = None;
    for line in output.lines() {
        if let Some(dir) = line.strip_prefix("## ") {
            table = dir.to_string();
            current = None;
        } else if let Some(r) = line.strip_prefix("== ") {
            out.entry(table.clone())
                .or_default()
                .insert(r.to_string(), Ok(Vec::new()));
            current = Some(r.to_string());
        } else if let Some(err) = line.strip_prefix("!! ") {
            let (r, msg) = err.split_once(' ').unwrap_or((err, ""));
            out.entry(table.clone())
                .or_default()
                .insert(r.to_string(), Err(msg.to_string()));
            current = None;
        } else if line.starts_with('{') {
            if let Some(Some(Ok(rows))) = current
                .as_ref()
                .map(|r| out.get_mut(&table).and_then(|t| t.get_mut(r)))
            {
                rows.push(line.to_string());
            }
        }
    }
    for refs in out.values_mut() {
        for rows in refs.values_mut().flatten() {
            rows.sort();
        }
    }
    out
}

/// `@<dir> <ref>...` for every table.
fn oracle_args(tables: &[(PathBuf, Vec<Ref>)]) -> Vec<String> {
    tables
        .iter()
        .flat_map(|(dir, refs)| {
            std::iter::once(format!("@{}", dir.display())).chain(refs.iter().map(Ref::to_string))
        })
        .collect()
}

fn java_reads(
    o: &Oracles,
    tables: &[(PathBuf, Vec<Ref>)],
) -> BTreeMap<String, BTreeMap<String, Read>> {
    let raw = run(
        o.java("ReadRefs").args(oracle_args(tables)),
        "Java Paimon 0.9 (ReadRefs)",
    );
    // Java spells numbers its own way (1.0E16); Python's json module re-spells them.
    let normalized = run_with_input(
        Command::new(&o.python)
            .arg(oracle_dir().join("read_refs.py"))
            .arg("normalize"),
        "normalizing Java's JSON lines (read_refs.py normalize)",
        &raw,
    );
    sections(&normalized)
}

fn pypaimon_reads(
    o: &Oracles,
    tables: &[(PathBuf, Vec<Ref>)],
) -> BTreeMap<String, BTreeMap<String, Read>> {
    sections(&run(
        Command::new(&o.python)
            .arg(oracle_dir().join("read_refs.py"))
            .arg("read")
            .args(oracle_args(tables)),
        "pypaimon 2.1 (read_refs.py)",
    ))
}

/// lakescope's read of the table folder at `at` (scan_table on the folder, named `<db>.<table>`).
async fn our_read(table_dir: &Path, at: &Ref) -> Read {
    let parent = table_dir.parent().expect("table folder has a parent");
    let name = table_dir.file_name().unwrap().to_string_lossy().to_string();
    let folder = parent.file_name().unwrap().to_string_lossy().to_string();
    let table_ref = TableRef {
        database: folder.strip_suffix(".db").unwrap_or(&folder).to_string(),
        table: name.clone(),
        system: None,
    };
    let table = Table::open(Rc::new(LocalStore::new(parent)), name)
        .await
        .map_err(|e| format!("open: {e}"))?;
    let request = ScanRequest {
        at: match at {
            Ref::Latest => Version::Latest,
            Ref::Snapshot(id) => Version::SnapshotId(*id),
            Ref::Tag(name) => Version::Tag(name.clone()),
        },
        ..Default::default()
    };
    let result = scan_table(&table, &table_ref, &request)
        .await
        .map_err(|e| e.to_string())?;
    batches_to_lines(&result.batches).map_err(|e| format!("canonical lines: {e}"))
}

/// Lines of `a` missing from `b`, as multisets (both sorted).
fn minus(a: &[String], b: &[String]) -> Vec<String> {
    let mut counts: BTreeMap<&str, i64> = BTreeMap::new();
    for l in b {
        *counts.entry(l).or_default() += 1;
    }
    let mut out = Vec::new();
    for l in a {
        let c = counts.entry(l).or_default();
        if *c > 0 {
            *c -= 1;
        } else {
            out.push(l.clone());
        }
    }
    out
}

/// How `other` (a reader's result) differs from lakescope's `ours`; `None` when identical.
fn difference(reader: &str, ours: &Read, other: Option<&Read>) -> Option<String> {
    let Some(other) = other else {
        return Some(format!("    {reader}: no output for this ref"));
    };
    if ours == other {
        return None;
    }
    Some(match (ours, other) {
        (Ok(mine), Ok(theirs)) => {
            let mut text = format!(
                "    {reader}: {} rows, lakescope {} rows",
                theirs.len(),
                mine.len()
            );
            for l in minus(theirs, mine) {
                text.push_str(&format!("\n      only in {reader}:   {l}"));
            }
            for l in minus(mine, theirs) {
                text.push_str(&format!("\n      only in lakescope: {l}"));
            }
            text
        }
        (Ok(mine), Err(e)) => format!(
            "    {reader} failed: {e}\n      (lakescope read {} rows)",
            mine.len()
        ),
        (Err(_), Ok(theirs)) => format!("    {reader}: {} rows: {theirs:?}", theirs.len()),
        (Err(_), Err(e)) => format!("    {reader} failed too, differently: {e}"),
    })
}

#[tokio::test]
async fn seed_tables_read_identically_in_lakescope_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_path_buf();
    let script = seed_script().replace("${WAREHOUSE}", warehouse.to_str().unwrap());
    let mut session = session(Rc::new(LocalOpener));
    let failed = session
        .run_script(&script, true, &mut |parsed, result| {
            if let Err(e) = result {
                eprintln!(
                    "(seed statement {} failed, as seed_script.rs judges: {})",
                    parsed.number, e.message
                );
            }
        })
        .await;
    eprintln!("seed script ran; {failed} statements failed");

    let found = discover_tables(&warehouse);
    assert!(
        !found.is_empty(),
        "no Paimon table (folder with schema/schema-N) under {} after the seed script",
        warehouse.display()
    );
    let mut tables = Vec::new();
    for table_dir in found {
        let shown = table_dir
            .strip_prefix(&warehouse)
            .unwrap()
            .display()
            .to_string();
        let refs = refs_of(&table_dir);
        if refs.is_empty() {
            eprintln!("{shown}: no snapshot, not compared");
        } else {
            tables.push((table_dir, refs));
        }
    }
    assert!(
        !tables.is_empty(),
        "the seed script left no Paimon table with a snapshot under {}",
        warehouse.display()
    );

    let java = java_reads(&o, &tables);
    let python = pypaimon_reads(&o, &tables);
    let mut disagreements = Vec::new();
    let mut compared = 0;
    for (table_dir, refs) in &tables {
        let key = table_dir.display().to_string();
        let shown = table_dir
            .strip_prefix(&warehouse)
            .unwrap()
            .display()
            .to_string();
        for at in refs {
            compared += 1;
            let ours = our_read(table_dir, at).await;
            let r = at.to_string();
            let j = java.get(&key).and_then(|t| t.get(&r));
            let p = python.get(&key).and_then(|t| t.get(&r));
            let mut problems: Vec<String> = [
                difference("Java Paimon 0.9", &ours, j),
                difference("pypaimon 2.1", &ours, p),
            ]
            .into_iter()
            .flatten()
            .collect();
            match &ours {
                Ok(rows) if problems.is_empty() => {
                    eprintln!(
                        "{shown} @ {at}: {} rows, lakescope = Java Paimon 0.9 = pypaimon 2.1",
                        rows.len()
                    );
                    continue;
                }
                Ok(rows) => problems.insert(0, format!("    lakescope: {} rows", rows.len())),
                Err(e) => problems.insert(0, format!("    lakescope failed: {e}")),
            }
            let text = format!("{shown} @ {at}:\n{}", problems.join("\n"));
            eprintln!("DISAGREE {text}");
            disagreements.push(text);
        }
    }
    eprintln!(
        "{} tables, {compared} reads compared, {} disagreements",
        tables.len(),
        disagreements.len()
    );
    if !disagreements.is_empty() {
        // kept for a closer look
        let _ = dir.keep();
    }
    assert!(
        disagreements.is_empty(),
        "{} of {compared} reads of the seed tables disagree (warehouse {}):\n{}",
        disagreements.len(),
        warehouse.display(),
        disagreements.join("\n")
    );
}
