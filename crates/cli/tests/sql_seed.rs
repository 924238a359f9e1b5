//! `lakescope sql --keep-going -f` runs the seed script (../shared/seeds/seed-statements.sql)
//! against a local folder and against S3 (moto on 127.0.0.1): the same statements fail in both,
//! each `-- expect: error` statement fails with `error: statement N (line L, column C): ...`,
//! and every Paimon table reads the same rows from both warehouses.
//!
//! moto comes from `bash scripts/s3-test-server.sh`; without it this test fails, unless
//! LAKESCOPE_SKIP_S3=1 (developers only).

mod common;

use common::repo_root;
use lakescope_storage::s3::S3Credentials;
use lakescope_test_support::moto::Moto;
use std::collections::BTreeSet;
use std::process::{Command, Output};

const KEY_ID: &str = "AKIDLAKESCOPESQL";
const SECRET: &str = "lakescope-sql-secret";

fn lakescope(args: &[&str], endpoint: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lakescope"))
        .args(args)
        .args(["--s3-endpoint", endpoint, "--s3-path-style"])
        .env("AWS_ACCESS_KEY_ID", KEY_ID)
        .env("AWS_SECRET_ACCESS_KEY", SECRET)
        .env_remove("AWS_SESSION_TOKEN")
        .output()
        .expect("run lakescope")
}

/// Statement numbers of the `error: statement N (line L, column C): ...` lines.
fn failed_statements(stderr: &str) -> BTreeSet<usize> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("error: statement "))
        .filter_map(|rest| {
            let (n, rest) = rest.split_once(" (line ")?;
            rest.contains(", column ").then_some(())?;
            n.parse().ok()
        })
        .collect()
}

/// Numbers (from 1, in file order) of the statements expected to fail.
fn expected_errors(script: &str) -> BTreeSet<usize> {
    lakescope_engine::session::statements(script)
        .iter()
        .filter(|p| {
            let last = p.pos.line as usize + p.text.lines().count() - 1;
            script
                .lines()
                .nth(last - 1)
                .is_some_and(|l| l.contains("-- expect: error"))
        })
        .map(|p| p.number)
        .collect()
}

/// Every Paimon table's rows (`lakescope scan --format jsonl`, sorted) below a catalog warehouse.
fn contents(warehouse: &str, endpoint: &str) -> Vec<(String, String)> {
    let out = lakescope(&["tables", warehouse], endpoint);
    assert!(
        out.status.success(),
        "tables {warehouse}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut tables = Vec::new();
    for table in String::from_utf8_lossy(&out.stdout).lines() {
        let scan = lakescope(&["scan", warehouse, table, "--format", "jsonl"], endpoint);
        assert!(
            scan.status.success(),
            "scan {warehouse} {table}: {}",
            String::from_utf8_lossy(&scan.stderr)
        );
        let text = String::from_utf8_lossy(&scan.stdout).into_owned();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.sort_unstable();
        tables.push((table.to_string(), lines.join("\n")));
    }
    tables
}

#[test]
fn seed_script_over_s3_matches_the_local_run() {
    let script = std::fs::read_to_string(repo_root().join("../shared/seeds/seed-statements.sql"))
        .expect("seed script");
    let Some(moto) = Moto::start() else {
        return;
    };
    let endpoint = moto.endpoint().to_string();
    let creds = S3Credentials {
        access_key_id: KEY_ID.into(),
        secret_access_key: SECRET.into(),
        session_token: None,
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(common::create_bucket(&endpoint, "seed", &creds));
    let dir = tempfile::tempdir().expect("temp dir");
    let local = dir.path().join("wh").to_string_lossy().into_owned();
    let mut failed = Vec::new();
    for warehouse in [local.as_str(), "s3://seed/wh"] {
        let file = dir.path().join("script.sql");
        std::fs::write(&file, script.replace("${WAREHOUSE}", warehouse)).expect("write script");
        let out = lakescope(
            &[
                "sql",
                "--keep-going",
                "--format",
                "jsonl",
                "-f",
                &file.to_string_lossy(),
            ],
            &endpoint,
        );
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(
            out.status.code(),
            Some(1),
            "some statements are meant to fail:\n{stderr}"
        );
        let errors = failed_statements(&stderr);
        let missing: Vec<_> = expected_errors(&script)
            .difference(&errors)
            .copied()
            .collect();
        assert!(
            missing.is_empty(),
            "{warehouse}: statements {missing:?} should fail:\n{stderr}"
        );
        failed.push((errors, stderr));
    }
    assert_eq!(
        failed[0].0, failed[1].0,
        "local and S3 runs fail differently:\nlocal:\n{}\nS3:\n{}",
        failed[0].1, failed[1].1
    );
    for catalog in ["paimon", "lf"] {
        let local_rows = contents(&format!("{local}/{catalog}"), &endpoint);
        let s3_rows = contents(&format!("s3://seed/wh/{catalog}"), &endpoint);
        assert!(
            local_rows.len() >= 10,
            "{catalog}: only {} tables",
            local_rows.len()
        );
        assert_eq!(
            local_rows, s3_rows,
            "{catalog}: rows differ between the local folder and S3"
        );
    }
}
