//! An Iceberg REST catalog from the command line, against lakana-server 0.20
//! (../shared/catalogs/iceberg-rest-server-lakana.sh: a real Iceberg REST catalog from PyPI,
//! bearer token, prefix `dev`, tables under `bronze`/`silver`/`gold`): pyiceberg 0.12 creates
//! and writes tables through the catalog (tests/oracles/rest_iceberg.py: appends and a delete);
//! `lakescope tables iceberg+rest://…` lists them, `scan` reads every snapshot exactly as
//! pyiceberg reads it through the same catalog, and `diff` compares two snapshots. A wrong token
//! is the endpoint's 401, a dead service names its config endpoint.

mod common;

use common::{lakescope, python_with, repo_root, start_catalog_server};
use lakescope_test_support::oracles::{normalize, run, sections};
use std::path::Path;
use std::process::Command;

fn oracle(py: &Path, url: &str, token: &str, args: &[&str]) -> String {
    let mut cmd = Command::new(py);
    cmd.arg(repo_root().join("tests/oracles/rest_iceberg.py"))
        .args([url, token, "dev"])
        .args(args);
    run(&mut cmd, "pyiceberg 0.12 through the REST catalog")
}

#[test]
fn lists_reads_every_snapshot_and_diffs_as_pyiceberg() {
    let Some(py) = python_with("pyiceberg", "iceberg_rest") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, ready) = start_catalog_server("iceberg-rest-server-lakana.sh", dir.path());
    let token = ready["token"]
        .as_str()
        .expect("the READY line's token")
        .to_string();
    oracle(&py, &url, &token, &["write", "bronze"]);
    let cat = format!(
        "iceberg+rest://{}?prefix=dev",
        url.trim_start_matches("http://")
    );
    let with_token = |args: &[&str]| {
        let mut all = vec!["--catalog-token", token.as_str()];
        all.extend_from_slice(args);
        lakescope(&all)
    };

    let (ok, out, err) = with_token(&["tables", &cat]);
    assert!(ok, "{err}");
    let listed: Vec<&str> = out.lines().collect();
    assert!(
        listed.contains(&"bronze.events") && listed.contains(&"bronze.plain"),
        "{out}"
    );

    let mut ids = Vec::new();
    for table in ["bronze.events", "bronze.plain"] {
        let printed = oracle(&py, &url, &token, &["read", table]);
        let expected = sections::<i64>(&printed);
        assert!(
            !expected.is_empty(),
            "{table}: pyiceberg lists no snapshots"
        );
        for (id, want) in &expected {
            let want = want.as_ref().unwrap();
            let (ok, out, err) = with_token(&[
                "scan",
                &cat,
                table,
                "--snapshot",
                &id.to_string(),
                "--format",
                "jsonl",
            ]);
            assert!(ok, "{table}@{id}: {err}");
            assert_eq!(
                &normalize(out.lines().map(String::from)),
                want,
                "{table}@{id}"
            );
        }
        if table == "bronze.events" {
            // oldest first, as the oracle prints them (ids are random)
            ids = printed
                .lines()
                .filter_map(|l| l.strip_prefix("== ")?.trim().parse::<i64>().ok())
                .collect();
        }
    }
    assert_eq!(ids.len(), 3, "two appends and a delete: {ids:?}");

    // the delete between snapshot 2 and main: exactly the rows pyiceberg no longer reads
    let (ok, out, err) = with_token(&[
        "diff",
        &cat,
        "bronze.events",
        "--from",
        &ids[1].to_string(),
        "--to",
        "main",
        "--format",
        "csv",
    ]);
    assert!(ok, "{err}");
    let expected = sections::<i64>(&oracle(&py, &url, &token, &["read", "bronze.events"]));
    let (before, after) = (
        expected[&ids[1]].as_ref().unwrap(),
        expected[&ids[2]].as_ref().unwrap(),
    );
    let deleted = before.iter().filter(|r| !after.contains(r)).count();
    let lines: Vec<&str> = out.lines().skip(1).collect();
    assert!(deleted > 0);
    assert_eq!(lines.len(), deleted, "{out}");
    assert!(lines.iter().all(|l| l.starts_with("delete,")), "{out}");
}

#[test]
fn a_wrong_token_a_dead_service_and_an_unknown_table_are_clear_errors() {
    let Some(py) = python_with("pyiceberg", "iceberg_rest") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, ready) = start_catalog_server("iceberg-rest-server-lakana.sh", dir.path());
    let token = ready["token"].as_str().unwrap().to_string();
    oracle(&py, &url, &token, &["write", "silver"]);
    let cat = format!(
        "iceberg+rest://{}?prefix=dev",
        url.trim_start_matches("http://")
    );
    let (ok, _, err) = lakescope(&["--catalog-token", "lakana_pat_x_wrong", "tables", &cat]);
    assert!(!ok);
    assert!(
        err.contains(&format!("{url}/v1/dev/namespaces")) && err.contains("401"),
        "{err}"
    );
    let (ok, _, err) = lakescope(&["tables", "iceberg+rest://127.0.0.1:1?prefix=dev"]);
    assert!(!ok && err.contains("http://127.0.0.1:1/v1/config"), "{err}");
    let (ok, _, err) = lakescope(&["--catalog-token", &token, "scan", &cat, "silver.nope"]);
    assert!(!ok && err.contains("silver.nope"), "{err}");

    // writes through an Iceberg REST catalog are refused by name, and nothing is committed
    let rows_now = || {
        lakescope(&[
            "--catalog-token",
            &token,
            "scan",
            &cat,
            "silver.events",
            "--format",
            "jsonl",
        ])
    };
    let before = rows_now();
    assert!(before.0, "{}", before.2);
    let rows = dir.path().join("rows.csv");
    std::fs::write(&rows, "id\n1\n").unwrap();
    let (ok, _, err) = lakescope(&[
        "--catalog-token",
        &token,
        "insert",
        &cat,
        "silver.events",
        rows.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("silver.events: an Iceberg table")
            && err.contains("nothing was inserted"),
        "{err}"
    );
    assert_eq!(rows_now().1, before.1, "nothing was committed");
}
