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
