//! Tables with the modern Paimon features of issue 25, written by pypaimon 2.1 at test time with
//! `crates/paimon/tests/modern/gen_modern.py` (one table `m.<feature>` per warehouse).

use crate::oracles::{oracles, run};
use crate::repo;
use std::process::Command;

/// Writes `m.<feature>` into a fresh warehouse; returns it with pypaimon's sorted rows (or its
/// error line). None when the oracles are missing and skipped.
pub fn generate(feature: &str) -> Option<(tempfile::TempDir, Result<Vec<String>, String>)> {
    let o = oracles()?;
    let dir = tempfile::tempdir().unwrap();
    let script = repo().join("crates/paimon/tests/modern/gen_modern.py");
    let out = run(
        Command::new(&o.python)
            .arg(script)
            .arg(dir.path())
            .arg(feature),
        &format!("pypaimon 2.1 writing {feature}"),
    );
    let mut lines: Vec<String> = out.lines().map(String::from).collect();
    if let Some(err) = lines.iter().find_map(|l| l.strip_prefix("!! ")) {
        return Some((dir, Err(err.to_string())));
    }
    lines.sort();
    Some((dir, Ok(lines)))
}

/// What a reader must do with a table of the modern corpus, as
/// `crates/paimon/tests/modern/tables.json` says (the one list of the corpus's tables).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Every snapshot read as pypaimon 2.1 reads it.
    Exact,
    /// Every snapshot read as the same rows pypaimon wrote to `m.<feature>_parquet`.
    Twin,
    /// BLOB references whose bytes are pypaimon's.
    Blob,
    /// An error naming the data file (a malformed value).
    Malformed,
    /// A system table, checked by its own test.
    System,
    /// Refused with an `Unsupported` error holding these words.
    Refused(Vec<String>),
}

/// The modern corpus's tables that `reader` (`"cli"` or `"browser"`) reads, with what it must
/// do with each, in the order of `tables.json`.
pub fn expectations(reader: &str) -> Vec<(String, Expect)> {
    let path = repo().join("crates/paimon/tests/modern/tables.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let json: serde_json::Value = serde_json::from_str(&text).expect("tables.json");
    json["tables"]
        .as_array()
        .expect("tables.json: a 'tables' list")
        .iter()
        .filter_map(|entry| {
            let table = entry["table"].as_str().expect("a table name").to_string();
            let expect = match &entry[reader] {
                serde_json::Value::Null => return None,
                serde_json::Value::String(kind) => match kind.as_str() {
                    "exact" => Expect::Exact,
                    "twin" => Expect::Twin,
                    "blob" => Expect::Blob,
                    "malformed" => Expect::Malformed,
                    "system" => Expect::System,
                    other => panic!("tables.json: {table}: unknown expectation '{other}'"),
                },
                other => Expect::Refused(
                    other["refused"]
                        .as_array()
                        .unwrap_or_else(|| panic!("tables.json: {table}: {other}"))
                        .iter()
                        .map(|w| w.as_str().expect("a word").to_string())
                        .collect(),
                ),
            };
            Some((table, expect))
        })
        .collect()
}

/// The tables `reader` must treat as `kind` (a kind without words).
pub fn tables_expecting(reader: &str, kind: &Expect) -> Vec<String> {
    expectations(reader)
        .into_iter()
        .filter(|(_, e)| e == kind)
        .map(|(t, _)| t)
        .collect()
}
