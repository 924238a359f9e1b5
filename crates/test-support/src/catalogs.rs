//! The REST catalog servers of ../shared/catalogs (Apache Paimon's mock server, lakana-server for
//! Iceberg REST) started for a test, and the Python writers that go through them: pypaimon 2.1
//! (tests/oracles/rest_paimon.py) and pyiceberg 0.12 (tests/oracles/rest_iceberg.py).

use crate::Server;
use std::path::PathBuf;

/// Starts a REST catalog server of ../shared/catalogs (`script PORT DIR` on a free port) and
/// waits until it answers: it prints exactly two lines, `<KIND>_REST_URL=<url>` and
/// `<KIND>_REST_READY <json>`. Returns the server, its URL and the READY JSON.
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
