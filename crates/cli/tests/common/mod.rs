//! Shared by the CLI tests: the repository root, free ports, child servers, S3 buckets, and
//! (from lakescope-test-support) the REST catalog servers of ../shared/catalogs with their oracles.

#![allow(dead_code)] // each test binary uses its own subset

use lakescope_storage::s3::S3Credentials;
use lakescope_storage::transport::{HttpRequest, HttpTransport, ReqwestTransport};
use std::path::PathBuf;
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
