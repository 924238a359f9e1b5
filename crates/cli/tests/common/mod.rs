//! Shared by the CLI tests: the repository root, free ports, child servers and moto (S3).

#![allow(dead_code)] // each test binary uses its own subset

use lakescope_storage::s3::S3Credentials;
use lakescope_storage::transport::{HttpRequest, HttpTransport, ReqwestTransport};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
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

pub fn start_moto() -> (Server, String) {
    let venv = std::env::var("LAKESCOPE_MOTO_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|_| repo_root().join("target/venv-moto"));
    let bin = venv.join("bin/moto_server");
    assert!(
        bin.is_file(),
        "moto_server not found at {}: run `bash scripts/s3-test-server.sh` (or set LAKESCOPE_SKIP_S3=1 to skip)",
        bin.display()
    );
    let port = free_port();
    let child = Command::new(&bin)
        .args(["-H", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start moto_server");
    let server = Server(child);
    wait_for_port(port, "moto_server");
    (server, format!("http://127.0.0.1:{port}"))
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
