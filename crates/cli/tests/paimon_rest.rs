//! A Paimon REST catalog from the command line, against Apache Paimon's own mock REST catalog
//! server (../shared/catalogs/paimon-rest-server.sh, bearer token): pypaimon 2.1 creates and
//! writes tables through the catalog (tests/oracles/rest_paimon.py); `lakescope tables` lists
//! them and `lakescope scan paimon+rest://…` reads every snapshot exactly as pypaimon reads it
//! through the same catalog. A wrong token, an unknown table and a dead service are clear errors
//! naming the endpoint; writes through the catalog are refused with nothing written.

mod common;

use common::{lakescope, repo_root, start_catalog_server, Server};
use lakescope_test_support::oracles::{normalize, oracles, run, sections};
use std::path::{Path, PathBuf};
use std::process::Command;

const TOKEN: &str = "lakescope-test-token";

/// The mock server on a free port over `dir`; its base URL.
fn start_server(dir: &Path) -> (Server, String) {
    let (server, url, _) = start_catalog_server("paimon-rest-server.sh", dir);
    (server, url)
}

/// pypaimon through the catalog (tests/oracles/rest_paimon.py).
fn pypaimon(python: &Path, url: &str, args: &[&str]) -> String {
    let mut cmd = Command::new(python);
    cmd.arg(repo_root().join("tests/oracles/rest_paimon.py"))
        .args([url, "wh", TOKEN])
        .args(args);
    run(&mut cmd, "pypaimon 2.1 through the REST catalog")
}

fn address(url: &str) -> String {
    format!("paimon+rest://{}/wh", url.trim_start_matches("http://"))
}

/// A fresh warehouse folder named `wh` (the server's warehouse is the folder's name).
fn warehouse() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let wh = dir.path().join("wh");
    std::fs::create_dir(&wh).unwrap();
    (dir, wh)
}

#[test]
fn lists_and_reads_every_snapshot_as_pypaimon() {
    let Some(o) = oracles() else { return };
    let (_dir, wh) = warehouse();
    let (_server, url) = start_server(&wh);
    pypaimon(&o.python, &url, &["write"]);
    let cat = address(&url);

    let (ok, out, err) = lakescope(&["--catalog-token", TOKEN, "tables", &cat]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().collect::<Vec<_>>(), vec!["d.ap", "d.pk"]);

    for (table, ids) in [("d.pk", &[1, 2, 3][..]), ("d.ap", &[1, 2][..])] {
        let id_args: Vec<String> = ids.iter().map(i64::to_string).collect();
        let mut args = vec!["read", table];
        args.extend(id_args.iter().map(String::as_str));
        let expected = sections::<i64>(&pypaimon(&o.python, &url, &args));
        assert_eq!(expected.len(), ids.len(), "{table}: pypaimon's reads");
        for (id, want) in expected {
            let want = want.unwrap_or_else(|e| panic!("pypaimon cannot read {table}@{id}: {e}"));
            assert!(!want.is_empty(), "{table}@{id}: pypaimon read no rows");
            let (ok, out, err) = lakescope(&[
                "--catalog-token",
                TOKEN,
                "scan",
                &cat,
                table,
                "--snapshot",
                &id.to_string(),
                "--format",
                "jsonl",
            ]);
            assert!(ok, "{table}@{id}: {err}");
            let got = normalize(out.lines().map(String::from));
            assert_eq!(got, want, "{table} at snapshot {id}");
        }
    }

    // a filter and a projection at the latest snapshot: pypaimon's rows, filtered here
    let latest = sections::<i64>(&pypaimon(&o.python, &url, &["read", "d.pk", "3"]));
    let want: Vec<String> = latest[&3]
        .as_ref()
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["dt"] == "2024-01" && r["id"].as_i64().unwrap() >= 10)
        .map(|r| serde_json::json!({"id": r["id"], "name": r["name"]}).to_string())
        .collect();
    assert!(want.len() >= 2, "the filter keeps some rows: {want:?}");
    let (ok, out, err) = lakescope(&[
        "--catalog-token",
        TOKEN,
        "scan",
        &cat,
        "d.pk",
        "--filter",
        "dt = '2024-01' AND id >= 10",
        "--columns",
        "id,name",
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    assert_eq!(normalize(out.lines().map(String::from)), normalize(want));
    let (ok, out, err) = lakescope(&[
        "--catalog-token",
        TOKEN,
        "snapshots",
        &cat,
        "d.pk",
        "--format",
        "csv",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.lines().count(), 4, "a header and 3 snapshots:\n{out}");
}

#[test]
fn bad_token_unknown_table_and_dead_service_are_clear_errors() {
    let Some(o) = oracles() else { return };
    let (_dir, wh) = warehouse();
    let (server, url) = start_server(&wh);
    pypaimon(&o.python, &url, &["write"]);
    let cat = address(&url);

    let (ok, _, err) = lakescope(&["--catalog-token", "wrong", "tables", &cat]);
    assert!(!ok);
    assert!(
        err.contains(&format!("GET {url}/v1/config?warehouse=wh")) && err.contains("401"),
        "{err}"
    );
    let (ok, _, err) = lakescope(&["tables", &cat]);
    assert!(!ok && err.contains("401"), "no token: {err}");

    let (ok, _, err) = lakescope(&["--catalog-token", TOKEN, "scan", &cat, "d.nope"]);
    assert!(!ok);
    assert!(
        err.contains("d.nope") && err.contains("/v1/paimon/databases/d/tables/nope"),
        "{err}"
    );

    // a write through the catalog is refused, and nothing lands in the table
    let snapshots_before = std::fs::read_dir(wh.join("d/pk/snapshot")).unwrap().count();
    let sql = format!(
        "CREATE CATALOG r WITH ('type' = 'paimon', 'metastore' = 'rest', 'uri' = '{url}', 'warehouse' = 'wh', 'token.provider' = 'bear', 'token' = '{TOKEN}'); USE CATALOG r; INSERT INTO d.pk VALUES (99, 'z', 1.00, 1.0, DATE '2024-01-01', TIMESTAMP '2024-01-01 00:00:00', TRUE, X'00', '2024-01')"
    );
    let (ok, _, err) = lakescope(&["sql", "-e", &sql]);
    assert!(
        !ok,
        "a write through a REST catalog must not succeed silently"
    );
    assert!(
        err.contains("statement 1") && err.contains("Paimon REST catalog is not supported yet"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_dir(wh.join("d/pk/snapshot")).unwrap().count(),
        snapshots_before,
        "nothing was committed"
    );

    drop(server);
    let (ok, _, err) = lakescope(&["--catalog-token", TOKEN, "tables", &cat]);
    assert!(!ok);
    assert!(
        err.contains(&format!("GET {url}/v1/config")) && err.contains("connection"),
        "{err}"
    );
}
