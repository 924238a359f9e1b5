//! Shared by the CLI tests: the repository root, free ports, child servers and S3 buckets.

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
