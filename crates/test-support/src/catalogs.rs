//! The REST catalog servers of ../shared/catalogs (Apache Paimon's mock server, lakana-server for
//! Iceberg REST) started for a test, and the Python writers that go through them: pypaimon 2.1
//! (tests/oracles/rest_paimon.py) and pyiceberg 0.12 (tests/oracles/rest_iceberg.py).

use crate::Server;
use std::path::PathBuf;

/// Starts a REST catalog server of ../shared/catalogs (`script PORT DIR` on a free port) and
/// waits until it answers: it prints exactly two lines, `<KIND>_REST_URL=<url>` and
/// `<KIND>_REST_READY <json>`. Returns the server, its URL and the READY JSON. A server that
/// fails to start panics with the end of what it wrote to stderr.
pub fn start_catalog_server(
    script: &str,
    dir: &std::path::Path,
) -> (Server, String, serde_json::Value) {
    use std::io::BufRead;
    let script = crate::repo().join("../shared/catalogs").join(script);
    let mut child = std::process::Command::new("bash")
        .arg(&script)
        .arg("0")
        .arg(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{}: {e}", script.display()));
    let stderr = drain_tail(child.stderr.take().expect("the server's stderr"));
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("the server's stdout"));
    let server = Server(child);
    let (mut line, mut ready) = (String::new(), String::new());
    stdout.read_line(&mut line).expect("the server's URL line");
    stdout
        .read_line(&mut ready)
        .expect("the server's READY line");
    let failed = |what: &str, got: &str| -> ! {
        // The script has exited (or closed stdout): give its stderr a moment to arrive.
        std::thread::sleep(std::time::Duration::from_millis(200));
        let tail = stderr.lock().map(|t| t.clone()).unwrap_or_default();
        panic!(
            "{} printed {got:?}, not its {what}; its stderr ended with:\n{tail}",
            script.display()
        )
    };
    let url = match line.trim().split_once("_REST_URL=") {
        Some((_, url)) => url.to_string(),
        None => failed("URL", &line),
    };
    let json = match ready
        .trim()
        .split_once("_REST_READY ")
        .and_then(|(_, json)| serde_json::from_str(json).ok())
    {
        Some(json) => json,
        None => failed("READY line", &ready),
    };
    (server, url, json)
}

/// Reads `stream` to its end on a thread, keeping the last 4 KiB (a server's log stays bounded
/// however long it runs).
fn drain_tail(
    stream: impl std::io::Read + Send + 'static,
) -> std::sync::Arc<std::sync::Mutex<String>> {
    use std::io::BufRead;
    const KEEP: usize = 4096;
    let tail = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = tail.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            let Ok(mut t) = sink.lock() else { break };
            t.push_str(&line);
            t.push('\n');
            if t.len() > 2 * KEEP {
                let cut = t.len() - KEEP;
                let cut = (cut..t.len()).find(|&i| t.is_char_boundary(i)).unwrap_or(0);
                t.drain(..cut);
            }
        }
    });
    tail
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
    cmd.arg(crate::repo().join("tests/oracles/rest_paimon.py"))
        .args([url, "wh", PAIMON_REST_TOKEN])
        .args(args);
    crate::oracles::run(&mut cmd, "pypaimon 2.1 through the REST catalog")
}

/// pyiceberg 0.12 through the Iceberg REST catalog at `url` with prefix `dev`
/// (tests/oracles/rest_iceberg.py); its stdout.
pub fn pyiceberg_rest(python: &std::path::Path, url: &str, token: &str, args: &[&str]) -> String {
    let mut cmd = std::process::Command::new(python);
    cmd.arg(crate::repo().join("tests/oracles/rest_iceberg.py"))
        .args([url, token, "dev"])
        .args(args);
    crate::oracles::run(&mut cmd, "pyiceberg 0.12 through the REST catalog")
}
