//! Helpers shared by lakescope's integration tests (a dev-dependency only, never published):
//! [`oracles`] finds and runs the interop oracles (Java Paimon 0.9 and pypaimon 2.1, set up by
//! `scripts/oracles.sh`) and parses what they print; [`tables`] builds small batches and writes
//! small Paimon tables with a fixed `WriteEnv`; with the `engine` feature, [`engine`] reads
//! tables through lakescope-engine's catalog as the oracles print them, and [`interop`] asserts
//! that lakescope, Java 0.9 and pypaimon read a table alike at each snapshot; [`faults`] fails the
//! k-th mutating storage call (crash tests of the commit protocol); [`http_faults`] is a scripted
//! HTTP server that misbehaves on demand (catalog clients); [`moto`] starts a local S3 server;
//! [`modern`] has pypaimon 2.1 write a table with a modern Paimon feature; [`catalogs`] starts
//! the REST catalog servers and runs their Python writers.

pub mod catalogs;
#[cfg(feature = "engine")]
pub mod engine;
pub mod faults;
pub mod http_faults;
#[cfg(feature = "engine")]
pub mod interop;
pub mod modern;
pub mod moto;
pub mod oracles;
pub mod tables;

use std::path::{Path, PathBuf};

/// A child process killed when dropped.
pub struct Server(pub std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The repository's root folder.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A fresh, empty folder `<tmp>/<prefix>-<pid>-<name>` (removed first if a run left it).
pub fn temp_dir(prefix: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every file below `dir`, at any depth, sorted by path.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = e.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Copies a directory tree (tables are copied to be changed by another writer, or because the
/// corpus is read-only).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}
