//! The SQL console's session opened on a REST catalog service as the app's SQL worker opens it
//! (`ConsoleRequest::OpenCatalog` → `Session::open_service`), against real servers: Apache
//! Paimon's mock REST catalog with pypaimon 2.1 and lakana-server 0.20 (Iceberg REST) with
//! pyiceberg 0.12 (../shared/catalogs). The service becomes the current catalog, so unqualified
//! `db.t` names its tables; INSERT, UPDATE and `CALL sys.create_tag` commit through it and the
//! writers read the rows and the tag back exactly; a wrong token is a 401 that names the
//! catalog, never the token (Paimon: when opening, which then leaves the session as it was).

mod common;

use common::{rows, session};
use lakescope_engine::session::{ConsoleRequest, Outcome, Session, StoreOpener};
use lakescope_storage::transport::{HttpTransport, ReqwestTransport};
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::catalogs::{
    paimon_rest_warehouse, pyiceberg_rest, pypaimon_rest, start_catalog_server, PAIMON_REST_TOKEN,
};
use lakescope_test_support::oracles::{normalize, oracles, sections};
use serde_json::{json, Value};
use std::rc::Rc;

/// Opens local folders (the servers' `file://` table locations) and reaches catalogs over HTTP.
struct NativeOpener;

impl StoreOpener for NativeOpener {
    fn open(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn ObjectStore>> {
        Ok(Rc::new(LocalStore::from_uri(uri)))
    }

    fn catalog_transport(&self, uri: &str) -> lakescope_storage::Result<Rc<dyn HttpTransport>> {
        let transport = ReqwestTransport::new(std::time::Duration::from_secs(30)).map_err(|e| {
            lakescope_storage::Error::Unsupported {
                store: uri.to_string(),
                operation: format!("an HTTP client: {e}"),
            }
        })?;
        Ok(Rc::new(transport))
    }
}

/// The page's message for the catalog at `address` with `token`, as JSON text and back.
fn open_request(address: &str, token: &str) -> ConsoleRequest {
    let text = json!({
        "op": "open_catalog",
        "id": 1,
        "address": serde_json::to_value(
            lakescope_engine::CatalogAddress::parse(address).unwrap()
        ).unwrap(),
        "secrets": {"token": token, "credential": null},
    })
    .to_string();
    serde_json::from_str(&text).unwrap()
}

/// Opens the request's catalog as `lakescope` in `session`, as the worker does.
async fn open(session: &mut Session, request: ConsoleRequest) -> Result<(), String> {
    let ConsoleRequest::OpenCatalog {
        address, secrets, ..
    } = request
    else {
        panic!("not an open_catalog request: {request:?}");
    };
    session
        .open_service("lakescope", &address, secrets)
        .await
        .map_err(|e| e.message)
}

/// Runs `script`; every statement must succeed. The messages of the statements that were done.
async fn run(session: &mut Session, script: &str) -> Vec<String> {
    let mut done = Vec::new();
    let failed = session
        .run_script(script, false, &mut |parsed, r| match r {
            Ok(Outcome::Done(m)) => done.push(m.clone()),
            Ok(Outcome::Rows(_)) => {}
            Err(e) => panic!("{:?}: {e}", parsed.statement),
        })
        .await;
    assert_eq!(failed, 0);
    done
}

fn canonical(values: &[Value]) -> Vec<String> {
    normalize(values.iter().map(Value::to_string))
}

fn parse(lines: &[String]) -> Vec<Value> {
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn the_console_commits_through_a_paimon_rest_catalog_as_pypaimon_reads_it() {
    let Some(o) = oracles() else { return };
    let (_dir, wh) = paimon_rest_warehouse();
    let (_server, url, _) = start_catalog_server("paimon-rest-server.sh", &wh);
    pypaimon_rest(&o.python, &url, &["write"]);
    let read = |table: &str, id: i64| {
        sections::<i64>(&pypaimon_rest(
            &o.python,
            &url,
            &["read", table, &id.to_string()],
        ))
        .remove(&id)
        .unwrap()
        .unwrap_or_else(|e| panic!("pypaimon cannot read {table} at {id}: {e}"))
    };
    let address = format!("paimon+rest://{}/wh", url.trim_start_matches("http://"));
    let mut session = session(Rc::new(NativeOpener));

    // a wrong token: the catalog's 401, named, without the token; nothing is opened
    let e = open(&mut session, open_request(&address, "not-the-token"))
        .await
        .unwrap_err();
    assert!(
        e.starts_with("catalog lakescope: ") && e.contains("401") && e.contains(&url),
        "{e}"
    );
    assert!(!e.contains("not-the-token"), "{e}");
    assert_eq!(session.current_catalog(), "default_catalog");

    open(&mut session, open_request(&address, PAIMON_REST_TOKEN))
        .await
        .unwrap();
    assert_eq!(
        (session.current_catalog(), session.current_database()),
        ("lakescope", "default")
    );
    let ap_before = read("d.ap", 2);
    let pk_before = read("d.pk", 3);
    assert_eq!(rows(&mut session, "SELECT * FROM d.ap").await, ap_before);

    let done = run(
        &mut session,
        "INSERT INTO d.ap VALUES (10, 'console');
         UPDATE d.pk SET name = 'upd' WHERE id = 1 AND dt = '2024-02';
         CALL sys.create_tag('d.pk', 'console_tag');",
    )
    .await;
    assert!(
        done.iter()
            .any(|m| m.contains("through REST catalog lakescope")),
        "{done:?}"
    );
    let mut want = ap_before;
    want.push(r#"{"n":10,"s":"console"}"#.into());
    assert_eq!(read("d.ap", 3), normalize(want));
    let mut want = parse(&pk_before);
    let mut updated = 0;
    for r in &mut want {
        if r["id"] == 1 && r["dt"] == "2024-02" {
            r["name"] = json!("upd");
            updated += 1;
        }
    }
    assert_eq!(updated, 1, "the update matches one row");
    assert_eq!(read("d.pk", 4), canonical(&want));
    assert_eq!(
        pypaimon_rest(&o.python, &url, &["tag", "d.pk", "console_tag"]).trim(),
        "4",
        "the catalog keeps the tag at the update's snapshot"
    );
    assert_eq!(
        rows(&mut session, "SELECT * FROM d.pk").await,
        canonical(&want)
    );
}

#[tokio::test]
async fn the_console_commits_through_an_iceberg_rest_catalog_as_pyiceberg_reads_it() {
    let Some(o) = oracles() else { return };
    let dir = tempfile::tempdir().unwrap();
    let (_server, url, ready) = start_catalog_server("iceberg-rest-server-lakana.sh", dir.path());
    let token = ready["token"].as_str().unwrap().to_string();
    pyiceberg_rest(&o.python, &url, &token, &["write", "bronze"]);
    // pyiceberg's rows of the table's latest snapshot
    let latest = |table: &str| {
        let printed = pyiceberg_rest(&o.python, &url, &token, &["read", table]);
        let mut last = Vec::new();
        for line in printed.lines() {
            if line.starts_with("== ") {
                last.clear();
            } else if !line.trim().is_empty() {
                last.push(line.to_string());
            }
        }
        normalize(last)
    };
    let address = format!(
        "iceberg+rest://{}?prefix=dev",
        url.trim_start_matches("http://")
    );
    let mut session = session(Rc::new(NativeOpener));
    // lakana answers its config endpoint without a token: the wrong token is the 401 of the
    // first statement that asks the catalog
    open(&mut session, open_request(&address, "lakana_pat_x_wrong"))
        .await
        .unwrap();
    let mut refused = None;
    session
        .run_script("SHOW DATABASES", false, &mut |_, r| {
            refused = r.as_ref().err().map(|e| e.message.clone())
        })
        .await;
    let e = refused.expect("SHOW DATABASES with a wrong token fails");
    assert!(
        e.contains("401") && e.contains(&url) && !e.contains("lakana_pat_x_wrong"),
        "{e}"
    );

    open(&mut session, open_request(&address, &token))
        .await
        .unwrap();
    let before = latest("bronze.plain");
    assert_eq!(
        rows(&mut session, "SELECT * FROM bronze.plain").await,
        before
    );
    run(
        &mut session,
        "INSERT INTO bronze.plain VALUES (40, 'console', 4.25, 1.5, TRUE, TIMESTAMP '2024-05-03 10:00:00', '2024-05-02');",
    )
    .await;
    let got = latest("bronze.plain");
    let added: Vec<Value> = parse(&got)
        .into_iter()
        .filter(|r| !parse(&before).contains(r))
        .collect();
    assert_eq!(got.len(), before.len() + 1, "{got:#?}");
    assert_eq!(added.len(), 1, "{got:#?}");
    for (column, value) in [
        ("id", json!(40)),
        ("name", json!("console")),
        ("score", json!(1.5)),
        ("ok", json!(true)),
        ("dt", json!("2024-05-02")),
    ] {
        assert_eq!(added[0][column], value, "{column} of {}", added[0]);
    }
    assert_eq!(rows(&mut session, "SELECT * FROM bronze.plain").await, got);
}
