//! Branches and tags from the command line and in Flink SQL, on an Iceberg table pyiceberg 0.12
//! wrote (crates/iceberg/tests/oracle/write_refs.py) and a Paimon table pypaimon 2.1 wrote
//! (tests/oracles/write_branches_pypaimon.py): `scan --branch/--tag`, `snapshots --branch`,
//! `diff` between refs; in SQL the `'branch'` and `'tag'` hints and the `t$branch_dev` spelling;
//! writes to a branch refused, with nothing landing on main; `FOR SYSTEM_VERSION AS OF` refused.
//! A branch's snapshots and tags are compared with Java Paimon 0.9's listing of them
//! (tests/oracles/BranchJava.java).
//! The rows each ref reads are checked against the oracles in crates/iceberg/tests/refs.rs and
//! crates/engine/tests/branches_interop.rs; here the same rows must come out of the CLI.
//!
//! The oracle venv comes from `scripts/oracles.sh` and `scripts/iceberg-oracle.sh`; without it
//! these tests fail, unless LAKESCOPE_SKIP_ORACLES=1 (then they are skipped with a message).

mod common;

use common::{lakescope, python_with, repo_root};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// Java Paimon 0.9's listing of a branch's snapshots, schemas and tags (tests/oracles/BranchJava.java
/// `meta`), by section: "snapshots", "schemas", "tags".
fn java_meta(table_dir: &Path, branch: &str) -> lakescope_test_support::oracles::Sections<String> {
    let o = lakescope_test_support::oracles::oracles()
        .expect("the Java oracle (the pypaimon one was found)")
        .with_java(
            &repo_root().join("tests/oracles/BranchJava.java"),
            &std::env::temp_dir().join("lakescope-branch-java-classes"),
        );
    let mut cmd = o.java("BranchJava");
    cmd.arg("meta").arg(table_dir).arg(branch);
    lakescope_test_support::oracles::sections(&lakescope_test_support::oracles::run(
        &mut cmd,
        "Java Paimon 0.9 branch metadata",
    ))
}

/// Runs a generator script into a fresh folder; its stdout.
fn generate(py: &Path, script: &Path, name: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::Builder::new().prefix(name).tempdir().unwrap();
    let out = Command::new(py)
        .arg(script)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    (dir, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `lakescope ARGS`: (success, stdout, stderr).
/// JSON lines of stdout, sorted.
fn lines(stdout: &str) -> Vec<String> {
    let mut v: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

/// `lakescope sql --keep-going --format jsonl -e SCRIPT`: (stdout, stderr).
fn sql(script: &str) -> (String, String) {
    let (_, out, err) = lakescope(&["sql", "--keep-going", "--format", "jsonl", "-e", script]);
    (out, err)
}

/// The oracle's rows of a ref as JSON lines in lakescope's canonical form (ids as numbers).
fn oracle_lines(frame: &Value) -> Vec<String> {
    let columns: Vec<&str> = frame["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    let mut out: Vec<String> = frame["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let mut o = serde_json::Map::new();
            for (c, v) in columns.iter().zip(r.as_array().unwrap()) {
                let v = match (*c, v) {
                    ("id" | "extra", Value::String(s)) => Value::from(s.parse::<i64>().unwrap()),
                    (_, v) => v.clone(),
                };
                o.insert(c.to_string(), v);
            }
            Value::Object(o).to_string()
        })
        .collect();
    out.sort();
    out
}

#[test]
fn iceberg_branches_and_tags_from_the_cli() {
    let Some(py) = python_with("pyiceberg", "iceberg_branches_and_tags_from_the_cli") else {
        return;
    };
    let script = repo_root().join("crates/iceberg/tests/oracle/write_refs.py");
    let (dir, out) = generate(&py, &script, "lakescope-cli-iceberg-refs");
    let fx: Value = serde_json::from_str(&out).unwrap();
    let wh = dir.path().join("wh");
    let wh = wh.to_str().unwrap();
    let scan = |extra: &[&str]| {
        let mut args = vec!["scan", wh, "refs.evolve", "--format", "jsonl"];
        args.extend_from_slice(extra);
        lakescope(&args)
    };
    for (flag, name) in [
        ("--branch", "dev"),
        ("--branch", "main"),
        ("--tag", "t1"),
        ("--tag", "t2"),
    ] {
        let (ok, out, err) = scan(&[flag, name]);
        assert!(ok, "{flag} {name}: {err}");
        assert_eq!(
            lines(&out),
            oracle_lines(&fx["refs"][name]["java"]),
            "{flag} {name}"
        );
    }
    // a ref of the other kind, and --branch with another version
    let (ok, _, err) = scan(&["--branch", "t1"]);
    assert!(
        !ok && err.contains("'t1' is a tag") && err.contains("not a branch"),
        "{err}"
    );
    let (ok, _, err) = scan(&["--tag", "dev"]);
    assert!(
        !ok && err.contains("'dev' is a branch") && err.contains("not a tag"),
        "{err}"
    );
    let (ok, _, err) = scan(&["--branch", "dev", "--snapshot", "1"]);
    assert!(!ok && err.contains("cannot be used with"), "{err}");
    // the table$branch_<name> spelling, and a snapshot id on top of it is refused for Iceberg
    let (ok, out, err) = lakescope(&["scan", wh, "refs.evolve$branch_dev", "--format", "jsonl"]);
    assert!(ok, "{err}");
    assert_eq!(lines(&out), oracle_lines(&fx["refs"]["dev"]["java"]));
    let s1 = fx["snapshots"]["S1"].as_i64().unwrap().to_string();
    let (ok, _, err) = lakescope(&["scan", wh, "refs.evolve$branch_dev", "--snapshot", &s1]);
    assert!(!ok && err.contains("branch 'dev' and snapshot"), "{err}");
    // diff between a tag and a branch by bare names: the branch side with the current schema;
    // the oracle's rows of t1 put in dev's columns by field id, then the multiset difference
    let (ok, out, err) = lakescope(&[
        "diff",
        wh,
        "refs.evolve",
        "--from",
        "t1",
        "--to",
        "dev",
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    let (dev, t1) = (&fx["refs"]["dev"], &fx["refs"]["t1"]);
    let position = |ids: &Value, id: &Value| ids.as_array().unwrap().iter().position(|x| x == id);
    let t1_rows: Vec<Vec<Value>> = t1["java"]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            dev["field_ids"]
                .as_array()
                .unwrap()
                .iter()
                .map(|id| position(&t1["field_ids"], id).map_or(Value::Null, |i| r[i].clone()))
                .collect()
        })
        .collect();
    let t1_as_dev = serde_json::json!({ "columns": dev["java"]["columns"], "rows": t1_rows });
    let mut before = oracle_lines(&t1_as_dev);
    let mut expected = Vec::new();
    for line in oracle_lines(&dev["java"]) {
        match before.iter().position(|b| *b == line) {
            Some(i) => drop(before.remove(i)),
            None => expected.push(line.replacen('{', r#"{"_change":"insert","#, 1)),
        }
    }
    expected.extend(
        before
            .iter()
            .map(|l| l.replacen('{', r#"{"_change":"delete","#, 1)),
    );
    expected.sort();
    assert!(!expected.is_empty());
    assert_eq!(lines(&out), expected);

    // Flink SQL: the Iceberg connector's 'branch' and 'tag' read options, scan.tag-name, t$branch_dev
    let catalog = format!(
        "CREATE CATALOG ic WITH ('type' = 'iceberg', 'catalog-type' = 'hadoop', 'warehouse' = '{wh}');\nUSE CATALOG ic;\nUSE refs;\n"
    );
    for (query, name) in [
        (
            "SELECT * FROM evolve /*+ OPTIONS('branch' = 'dev') */",
            "dev",
        ),
        ("SELECT * FROM `evolve$branch_dev`", "dev"),
        ("SELECT * FROM evolve", "main"),
        ("SELECT * FROM evolve /*+ OPTIONS('tag' = 't2') */", "t2"),
        (
            "SELECT * FROM evolve /*+ OPTIONS('scan.tag-name' = 't1') */",
            "t1",
        ),
    ] {
        let (out, err) = sql(&format!("{catalog}{query};"));
        assert!(!err.contains("error"), "{query}: {err}");
        assert_eq!(
            lines(&out),
            oracle_lines(&fx["refs"][name]["java"]),
            "{query}"
        );
    }
    // writes to a branch are refused, and main is unchanged
    let (_, err) = sql(&format!(
        "{catalog}INSERT INTO `evolve$branch_dev` VALUES (9, 'z', 90, 'n');
         INSERT INTO evolve /*+ OPTIONS('branch' = 'dev') */ VALUES (9, 'z', 90, 'n');
         DELETE FROM `evolve$branch_dev` WHERE id = 1;
         SELECT * FROM evolve FOR SYSTEM_VERSION AS OF 'dev';"
    ));
    assert_eq!(
        err.matches("branch 'dev' of ic.refs.evolve").count(),
        3,
        "{err}"
    );
    assert!(
        err.contains("a write meant for a branch must not land on main"),
        "{err}"
    );
    assert!(
        err.contains("FOR SYSTEM_VERSION AS OF is not Flink SQL"),
        "{err}"
    );
    let (out, _) = sql(&format!("{catalog}SELECT * FROM evolve;"));
    assert_eq!(lines(&out), oracle_lines(&fx["refs"]["main"]["java"]));
    let (out, _) = sql(&format!("{catalog}SELECT * FROM `evolve$branch_dev`;"));
    assert_eq!(lines(&out), oracle_lines(&fx["refs"]["dev"]["java"]));
}

#[test]
fn paimon_branches_from_the_cli_and_sql() {
    let Some(py) = python_with("pypaimon", "paimon_branches_from_the_cli_and_sql") else {
        return;
    };
    let script = repo_root().join("tests/oracles/write_branches_pypaimon.py");
    let (dir, out) = generate(&py, &script, "lakescope-cli-paimon-branches");
    let py_reads = lakescope_test_support::oracles::sections::<String>(&out);
    let wh = dir.path().to_str().unwrap();
    let expected = |label: &str| py_reads[&label.to_string()].clone().unwrap();
    let normalized = |out: &str| lakescope_test_support::oracles::normalize(lines(out));

    let (ok, out, err) = lakescope(&["scan", wh, "br.t", "--branch", "dev", "--format", "jsonl"]);
    assert!(ok, "{err}");
    assert_eq!(normalized(&out), expected("dev"));
    let (ok, out, err) = lakescope(&[
        "scan",
        wh,
        "br.t$branch_dev",
        "--snapshot",
        "1",
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    assert_eq!(normalized(&out), expected("dev@1"));
    let (ok, out, err) = lakescope(&[
        "scan",
        wh,
        "br.t$branch_dev",
        "--tag",
        "d2",
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    assert_eq!(normalized(&out), expected("dev@tag:d2"));
    // at a time on a branch: resolved on the branch's own snapshots, as pypaimon reads
    // `t$branch_dev` with scan.timestamp-millis (just before dev's snapshot 2: dev's snapshot
    // 1, although main committed its snapshot 2 before then); by --branch and by the name
    let times: Vec<&String> = py_reads
        .keys()
        .filter(|k| k.starts_with("dev@ts:"))
        .collect();
    assert_eq!(times.len(), 2, "{:?}", py_reads.keys());
    for label in times {
        let ms = label.trim_start_matches("dev@ts:");
        for args in [&["br.t", "--branch", "dev"][..], &["br.t$branch_dev"][..]] {
            let mut argv = vec!["scan", wh];
            argv.extend(args);
            argv.extend(["--timestamp-millis", ms, "--format", "jsonl"]);
            let (ok, out, err) = lakescope(&argv);
            assert!(ok, "{argv:?}: {err}");
            assert_eq!(normalized(&out), expected(label.as_str()), "{argv:?}");
        }
    }
    assert_ne!(
        py_reads
            .iter()
            .filter(|(k, _)| k.starts_with("dev@ts:"))
            .map(|(_, v)| v.clone().unwrap())
            .collect::<std::collections::BTreeSet<_>>()
            .len(),
        1,
        "the two times read the same rows: the test shows nothing"
    );
    // diff names a branch's own snapshots and tags, each side read on its branch (the script's
    // rows: dev@1 (1,a) (2,b); d2 (1,A,10) (2,b) (4,d,40); main 2 (1,a) (2,B) (3,c)); dev's head to
    // main's snapshot 2 reads through dev's schemas (they include main's), in main's columns
    for (from, to, want) in [
        (
            "branch:dev/1",
            "branch:dev/tag:d2",
            &["insert 4 d", "update_after 1 A", "update_before 1 a"][..],
        ),
        (
            "branch:dev",
            "2",
            &[
                "delete 4 d",
                "insert 3 c",
                "update_after 1 a",
                "update_after 2 B",
                "update_before 1 A",
                "update_before 2 b",
            ][..],
        ),
    ] {
        let (ok, out, err) = lakescope(&[
            "diff", wh, "br.t", "--from", from, "--to", to, "--format", "jsonl",
        ]);
        assert!(ok, "{from} → {to}: {err}");
        let mut changes: Vec<String> = lines(&out)
            .iter()
            .map(|l| {
                let v: Value = serde_json::from_str(l).unwrap();
                format!(
                    "{} {} {}",
                    v["_change"].as_str().unwrap(),
                    v["id"],
                    v["v"].as_str().unwrap()
                )
            })
            .collect();
        changes.sort();
        assert_eq!(changes, want, "{from} → {to}");
    }
    let (ok, _, err) = lakescope(&["scan", wh, "br.t", "--branch", "nope"]);
    assert!(
        !ok && err.contains("branch 'nope' of Paimon table br.db/t"),
        "{err}"
    );
    // snapshots --branch: dev's snapshots, as Java 0.9's SnapshotManager lists that branch's
    let meta = |branch: &str| java_meta(&dir.path().join("br.db/t"), branch);
    let (ok, out, err) = lakescope(&[
        "snapshots",
        wh,
        "br.t",
        "--branch",
        "dev",
        "--format",
        "jsonl",
    ]);
    assert!(ok, "{err}");
    let picked = |out: &str, keys: &[&str]| {
        lakescope_test_support::oracles::normalize(lines(out).iter().map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let o: serde_json::Map<String, Value> = keys
                .iter()
                .map(|k| (k.to_string(), v[*k].clone()))
                .collect();
            Value::Object(o).to_string()
        }))
    };
    let dev_meta = meta("dev");
    assert_eq!(
        Ok(picked(&out, &["snapshot_id", "schema_id"])),
        dev_meta["snapshots"]
    );

    // Flink SQL: Paimon's 'branch' option as a hint, t$branch_dev with time travel inside the branch
    let catalog = format!("CREATE CATALOG p WITH ('type' = 'paimon', 'warehouse' = '{wh}');\nUSE CATALOG p;\nUSE br;\n");
    for (query, label) in [
        ("SELECT * FROM t /*+ OPTIONS('branch' = 'dev') */", "dev"),
        ("SELECT * FROM t$branch_dev", "dev"),
        (
            "SELECT * FROM t$branch_dev /*+ OPTIONS('scan.snapshot-id' = '1') */",
            "dev@1",
        ),
        (
            "SELECT * FROM t /*+ OPTIONS('branch' = 'dev', 'scan.tag-name' = 't1') */",
            "dev@tag:t1",
        ),
        ("SELECT * FROM t", "main"),
        ("SELECT * FROM t /*+ OPTIONS('branch' = 'main') */", "main"),
        ("SELECT * FROM t$branch_empty", "empty"),
    ] {
        let (out, err) = sql(&format!("{catalog}{query};"));
        assert!(!err.contains("error"), "{query}: {err}");
        assert_eq!(normalized(&out), expected(label), "{query}");
    }
    for label in py_reads.keys().filter(|k| k.starts_with("dev@ts:")) {
        let ms = label.trim_start_matches("dev@ts:");
        for query in [
            format!("SELECT * FROM t$branch_dev /*+ OPTIONS('scan.timestamp-millis' = '{ms}') */"),
            format!("SELECT * FROM t /*+ OPTIONS('branch' = 'dev', 'scan.timestamp-millis' = '{ms}') */"),
        ] {
            let (out, err) = sql(&format!("{catalog}{query};"));
            assert!(!err.contains("error"), "{query}: {err}");
            assert_eq!(normalized(&out), expected(label.as_str()), "{query}");
        }
    }
    let (out, err) = sql(&format!(
        "{catalog}SELECT snapshot_id, schema_id FROM `t$branch_dev$snapshots`;"
    ));
    assert!(!err.contains("error"), "{err}");
    assert_eq!(Ok(normalized(&out)), dev_meta["snapshots"]);
    let (_, err) = sql(&format!(
        "{catalog}SELECT * FROM t$branch_dev /*+ OPTIONS('branch' = 'empty') */;"
    ));
    assert!(err.contains("name one branch"), "{err}");

    // Every write to a branch is refused (none lands on main), and so is a version clause.
    let writes = [
        "INSERT INTO t$branch_dev VALUES (9, 'z', 90)",
        "INSERT INTO t /*+ OPTIONS('branch' = 'dev') */ VALUES (9, 'z')",
        "INSERT OVERWRITE t$branch_dev VALUES (9, 'z', 90)",
        "UPDATE t$branch_dev SET v = 'q' WHERE id = 1",
        "DELETE FROM t$branch_dev WHERE id = 1",
        "ALTER TABLE t$branch_dev ADD note STRING",
        "CALL sys.create_tag('br.t$branch_dev', 'x')",
        "CALL sys.rollback_to('br.t$branch_dev', 1)",
        "DROP TABLE t$branch_dev",
    ];
    let (_, err) = sql(&format!("{catalog}{};", writes.join(";\n")));
    for (i, w) in writes.iter().enumerate() {
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("error: statement {} ", i + 4)))
            .unwrap_or_else(|| panic!("{w}: not refused\n{err}"));
        assert!(
            line.contains("branch 'dev' of p.br.t is not supported"),
            "{w}: {line}"
        );
    }
    let (_, err) = sql(&format!(
        "{catalog}INSERT INTO t$snapshots VALUES (1);\nSELECT * FROM t FOR SYSTEM_VERSION AS OF 'dev';"
    ));
    assert!(err.contains("system tables are read-only"), "{err}");
    assert!(
        err.contains("FOR SYSTEM_VERSION AS OF is not Flink SQL"),
        "{err}"
    );
    let (out, _) = sql(&format!("{catalog}SELECT * FROM t;"));
    assert_eq!(normalized(&out), expected("main"));
    let (out, _) = sql(&format!("{catalog}SELECT * FROM t$branch_dev;"));
    assert_eq!(normalized(&out), expected("dev"));
    // main's and dev's snapshots and tags are still what Java lists
    for branch in ["main", "dev"] {
        let name = match branch {
            "main" => "t".to_string(),
            b => format!("t$branch_{b}"),
        };
        let (out, _) = sql(&format!(
            "{catalog}SELECT snapshot_id, schema_id FROM `{name}$snapshots`;"
        ));
        let m = meta(branch);
        assert_eq!(Ok(normalized(&out)), m["snapshots"], "{branch}");
        let (out, _) = sql(&format!("{catalog}SELECT tag_name FROM `{name}$tags`;"));
        assert_eq!(Ok(normalized(&out)), m["tags"], "{branch}");
    }
}
