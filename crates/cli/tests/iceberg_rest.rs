//! An Iceberg REST catalog from the command line, against lakana-server 0.20
//! (../shared/catalogs/iceberg-rest-server-lakana.sh: a real Iceberg REST catalog from PyPI,
//! bearer token, prefix `dev`, tables under `bronze`/`silver`/`gold`): pyiceberg 0.12 creates
//! and writes tables through the catalog (tests/oracles/rest_iceberg.py: appends and a delete);
//! `lakescope tables iceberg+rest://…` lists them, `scan` reads every snapshot exactly as
//! pyiceberg reads it through the same catalog, and `diff` compares two snapshots. `insert`
//! appends CSV and Parquet files through the catalog's `updateTable` (pyiceberg reads exactly
//! those rows back), concurrently with other writers without losing any. A wrong token is the
//! endpoint's 401, a dead service names its config endpoint, and a refused insert commits
//! nothing.

mod common;

use common::{lakescope, python_with};
use lakescope_test_support::catalogs::{pyiceberg_rest, start_catalog_server};
use lakescope_test_support::oracles::{normalize, sections};
use serde_json::json;
use std::path::Path;
use std::process::Command;

fn oracle(py: &Path, url: &str, token: &str, args: &[&str]) -> String {
    pyiceberg_rest(py, url, token, args)
}

/// The snapshots of a table as pyiceberg reads them: (id, canonical rows), oldest first.
fn snapshots(py: &Path, url: &str, token: &str, table: &str) -> Vec<(i64, Vec<String>)> {
    let printed = oracle(py, url, token, &["read", table]);
    let mut rows = sections::<i64>(&printed);
    printed
        .lines()
        .filter_map(|l| l.strip_prefix("== ")?.trim().parse::<i64>().ok())
        .map(|id| {
            let lines = rows.remove(&id).unwrap().unwrap();
            (id, lines)
        })
        .collect()
}

/// A catalog's URL for lakescope, and a runner of lakescope with its token.
fn catalog_of(url: &str) -> String {
    format!(
        "iceberg+rest://{}?prefix=dev",
        url.trim_start_matches("http://")
    )
}

/// Canonical lines of rows of the oracle's table schema (as `normalize` prints them).
fn canonical(rows: &[serde_json::Value]) -> Vec<String> {
    normalize(rows.iter().map(|r| r.to_string()))
}

/// The snapshot id `lakescope insert` printed for `rows` rows.
fn inserted(out: &str, rows: usize, table: &str) -> i64 {
    let prefix = format!("inserted {rows} rows into {table}: snapshot ");
    out.trim()
        .strip_prefix(&prefix)
        .and_then(|id| id.parse().ok())
        .unwrap_or_else(|| panic!("expected `{prefix}<id>`, got {out:?}"))
}

#[test]
fn insert_appends_csv_and_parquet_through_the_catalog_as_pyiceberg_reads_them() {
    let Some(py) = python_with("pyiceberg", "iceberg_rest") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, ready) = start_catalog_server("iceberg-rest-server-lakana.sh", dir.path());
    let token = ready["token"].as_str().unwrap().to_string();
    oracle(&py, &url, &token, &["write", "gold"]);
    let cat = catalog_of(&url);
    let with_token = |args: &[&str]| {
        let mut all = vec!["--catalog-token", token.as_str()];
        all.extend_from_slice(args);
        lakescope(&all)
    };
    let csv = dir.path().join("rows.csv");
    std::fs::write(
        &csv,
        "id,name,amount,score,ok,at,dt\n\
         100,c100,1.50,2.5,true,2024-05-02 09:00:00,2024-05-01\n\
         101,c101,2.25,0.125,false,2024-05-03T10:15:30.5,2024-05-02\n\
         102,c102,-3.00,-1.0,true,2024-05-01 00:00:00,2024-05-01\n",
    )
    .unwrap();
    let from_csv = [
        json!({"id": 100, "name": "c100", "amount": "1.50", "score": 2.5, "ok": true,
               "at": "2024-05-02T09:00:00.000000", "dt": "2024-05-01"}),
        json!({"id": 101, "name": "c101", "amount": "2.25", "score": 0.125, "ok": false,
               "at": "2024-05-03T10:15:30.500000", "dt": "2024-05-02"}),
        json!({"id": 102, "name": "c102", "amount": "-3.00", "score": -1.0, "ok": true,
               "at": "2024-05-01T00:00:00.000000", "dt": "2024-05-01"}),
    ];
    let parquet = dir.path().join("rows.parquet");
    oracle(&py, &url, &token, &["parquet", parquet.to_str().unwrap()]);
    let from_parquet = [
        json!({"id": 103, "name": "p103", "amount": "7.00", "score": 1.0, "ok": true,
               "at": "2024-05-04T01:02:03.000004", "dt": "2024-05-02"}),
        json!({"id": 104, "name": null, "amount": null, "score": null, "ok": null,
               "at": null, "dt": "2024-05-01"}),
    ];

    for table in ["gold.events", "gold.plain"] {
        let before = snapshots(&py, &url, &token, table);
        let base = before.last().unwrap().1.clone();
        let (ok, out, err) = with_token(&["insert", &cat, table, csv.to_str().unwrap()]);
        assert!(ok, "{table}: {err}");
        let first = inserted(&out, 3, table);
        let (ok, out, err) = with_token(&["insert", &cat, table, parquet.to_str().unwrap()]);
        assert!(ok, "{table}: {err}");
        let second = inserted(&out, 2, table);

        let after = snapshots(&py, &url, &token, table);
        assert_eq!(
            after.len(),
            before.len() + 2,
            "{table}: one snapshot per insert"
        );
        assert_eq!(after[..before.len()], before[..], "{table}: history kept");
        let mut want: Vec<serde_json::Value> = base
            .iter()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        want.extend(from_csv.iter().cloned());
        assert_eq!(
            (after[before.len()].0, &after[before.len()].1),
            (first, &canonical(&want)),
            "{table}"
        );
        want.extend(from_parquet.iter().cloned());
        assert_eq!(
            (after[before.len() + 1].0, &after[before.len() + 1].1),
            (second, &canonical(&want)),
            "{table}"
        );

        // lakescope reads the same rows, at the current snapshot and at the first insert's
        for (at, rows) in [
            (None, &after[before.len() + 1].1),
            (Some(first), &after[before.len()].1),
        ] {
            let id = at.map(|i: i64| i.to_string());
            let mut args = vec!["scan", &cat, table, "--format", "jsonl"];
            if let Some(id) = &id {
                args.extend(["--snapshot", id.as_str()]);
            }
            let (ok, out, err) = with_token(&args);
            assert!(ok, "{table}: {err}");
            assert_eq!(
                &normalize(out.lines().map(String::from)),
                rows,
                "{table}@{at:?}"
            );
        }
    }
}

#[test]
fn concurrent_inserts_and_a_pyiceberg_append_lose_nothing() {
    let Some(py) = python_with("pyiceberg", "iceberg_rest") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, ready) = start_catalog_server("iceberg-rest-server-lakana.sh", dir.path());
    let token = ready["token"].as_str().unwrap().to_string();
    oracle(&py, &url, &token, &["write", "bronze"]);
    let cat = catalog_of(&url);
    let table = "bronze.events";
    let before = snapshots(&py, &url, &token, table);
    let ids = |rows: &[String]| -> Vec<i64> {
        let mut out: Vec<i64> = rows
            .iter()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        out.sort();
        out
    };
    let mut expected = ids(&before.last().unwrap().1);
    let mut files = Vec::new();
    for first in [200, 300] {
        let mut text = String::from("dt,id,name,amount,score,ok,at\n");
        for id in first..first + 50 {
            text.push_str(&format!(
                "2024-05-0{},{id},w{id},{id}.25,{},{},2024-05-01 08:00:00\n",
                1 + id % 2,
                id as f64 / 8.0,
                id % 2 == 0
            ));
            expected.push(id);
        }
        let path = dir.path().join(format!("w{first}.csv"));
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    expected.extend(400..450);
    expected.sort();

    // started together: each commit that loses its race is planned again on the winner's
    let inserts: Vec<_> = files
        .iter()
        .map(|f| {
            Command::new(env!("CARGO_BIN_EXE_lakescope"))
                .args([
                    "--catalog-token",
                    &token,
                    "insert",
                    &cat,
                    table,
                    f.to_str().unwrap(),
                ])
                .env_remove("LAKESCOPE_CATALOG_TOKEN")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let appended = oracle(&py, &url, &token, &["append", table, "400", "50"]);
    assert!(appended.starts_with("appended after"), "{appended}");
    for child in inserts {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        inserted(stdout.lines().next().unwrap_or_default(), 50, table);
    }

    let after = snapshots(&py, &url, &token, table);
    assert_eq!(
        after.len(),
        before.len() + 3,
        "three commits, three snapshots"
    );
    let current = &after.last().unwrap().1;
    assert_eq!(ids(current), expected, "no row lost or doubled");
    let (ok, out, err) = lakescope(&[
        "--catalog-token",
        &token,
        "scan",
        &cat,
        table,
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    assert_eq!(&normalize(out.lines().map(String::from)), current);
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

    // a refused insert (wrong token, unknown table) names the cause and commits nothing
    let before = snapshots(&py, &url, &token, "silver.events");
    let rows = dir.path().join("rows.csv");
    std::fs::write(
        &rows,
        "id,name,amount,score,ok,at,dt\n1,x,1.00,1.0,true,2024-05-01 00:00:00,2024-05-01\n",
    )
    .unwrap();
    let (ok, _, err) = lakescope(&[
        "--catalog-token",
        "lakana_pat_x_wrong",
        "insert",
        &cat,
        "silver.events",
        rows.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains(&format!("{url}/v1/dev/namespaces/silver/tables/events"))
            && err.contains("401"),
        "{err}"
    );
    let (ok, _, err) = lakescope(&[
        "--catalog-token",
        &token,
        "insert",
        &cat,
        "silver.nope",
        rows.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("silver.nope"), "{err}");
    assert_eq!(
        snapshots(&py, &url, &token, "silver.events"),
        before,
        "nothing was committed"
    );
}
