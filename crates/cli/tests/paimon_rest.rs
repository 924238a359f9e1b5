//! A Paimon REST catalog from the command line, against Apache Paimon's own mock REST catalog
//! server (../shared/catalogs/paimon-rest-server.sh, bearer token): pypaimon 2.1 creates and
//! writes tables through the catalog (tests/oracles/rest_paimon.py); `lakescope tables` lists
//! them and `lakescope scan paimon+rest://…` reads every snapshot exactly as pypaimon reads it
//! through the same catalog, and a tag pypaimon creates through it by name. A wrong token, an unknown table and a dead service are clear errors
//! naming the endpoint. `lakescope insert paimon+rest://…` commits through the catalog's commit
//! endpoint (the server writes the snapshot and `LATEST`) and pypaimon reads the rows back
//! (Flink SQL over the same catalog: `sql_rest.rs`).

mod common;

use common::lakescope;
use lakescope_test_support::catalogs::{
    paimon_rest_warehouse, pypaimon_rest, start_catalog_server, PAIMON_REST_TOKEN,
};
use lakescope_test_support::oracles::{normalize, oracles, sections};
use lakescope_test_support::Server;
use std::path::{Path, PathBuf};
use std::process::Command;

const TOKEN: &str = PAIMON_REST_TOKEN;

/// The mock server on a free port over `dir`; its base URL.
fn start_server(dir: &Path) -> (Server, String) {
    let (server, url, _) = start_catalog_server("paimon-rest-server.sh", dir);
    (server, url)
}

/// pypaimon through the catalog (tests/oracles/rest_paimon.py).
fn pypaimon(python: &Path, url: &str, args: &[&str]) -> String {
    pypaimon_rest(python, url, args)
}

fn address(url: &str) -> String {
    format!("paimon+rest://{}/wh", url.trim_start_matches("http://"))
}

fn warehouse() -> (tempfile::TempDir, PathBuf) {
    paimon_rest_warehouse()
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

    // a tag pypaimon creates through the catalog (kept by the service, not as a tag/ file) is
    // read by name exactly as pypaimon reads the tagged snapshot
    pypaimon(&o.python, &url, &["create_tag", "d.pk", "t2", "2"]);
    let tagged = pypaimon(&o.python, &url, &["tag", "d.pk", "t2"]);
    let want = sections::<i64>(&pypaimon(&o.python, &url, &["read", "d.pk", tagged.trim()]));
    let tag_args = [
        "--catalog-token",
        TOKEN,
        "scan",
        &cat,
        "d.pk",
        "--format",
        "jsonl",
        "--tag",
    ];
    let (ok, out, err) = lakescope(&[&tag_args[..], &["t2"]].concat());
    assert!(ok, "{err}");
    assert_eq!(
        normalize(out.lines().map(String::from)),
        want[&2].clone().unwrap()
    );
    let (ok, _, err) = lakescope(&[&tag_args[..], &["nope"]].concat());
    assert!(
        !ok && err.contains("tag 'nope'") && err.contains("d.pk"),
        "{err}"
    );
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

    drop(server);
    let (ok, _, err) = lakescope(&["--catalog-token", TOKEN, "tables", &cat]);
    assert!(!ok);
    assert!(
        err.contains(&format!("GET {url}/v1/config")) && err.contains("connection"),
        "{err}"
    );
}

/// `lakescope insert` through the catalog: the service creates the snapshot and `LATEST`.
fn insert(cat: &str, table: &str, file: &Path) -> (bool, String, String) {
    lakescope(&[
        "--catalog-token",
        TOKEN,
        "insert",
        cat,
        table,
        file.to_str().unwrap(),
    ])
}

/// The snapshot id in `inserted N rows into T: snapshot S[ (planned again …)]`.
fn inserted_snapshot(out: &str) -> i64 {
    out.trim()
        .split_once(": snapshot ")
        .and_then(|(_, rest)| rest.split(' ').next()?.parse().ok())
        .unwrap_or_else(|| panic!("no snapshot id in {out:?}"))
}

#[test]
fn inserts_commit_through_the_catalog_and_pypaimon_reads_them_back() {
    let Some(o) = oracles() else { return };
    let (dir, wh) = warehouse();
    let (_server, url) = start_server(&wh);
    pypaimon(&o.python, &url, &["write"]);
    let cat = address(&url);
    let latest = |table: &str| std::fs::read_to_string(wh.join(table).join("snapshot/LATEST"));

    // two appends in a row to the append table (CSV)
    let before = sections::<i64>(&pypaimon(&o.python, &url, &["read", "d.ap", "2"]));
    let mut want = before[&2].clone().unwrap();
    for (i, (csv, rows)) in [
        (
            "n,s\n5,v\n6,\n",
            vec![r#"{"n":5,"s":"v"}"#, r#"{"n":6,"s":null}"#],
        ),
        ("n,s\n7,ü\n", vec![r#"{"n":7,"s":"ü"}"#]),
    ]
    .into_iter()
    .enumerate()
    {
        let file = dir.path().join(format!("ap{i}.csv"));
        std::fs::write(&file, csv).unwrap();
        let (ok, out, err) = insert(&cat, "d.ap", &file);
        assert!(ok, "{err}");
        let id = inserted_snapshot(&out);
        assert_eq!(id, 3 + i as i64, "{out}");
        assert_eq!(
            latest("d/ap").unwrap().trim(),
            id.to_string(),
            "the server's LATEST"
        );
        want = normalize(want.into_iter().chain(rows.into_iter().map(String::from)));
        let read = sections::<i64>(&pypaimon(
            &o.python,
            &url,
            &["read", "d.ap", &id.to_string()],
        ));
        assert_eq!(
            read[&id].as_ref().unwrap(),
            &want,
            "pypaimon reads d.ap@{id}"
        );
    }

    // an upsert into the partitioned primary-key table (Parquet): key 0 replaced, 21 added
    let file = dir.path().join("pk.parquet");
    let file_arg = file.to_str().unwrap().to_string();
    let new_rows = normalize(
        pypaimon(&o.python, &url, &["parquet", &file_arg, "l", "0", "21"])
            .lines()
            .map(String::from),
    );
    assert_eq!(new_rows.len(), 2);
    let (ok, out, err) = insert(&cat, "d.pk", &file);
    assert!(ok, "{err}");
    let id = inserted_snapshot(&out);
    assert_eq!(latest("d/pk").unwrap().trim(), id.to_string());
    let read = sections::<i64>(&pypaimon(
        &o.python,
        &url,
        &["read", "d.pk", "3", &id.to_string()],
    ));
    let id_of = |l: &String| serde_json::from_str::<serde_json::Value>(l).unwrap()["id"].clone();
    let want = normalize(
        read[&3]
            .as_ref()
            .unwrap()
            .iter()
            .filter(|l| id_of(l) != 0 && id_of(l) != 21)
            .cloned()
            .chain(new_rows),
    );
    assert_eq!(
        read[&id].as_ref().unwrap(),
        &want,
        "pypaimon reads d.pk@{id}"
    );
    let (ok, out, err) = lakescope(&[
        "--catalog-token",
        TOKEN,
        "scan",
        &cat,
        "d.pk",
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        normalize(out.lines().map(String::from)),
        want,
        "lakescope reads it too"
    );

    // three writers at once: lost races are planned again, no row is lost
    let files: Vec<PathBuf> = (0..3)
        .map(|i| {
            let f = dir.path().join(format!("race{i}.csv"));
            std::fs::write(&f, format!("n,s\n{},r\n", 100 + i)).unwrap();
            f
        })
        .collect();
    let children: Vec<_> = files
        .iter()
        .map(|f| {
            Command::new(env!("CARGO_BIN_EXE_lakescope"))
                .args(["--catalog-token", TOKEN, "insert", &cat, "d.ap"])
                .arg(f)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut ids = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        ids.push(inserted_snapshot(&String::from_utf8_lossy(&out.stdout)));
    }
    ids.sort();
    assert_eq!(ids, vec![5, 6, 7]);
    let read = sections::<i64>(&pypaimon(&o.python, &url, &["read", "d.ap", "7"]));
    let got = read[&7].as_ref().unwrap();
    for n in 100..103 {
        assert!(
            got.contains(&format!(r#"{{"n":{n},"s":"r"}}"#)),
            "{n} in {got:?}"
        );
    }
    assert_eq!(
        got.len(),
        4 + 3 + 3,
        "pypaimon's rows and lakescope's are all kept"
    );

    // errors name the endpoint and the table; nothing is committed
    let (ok, _, err) = insert(&cat, "d.nope", &files[0]);
    assert!(!ok);
    assert!(
        err.contains("d.nope") && err.contains("/v1/paimon/databases/d/tables/nope"),
        "{err}"
    );
    let (ok, _, err) = lakescope(&[
        "--catalog-token",
        "wrong",
        "insert",
        &cat,
        "d.ap",
        files[0].to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("401"), "{err}");
    assert_eq!(latest("d/ap").unwrap().trim(), "7");
}
