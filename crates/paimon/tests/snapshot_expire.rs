//! Snapshot expiration (`snapshot.num-retained.*`, `snapshot.time-retained`,
//! `sys.expire_snapshots`): which snapshots go, that exactly the files the retained snapshots
//! and tags reference stay, that retained snapshots and tags read as before, that expired ones
//! fail with a clear error, and that an expiration failing at any storage call leaves every
//! retained snapshot readable and a rerun ends where an unfailed run ends.

use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, StringArray};
use lakescope_paimon::commit::expire::{expire_snapshots, ExpireConfig};
use lakescope_paimon::commit::tags::create_tag;
use lakescope_paimon::commit::{next_sequence_number, CommitOptions, Overwrite};
use lakescope_paimon::compact::compact;
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::snapshot::Snapshot;
use lakescope_paimon::spec::TypeKind;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::table_write::write_overwrite;
use lakescope_paimon::write::{create_table, write, FixedEnv, WriteEnv};
use lakescope_paimon::write_commit::commit_write;
use lakescope_paimon::Error;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::copy_dir;
use lakescope_test_support::faults::{FaultMode, FaultStore};
use lakescope_test_support::tables::{batch, rows, string, t};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

const PATH: &str = "db.db/t";

fn env() -> FixedEnv {
    FixedEnv::new(1_700_000_000_000, 36)
}

/// Rows `(dt, id, "v<id>-<tag>")` with row kinds (0 `+I`, 3 `-D`).
fn rows_of(dt: &str, ids: &[i64], tag: &str, kinds: &[i8]) -> RecordBatch {
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

/// A partitioned primary-key table with dynamic buckets (hash index files per commit).
fn definition(options: &[(&str, &str)]) -> TableDefinition {
    let mut all = vec![("dynamic-bucket.target-row-num", "2")];
    all.extend_from_slice(options);
    TableDefinition {
        columns: vec![
            ("dt".into(), string(), None),
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
        ],
        partition_keys: vec!["dt".into()],
        primary_keys: vec!["dt".into(), "id".into()],
        options: all
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    }
}

async fn insert(store: &Rc<dyn ObjectStore>, env: &dyn WriteEnv, b: RecordBatch, o: bool) {
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let seq = next_sequence_number(&table).await.unwrap();
    let (message, overwrite) = if o {
        let m = write_overwrite(&table, env, &[b], seq).await.unwrap();
        (m, Some(Overwrite::Dynamic))
    } else {
        (write(&table, env, &[b], seq).await.unwrap(), None)
    };
    let options = CommitOptions::for_table(&table, "expire-test").unwrap();
    commit_write(&table, env, options, message, overwrite)
        .await
        .unwrap();
}

/// Rows of snapshot `id` through a fresh handle (no cached manifests).
async fn rows_of_snapshot(store: &Rc<dyn ObjectStore>, s: &Snapshot) -> Vec<String> {
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let r = read_snapshot(&table, Some(s), &ReadRequest::default())
        .await
        .unwrap();
    rows(&r.batches)
}

/// What each snapshot read right after its commit, and each tag when it was created.
struct History {
    snapshots: BTreeMap<i64, Vec<String>>,
    tags: BTreeMap<String, Vec<String>>,
}

/// Creates the table and runs 7 commits: inserts, an upsert with a delete, a compaction (DELETE
/// entries), a dynamic overwrite, more inserts; tags `t2` at snapshot 2.
async fn build(store: &Rc<dyn ObjectStore>, env: &FixedEnv, options: &[(&str, &str)]) -> History {
    create_table(store.as_ref(), PATH, &definition(options), env)
        .await
        .unwrap();
    let mut h = History {
        snapshots: BTreeMap::new(),
        tags: BTreeMap::new(),
    };
    for step in 1..=7 {
        match step {
            1 => insert(store, env, rows_of("a", &[1, 2, 3], "1", &[0, 0, 0]), false).await,
            2 => insert(store, env, rows_of("b", &[1, 5], "2", &[0, 0]), false).await,
            3 => insert(store, env, rows_of("a", &[1, 2], "3", &[0, 3]), false).await,
            4 => {
                let table = Table::open(store.clone(), PATH).await.unwrap();
                let options = CommitOptions::for_table(&table, "expire-test").unwrap();
                compact(&table, env, options, &[]).await.unwrap().unwrap();
            }
            5 => insert(store, env, rows_of("a", &[7], "5", &[0]), true).await,
            6 => insert(store, env, rows_of("b", &[9], "6", &[0]), false).await,
            _ => insert(store, env, rows_of("a", &[8], "7", &[0]), false).await,
        }
        let table = Table::open(store.clone(), PATH).await.unwrap();
        let s = table.latest_snapshot().await.unwrap().unwrap();
        assert_eq!(s.id, step, "one snapshot per step");
        h.snapshots.insert(step, rows_of_snapshot(store, &s).await);
        if step == 2 {
            let tag = create_tag(&table, "t2", Some(2), None, env).await.unwrap();
            h.tags
                .insert("t2".into(), rows_of_snapshot(store, &tag.snapshot).await);
        }
    }
    h
}

/// Every file under the table outside `schema/`, `snapshot/` and `tag/`, relative.
fn files_on_disk(root: &Path) -> BTreeSet<String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else if let Ok(rel) = p.strip_prefix(root) {
                out.insert(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let table = root.join(PATH);
    let mut out = BTreeSet::new();
    walk(&table, &table, &mut out);
    out.retain(|f| {
        !["schema/", "snapshot/", "tag/"]
            .iter()
            .any(|d| f.starts_with(d))
    });
    out
}

/// The files the existing snapshots and the tags reference, found with the reader: manifest
/// lists and manifests, the index manifest and its files, live data files, changelog files.
async fn referenced(store: &Rc<dyn ObjectStore>) -> BTreeSet<String> {
    referenced_by(store, true).await
}

/// [`referenced`], by the snapshots only unless `with_tags`.
async fn referenced_by(store: &Rc<dyn ObjectStore>, with_tags: bool) -> BTreeSet<String> {
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let mut all: Vec<Snapshot> = table.snapshots().await.unwrap();
    if with_tags {
        let tags = table.tags().await.unwrap();
        all.extend(tags.into_iter().map(|(_, t)| t.snapshot));
    }
    let strip = |k: &str| k.strip_prefix(&format!("{PATH}/")).unwrap_or(k).to_string();
    let mut out = BTreeSet::new();
    for s in &all {
        let lists = [
            Some(&s.base_manifest_list),
            Some(&s.delta_manifest_list),
            s.changelog_manifest_list.as_ref(),
        ];
        for list in lists.into_iter().flatten() {
            out.insert(format!("manifest/{list}"));
            for m in table.manifest_list(list).await.unwrap().iter() {
                out.insert(format!("manifest/{}", m.file_name));
            }
        }
        if let Some(index) = &s.index_manifest {
            out.insert(format!("manifest/{index}"));
            for e in table.index_manifest(index).await.unwrap().iter() {
                out.insert(strip(&table.index_file_path(&e.file_name)));
            }
        }
        let p = plan(&table, s, &PartitionFilter::All).await.unwrap();
        for split in &p.splits {
            for f in &split.files {
                let path = table
                    .data_file_path(&split.partition, split.bucket, f)
                    .unwrap();
                out.insert(strip(&path));
            }
        }
    }
    out
}

async fn ids(store: &Rc<dyn ObjectStore>) -> Vec<i64> {
    let table = Table::open(store.clone(), PATH).await.unwrap();
    table.snapshot_ids().await.unwrap()
}

fn earliest_hint(dir: &Path) -> Option<String> {
    std::fs::read_to_string(dir.join(PATH).join("snapshot/EARLIEST")).ok()
}

/// Retained snapshots and tags read as they did when written.
async fn assert_reads_as_before(store: &Rc<dyn ObjectStore>, h: &History, what: &str) {
    let table = Table::open(store.clone(), PATH).await.unwrap();
    for id in table.snapshot_ids().await.unwrap() {
        let s = table.snapshot(id).await.unwrap();
        assert_eq!(
            rows_of_snapshot(store, &s).await,
            h.snapshots[&id],
            "{what}: snapshot {id}"
        );
    }
    for (name, tag) in table.tags().await.unwrap() {
        assert_eq!(
            rows_of_snapshot(store, &tag.snapshot).await,
            h.tags[&name],
            "{what}: tag {name}"
        );
    }
}

#[tokio::test]
async fn commits_expire_beyond_num_retained_max_and_keep_tagged_files() {
    let dir = tempfile::tempdir().unwrap();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let env = env();
    // The default time retention (1 h) keeps everything newer than `num-retained.max`.
    let options = [
        ("snapshot.num-retained.min", "1"),
        ("snapshot.num-retained.max", "3"),
    ];
    let h = build(&store, &env, &options).await;

    assert_eq!(ids(&store).await, vec![5, 6, 7]);
    assert_eq!(earliest_hint(dir.path()).as_deref(), Some("5"));
    // Exactly what snapshots 5..7 and tag t2 reference is left: every data file the
    // compaction and the overwrite replaced is gone unless t2 holds it, and every old
    // manifest, manifest list and hash index file is gone.
    assert_eq!(files_on_disk(dir.path()), referenced(&store).await);
    // The tag keeps data files (of snapshots 1 and 2) that no retained snapshot has.
    let tag_only: Vec<String> = referenced(&store)
        .await
        .difference(&referenced_by(&store, false).await)
        .filter(|f| f.contains("/bucket-"))
        .cloned()
        .collect();
    assert!(!tag_only.is_empty());
    assert_reads_as_before(&store, &h, "after expiration").await;

    // Expired snapshots are refused with a clear error.
    let table = Table::open(store.clone(), PATH).await.unwrap();
    match table.snapshot(3).await {
        Err(e @ Error::NotFound { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("snapshot 3"), "{msg}");
            assert!(msg.contains("expired, the earliest snapshot is 5"), "{msg}");
        }
        other => panic!("snapshot 3 should be expired: {other:?}"),
    }
}

#[tokio::test]
async fn write_only_and_time_retained_keep_snapshots() {
    for (options, kept) in [
        (
            vec![
                ("snapshot.num-retained.min", "1"),
                ("snapshot.num-retained.max", "1"),
                ("snapshot.time-retained", "1 ms"),
                ("write-only", "true"),
            ],
            (1..=7).collect::<Vec<_>>(),
        ),
        // Default time retention (1 h): the fixed clock advances milliseconds only.
        (
            vec![
                ("snapshot.num-retained.min", "1"),
                ("snapshot.num-retained.max", "100"),
            ],
            (1..=7).collect(),
        ),
        (
            vec![
                ("snapshot.num-retained.min", "1"),
                ("snapshot.num-retained.max", "1"),
                ("snapshot.time-retained", "1 ms"),
            ],
            vec![7],
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
        let h = build(&store, &env(), &options).await;
        assert_eq!(ids(&store).await, kept, "{options:?}");
        assert_reads_as_before(&store, &h, &format!("{options:?}")).await;
        assert_eq!(
            files_on_disk(dir.path()),
            referenced(&store).await,
            "{options:?}"
        );
    }
}

#[tokio::test]
async fn procedure_config_limits_and_times() {
    let dir = tempfile::tempdir().unwrap();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let h = build(&store, &env(), &[("write-only", "true")]).await;
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let time = |id: i64| {
        let table = &table;
        async move { table.snapshot(id).await.unwrap().time_millis }
    };
    let config = |older_than_millis, max_deletes| ExpireConfig {
        retain_max: i64::from(i32::MAX),
        retain_min: 1,
        older_than_millis,
        max_deletes,
    };

    // A snapshot goes only once its successor is older than `older_than`: snapshot 4 was
    // committed at that instant, so 3 stays.
    let done = expire_snapshots(&table, &config(time(4).await, 50))
        .await
        .unwrap();
    assert_eq!(done.snapshots, vec![1, 2]);
    assert_eq!(ids(&store).await, (3..=7).collect::<Vec<_>>());
    assert_eq!(earliest_hint(dir.path()).as_deref(), Some("3"));

    // At most `max_deletes` at a time.
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let done = expire_snapshots(&table, &config(i64::MAX, 1))
        .await
        .unwrap();
    assert_eq!(done.snapshots, vec![3]);

    // retain_min keeps the newest; retain_max below retain_min is refused.
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let mut c = config(i64::MAX, 50);
    c.retain_min = 2;
    assert_eq!(
        expire_snapshots(&table, &c).await.unwrap().snapshots,
        vec![4, 5]
    );
    c.retain_max = 1;
    let err = expire_snapshots(&table, &c).await.unwrap_err().to_string();
    assert!(err.contains("must not be less than retainMin"), "{err}");
    assert_eq!(ids(&store).await, vec![6, 7]);
    assert_reads_as_before(&store, &h, "after the procedure").await;
    assert_eq!(files_on_disk(dir.path()), referenced(&store).await);
}

#[tokio::test]
async fn expiration_failing_at_any_call_keeps_retained_snapshots_readable() {
    let template = tempfile::tempdir().unwrap();
    let base: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(template.path()));
    let h = build(&base, &env(), &[("write-only", "true")]).await;
    let config = ExpireConfig {
        retain_max: i64::from(i32::MAX),
        retain_min: 3,
        older_than_millis: i64::MAX,
        max_deletes: 50,
    };

    // The unfailed run: how many mutating calls, and what it leaves.
    let clean = tempfile::tempdir().unwrap();
    copy_dir(template.path(), clean.path());
    let faults = Rc::new(FaultStore::new(Rc::new(LocalStore::new(clean.path()))));
    let store: Rc<dyn ObjectStore> = faults.clone();
    let table = Table::open(store.clone(), PATH).await.unwrap();
    faults.disarm();
    expire_snapshots(&table, &config).await.unwrap();
    let calls = faults.mutations();
    let expected = files_on_disk(clean.path());
    assert!(calls > 10, "{:?}", faults.log());
    assert_eq!(ids(&store).await, vec![5, 6, 7]);

    for k in 1..=calls {
        for mode in [FaultMode::Before, FaultMode::After] {
            let dir = tempfile::tempdir().unwrap();
            copy_dir(template.path(), dir.path());
            let faults = Rc::new(FaultStore::new(Rc::new(LocalStore::new(dir.path()))));
            let store: Rc<dyn ObjectStore> = faults.clone();
            let table = Table::open(store.clone(), PATH).await.unwrap();
            faults.arm(k, mode);
            let failed = expire_snapshots(&table, &config).await;
            let call = faults.log().last().cloned().unwrap_or_default();
            assert!(failed.is_err(), "call {k} ({call}, {mode:?}) should fail");
            faults.disarm();
            let what = format!("failure at call {k} ({call}, {mode:?})");
            // Snapshots 5..=7 and the tag read as before; older ones may be half-expired.
            let table = Table::open(store.clone(), PATH).await.unwrap();
            for id in 5..=7 {
                let s = table.snapshot(id).await.unwrap();
                assert_eq!(
                    rows_of_snapshot(&store, &s).await,
                    h.snapshots[&id],
                    "{what}"
                );
            }
            let tag = table.tag("t2").await.unwrap();
            assert_eq!(
                rows_of_snapshot(&store, &tag.snapshot).await,
                h.tags["t2"],
                "{what}"
            );
            // A rerun ends where the unfailed run ended.
            expire_snapshots(&table, &config).await.unwrap();
            assert_eq!(ids(&store).await, vec![5, 6, 7], "{what}");
            assert_eq!(files_on_disk(dir.path()), expected, "{what}");
        }
    }
}
