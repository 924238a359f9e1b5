//! `--threads` of `lakescope scan` and `bench-read`, on Paimon and Iceberg tables: the rows
//! printed with several threads are the rows printed with one, in the same order; the checksum
//! run reads the same rows; 0 threads is refused by name.

mod common;

use common::{lakescope, repo_root};

fn corpus() -> String {
    repo_root()
        .join("../shared/corpus/paimon/warehouse")
        .to_string_lossy()
        .into_owned()
}

/// stdout of a successful `lakescope` run.
fn stdout_of(args: &[&str]) -> String {
    let (ok, out, err) = lakescope(args);
    assert!(ok, "lakescope {args:?} failed: {err}");
    out
}

#[test]
fn scan_prints_the_same_rows_in_the_same_order_on_every_thread_count() {
    let warehouse = corpus();
    let cases: [&[&str]; 7] = [
        &["corpus.pk_dedup"],
        &["corpus.pk_dedup", "--snapshot", "3", "--format", "table"],
        &[
            "java09.pk_compacted",
            "--columns",
            "id,dt",
            "--filter",
            "id < 7",
        ],
        &["corpus.append_fixed_bucket", "--limit", "5"],
        &["corpus.append_dt", "--snapshot", "4"],
        &["corpus.tagged", "--tag", "v1"],
        &["java09.pk_deletion_vectors"],
    ];
    for case in cases {
        let mut one: Vec<&str> = vec!["scan", &warehouse];
        one.extend_from_slice(case);
        if !case.contains(&"--format") {
            one.extend(["--format", "jsonl"]);
        }
        let single = stdout_of(&[one.as_slice(), &["--threads", "1"]].concat());
        assert!(!single.is_empty(), "{case:?}");
        for n in ["2", "3"] {
            let many = stdout_of(&[one.as_slice(), &["--threads", n]].concat());
            assert_eq!(many, single, "{case:?} --threads {n}");
        }
        // the default (every core) prints the same
        assert_eq!(stdout_of(&one), single, "{case:?} with the default threads");
    }
}

/// An Iceberg table's data files are read on the threads: the README's `scan` of the demo lake's
/// Iceberg tables prints the same rows in the same order with 1, 2 and 3 threads.
#[test]
fn scan_prints_an_iceberg_tables_rows_in_the_same_order_on_every_thread_count() {
    let demo = repo_root().join("public/demo/warehouse");
    let warehouse = demo.to_string_lossy();
    let cases: [&[&str]; 3] = [
        &["iceberg.partition_evolution"],
        &["iceberg.mor_position_deletes", "--columns", "id"],
        &["iceberg.branched", "--tag", "t1", "--limit", "3"],
    ];
    for case in cases {
        let one = [&["scan", &warehouse][..], case, &["--format", "jsonl"]].concat();
        let single = stdout_of(&[one.as_slice(), &["--threads", "1"]].concat());
        assert!(single.lines().count() > 1, "{case:?}: {single}");
        for n in ["2", "3"] {
            let many = stdout_of(&[one.as_slice(), &["--threads", n]].concat());
            assert_eq!(many, single, "{case:?} --threads {n}");
        }
    }
}

#[test]
fn bench_read_reads_the_same_rows_on_two_threads() {
    let demo = repo_root().join("public/demo/warehouse");
    for (warehouse, table) in [
        (corpus(), "java09.pk_compacted"),
        (
            demo.to_string_lossy().into_owned(),
            "iceberg.partition_evolution",
        ),
    ] {
        same_bench_read_on_two_threads(&warehouse, table);
    }
}

/// `bench-read` of `table` on 1 and 2 threads: the same rows, batches and checksum.
fn same_bench_read_on_two_threads(warehouse: &str, table: &str) {
    let line = |threads: &str| -> serde_json::Value {
        let out = stdout_of(&["bench-read", warehouse, table, "--threads", threads]);
        serde_json::from_str(out.trim()).expect("one JSON line")
    };
    let (one, two) = (line("1"), line("2"));
    assert_eq!(
        (one["threads"].as_u64(), two["threads"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(one["rows"], two["rows"]);
    assert_eq!(one["batches"], two["batches"]);
    let (a, b) = (
        one["checksum"].as_f64().unwrap(),
        two["checksum"].as_f64().unwrap(),
    );
    assert!((a - b).abs() <= 1e-9 * a.abs().max(1.0), "{a} vs {b}");
    assert!(one["rows"].as_u64().unwrap() > 0);
}

#[test]
fn zero_threads_are_refused() {
    let warehouse = corpus();
    for command in ["scan", "bench-read"] {
        let (ok, out, err) = lakescope(&[command, &warehouse, "corpus.pk_dedup", "--threads", "0"]);
        assert!(!ok && out.is_empty(), "{command}: {out}");
        assert!(
            err.contains("--threads") && err.contains("at least 1"),
            "{command}: {err}"
        );
    }
}

/// Copies the folder `from` into `to`, files and subfolders.
fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// `scan` prints rows as they are read: a data file that cannot be read fails the run (naming
/// the file, exit status not 0) after the rows read before it, which stay printed, in order.
#[test]
fn scan_prints_the_rows_before_a_failing_file_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    let table = "corpus.db/append_dt";
    copy_tree(
        &repo_root()
            .join("../shared/corpus/paimon/warehouse")
            .join(table),
        &dir.path().join(table),
    );
    let warehouse = dir.path().to_string_lossy().into_owned();
    let scan = |threads: &str| {
        let args = ["scan", &warehouse, "corpus.append_dt", "--format", "csv"];
        lakescope(&[&args[..], &["--threads", threads]].concat())
    };
    let (ok, whole, err) = scan("1");
    assert!(ok, "{err}");
    let whole: Vec<String> = whole.lines().map(str::to_string).collect();
    // the last partition in plan order is read last
    let last = whole
        .last()
        .unwrap()
        .rsplit(',')
        .next()
        .unwrap()
        .to_string();
    assert!(
        whole[1].ends_with(",2024-01-02") && last == "2024-01-05",
        "{whole:?}"
    );
    let bucket = dir.path().join(table).join("dt=2024-01-05/bucket-0");
    let file = std::fs::read_dir(&bucket).unwrap().next().unwrap().unwrap();
    std::fs::write(file.path(), b"not a parquet file").unwrap();
    let name = file.file_name().to_string_lossy().into_owned();
    let before = whole.iter().filter(|l| !l.ends_with(",2024-01-05")).count();
    for threads in ["1", "2"] {
        let (ok, out, err) = scan(threads);
        assert!(
            !ok,
            "--threads {threads}: a corrupt file did not fail the scan"
        );
        assert!(err.contains(&name), "--threads {threads}: {err}");
        let printed: Vec<&str> = out.lines().collect();
        assert!(
            !printed.is_empty()
                && whole.starts_with(&printed.iter().map(|l| l.to_string()).collect::<Vec<_>>()),
            "--threads {threads}: {printed:?}"
        );
        if threads == "1" {
            // one thread reads the splits in order: every row before the file is printed
            assert_eq!(printed.len(), before, "{printed:?}");
        }
    }
}

/// `lakescope scan … | head`: once the reader closes the pipe the scan ends quietly, with exit
/// status 0 and nothing on stderr, without reading the rest of the table.
#[test]
fn scan_ends_quietly_when_the_reader_closes_the_pipe() {
    use std::io::{BufRead, BufReader};
    let warehouse = repo_root().join("public/demo/warehouse");
    for format in ["csv", "table"] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lakescope"))
            .args(["scan", &warehouse.to_string_lossy(), "demo.events"])
            .args(["--format", format])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run lakescope");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let first: Vec<String> = (&mut lines).take(3).map(|l| l.unwrap()).collect();
        assert_eq!(first.len(), 3, "{format}");
        drop(lines);
        let out = child.wait_with_output().expect("lakescope ends");
        assert!(
            out.status.success(),
            "{format}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stderr), "", "{format}");
    }
}
