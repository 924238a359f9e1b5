//! The README's "Command-line tool" block, run as written: every `target/release/lakescope …`
//! command (a line indented below one continues it) runs from the repository root with this
//! build's binary in place of `target/release/lakescope`, and must exit 0 with output. Three
//! things differ from a user's shell, each said here: `cargo build --release` is not run (the
//! test binary is the same program); `/tmp/wh` is a fresh folder per run (the SQL example creates
//! a database there, which a second run would find existing); the S3 line needs a bucket and is
//! covered by tests/s3_scan.rs. `queries.sql` is written for the `-f queries.sql` example, and
//! `rows.csv` (columns of the SQL example's `d.t`) for the `insert` example.

mod common;

use common::repo_root;
use std::process::Command;

/// The README's CLI commands, each as one shell line (continuation lines joined).
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let section = readme
        .split("## Command-line tool")
        .nth(1)
        .expect("README has a 'Command-line tool' section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("the section starts with a sh block");
    let mut commands: Vec<String> = Vec::new();
    for line in block.lines() {
        if line.starts_with("target/release/lakescope") {
            commands.push(line.to_string());
        } else if line.starts_with("  ") {
            if let Some(last) = commands.last_mut() {
                last.push('\n');
                last.push_str(line);
            }
        }
    }
    commands
}

#[test]
fn every_command_of_the_readme_cli_block_runs() {
    let commands = readme_commands();
    assert!(commands.len() >= 15, "{commands:#?}");
    let root = repo_root();
    let wh = tempfile::tempdir().unwrap();
    // `-f queries.sql`: a script of reads on the demo lake, as a user would keep one.
    let queries = tempfile::tempdir().unwrap();
    std::fs::write(
        queries.path().join("queries.sql"),
        "SELECT COUNT(*) AS n FROM corpus.pk_dedup;\nSELECT * FROM java09.pk_branch$branches;\n",
    )
    .unwrap();
    std::fs::write(queries.path().join("rows.csv"), "id,v\n3,c\n").unwrap();
    let bin = env!("CARGO_BIN_EXE_lakescope");
    let mut ran = 0;
    for command in &commands {
        if command.contains("s3://") {
            continue; // needs an S3 bucket: tests/s3_scan.rs runs it against moto
        }
        let line = command
            .replace("target/release/lakescope", bin)
            .replace("/tmp/wh", &wh.path().display().to_string())
            .replace(
                "-f queries.sql",
                &format!("-f {}", queries.path().join("queries.sql").display()),
            )
            .replace(
                " rows.csv",
                &format!(" {}", queries.path().join("rows.csv").display()),
            );
        let out = Command::new("bash")
            .args(["-c", &line])
            .current_dir(&root)
            .output()
            .expect("bash");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && !stdout.trim().is_empty(),
            "README command failed ({}):\n{command}\nstdout:\n{stdout}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    assert!(ran + 1 >= commands.len(), "{ran} of {} ran", commands.len());
}

#[test]
fn the_readme_branch_examples_read_the_demo_lake_branches() {
    let bin = env!("CARGO_BIN_EXE_lakescope");
    let run = |args: &[&str]| {
        let out = Command::new(bin)
            .args(args)
            .current_dir(repo_root())
            .output()
            .expect("lakescope");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    // Java Paimon 0.9's rows of branch dev (tests/e2e/expected/paimon_pk_branch.json).
    let dev = run(&[
        "scan",
        "public/demo/warehouse",
        "java09.pk_branch",
        "--branch",
        "dev",
        "--format",
        "jsonl",
    ]);
    assert!(
        dev.contains("\"b-dev\"") && dev.lines().count() == 4,
        "{dev}"
    );
    // Tag t1 of iceberg.branched: pyiceberg's 3 rows with the tag's two columns.
    let t1 = run(&[
        "scan",
        "public/demo/warehouse",
        "iceberg.branched",
        "--tag",
        "t1",
        "--format",
        "jsonl",
    ]);
    assert_eq!(t1.lines().count(), 3, "{t1}");
    assert!(!t1.contains("score"), "{t1}");
}
