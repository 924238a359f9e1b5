//! The REST catalog client against a real REST server: tests/rest_server.py, backed by
//! pyiceberg 0.12's SqlCatalog (sqlite + a local warehouse), started per test on a free port and
//! killed when the test ends. pyiceberg writes → lakescope lists and reads through REST;
//! lakescope writes through REST → pyiceberg reads; a pyiceberg commit between lakescope's load
//! and commit → 409 and a retry that loses nothing; a missing table and a bad token are errors
//! that name the endpoint; pyiceberg and lakescope exchange an OAuth2 client credential for a
//! token the same way (against the scripted server of `lakescope_test_support::http_faults`).
//!
//! Needs the oracle venv of `scripts/iceberg-oracle.sh` (pyiceberg 0.12); without it these tests
//! fail, unless LAKESCOPE_SKIP_ORACLES=1 (then they are skipped with a message).

use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray};
use lakescope_format::spec::{DataType, TypeKind};
use lakescope_format::write_env::SystemEnv;
use lakescope_iceberg::rest::{RestCatalog, RestClient, RestOptions, WarehouseStores};
use lakescope_iceberg::write::{
    append, update_properties, update_schema, IcebergTableDefinition, SchemaChange,
};
use lakescope_iceberg::{read_table, Error, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::transport::ReqwestTransport;
use lakescope_storage::LocalStore;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

type Row = (i64, String);

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rest_server.py")
}

/// The oracle venv's python with pyiceberg; missing, a panic (or, with
/// LAKESCOPE_SKIP_ORACLES=1, a skip that says so).
fn python() -> Option<PathBuf> {
    let root = std::env::var_os("LAKE_TOOLS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/lake-oracles")))
        .unwrap_or_default();
    let py = root.join("venv/bin/python");
    let ok = Command::new(&py)
        .args(["-c", "import pyiceberg, pyarrow, sqlalchemy"])
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(py);
    }
    if std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() != Ok("1") {
        panic!(
            "pyiceberg oracle venv missing under {}: run `bash scripts/iceberg-oracle.sh` (or set LAKESCOPE_SKIP_ORACLES=1 to skip)",
            root.display()
        );
    }
    eprintln!("\n*** SKIPPED rest_catalog: no pyiceberg venv (LAKESCOPE_SKIP_ORACLES=1) ***\n");
    None
}

/// A running REST server over a fresh warehouse folder; killed and removed on drop.
struct Server {
    py: PathBuf,
    warehouse: PathBuf,
    child: Child,
    uri: String,
}

impl Server {
    fn start(py: &Path, token: Option<&str>) -> Server {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let warehouse =
            std::env::temp_dir().join(format!("lakescope-rest-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&warehouse).unwrap();
        let mut cmd = Command::new(py);
        cmd.arg(script()).arg("serve").arg(&warehouse);
        if let Some(t) = token {
            cmd.args(["--token", t]);
        }
        let mut child = cmd.stdout(Stdio::piped()).spawn().unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port: u16 = line
            .trim()
            .strip_prefix("PORT ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("server did not start: {line:?}"));
        Server {
            py: py.to_path_buf(),
            warehouse,
            child,
            uri: format!("http://127.0.0.1:{port}"),
        }
    }

    /// Runs a pyiceberg step of the server script on the same catalog.
    fn pyiceberg(&self, args: &[&str]) -> String {
        let out = Command::new(&self.py)
            .arg(script())
            .arg(args[0])
            .arg(&self.warehouse)
            .args(&args[1..])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pyiceberg {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// pyiceberg's rows and snapshot ids of a table.
    fn pyiceberg_read(&self, table: &str) -> (Vec<Row>, Vec<i64>) {
        let v: Value = serde_json::from_str(&self.pyiceberg(&["read", table])).unwrap();
        let rows = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0].as_i64().unwrap(), r[1].as_str().unwrap().to_string()))
            .collect();
        let snapshots = v["snapshots"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_i64().unwrap())
            .collect();
        (rows, snapshots)
    }

    async fn catalog(&self, token: Option<&str>) -> Result<Rc<RestCatalog>, Error> {
        let transport = Rc::new(ReqwestTransport::new(Duration::from_secs(30)).unwrap());
        let options = RestOptions {
            warehouse: Some(format!("file://{}", self.warehouse.display())),
            token: token.map(str::to_string),
            ..Default::default()
        };
        let client = RestClient::connect(&self.uri, &options, transport).await?;
        let store = Rc::new(LocalStore::new(&self.warehouse));
        let stores = WarehouseStores::new(store, &format!("file://{}", self.warehouse.display()));
        Ok(RestCatalog::new(client, Rc::new(stores)))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.warehouse);
    }
}

fn rows_json(rows: &[Row]) -> String {
    json!(rows.iter().map(|(i, n)| json!([i, n])).collect::<Vec<_>>()).to_string()
}

fn batch(rows: &[Row]) -> RecordBatch {
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.0)));
    let names: ArrayRef = Arc::new(StringArray::from_iter_values(rows.iter().map(|r| &r.1)));
    RecordBatch::try_from_iter(vec![("id", ids), ("name", names)]).unwrap()
}

fn rows(v: &[(i64, &str)]) -> Vec<Row> {
    v.iter().map(|(i, s)| (*i, s.to_string())).collect()
}

/// lakescope's rows of the current snapshot, sorted.
async fn lakescope_read(table: &Table) -> Vec<Row> {
    let out = read_table(table, &SnapshotSelector::Current, &ReadRequest::default())
        .await
        .unwrap();
    let mut got = Vec::new();
    for b in &out.batches {
        let ids = b
            .column_by_name("id")
            .unwrap()
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        let names = arrow_cast::cast(
            b.column_by_name("name").unwrap(),
            &arrow_schema::DataType::Utf8,
        )
        .unwrap();
        let names = names.as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            got.push((ids.value(i), names.value(i).to_string()));
        }
    }
    got.sort();
    got
}

#[tokio::test(flavor = "current_thread")]
async fn lakescope_lists_and_reads_what_pyiceberg_wrote() {
    let Some(py) = python() else { return };
    let server = Server::start(&py, None);
    server.pyiceberg(&["create", "db.events"]);
    server.pyiceberg(&["create", "other.empty"]);
    server.pyiceberg(&[
        "append",
        "db.events",
        &rows_json(&rows(&[(1, "a"), (2, "b")])),
    ]);
    server.pyiceberg(&["append", "db.events", &rows_json(&rows(&[(3, "c")]))]);
    let catalog = server.catalog(None).await.unwrap();
    assert_eq!(catalog.list_namespaces().await.unwrap(), ["db", "other"]);
    assert_eq!(catalog.list_tables("db").await.unwrap(), ["events"]);
    let table = catalog.load_table("db", "events").await.unwrap();
    let (expected, snapshots) = server.pyiceberg_read("db.events");
    assert_eq!(expected.len(), 3);
    assert_eq!(lakescope_read(&table).await, expected);
    assert_eq!(table.metadata().snapshots.len(), snapshots.len());
    // The empty table reads as no rows.
    let empty = catalog.load_table("other", "empty").await.unwrap();
    assert!(lakescope_read(&empty).await.is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn pyiceberg_reads_what_lakescope_commits_through_rest() {
    let Some(py) = python() else { return };
    let server = Server::start(&py, None);
    server.pyiceberg(&["create", "db.t"]);
    let first = rows(&[(1, "py")]);
    server.pyiceberg(&["append", "db.t", &rows_json(&first)]);
    let catalog = server.catalog(None).await.unwrap();
    let env = SystemEnv::default();
    let table = catalog.load_table("db", "t").await.unwrap();
    let ours = rows(&[(2, "ls"), (3, "ls")]);
    let after = append(&table, &[batch(&ours)], &env).await.unwrap();
    let (got, snapshots) = server.pyiceberg_read("db.t");
    let mut expected = [first, ours].concat();
    expected.sort();
    assert_eq!(got, expected);
    let ours_id = after.metadata().current_snapshot_id.unwrap();
    assert_eq!(snapshots.len(), 2);
    assert_eq!(snapshots.last(), Some(&ours_id));
    assert_eq!(
        after
            .metadata()
            .current_snapshot()
            .unwrap()
            .parent_snapshot_id,
        table.metadata().current_snapshot_id
    );
    // A table lakescope creates through REST, then appends to.
    catalog.create_namespace("made").await.unwrap();
    let def = IcebergTableDefinition {
        columns: vec![
            ("id".into(), DataType::nullable(TypeKind::BigInt), None),
            (
                "name".into(),
                DataType::nullable(TypeKind::VarChar(i32::MAX as u32)),
                None,
            ),
        ],
        ..Default::default()
    };
    let created = catalog.create_table("made", "t", &def, &env).await.unwrap();
    let rows_in = rows(&[(7, "x"), (8, "y")]);
    let done = append(&created, &[batch(&rows_in)], &env).await.unwrap();
    assert_eq!(lakescope_read(&done).await, rows_in);
    assert_eq!(server.pyiceberg_read("made.t").0, rows_in);
}

#[tokio::test(flavor = "current_thread")]
async fn a_concurrent_commit_gets_409_and_is_retried_without_loss() {
    let Some(py) = python() else { return };
    let server = Server::start(&py, None);
    server.pyiceberg(&["create", "db.t"]);
    server.pyiceberg(&["append", "db.t", &rows_json(&rows(&[(1, "base")]))]);
    let catalog = server.catalog(None).await.unwrap();
    let table = catalog.load_table("db", "t").await.unwrap();
    // pyiceberg appends right before lakescope's first commit request is applied.
    let theirs = rows(&[(100, "pyiceberg")]);
    let transport = ReqwestTransport::new(Duration::from_secs(30)).unwrap();
    let arm = lakescope_storage::transport::HttpRequest::new(
        "POST",
        format!("{}/test/interfere", server.uri),
    );
    let mut arm = arm.header("content-type", "application/json");
    arm.body = json!({"namespace": "db", "table": "t", "rows": [[100, "pyiceberg"]]})
        .to_string()
        .into();
    use lakescope_storage::transport::HttpTransport;
    assert_eq!(transport.send(arm).await.unwrap().status, 200);
    let ours = rows(&[(2, "lakescope")]);
    let env = SystemEnv::default();
    let after = append(&table, &[batch(&ours)], &env).await.unwrap();
    let (got, snapshots) = server.pyiceberg_read("db.t");
    let mut expected = [rows(&[(1, "base")]), theirs, ours].concat();
    expected.sort();
    assert_eq!(got, expected, "nothing lost");
    assert_eq!(snapshots.len(), 3);
    // lakescope's snapshot sits on pyiceberg's concurrent one, not on the one it loaded.
    let parent = after
        .metadata()
        .current_snapshot()
        .unwrap()
        .parent_snapshot_id;
    assert_eq!(parent, Some(snapshots[1]));
    assert_ne!(parent, table.metadata().current_snapshot_id);
    assert_eq!(lakescope_read(&after).await, expected);
}

#[tokio::test(flavor = "current_thread")]
async fn missing_tables_and_bad_tokens_name_the_endpoint() {
    let Some(py) = python() else { return };
    let server = Server::start(&py, Some("s3cret"));
    let err = server.catalog(Some("wrong")).await.unwrap_err().to_string();
    let config = format!("GET {}/v1/config", server.uri);
    assert!(err.contains(&config), "{err}");
    assert!(err.contains("401"), "{err}");
    assert!(err.contains("missing or wrong bearer token"), "{err}");
    let err = server.catalog(None).await.unwrap_err().to_string();
    assert!(err.contains("401"), "{err}");
    let catalog = server.catalog(Some("s3cret")).await.unwrap();
    server.pyiceberg(&["create", "db.t"]);
    let err = catalog.load_table("db", "nope").await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
    let err = err.to_string();
    let endpoint = format!("GET {}/v1/lake/namespaces/db/tables/nope", server.uri);
    assert!(err.contains("table db.nope not found"), "{err}");
    assert!(err.contains(&endpoint), "{err}");
    assert!(
        err.contains("404") && err.contains("NoSuchTableError"),
        "{err}"
    );
    let err = catalog
        .list_tables("nowhere")
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("namespace nowhere not found"), "{err}");
    // An unreachable catalog names the endpoint too.
    drop(catalog);
    let uri = server.uri.clone();
    drop(server);
    let transport = Rc::new(ReqwestTransport::new(Duration::from_secs(5)).unwrap());
    let err = RestClient::connect(&uri, &RestOptions::default(), transport)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains(&format!("GET {uri}/v1/config")), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn schema_and_property_changes_commit_through_rest() {
    let Some(py) = python() else { return };
    let server = Server::start(&py, None);
    server.pyiceberg(&["create", "db.t"]);
    server.pyiceberg(&["append", "db.t", &rows_json(&rows(&[(1, "a")]))]);
    let catalog = server.catalog(None).await.unwrap();
    let env = SystemEnv::default();
    let table = catalog.load_table("db", "t").await.unwrap();
    let set = BTreeMap::from([("owner".to_string(), "lakescope".to_string())]);
    update_properties(&table, &set, &[], &env).await.unwrap();
    let add = SchemaChange::Add {
        name: "score".into(),
        data_type: DataType::nullable(TypeKind::BigInt),
        doc: None,
        position: None,
    };
    let evolved = update_schema(&table, &[add], &env).await.unwrap();
    // What the server (pyiceberg) now has: the property and the new current schema.
    let loaded = catalog.load_table("db", "t").await.unwrap();
    let m = loaded.metadata();
    assert_eq!(
        m.properties.get("owner").map(String::as_str),
        Some("lakescope")
    );
    assert_eq!(m.current_schema_id, evolved.metadata().current_schema_id);
    assert_ne!(m.current_schema_id, table.metadata().current_schema_id);
    let schema = m.current_schema().unwrap();
    let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["id", "name", "score"]);
    assert_eq!(m.last_column_id, 3);
    // Appending after the change: pyiceberg still reads every row.
    let more = rows(&[(2, "b")]);
    append(&loaded, &[batch(&more)], &env).await.unwrap();
    assert_eq!(server.pyiceberg_read("db.t").0, rows(&[(1, "a"), (2, "b")]));
}

/// A form body as its sorted, decoded pairs.
fn form_pairs(body: &str) -> Vec<(String, String)> {
    let decode = |s: &str| {
        percent_encoding::percent_decode_str(&s.replace('+', " "))
            .decode_utf8_lossy()
            .into_owned()
    };
    let mut pairs: Vec<_> = body
        .split('&')
        .filter_map(|p| p.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect();
    pairs.sort();
    pairs
}

/// pyiceberg, the reference client, and lakescope exchange a client credential for a token the
/// same way (the same form at the same endpoint) and send the token with the config request.
#[tokio::test]
async fn client_credentials_are_exchanged_as_pyiceberg_does() {
    use lakescope_test_support::http_faults::{FaultServer, Reply};
    let Some(py) = python() else { return };
    let credential = "lake id:s3cr=t/&";
    // pyiceberg 0.12 fetches a second token after the config (its session is made again)
    let token = Reply::Answer(
        200,
        r#"{"access_token":"t0k","token_type":"bearer","expires_in":3600}"#.into(),
    );
    let config = Reply::Answer(200, r#"{"defaults":{},"overrides":{}}"#.into());
    let script = || vec![token.clone(), config.clone(), token.clone()];
    let theirs = FaultServer::start(script());
    let code = "import sys\nfrom pyiceberg.catalog.rest import RestCatalog\nRestCatalog('x', uri=sys.argv[1], credential=sys.argv[2])";
    let out = Command::new(&py)
        .args(["-c", code, theirs.url(), credential])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = FaultServer::start(script());
    let options = RestOptions {
        credential: Some(credential.into()),
        ..Default::default()
    };
    let transport = Rc::new(ReqwestTransport::new(Duration::from_secs(30)).unwrap());
    RestClient::connect(ours.url(), &options, transport)
        .await
        .unwrap();
    let (theirs, ours) = (theirs.requests(), ours.requests());
    assert_eq!(theirs.len(), 3, "{theirs:?}");
    assert_eq!(ours.len(), 2, "{ours:?}");
    for (t, o) in theirs.iter().zip(&ours) {
        assert_eq!((&t.method, &t.target), (&o.method, &o.target));
    }
    assert_eq!(theirs[0].target, "/v1/oauth/tokens");
    assert_eq!(form_pairs(&theirs[0].body), form_pairs(&ours[0].body));
    assert_eq!(
        theirs[0].body, ours[0].body,
        "byte for byte, the same encoding"
    );
    let content_type = |r: &lakescope_test_support::http_faults::Recorded| {
        r.header("content-type").map(str::to_ascii_lowercase)
    };
    assert_eq!(content_type(&theirs[0]), content_type(&ours[0]));
    assert_eq!(theirs[1].header("authorization"), Some("Bearer t0k"));
    assert_eq!(ours[1].header("authorization"), Some("Bearer t0k"));
}
