//! A moto S3 server on 127.0.0.1 for a test: taken from the venv of `scripts/s3-test-server.sh`,
//! serving one request at a time (so its conditional create is atomic, as S3's is), ended when
//! dropped or when the test process exits.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running moto server.
pub struct Moto {
    endpoint: String,
    child: Child,
}

impl Moto {
    /// A fresh server, or `None` (said on stderr) when `LAKESCOPE_SKIP_S3=1`. Panics with what to
    /// install when moto is missing: the S3 tests must not pass by not running.
    pub fn start() -> Option<Moto> {
        if std::env::var("LAKESCOPE_SKIP_S3").as_deref() == Ok("1") {
            eprintln!("LAKESCOPE_SKIP_S3=1: S3 test skipped");
            return None;
        }
        let python = venv().join("bin/python3");
        assert!(
            venv().join("bin/moto_server").is_file(),
            "moto_server not found in {}: run `bash scripts/s3-test-server.sh` to install it \
             (or set LAKESCOPE_SKIP_S3=1 to skip the S3 tests)",
            venv().display()
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/moto_serial.py");
        let child = Command::new(&python)
            .arg(&script)
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", python.display()));
        let moto = Moto {
            endpoint: format!("http://127.0.0.1:{port}"),
            child,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(moto);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("moto at {} did not come up within 30 s", moto.endpoint);
    }

    /// `http://127.0.0.1:<port>`.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The venv holding moto: `LAKESCOPE_MOTO_VENV`, else `target/venv-moto`.
fn venv() -> PathBuf {
    std::env::var("LAKESCOPE_MOTO_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|_| crate::repo().join("target/venv-moto"))
}
