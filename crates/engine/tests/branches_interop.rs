//! Paimon branches, read: a table whose branches pypaimon 2.1 wrote
//! (tests/oracles/write_branches_pypaimon.py: a branch from a tag whose schema then gained a
//! column, an empty branch), read by lakescope at each branch's head, its snapshots and tags, and
//! compared with pypaimon 2.1's and Java Paimon 0.9's reads (tests/oracles/BranchJava.java,
//! `FileStoreTable.switchToBranch`). Also `$branches`, a branch's system tables, the errors for a
//! missing branch, and the refusal of writes to a branch (nothing lands on main).
//!
//! The oracles are subprocesses set up by `scripts/oracles.sh`; without them the test fails (set
//! `LAKESCOPE_SKIP_ORACLES=1` to skip it).

use arrow_array::{Int32Array, RecordBatch, StringArray};
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::engine::canonical_rows;
use lakescope_test_support::oracles::{oracles, run, sections, Oracles, Sections};
use lakescope_test_support::{repo, temp_dir};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::Arc;

/// The warehouse pypaimon wrote, and pypaimon's reads by label (see the script).
fn fixture(o: &Oracles, name: &str) -> (PathBuf, Sections<String>) {
    let wh = temp_dir("lakescope-branches", name);
    let out = run(
        Command::new(&o.python)
            .arg(repo().join("tests/oracles/write_branches_pypaimon.py"))
            .arg(&wh),
        "pypaimon 2.1 writing branches",
    );
    (wh, sections(&out))
}

fn java(o: &Oracles) -> Oracles {
    let classes = std::env::temp_dir().join("lakescope-branch-java-classes");
    Oracles {
        python: o.python.clone(),
        java_cp: o.java_cp.clone(),
    }
    .with_java(&repo().join("tests/oracles/BranchJava.java"), &classes)
}

/// Java Paimon 0.9's reads of `branch` at `versions` (latest, ids, tag:<name>).
fn read_java(o: &Oracles, table_dir: &Path, branch: &str, versions: &[&str]) -> Sections<String> {
    let mut cmd = o.java("BranchJava");
    cmd.arg("read").arg(table_dir).arg(branch).args(versions);
    sections(&run(&mut cmd, "Java Paimon 0.9 reading a branch"))
}

fn table(name: &str) -> TableRef {
    name.parse().unwrap()
}

fn catalog(wh: &Path) -> Catalog {
    Catalog::new(Rc::new(LocalStore::new(wh)) as Rc<dyn ObjectStore>)
}

async fn ours(catalog: &Catalog, name: &str, at: Version) -> Result<Vec<String>, String> {
    canonical_rows(catalog, &table(name), at).await
}

#[tokio::test(flavor = "current_thread")]
async fn branches_read_as_pypaimon_and_java_read_them() {
    let Some(o) = oracles() else { return };
    let o = java(&o);
    let (wh, py) = fixture(&o, "read");
    let c = catalog(&wh);
    let dir = wh.join("br.db/t");
    let j_dev = read_java(&o, &dir, "dev", &["latest", "1", "2", "tag:t1", "tag:d2"]);
    let j_main = read_java(&o, &dir, "main", &["latest"]);
    let j_empty = read_java(&o, &dir, "empty", &["latest"]);
    let label = |l: &str| l.to_string();

    // main: the table itself, whichever way it is named
    let main = ours(&c, "br.t", Version::Latest).await;
    assert_eq!(main, py[&label("main")]);
    assert_eq!(main, j_main[&label("latest")]);
    assert_eq!(ours(&c, "br.t", Version::Branch("main".into())).await, main);
    assert_eq!(ours(&c, "br.t$branch_main", Version::Latest).await, main);

    // dev's head, with dev's own latest schema (a column main does not have)
    let dev = ours(&c, "br.t", Version::Branch("dev".into())).await;
    assert_eq!(dev, py[&label("dev")], "dev vs pypaimon");
    assert_eq!(dev, j_dev[&label("latest")], "dev vs Java");
    assert!(dev.as_ref().unwrap()[0].contains("\"extra\":10"), "{dev:?}");
    assert_eq!(ours(&c, "br.t$branch_dev", Version::Latest).await, dev);
    assert_eq!(
        ours(&c, "br.t$branch_dev", Version::Branch("dev".into())).await,
        dev
    );

    // dev's snapshots by id, each with its own schema: 1 (copied from main's tag t1) and 2
    let dev1 = ours(&c, "br.t$branch_dev", Version::SnapshotId(1)).await;
    assert_eq!(dev1, py[&label("dev@1")]);
    assert_eq!(dev1, j_dev[&label("1")]);
    assert_eq!(
        ours(&c, "br.t$branch_dev", Version::SnapshotId(2)).await,
        j_dev[&label("2")]
    );
    // main's snapshot 2 is another one
    assert_ne!(
        ours(&c, "br.t", Version::SnapshotId(2)).await,
        j_dev[&label("2")]
    );

    // dev's tags: t1 (copied with the branch) and d2 (made on dev)
    let t1 = ours(&c, "br.t$branch_dev", Version::Tag("t1".into())).await;
    assert_eq!(t1, py[&label("dev@tag:t1")]);
    assert_eq!(t1, j_dev[&label("tag:t1")]);
    let d2 = ours(&c, "br.t$branch_dev", Version::Tag("d2".into())).await;
    assert_eq!(d2, py[&label("dev@tag:d2")]);
    assert_eq!(d2, dev);
    // Recorded: Java 0.9 does not find a tag that only the branch has (its time travel
    // answers "Tag 'd2' doesn't exist."); pypaimon 2.1 reads it from branch/branch-dev/tag/,
    // and so does lakescope.
    let java_d2 = j_dev[&label("tag:d2")].as_ref().unwrap_err();
    assert!(java_d2.contains("Tag 'd2' doesn't exist"), "{java_d2}");
    // main has no tag d2
    let e = ours(&c, "br.t", Version::Tag("d2".into()))
        .await
        .unwrap_err();
    assert!(e.contains("tag 'd2'"), "{e}");

    // an empty branch: main's latest schema, no snapshot, no rows
    let empty = ours(&c, "br.t$branch_empty", Version::Latest).await;
    assert_eq!(empty, Ok(Vec::new()));
    assert_eq!(empty, py[&label("empty")]);
    assert_eq!(empty, j_empty[&label("latest")]);
}

#[tokio::test(flavor = "current_thread")]
async fn branches_table_and_a_branch_s_system_tables() {
    let Some(o) = oracles() else { return };
    let o = java(&o);
    let (wh, _) = fixture(&o, "system");
    let c = catalog(&wh);
    // $branches: Java 0.9's BranchesTable, create_time aside (Java: the folder's modification
    // time; NULL here, object stores list no folder times)
    let mut cmd = o.java("BranchJava");
    cmd.arg("branches").arg(wh.join("br.db/t"));
    let java_branches = sections::<String>(&run(&mut cmd, "Java $branches"));
    let ours_branches = c
        .scan(&table("br.t$branches"), &ScanRequest::default())
        .await
        .unwrap();
    let lines = lakescope_engine::canonical::batches_to_lines(&ours_branches.batches).unwrap();
    let without_time: Vec<String> = lines
        .iter()
        .map(|l| {
            assert!(l.ends_with(",\"create_time\":null}"), "{l}");
            l.replace(",\"create_time\":null}", "}")
        })
        .collect();
    assert_eq!(
        Ok(lakescope_test_support::oracles::normalize(without_time)),
        java_branches[&"branches".to_string()]
    );
    // a branch's own snapshots, schemas and tags, as Java 0.9's SnapshotManager, SchemaManager
    // and TagManager list them for that branch
    let project = |name: String, cols: &[&str]| {
        let c = &c;
        let cols: Vec<String> = cols.iter().map(|s| s.to_string()).collect();
        async move {
            let out = c
                .scan(
                    &table(&name),
                    &ScanRequest {
                        columns: Some(cols),
                        ..Default::default()
                    },
                )
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let lines = lakescope_engine::canonical::batches_to_lines(&out.batches).unwrap();
            Ok(lakescope_test_support::oracles::normalize(lines))
        }
    };
    for branch in ["main", "dev", "empty"] {
        let mut cmd = o.java("BranchJava");
        cmd.arg("meta").arg(wh.join("br.db/t")).arg(branch);
        let java_meta = sections::<String>(&run(&mut cmd, "Java branch metadata"));
        let name = |system: &str| match branch {
            "main" => format!("br.t${system}"),
            b => format!("br.t$branch_{b}${system}"),
        };
        for (system, cols) in [
            ("snapshots", &["snapshot_id", "schema_id"][..]),
            ("schemas", &["schema_id"][..]),
            ("tags", &["tag_name"][..]),
        ] {
            assert_eq!(
                project(name(system), cols).await,
                java_meta[&system.to_string()],
                "{branch} ${system}"
            );
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_missing_branch_and_writes_to_a_branch_are_errors() {
    let Some(o) = oracles() else { return };
    let (wh, _) = fixture(&o, "errors");
    let c = catalog(&wh);
    for (name, at) in [
        ("br.t", Version::Branch("nope".into())),
        ("br.t$branch_nope", Version::Latest),
        ("br.t$branch_nope$snapshots", Version::Latest),
    ] {
        let e = ours(&c, name, at).await.unwrap_err();
        assert!(
            e.contains("branch 'nope'") && e.contains("br.db/t") && e.contains("dev, empty"),
            "{name}: {e}"
        );
    }
    let e = ours(&c, "br.t$branch_dev", Version::Branch("empty".into()))
        .await
        .unwrap_err();
    assert!(e.contains("'dev'") && e.contains("'empty'"), "{e}");
    let e = ours(&c, "br.missing", Version::Branch("dev".into()))
        .await
        .unwrap_err();
    assert!(
        e.contains("br.db/missing") && !e.contains("branch 'dev'"),
        "{e}"
    );

    // Writes to a branch are refused, at the catalog and in the core, and nothing lands on main.
    let main_before = c
        .open_table(&table("br.t"))
        .await
        .unwrap()
        .snapshot_ids()
        .await
        .unwrap();
    let rows = RecordBatch::try_from_iter([
        ("id", Arc::new(Int32Array::from(vec![9])) as _),
        ("v", Arc::new(StringArray::from(vec!["z"])) as _),
    ])
    .unwrap();
    let env = FixedEnv::new(1_700_000_000_000, 7);
    let e = c
        .insert_with(
            &env,
            &table("br.t$branch_dev"),
            std::slice::from_ref(&rows),
            None,
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("writing to branch 'dev'"), "{e}");
    let e = c
        .insert_with(
            &env,
            &table("br.t$snapshots"),
            std::slice::from_ref(&rows),
            None,
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("read-only"), "{e}");
    let dev = Table::open_branch(c.store().unwrap().clone(), "br.db/t", "empty")
        .await
        .unwrap();
    let e = lakescope_engine::write::insert_into_table(&env, &dev, &[rows], None)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("branch 'empty'") && e.contains("only to the main branch"),
        "{e}"
    );
    let e = lakescope_paimon::commit::tags::create_tag(&dev, "x", None, None, &env)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("creating a tag on branch 'empty'"), "{e}");
    let main_after = c
        .open_table(&table("br.t"))
        .await
        .unwrap()
        .snapshot_ids()
        .await
        .unwrap();
    assert_eq!(main_before, main_after);
    assert!(
        Table::open_branch(c.store().unwrap().clone(), "br.db/t", "empty")
            .await
            .unwrap()
            .snapshot_ids()
            .await
            .unwrap()
            .is_empty()
    );
}
