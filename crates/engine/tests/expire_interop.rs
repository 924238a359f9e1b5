//! Interop of snapshot expiration with Java Paimon 0.9 and pypaimon 2.1: `CALL
//! sys.expire_snapshots` in a SQL session and Java's own `ExpireSnapshots` on a copy of the same
//! table leave exactly the same files, step by step (a `max_deletes` limit, then `retain_min`),
//! and both oracles read every retained snapshot and the tags as lakescope does. A table whose
//! options let lakescope's commits expire snapshots by themselves reads identically too. The
//! oracles are subprocesses set up by `scripts/oracles.sh` (`TagsJava` of tags_orc_interop.rs is
//! compiled here); without them the tests fail (set `LAKESCOPE_SKIP_ORACLES=1` to skip them).

use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, StringArray};
use lakescope_engine::session::Session;
use lakescope_engine::write::Definition;
use lakescope_engine::Version;
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::commit::tags::create_tag;
use lakescope_paimon::commit::Overwrite;
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::TypeKind;
use lakescope_paimon::table::Table;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::LocalStore;
use lakescope_test_support::engine::canonical_rows;
use lakescope_test_support::engine::{local_session, sql};
use lakescope_test_support::oracles::{read_java, read_pypaimon, run, sections, Oracles, Sections};
use lakescope_test_support::tables::{batch, t};
use lakescope_test_support::{copy_dir, temp_dir};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::Arc;

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tags_orc_oracle")
}

/// The oracles, with `TagsJava` (tags, rollback, expire) compiled next to `ReadJava`.
fn oracles() -> Option<Oracles> {
    Some(lakescope_test_support::oracles::oracles()?.with_java(
        &here().join("TagsJava.java"),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("expire-classes"),
    ))
}

fn java(o: &Oracles, args: &[&str]) -> String {
    let mut cmd = o.java("TagsJava");
    cmd.args(args);
    run(&mut cmd, &format!("Java Paimon 0.9 {args:?}"))
}

/// Rows `(dt, id, v)` with row kinds (0 `+I`, 3 `-D`).
fn rows(dt: &str, ids: &[i64], tag: &str, kinds: &[i8]) -> RecordBatch {
    batch(vec![
        (
            "dt",
            Arc::new(StringArray::from(vec![dt; ids.len()])) as ArrayRef,
        ),
        ("id", Arc::new(Int64Array::from(ids.to_vec()))),
        (
            "v",
            Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("v{i}-{tag}"))
                    .collect::<Vec<_>>(),
            )),
        ),
        ("_VALUE_KIND", Arc::new(Int8Array::from(kinds.to_vec()))),
    ])
}

fn definition(options: &[(&str, &str)]) -> Definition {
    let s = t(TypeKind::VarChar(MAX_LENGTH));
    Definition {
        columns: vec![
            ("dt".into(), s.clone(), None),
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), s, None),
        ],
        partition_keys: vec!["dt".into()],
        primary_keys: vec!["dt".into(), "id".into()],
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    }
}

/// Eight snapshots: inserts with a delete, compactions, a dynamic overwrite; `tags` of
/// snapshots 2 and 5 (t2, t5).
async fn eight_snapshots(
    catalog: &Catalog,
    session: &mut Session,
    env: &FixedEnv,
    table: &TableRef,
    tags: &[&str],
) {
    let commits: [(&str, &[i64], &[i8], bool); 6] = [
        ("a", &[1, 2, 3], &[0, 0, 0], false),
        ("b", &[1, 5], &[0, 0], false),
        ("a", &[1, 2], &[0, 3], false),
        ("a", &[7], &[0], true),
        ("b", &[9], &[0], false),
        ("a", &[8, 3], &[0, 3], false),
    ];
    for (i, (dt, ids, kinds, overwrite)) in commits.into_iter().enumerate() {
        let o = overwrite.then_some(Overwrite::Dynamic);
        let b = rows(dt, ids, &i.to_string(), kinds);
        catalog.insert_with(env, table, &[b], o).await.unwrap();
        if i == 2 || i == 5 {
            let m = sql(session, &format!("CALL sys.compact('{table}')")).await;
            assert!(m.contains("COMPACT"), "{m}");
        }
    }
    let t = Table::open(catalog.store().unwrap().clone(), table.path())
        .await
        .unwrap();
    assert_eq!(t.snapshot_ids().await.unwrap(), (1..=8).collect::<Vec<_>>());
    for tag in tags {
        let id = tag[1..].parse().unwrap();
        create_tag(&t, tag, Some(id), None, env).await.unwrap();
    }
}

/// Every file under the table directory, relative, sorted (hints included).
fn files(dir: &Path) -> BTreeSet<String> {
    fn walk(d: &Path, root: &Path, out: &mut BTreeSet<String>) {
        for e in std::fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                out.insert(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(dir, dir, &mut out);
    out
}

/// Both oracles read every existing snapshot and tag `tags` as lakescope does.
async fn check_reads(o: &Oracles, catalog: &Catalog, wh: &Path, table: &TableRef, tags: &[&str]) {
    let t = Table::open(catalog.store().unwrap().clone(), table.path())
        .await
        .unwrap();
    let ids = t.snapshot_ids().await.unwrap();
    let name = format!("{}.{}", table.database, table.table);
    let j = read_java(o, &wh.join(table.path()), &ids);
    let p = read_pypaimon(o, wh, &name, &ids);
    for id in &ids {
        let mine = canonical_rows(catalog, table, Version::SnapshotId(*id))
            .await
            .unwrap();
        assert_eq!(
            j.get(id).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "{table} snapshot {id}: Java 0.9"
        );
        assert_eq!(
            p.get(id).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "{table} snapshot {id}: pypaimon 2.1"
        );
    }
    if tags.is_empty() {
        eprintln!("{table}: snapshots {ids:?} agree (Java 0.9, pypaimon 2.1)");
        return;
    }
    let dir = wh.join(table.path());
    let mut jargs = vec!["read".to_string(), dir.display().to_string()];
    jargs.extend(tags.iter().map(|t| format!("{t}={t}")));
    let jargs: Vec<&str> = jargs.iter().map(String::as_str).collect();
    let jt: Sections<String> = sections(&java(o, &jargs));
    let mut cmd = Command::new(&o.python);
    cmd.arg(here().join("pypaimon_tags.py"))
        .arg(wh)
        .arg(&name)
        .arg("read")
        .args(tags.iter().map(|t| format!("{t}={t}")));
    let pt: Sections<String> = sections(&run(&mut cmd, "pypaimon read tags"));
    for tag in tags {
        let mine = canonical_rows(catalog, table, Version::Tag(tag.to_string()))
            .await
            .unwrap();
        assert!(!mine.is_empty(), "{table} tag {tag}: no rows");
        assert_eq!(
            jt.get(*tag).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "tag {tag}: Java"
        );
        assert_eq!(
            pt.get(*tag).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "tag {tag}: pypaimon"
        );
    }
    eprintln!("{table}: snapshots {ids:?} and tags {tags:?} agree (Java 0.9, pypaimon 2.1)");
}

fn session() -> Session {
    local_session(1_790_000_100_000, 37)
}

#[tokio::test]
async fn expire_snapshots_leaves_the_files_java_leaves() {
    let Some(o) = oracles() else { return };
    let wh = temp_dir("lakescope-expire", "procedure");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 36);
    let mut session = session();
    session
        .open_warehouse("lake", &wh.display().to_string())
        .await
        .unwrap();
    // Fixed buckets with tags protecting files; dynamic buckets (hash index files) without.
    // Commits must not expire anything here (write-only): the procedure and Java do.
    let tables: [(&str, &str, &[&str]); 2] = [("ex", "2", &["t2", "t5"]), ("dyn", "-1", &[])];
    for (name, bucket, tags) in tables {
        let def = definition(&[("bucket", bucket), ("write-only", "true")]);
        let tr = catalog
            .create_table_with(&env, "ls", name, &def)
            .await
            .unwrap();
        eight_snapshots(&catalog, &mut session, &env, &tr, tags).await;
        let dir = wh.join(tr.path());
        let twin = wh.join(format!("ls.db/{name}_twin"));
        copy_dir(&dir, &twin);
        let twin_s = twin.display().to_string();
        let before = files(&dir).len();

        // Two snapshots at most (max_deletes), then all but the newest four, then all but two.
        let steps = [
            (
                "retain_min => 4, max_deletes => 2",
                ["2147483647", "4", "2"],
            ),
            ("retain_min => 4", ["2147483647", "4", "50"]),
            ("retain_min => 2", ["2147483647", "2", "50"]),
        ];
        for (args, java_args) in steps {
            let m = sql(
                &mut session,
                &format!(
                    "CALL sys.expire_snapshots(`table` => 'ls.{name}', {args}, older_than => '2100-01-01 00:00:00')"
                ),
            )
            .await;
            let mut jargs = vec!["expire", twin_s.as_str()];
            jargs.extend(java_args);
            let j = java(&o, &jargs);
            eprintln!("{name} {args}: lakescope: {m}; Java: {}", j.trim());
            assert_eq!(
                files(&dir),
                files(&twin),
                "{name} {args}: lakescope vs Java 0.9"
            );
            check_reads(&o, &catalog, &wh, &tr, tags).await;
        }
        let t = Table::open(catalog.store().unwrap().clone(), tr.path())
            .await
            .unwrap();
        assert_eq!(t.snapshot_ids().await.unwrap(), vec![7, 8]);
        let hints = java(&o, &["hints", &dir.display().to_string()]);
        assert!(hints.contains("earliest 7"), "{hints}");
        eprintln!("{name}: {before} files before, {} after", files(&dir).len());
    }
    let _ = std::fs::remove_dir_all(&wh);
}

#[tokio::test]
async fn commits_expire_by_the_tables_options_and_read_identically() {
    let Some(o) = oracles() else { return };
    let wh = temp_dir("lakescope-expire", "commits");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 38);
    let mut session = session();
    session
        .open_warehouse("lake", &wh.display().to_string())
        .await
        .unwrap();
    let def = definition(&[
        ("bucket", "2"),
        ("snapshot.num-retained.min", "1"),
        ("snapshot.num-retained.max", "3"),
    ]);
    let tr = catalog
        .create_table_with(&env, "ls", "auto", &def)
        .await
        .unwrap();
    // Tags of snapshots 2 and 5 cannot be created once those expired: tag them as they commit.
    let commits: [(&str, &[i64], &[i8], bool); 6] = [
        ("a", &[1, 2, 3], &[0, 0, 0], false),
        ("b", &[1, 5], &[0, 0], false),
        ("a", &[1, 2], &[0, 3], false),
        ("a", &[7], &[0], true),
        ("b", &[9], &[0], false),
        ("a", &[8, 3], &[0, 3], false),
    ];
    let t = Table::open(catalog.store().unwrap().clone(), tr.path())
        .await
        .unwrap();
    for (i, (dt, ids, kinds, overwrite)) in commits.into_iter().enumerate() {
        let o = overwrite.then_some(Overwrite::Dynamic);
        let b = rows(dt, ids, &i.to_string(), kinds);
        let done = catalog.insert_with(&env, &tr, &[b], o).await.unwrap();
        if i == 1 {
            create_tag(&t, "t2", Some(done.snapshot.id), None, &env)
                .await
                .unwrap();
        }
        if i == 2 {
            sql(&mut session, "CALL sys.compact('ls.auto')").await;
        }
    }
    // The default snapshot.time-retained (1 h) keeps all but those beyond num-retained.max.
    assert_eq!(t.snapshot_ids().await.unwrap(), vec![5, 6, 7]);
    check_reads(&o, &catalog, &wh, &tr, &["t2"]).await;
    let hints = java(&o, &["hints", &wh.join(tr.path()).display().to_string()]);
    assert!(hints.contains("earliest 5"), "{hints}");
    let _ = std::fs::remove_dir_all(&wh);
}
