//! Shared by the seed-script tests: the script, its `-- expect:` comments, and running it in a session.

#![allow(dead_code)] // each test binary uses its own subset

use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::session::{Outcome, QueryOutput, Session, StoreOpener};
use lakescope_paimon::write::FixedEnv;
use lakescope_query::DataFusionEngine;
use lakescope_storage::{LocalStore, ObjectStore};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

/// Opens local folders.
pub struct LocalOpener;

impl StoreOpener for LocalOpener {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        Ok(Rc::new(LocalStore::from_uri(uri)))
    }
}

/// The seed script, `${WAREHOUSE}` still in it.
pub fn seed_script() -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/seeds/seed-statements.sql");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `-- expect: X` of every statement line that has one, by line number (from 1).
pub fn expectations(script: &str) -> BTreeMap<u64, String> {
    script
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim_start().starts_with("--"))
        .filter_map(|(i, line)| {
            let (_, e) = line.split_once("-- expect:")?;
            Some((i as u64 + 1, e.trim().to_string()))
        })
        .collect()
}

/// A session with a deterministic clock and ids, opening warehouses with `opener`.
pub fn session(opener: Rc<dyn StoreOpener>) -> Session {
    Session::new(
        opener,
        Rc::new(DataFusionEngine),
        Rc::new(FixedEnv::new(1_700_000_000_000, 7)),
    )
}

/// Runs the script with --keep-going semantics; returns one line per statement whose outcome
/// breaks its expectation (statements starting with a `not_yet` prefix must fail instead), and
/// how many `not_yet` statements still failed.
pub async fn run_checked(
    session: &mut Session,
    script: &str,
    not_yet: &[(&str, &str)],
) -> (Vec<String>, usize) {
    let expect = expectations(script);
    let mut mismatches = Vec::new();
    let mut still_failing = 0;
    let mut seen = 0;
    session
        .run_script(script, true, &mut |parsed, result| {
            let last_line = parsed.pos.line + parsed.text.lines().count() as u64 - 1;
            let Some(expected) = expect.get(&last_line) else {
                mismatches.push(format!("statement {}: no expectation", parsed.number));
                return;
            };
            seen += 1;
            let not_yet = not_yet
                .iter()
                .find(|(start, _)| parsed.text.starts_with(start));
            let ok = result.is_ok();
            let matches = match expected.as_str() {
                "ok" => ok,
                "error" => !ok,
                _ => true,
            };
            let detail = match result {
                Ok(Outcome::Done(m)) => m.clone(),
                Ok(Outcome::Rows(r)) => format!("{} rows", r.num_rows()),
                Err(e) => format!("error at {}: {}", e.pos, e.message),
            };
            match (not_yet, matches) {
                (None, true) => {}
                (None, false) => mismatches.push(format!(
                    "statement {} (line {}), expected {expected}: {} => {detail}",
                    parsed.number, parsed.pos.line, parsed.text
                )),
                (Some(_), false) => still_failing += 1,
                (Some((_, why)), true) => mismatches.push(format!(
                    "statement {} now works ({detail}): remove it from NOT_YET ({why})",
                    parsed.number
                )),
            }
        })
        .await;
    if seen != expect.len() {
        mismatches.push(format!("{seen} statements ran, {} expected", expect.len()));
    }
    (mismatches, still_failing)
}

/// The rows of a query, as canonical JSON lines sorted by bytes.
pub async fn rows(session: &mut Session, sql: &str) -> Vec<String> {
    let mut out = None;
    let failed = session
        .run_script(sql, false, &mut |_, r| match r {
            Ok(Outcome::Rows(rows)) => out = Some(rows.clone()),
            Ok(Outcome::Done(m)) => panic!("{sql}: no rows but {m}"),
            Err(e) => panic!("{sql}: {e} at {}", e.pos),
        })
        .await;
    assert_eq!(failed, 0);
    let rows: QueryOutput = out.expect("rows");
    let mut lines = batches_to_lines(&rows.batches).unwrap();
    lines.sort();
    lines
}
