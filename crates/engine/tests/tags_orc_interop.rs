//! Interop of tags, rollback and ORC data files with Java Paimon 0.9 and pypaimon 2.1: tags
//! lakescope creates are listed and read (`scan.tag-name`) by both with the rows lakescope
//! reads; their tags read in lakescope; a lakescope rollback leaves the same snapshot/tag files
//! as Java's own rollback and reads identically everywhere (also rolling back to an expired,
//! tagged snapshot); ORC tables lakescope writes (append, primary key, CTAS into Parquet) read
//! identically. The oracles are subprocesses set up by `scripts/oracles.sh`; without them the
//! tests fail (set `LAKESCOPE_SKIP_ORACLES=1` to skip them).

use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, StringArray};
use lakescope_engine::write::Definition;
use lakescope_engine::{scan::ScanRequest, Version};
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::commit::tags::{create_tag, rollback_to, RollbackTarget};
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::TypeKind;
use lakescope_paimon::table::Table;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::LocalStore;
use lakescope_test_support::engine::canonical_rows;
use lakescope_test_support::oracles::{read_java, read_pypaimon, run, sections, Oracles, Sections};
use lakescope_test_support::tables::{batch, t, writable_types, writable_types_batch};
use lakescope_test_support::{copy_dir, temp_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// The oracles, with `TagsJava` compiled next to `ReadJava`.
fn oracles() -> Option<Oracles> {
    Some(lakescope_test_support::oracles::oracles()?.with_java(
        &here().join("TagsJava.java"),
        &Path::new(env!("CARGO_TARGET_TMPDIR")).join("tags-orc-classes"),
    ))
}

fn temp_warehouse(name: &str) -> PathBuf {
    temp_dir("lakescope-tags-orc", name)
}

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tags_orc_oracle")
}

fn java(o: &Oracles, args: &[&str]) -> String {
    let mut cmd = o.java("TagsJava");
    cmd.args(args);
    run(&mut cmd, &format!("Java Paimon 0.9 {args:?}"))
}

fn py(o: &Oracles, wh: &Path, table: &TableRef, args: &[&str]) -> String {
    let mut cmd = Command::new(&o.python);
    cmd.arg(here().join("pypaimon_tags.py"))
        .arg(wh)
        .arg(format!("{}.{}", table.database, table.table))
        .args(args);
    run(&mut cmd, &format!("pypaimon {args:?}"))
}

/// "tag <name> <id>" lines.
fn tag_lines(output: &str) -> BTreeSet<(String, i64)> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("tag "))
        .map(|l| {
            let (n, id) = l.rsplit_once(' ').unwrap();
            (n.to_string(), id.parse().unwrap())
        })
        .collect()
}

async fn ours(catalog: &Catalog, table: &TableRef, at: Version) -> Vec<String> {
    canonical_rows(catalog, table, at).await.unwrap()
}

/// Reads `label=tag` pairs (or `label=latest`) with both oracles and asserts they match
/// lakescope's rows.
async fn check_reads(
    o: &Oracles,
    catalog: &Catalog,
    wh: &Path,
    table: &TableRef,
    reads: &[(&str, &str)],
) {
    let dir = wh.join(table.path());
    let args: Vec<String> = reads.iter().map(|(l, t)| format!("{l}={t}")).collect();
    let mut jargs = vec!["read", dir.to_str().unwrap()];
    jargs.extend(args.iter().map(String::as_str));
    let j: Sections<String> = sections(&java(o, &jargs));
    let mut pargs = vec!["read"];
    pargs.extend(args.iter().map(String::as_str));
    let p: Sections<String> = sections(&py(o, wh, table, &pargs));
    for (label, tag) in reads {
        let at = if *tag == "latest" {
            Version::Latest
        } else {
            Version::Tag(tag.to_string())
        };
        let mine = ours(catalog, table, at).await;
        assert!(!mine.is_empty(), "{table} {label}: no rows");
        assert_eq!(
            j.get(*label).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "{table} {label}: Java 0.9 disagrees with lakescope"
        );
        assert_eq!(
            p.get(*label).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "{table} {label}: pypaimon 2.1 disagrees with lakescope"
        );
        eprintln!(
            "{table} {label}: {} rows agree (Java, pypaimon)",
            mine.len()
        );
    }
}

fn rows(ids: std::ops::Range<i64>) -> RecordBatch {
    batch(vec![
        (
            "id",
            Arc::new(Int64Array::from(ids.clone().collect::<Vec<_>>())) as ArrayRef,
        ),
        (
            "v",
            Arc::new(StringArray::from(
                ids.clone().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ),
        (
            "dt",
            Arc::new(StringArray::from(
                ids.map(|i| if i % 2 == 0 { "even" } else { "odd" })
                    .collect::<Vec<_>>(),
            )),
        ),
    ])
}

/// File names in `<table>/<sub>/` (sorted).
fn names(dir: &Path, sub: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir.join(sub))
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| !n.starts_with('.'))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The table's snapshot/tag state as files: names and hint contents.
fn state(dir: &Path) -> (Vec<String>, Vec<String>, Option<String>) {
    (
        names(dir, "snapshot")
            .into_iter()
            .filter(|n| n.starts_with("snapshot-"))
            .collect(),
        names(dir, "tag"),
        std::fs::read_to_string(dir.join("snapshot/LATEST")).ok(),
    )
}

#[tokio::test]
async fn tags_and_rollback_agree_with_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("tags");
    let store = Rc::new(LocalStore::new(&wh));
    let catalog = Catalog::new(store.clone());
    let env = FixedEnv::new(1_790_000_000_000, 7);
    let s = t(TypeKind::VarChar(MAX_LENGTH));
    let def = Definition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), s.clone(), None),
            ("dt".into(), s, None),
        ],
        partition_keys: vec!["dt".into()],
        ..Default::default()
    };
    let tr = catalog
        .create_table_with(&env, "ls", "tagged", &def)
        .await
        .unwrap();
    for r in [0..4, 4..7, 7..9] {
        catalog
            .insert_with(&env, &tr, &[rows(r)], None)
            .await
            .unwrap();
    }
    let dir = wh.join(tr.path());
    let dir_s = dir.to_str().unwrap();
    let table = Table::open(store.clone(), tr.path()).await.unwrap();

    // lakescope's tags: plain (t1) and with a retention (t2, Jackson's Tag JSON).
    create_tag(&table, "t1", Some(1), None, &env).await.unwrap();
    create_tag(
        &table,
        "t2",
        Some(2),
        Some(Duration::from_secs(86_400)),
        &env,
    )
    .await
    .unwrap();
    let want: BTreeSet<(String, i64)> = [("t1".to_string(), 1), ("t2".to_string(), 2)].into();
    assert_eq!(tag_lines(&java(&o, &["tags", dir_s])), want);
    assert_eq!(tag_lines(&py(&o, &wh, &tr, &["tags"])), want);
    check_reads(&o, &catalog, &wh, &tr, &[("t1", "t1"), ("t2", "t2")]).await;

    // Their tags read in lakescope: Java's with a retention, pypaimon's plain.
    java(&o, &["create-tag", dir_s, "java3", "3", "7200"]);
    py(&o, &wh, &tr, &["create-tag", "py3", "3", "-"]);
    py(&o, &wh, &tr, &["create-tag", "py2", "2", "1 h"]);
    let java3 = table.tag("java3").await.unwrap();
    // Java 0.9 re-serializes the snapshot with the fields it knows: the manifest-list sizes
    // and `uuid` lakescope writes are dropped from its tag; everything a reader needs stays.
    let s3 = table.snapshot(3).await.unwrap();
    let known = |s: &lakescope_paimon::spec::Snapshot| {
        (
            s.id,
            s.schema_id,
            s.base_manifest_list.clone(),
            s.delta_manifest_list.clone(),
            s.commit_user.clone(),
            s.commit_kind,
            s.time_millis,
            s.total_record_count,
        )
    };
    assert_eq!(known(&java3.snapshot), known(&s3));
    assert_eq!(java3.snapshot.uuid, None);
    eprintln!(
        "Java 0.9 tag file:\n{}",
        std::fs::read_to_string(dir.join("tag/tag-java3")).unwrap()
    );
    eprintln!(
        "lakescope tag file:\n{}",
        std::fs::read_to_string(dir.join("tag/tag-t2")).unwrap()
    );
    assert_eq!(
        java3.tag_time_retained.as_ref().and_then(|v| v.as_f64()),
        Some(7_200.0)
    );
    assert!(java3.tag_create_time.as_ref().is_some_and(|v| v.is_array()));
    let py2 = table.tag("py2").await.unwrap();
    assert_eq!(
        py2.tag_time_retained.as_ref().and_then(|v| v.as_f64()),
        Some(3_600.0)
    );
    assert_eq!(table.tag("py3").await.unwrap().snapshot.id, 3);
    // The tag fields have the same JSON shape as Java's (array time, decimal seconds).
    let keys = |name: &str| -> BTreeSet<String> {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("tag").join(name)).unwrap())
                .unwrap();
        v.as_object()
            .unwrap()
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, _)| k.clone())
            .collect()
    };
    let (ours_keys, java_keys) = (keys("tag-t2"), keys("tag-java3"));
    assert!(
        java_keys.is_subset(&ours_keys),
        "keys only Java writes: {:?}",
        java_keys.difference(&ours_keys).collect::<Vec<_>>()
    );
    assert!(ours_keys.contains("tagCreateTime") && ours_keys.contains("tagTimeRetained"));
    let ours_t2 = table.tag("t2").await.unwrap();
    assert_eq!(
        ours_t2
            .tag_create_time
            .as_ref()
            .map(|v| v.as_array().map(Vec::len)),
        Some(Some(7))
    );
    assert!(java3.tag_create_time.as_ref().unwrap().is_array());
    for name in ["java3", "py3", "py2"] {
        let at = ours(&catalog, &tr, Version::Tag(name.into())).await;
        let snap = table.tag(name).await.unwrap().snapshot.id;
        assert_eq!(at, ours(&catalog, &tr, Version::SnapshotId(snap)).await);
    }
    check_reads(
        &o,
        &catalog,
        &wh,
        &tr,
        &[("java3", "java3"), ("py3", "py3")],
    )
    .await;

    // Rollback to t2: our result equals Java's own rollback on a copy, file for file.
    let java_copy = wh.join("ls.db/java_copy");
    copy_dir(&dir, &java_copy);
    java(&o, &["rollback", java_copy.to_str().unwrap(), "tag:t2"]);
    let py_copy = wh.join("ls.db/py_copy");
    copy_dir(&dir, &py_copy);
    let py_ref: TableRef = "ls.py_copy".parse().unwrap();
    py(&o, &wh, &py_ref, &["rollback", "tag:t2"]);
    let rb = rollback_to(&table, RollbackTarget::Tag("t2".into()))
        .await
        .unwrap();
    assert_eq!(rb.removed_snapshots, vec![3]);
    assert_eq!(
        rb.removed_tags,
        vec!["java3".to_string(), "py3".to_string()]
    );
    assert_eq!(state(&dir), state(&java_copy), "lakescope vs Java rollback");
    assert_eq!(
        state(&dir),
        state(&py_copy),
        "lakescope vs pypaimon rollback"
    );
    assert_eq!(state(&dir).2.as_deref(), Some("2"));
    let hints = java(&o, &["hints", dir_s]);
    assert!(hints.contains("latest 2"), "{hints}");
    check_reads(
        &o,
        &catalog,
        &wh,
        &tr,
        &[("latest", "latest"), ("t1", "t1")],
    )
    .await;
    assert_eq!(
        ours(&catalog, &tr, Version::Latest).await,
        ours(&catalog, &tr, Version::Tag("t2".into())).await
    );

    // Expire snapshot 1 (as Java's expiry does: file gone, EARLIEST moved), then roll back to
    // its tag: snapshot-1 is recreated from the tag; Java's rollback on a copy agrees.
    std::fs::remove_file(dir.join("snapshot/snapshot-1")).unwrap();
    std::fs::write(dir.join("snapshot/EARLIEST"), "2").unwrap();
    let java_copy2 = wh.join("ls.db/java_copy2");
    copy_dir(&dir, &java_copy2);
    java(&o, &["rollback", java_copy2.to_str().unwrap(), "tag:t1"]);
    let py_copy2 = wh.join("ls.db/py_copy2");
    copy_dir(&dir, &py_copy2);
    let py_ref2: TableRef = "ls.py_copy2".parse().unwrap();
    py(&o, &wh, &py_ref2, &["rollback", "tag:t1"]);
    let rb = rollback_to(&table, RollbackTarget::Tag("t1".into()))
        .await
        .unwrap();
    assert!(rb.recreated);
    assert_eq!(
        state(&dir),
        state(&java_copy2),
        "lakescope vs Java rollback to expired"
    );
    let read_hint = |d: &Path| std::fs::read_to_string(d.join("snapshot/EARLIEST")).ok();
    assert_eq!(read_hint(&dir), read_hint(&java_copy2));
    // pypaimon 2.1 recreates snapshot-1 but leaves EARLIEST at the deleted snapshot 2 (Java
    // and lakescope move it to 1); readers fall back to listing, so the table still reads.
    assert_eq!(read_hint(&py_copy2).as_deref(), Some("2"));
    assert_eq!(
        state(&dir),
        state(&py_copy2),
        "lakescope vs pypaimon rollback to expired"
    );
    let hints = java(&o, &["hints", dir_s]);
    assert!(
        hints.contains("latest 1") && hints.contains("earliest 1"),
        "{hints}"
    );
    check_reads(&o, &catalog, &wh, &tr, &[("after-expired", "latest")]).await;

    // A commit after the rollback continues at snapshot 2, readable everywhere.
    catalog
        .insert_with(&env, &tr, &[rows(20..22)], None)
        .await
        .unwrap();
    assert_eq!(table.latest_snapshot_id().await.unwrap(), Some(2));
    check_reads(&o, &catalog, &wh, &tr, &[("after-commit", "latest")]).await;
    let _ = std::fs::remove_dir_all(&wh);
}

/// Reads snapshots with the shared oracles (tests/oracles) and compares with lakescope.
async fn check_snapshots(o: &Oracles, catalog: &Catalog, wh: &Path, table: &TableRef, ids: &[i64]) {
    let j = read_java(o, &wh.join(table.path()), ids);
    let p = read_pypaimon(o, wh, &format!("{}.{}", table.database, table.table), ids);
    for id in ids {
        let mine = ours(catalog, table, Version::SnapshotId(*id)).await;
        assert!(!mine.is_empty(), "{table} snapshot {id}: no rows");
        assert_eq!(
            j.get(id).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "{table} snapshot {id}: Java 0.9 disagrees with lakescope"
        );
        assert_eq!(
            p.get(id).map(|r| r.as_ref()),
            Some(Ok(&mine)),
            "{table} snapshot {id}: pypaimon 2.1 disagrees with lakescope"
        );
        eprintln!(
            "{table} snapshot {id}: {} rows agree (Java, pypaimon)",
            mine.len()
        );
    }
}

#[tokio::test]
async fn orc_tables_read_identically_in_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("orc");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 8);
    let orc = |extra: &[(&str, &str)]| {
        let mut m: BTreeMap<String, String> =
            [("file.format".to_string(), "orc".to_string())].into();
        m.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        m
    };

    // The seed: CREATE TABLE test3 (user_id BIGINT, item_id BIGINT) WITH ('file.format' = 'orc'),
    // INSERT VALUES, then CTAS into a Parquet table.
    let def = Definition {
        columns: vec![
            ("user_id".into(), t(TypeKind::BigInt), None),
            ("item_id".into(), t(TypeKind::BigInt), None),
        ],
        options: orc(&[]),
        ..Default::default()
    };
    let test3 = catalog
        .create_table_with(&env, "ls", "test3", &def)
        .await
        .unwrap();
    let values = batch(vec![
        (
            "user_id",
            Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef,
        ),
        (
            "item_id",
            Arc::new(Int64Array::from(vec![Some(100), None, Some(300)])),
        ),
    ]);
    catalog
        .insert_with(&env, &test3, &[values], None)
        .await
        .unwrap();
    catalog
        .insert_with(
            &env,
            &test3,
            &[batch(vec![(
                "user_id",
                Arc::new(Int64Array::from(vec![4])) as ArrayRef,
            )])],
            None,
        )
        .await
        .unwrap();
    check_snapshots(&o, &catalog, &wh, &test3, &[1, 2]).await;
    // Java pushes a filter down into our ORC files (which carry no ORC statistics) without
    // error and returns the matching row.
    let eq: Sections<String> = sections(&java(
        &o,
        &[
            "read-eq",
            wh.join(test3.path()).to_str().unwrap(),
            "user_id",
            "2",
        ],
    ));
    let eq = eq["eq"].as_ref().unwrap();
    assert!(
        eq.contains(&r#"{"user_id":2,"item_id":null}"#.to_string()),
        "{eq:?}"
    );
    let data = catalog
        .scan(&test3, &ScanRequest::default())
        .await
        .unwrap()
        .batches;
    let ctas_def = Definition {
        columns: def.columns.clone(),
        ..Default::default()
    };
    let copy = catalog
        .create_table_with(&env, "ls", "test3_parquet", &ctas_def)
        .await
        .unwrap();
    catalog.insert_with(&env, &copy, &data, None).await.unwrap();
    check_snapshots(&o, &catalog, &wh, &copy, &[1]).await;
    assert_eq!(
        ours(&catalog, &copy, Version::Latest).await,
        ours(&catalog, &test3, Version::Latest).await
    );

    // Every type orc-rust writes, lz4 as in Java's corpus tables.
    let types = catalog
        .create_table_with(
            &env,
            "ls",
            "orc_types",
            &Definition {
                columns: writable_types()
                    .into_iter()
                    .map(|(n, t)| (n.to_string(), t, None))
                    .collect(),
                options: orc(&[("file.compression", "lz4")]),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    catalog
        .insert_with(&env, &types, &[writable_types_batch()], None)
        .await
        .unwrap();
    check_snapshots(&o, &catalog, &wh, &types, &[1]).await;

    // Primary-key ORC table: upserts and a delete over two commits, two buckets.
    let pk = catalog
        .create_table_with(
            &env,
            "ls",
            "orc_pk",
            &Definition {
                columns: vec![
                    ("id".into(), t(TypeKind::BigInt), None),
                    ("v".into(), t(TypeKind::VarChar(MAX_LENGTH)), None),
                ],
                primary_keys: vec!["id".into()],
                options: orc(&[("bucket", "2")]),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let kv = |ids: Vec<i64>, vs: Vec<&str>, kinds: Vec<i8>| {
        batch(vec![
            ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            ("v", Arc::new(StringArray::from(vs))),
            ("_VALUE_KIND", Arc::new(Int8Array::from(kinds))),
        ])
    };
    catalog
        .insert_with(
            &env,
            &pk,
            &[kv((0..6).collect(), vec!["a"; 6], vec![0; 6])],
            None,
        )
        .await
        .unwrap();
    catalog
        .insert_with(
            &env,
            &pk,
            &[kv(vec![1, 2, 9], vec!["b", "", "c"], vec![2, 3, 0])],
            None,
        )
        .await
        .unwrap();
    check_snapshots(&o, &catalog, &wh, &pk, &[1, 2]).await;
    let _ = std::fs::remove_dir_all(&wh);
}
