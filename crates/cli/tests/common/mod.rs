//! Shared by the CLI tests: the repository root, free ports, child servers (the REST catalog
//! servers of ../shared/catalogs among them) and S3 buckets.

#![allow(dead_code)] // each test binary uses its own subset

use lakescope_storage::s3::S3Credentials;
use lakescope_storage::transport::{HttpRequest, HttpTransport, ReqwestTransport};
use std::path::PathBuf;
use std::process::Child;
use std::time::{Duration, Instant};

pub fn repo_root() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A child process killed when dropped.
pub struct Server(pub Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("{what} on port {port} did not come up within 30 s");
}

/// Creates `bucket` on the S3 endpoint (signed with `creds`).
pub async fn create_bucket(endpoint: &str, bucket: &str, creds: &S3Credentials) {
    let transport = ReqwestTransport::new(Duration::from_secs(20)).expect("client");
    let mut request = HttpRequest::new("PUT", format!("{endpoint}/{bucket}"));
    lakescope_storage::s3::sign_request(
        &mut request,
        creds,
        "us-east-1",
        std::time::SystemTime::now(),
    )
    .expect("sign");
    assert_eq!(
        transport.send(request).await.expect("create bucket").status,
        200
    );
}

/// Starts a REST catalog server of ../shared/catalogs (`script PORT DIR` on a free port) and
/// waits until it answers: it prints exactly two lines, `<KIND>_REST_URL=<url>` and
/// `<KIND>_REST_READY <json>`. Returns the server, its URL and the READY JSON.
pub fn start_catalog_server(
    script: &str,
    dir: &std::path::Path,
) -> (Server, String, serde_json::Value) {
    use std::io::BufRead;
    let script = repo_root().join("../shared/catalogs").join(script);
    let mut child = std::process::Command::new("bash")
        .arg(&script)
        .arg("0")
        .arg(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("the server's stdout"));
    let server = Server(child);
    let (mut line, mut ready) = (String::new(), String::new());
    stdout.read_line(&mut line).expect("the server's URL line");
    stdout
        .read_line(&mut ready)
        .expect("the server's READY line");
    let url = line
        .trim()
        .split_once("_REST_URL=")
        .map(|(_, url)| url.to_string())
        .unwrap_or_else(|| panic!("{} printed {line:?}, not its URL", script.display()));
    let json = ready
        .trim()
        .split_once("_REST_READY ")
        .and_then(|(_, json)| serde_json::from_str(json).ok())
        .unwrap_or_else(|| panic!("{} printed {ready:?}, not its READY line", script.display()));
    (server, url, json)
}

/// Runs the lakescope binary (without a catalog token from the environment): (success, stdout,
/// stderr).
pub fn lakescope(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lakescope"))
        .args(args)
        .env_remove("LAKESCOPE_CATALOG_TOKEN")
        .output()
        .expect("run lakescope");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The oracle venv's python, if it imports `module`; missing, a panic unless
/// LAKESCOPE_SKIP_ORACLES=1 (then `None`, said loudly), as the other interop tests do.
pub fn python_with(module: &str, test: &str) -> Option<PathBuf> {
    let root = std::env::var_os("LAKE_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(&std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/lake-oracles")
        });
    let py = root.join("venv/bin/python");
    let ok = std::process::Command::new(&py)
        .args(["-c", &format!("import {module}")])
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        return Some(py);
    }
    if std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() != Ok("1") {
        panic!(
            "oracle venv with {module} missing under {}: run `bash scripts/oracles.sh` and `bash scripts/iceberg-oracle.sh` (or set LAKESCOPE_SKIP_ORACLES=1 to skip)",
            root.display()
        );
    }
    eprintln!(
        "\n*** SKIPPED {test}: no {module} in the oracle venv (LAKESCOPE_SKIP_ORACLES=1) ***\n"
    );
    None
}

/// The bearer token of the Paimon mock REST catalog server (`paimon-rest-server.sh`).
pub const PAIMON_REST_TOKEN: &str = "lakescope-test-token";

/// A fresh folder named `wh` for the Paimon mock REST server (its warehouse is the folder's
/// name): (the temporary parent, the folder).
pub fn paimon_rest_warehouse() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let wh = dir.path().join("wh");
    std::fs::create_dir(&wh).expect("the warehouse folder");
    (dir, wh)
}

/// pypaimon 2.1 through the Paimon REST catalog at `url`, warehouse `wh`
/// (tests/oracles/rest_paimon.py); its stdout.
pub fn pypaimon_rest(python: &std::path::Path, url: &str, args: &[&str]) -> String {
    let mut cmd = std::process::Command::new(python);
    cmd.arg(repo_root().join("tests/oracles/rest_paimon.py"))
        .args([url, "wh", PAIMON_REST_TOKEN])
        .args(args);
    lakescope_test_support::oracles::run(&mut cmd, "pypaimon 2.1 through the REST catalog")
}

/// pyiceberg 0.12 through the Iceberg REST catalog at `url` with prefix `dev`
/// (tests/oracles/rest_iceberg.py); its stdout.
pub fn pyiceberg_rest(python: &std::path::Path, url: &str, token: &str, args: &[&str]) -> String {
    let mut cmd = std::process::Command::new(python);
    cmd.arg(repo_root().join("tests/oracles/rest_iceberg.py"))
        .args([url, token, "dev"])
        .args(args);
    lakescope_test_support::oracles::run(&mut cmd, "pyiceberg 0.12 through the REST catalog")
}
