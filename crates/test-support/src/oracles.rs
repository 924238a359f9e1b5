//! The interop oracles: the pypaimon 2.1 venv and the Java Paimon 0.9 jars with `ReadJava`
//! compiled against them, under `~/.cache/lake-oracles` (or `$LAKE_TOOLS`), set up by
//! `scripts/oracles.sh`; running them as subprocesses; parsing their canonical rows.

use crate::repo;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::sync::Mutex;

/// Where the oracles are: the venv's python and the Java class path.
pub struct Oracles {
    /// The venv's python (pypaimon 2.1 + pyarrow).
    pub python: PathBuf,
    /// The Java Paimon 0.9 jars, `ReadJava` and any test oracle compiled by [`Oracles::with_java`].
    pub java_cp: String,
}

/// The oracles, or None (after saying so) when they are missing and `LAKESCOPE_SKIP_ORACLES=1`;
/// missing otherwise, a test fails: it panics telling to run `scripts/oracles.sh`.
pub fn oracles() -> Option<Oracles> {
    let root = std::env::var("LAKE_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/lake-oracles")
        });
    let python = root.join("venv/bin/python");
    let lib = root.join("java/lib");
    let classes = root.join("java/lakescope-classes");
    let ok = python.exists()
        && lib.join("paimon-python-java-bridge-0.9.0.jar").exists()
        && classes.join("ReadJava.class").exists();
    if !ok {
        if std::env::var("LAKESCOPE_SKIP_ORACLES").as_deref() == Ok("1") {
            eprintln!("skipping: oracles missing and LAKESCOPE_SKIP_ORACLES=1");
            return None;
        }
        panic!(
            "interop oracles (pypaimon 2.1 venv, Java Paimon 0.9 jars, ReadJava) missing under {}: run `bash scripts/oracles.sh` (or set LAKESCOPE_SKIP_ORACLES=1 to skip)",
            root.display()
        );
    }
    Some(Oracles {
        python,
        java_cp: format!("{}/*:{}", lib.display(), classes.display()),
    })
}

impl Oracles {
    /// `java` running `main_class` on the oracles' class path. Each oracle is a short-lived JVM
    /// whose time goes to class loading and warm-up: the C1 compiler alone and the serial
    /// collector cut a `ReadJava read` from 5.7 s to 3.5 s here (and the interop tests with it).
    pub fn java(&self, main_class: &str) -> Command {
        let mut cmd = Command::new("java");
        cmd.args(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp"])
            .arg(&self.java_cp)
            .arg(main_class);
        cmd
    }

    /// These oracles with a test's own Java oracle `source` compiled into `classes` (again when
    /// its class is missing or older than the source; one compilation at a time per process),
    /// which joins the class path.
    pub fn with_java(mut self, source: &Path, classes: &Path) -> Oracles {
        static COMPILING: Mutex<()> = Mutex::new(());
        let _one_at_a_time = COMPILING.lock().unwrap_or_else(|e| e.into_inner());
        let class = classes.join(source.with_extension("class").file_name().unwrap());
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        if modified(&class).is_none() || modified(&class) < modified(source) {
            std::fs::create_dir_all(classes).unwrap();
            run(
                Command::new("javac")
                    .arg("-nowarn")
                    .arg("-cp")
                    .arg(&self.java_cp)
                    .arg("-d")
                    .arg(classes)
                    .arg(source),
                &format!(
                    "javac {} (needs a JDK 17; see scripts/oracles.sh)",
                    source.display()
                ),
            );
        }
        self.java_cp = format!("{}:{}", self.java_cp, classes.display());
        self
    }
}

/// Runs `cmd`, asserts success, returns stdout.
pub fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    checked_stdout(out, what)
}

/// Runs `cmd` feeding `input` to its stdin, asserts success, returns stdout.
pub fn run_with_input(cmd: &mut Command, what: &str, input: &str) -> String {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    let mut pipe = child.stdin.take().unwrap();
    let input = input.to_string();
    // written from a thread so a full stdout pipe cannot deadlock us
    std::thread::spawn(move || pipe.write_all(input.as_bytes()));
    checked_stdout(child.wait_with_output().unwrap(), what)
}

fn checked_stdout(out: std::process::Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Canonical lines re-serialized through serde_json (numbers normalized), sorted.
pub fn normalize(lines: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = lines
        .into_iter()
        .map(|l| {
            let v: serde_json::Value =
                serde_json::from_str(&l).unwrap_or_else(|e| panic!("bad JSON line {l}: {e}"));
            v.to_string()
        })
        .collect();
    out.sort();
    out
}

/// An oracle's reads: the normalized rows (or the error) of each section.
pub type Sections<K = i64> = BTreeMap<K, Result<Vec<String>, String>>;

/// Parses an oracle's "== key" sections of canonical JSON lines; an "!! key error" line
/// becomes Err. Keys are snapshot ids (i64) or labels (String).
pub fn sections<K: FromStr + Ord>(output: &str) -> Sections<K>
where
    K::Err: Debug,
{
    let mut out = BTreeMap::new();
    let mut current: Option<(K, Vec<String>)> = None;
    for line in output.lines() {
        if let Some(key) = line.strip_prefix("== ") {
            if let Some((k, lines)) = current.take() {
                out.insert(k, Ok(normalize(lines)));
            }
            current = Some((key.trim().parse().unwrap(), Vec::new()));
        } else if let Some(err) = line.strip_prefix("!! ") {
            let (key, msg) = err.split_once(' ').unwrap_or((err, ""));
            out.insert(key.parse().unwrap(), Err(msg.to_string()));
            current = None;
        } else if let Some((_, lines)) = current.as_mut() {
            if line.starts_with('{') {
                lines.push(line.to_string());
            }
        }
    }
    if let Some((k, lines)) = current {
        out.insert(k, Ok(normalize(lines)));
    }
    out
}

/// Java Paimon 0.9's reads (`ReadJava read`) of the table folder at snapshots `ids`.
pub fn read_java(o: &Oracles, table_dir: &Path, ids: &[i64]) -> Sections {
    let mut cmd = o.java("ReadJava");
    cmd.arg("read")
        .arg(table_dir)
        .args(ids.iter().map(i64::to_string));
    sections(&run(&mut cmd, "Java Paimon 0.9 read"))
}

/// pypaimon 2.1's reads (tests/oracles/read_pypaimon.py) of `db.table` in the warehouse at
/// snapshots `ids`.
pub fn read_pypaimon(o: &Oracles, warehouse: &Path, table: &str, ids: &[i64]) -> Sections {
    let mut cmd = Command::new(&o.python);
    cmd.arg(repo().join("tests/oracles/read_pypaimon.py"))
        .arg(warehouse)
        .arg(table)
        .args(ids.iter().map(i64::to_string));
    sections(&run(&mut cmd, "pypaimon 2.1 read"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_by_id_and_label() {
        // as the oracles print: a header per read, then its rows or its error
        let out = "noise\n== 2\n{\"b\": 1.0}\n{\"a\":1}\nlog line\n== 3\n!! 3 Boom: no\n== 4\n";
        let by_id: Sections = sections(out);
        assert_eq!(
            by_id,
            BTreeMap::from([
                (
                    2,
                    Ok(vec![r#"{"a":1}"#.to_string(), r#"{"b":1.0}"#.to_string()])
                ),
                (3, Err("Boom: no".to_string())),
                (4, Ok(Vec::new())),
            ])
        );
        let by_label: Sections<String> = sections("== t1 \n{}\n== t2\n!! t2 x");
        assert_eq!(by_label["t1"], Ok(vec!["{}".to_string()]));
        assert_eq!(by_label["t2"], Err("x".to_string()));
    }
}
