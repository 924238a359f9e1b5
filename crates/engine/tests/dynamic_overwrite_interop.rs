//! Interop of INSERT OVERWRITE on dynamic-bucket (`bucket = -1`) primary-key tables: a twin of
//! each table is overwritten by Java Paimon 0.9's own batch overwrite (SimpleHashBucketAssigner,
//! writer ignoring previous files, FileStoreCommit.overwrite) and must end with the same rows,
//! the same HASH index (partition → bucket → key hashes) and the same rows per bucket as the
//! table lakescope overwrote; Java 0.9 and pypaimon 2.1 read lakescope's snapshots with the
//! rows lakescope reads; Java's writer upserting through lakescope's rebuilt index afterwards
//! creates no duplicate key. The oracles are subprocesses set up by `scripts/oracles.sh`
//! (`DynOverwriteJava` is compiled here); without them the tests fail (set
//! `LAKESCOPE_SKIP_ORACLES=1` to skip them).

use arrow_array::RecordBatch;
use lakescope_engine::scan::TimeTravel;
use lakescope_engine::write::Overwrite;
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::Datum;
use lakescope_paimon::table::Table;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{LocalStore, ObjectStore};
use lakescope_test_support::engine::canonical_rows;
use lakescope_test_support::oracles::{read_java, read_pypaimon, run, Oracles};
use lakescope_test_support::tables::{behavior_rows, behavior_table};
use lakescope_test_support::{copy_dir, temp_dir};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

/// The oracles, with `DynOverwriteJava` compiled next to `ReadJava`.
fn oracles() -> Option<Oracles> {
    Some(
        lakescope_test_support::oracles::oracles()?.with_java(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/dynamic_overwrite_oracle/DynOverwriteJava.java"),
            &Path::new(env!("CARGO_TARGET_TMPDIR")).join("dynamic-overwrite-classes"),
        ),
    )
}

fn temp_warehouse(name: &str) -> PathBuf {
    temp_dir("lakescope-dynow", name)
}

/// Java Paimon 0.9's rows of `table_dir` at snapshot `id`.
fn java_rows(o: &Oracles, table_dir: &Path, id: i64) -> Vec<String> {
    match read_java(o, table_dir, &[id]).remove(&id) {
        Some(Ok(rows)) => rows,
        other => panic!("{} snapshot {id}: Java read {other:?}", table_dir.display()),
    }
}

/// pypaimon 2.1's rows of `db.table` at snapshot `id`.
fn pypaimon_rows(o: &Oracles, warehouse: &Path, table: &TableRef, id: i64) -> Vec<String> {
    let table_name = format!("{}.{}", table.database, table.table);
    match read_pypaimon(o, warehouse, &table_name, &[id]).remove(&id) {
        Some(Ok(rows)) => rows,
        other => panic!("{table} snapshot {id}: pypaimon read {other:?}"),
    }
}

/// Java's own writer on `table_dir`: `upsert` or `overwrite <mode>` of `rows`.
fn java_write(o: &Oracles, table_dir: &Path, command: &[&str], rows: &[String]) {
    run(
        Command::new("java")
            .arg("-cp")
            .arg(&o.java_cp)
            .arg("DynOverwriteJava")
            .arg(command[0])
            .arg(table_dir)
            .args(&command[1..])
            .args(rows),
        &format!("Java 0.9 {command:?}"),
    );
}

async fn ours(catalog: &Catalog, table: &TableRef, id: i64) -> Vec<String> {
    canonical_rows(catalog, table, TimeTravel::SnapshotId(id))
        .await
        .unwrap()
}

/// (dt, hh, user_id) of canonical rows; asserts no key appears twice.
fn unique_keys(rows: &[String]) -> BTreeSet<(String, String, i64)> {
    let mut keys = BTreeSet::new();
    for r in rows {
        let v: serde_json::Value = serde_json::from_str(r).unwrap();
        let key = (
            v["dt"].as_str().unwrap().to_string(),
            v["hh"].as_str().unwrap().to_string(),
            v["user_id"].as_i64().unwrap(),
        );
        assert!(
            keys.insert(key.clone()),
            "duplicate key {key:?} in {rows:?}"
        );
    }
    keys
}

/// The layout of a table's latest snapshot: partition → bucket → (HASH index key hashes, live
/// data rows stored in the bucket).
type Layout = BTreeMap<String, BTreeMap<i32, (BTreeSet<i32>, i64)>>;

async fn layout(warehouse: &Path, table_path: &str) -> Layout {
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(warehouse));
    let table = Table::open(store.clone(), table_path).await.unwrap();
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let types = table.current_schema().partition_types();
    let label = |bytes: &[u8]| {
        lakescope_paimon::spec::BinaryRow::decode(bytes, &types)
            .unwrap()
            .iter()
            .map(|d| match d {
                Datum::String(s) => s.clone(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join("/")
    };
    let mut out: Layout = BTreeMap::new();
    if let Some(name) = &s.index_manifest {
        for e in table.index_manifest(name).await.unwrap().iter() {
            let bytes = store
                .get(&table.index_file_path(&e.file_name))
                .await
                .unwrap();
            let hashes = bytes
                .chunks_exact(4)
                .map(|w| i32::from_be_bytes([w[0], w[1], w[2], w[3]]))
                .collect();
            let slot = out.entry(label(&e.partition)).or_default();
            assert!(slot.insert(e.bucket, (hashes, 0)).is_none(), "{table_path}");
        }
    }
    for split in plan(&table, &s, &PartitionFilter::All)
        .await
        .unwrap()
        .splits
    {
        out.entry(label(&split.partition_bytes))
            .or_default()
            .entry(split.bucket)
            .or_default()
            .1 += split.row_count();
    }
    out
}

/// Rows `(user, user * 10, behavior, dt, hh)`, as a batch and as `DynOverwriteJava` arguments.
fn rows(users: &[i64], behavior: &str, dt: &str, hh: &str) -> (RecordBatch, Vec<String>) {
    let batch = behavior_rows(users, behavior, dt, hh);
    let args = users
        .iter()
        .map(|u| format!("{u},{},{behavior},{dt},{hh}", u * 10))
        .collect();
    (batch, args)
}

/// Concatenates row groups into batches (for lakescope) and arguments (for Java).
fn all(groups: Vec<(RecordBatch, Vec<String>)>) -> (Vec<RecordBatch>, Vec<String>) {
    let mut batches = Vec::new();
    let mut args = Vec::new();
    for (b, a) in groups {
        batches.push(b);
        args.extend(a);
    }
    (batches, args)
}

/// A table lakescope writes and its twin Java writes, started from the same files.
struct Twins<'a> {
    o: &'a Oracles,
    wh: PathBuf,
    catalog: Catalog,
    env: FixedEnv,
    ours: TableRef,
    java: TableRef,
}

impl Twins<'_> {
    fn dir(&self, t: &TableRef) -> PathBuf {
        self.wh.join(t.path())
    }

    /// lakescope overwrites ours, Java overwrites the twin (`mode`: dynamic, all, dt=..,hh=..).
    async fn overwrite(
        &self,
        overwrite: Overwrite,
        mode: &str,
        groups: Vec<(RecordBatch, Vec<String>)>,
    ) {
        let (batches, args) = all(groups);
        self.catalog
            .insert_with(&self.env, &self.ours, &batches, Some(overwrite))
            .await
            .unwrap();
        java_write(self.o, &self.dir(&self.java), &["overwrite", mode], &args);
    }

    /// Java's writer upserts the same rows into both tables.
    fn java_upsert(&self, groups: Vec<(RecordBatch, Vec<String>)>) {
        let (_, args) = all(groups);
        for t in [&self.ours, &self.java] {
            java_write(self.o, &self.dir(t), &["upsert"], &args);
        }
    }

    /// Snapshot `id` reads the same everywhere (pypaimon too when `pypaimon`), and both tables'
    /// HASH index and rows per bucket are identical; returns the rows.
    async fn check(&self, id: i64, pypaimon: bool) -> Vec<String> {
        let mine = ours(&self.catalog, &self.ours, id).await;
        assert_eq!(
            java_rows(self.o, &self.dir(&self.ours), id),
            mine,
            "{} snapshot {id}: Java 0.9 disagrees with lakescope",
            self.ours
        );
        if pypaimon {
            assert_eq!(
                pypaimon_rows(self.o, &self.wh, &self.ours, id),
                mine,
                "{} snapshot {id}: pypaimon 2.1 disagrees with lakescope",
                self.ours
            );
        }
        assert_eq!(
            java_rows(self.o, &self.dir(&self.java), id),
            mine,
            "snapshot {id}: Java's own overwrite of the twin reads differently"
        );
        assert_eq!(
            layout(&self.wh, &self.ours.path()).await,
            layout(&self.wh, &self.java.path()).await,
            "snapshot {id}: HASH index / bucket layout differs from Java's"
        );
        unique_keys(&mine);
        eprintln!("{} snapshot {id}: {} rows agree", self.ours, mine.len());
        mine
    }
}

async fn twins<'a>(
    o: &'a Oracles,
    name: &str,
    partitioned: bool,
    first: Vec<(RecordBatch, Vec<String>)>,
) -> Twins<'a> {
    let wh = temp_warehouse(name);
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 99);
    let ours = catalog
        .create_table_with(&env, "w", name, &behavior_table(partitioned))
        .await
        .unwrap();
    let (batches, _) = all(first);
    catalog
        .insert_with(&env, &ours, &batches, None)
        .await
        .unwrap();
    let java: TableRef = format!("w.{name}_java").parse().unwrap();
    copy_dir(&wh.join(ours.path()), &wh.join(java.path()));
    Twins {
        o,
        wh,
        catalog,
        env,
        ours,
        java,
    }
}

#[tokio::test]
async fn partitioned_overwrites_match_java_and_keep_keys_unique() {
    let Some(o) = oracles() else { return };
    let t = twins(
        &o,
        "test_p",
        true,
        vec![
            rows(&[1, 2, 3, 4, 5], "pv", "d1", "1"),
            rows(&[1, 2, 3], "pv", "d1", "2"),
            rows(&[7, 8], "pv", "d2", "1"),
        ],
    )
    .await;
    assert_eq!(t.check(1, true).await.len(), 10);

    // INSERT OVERWRITE test_p SELECT ...: d1/1 and the new d3/1 replaced, d1/2 and d2/1 kept.
    t.overwrite(
        Overwrite::Dynamic,
        "dynamic",
        vec![
            rows(&[5, 6, 9], "ow", "d1", "1"),
            rows(&[1], "ow", "d3", "1"),
        ],
    )
    .await;
    let r2 = t.check(2, true).await;
    assert_eq!(r2.len(), 3 + 3 + 2 + 1);
    let l2 = layout(&t.wh, &t.ours.path()).await;
    assert_eq!(
        l2["d1/1"].len(),
        2,
        "3 keys from an empty index: buckets 0 and 1"
    );

    // INSERT OVERWRITE test_p PARTITION (dt='d1', hh='2') SELECT ...
    let spec = vec![
        ("dt".to_string(), Datum::String("d1".into())),
        ("hh".to_string(), Datum::String("2".into())),
    ];
    t.overwrite(
        Overwrite::Static(spec),
        "dt=d1,hh=2",
        vec![rows(&[3, 4], "st", "d1", "2")],
    )
    .await;
    let r3 = t.check(3, true).await;
    assert_eq!(r3.len(), 3 + 2 + 2 + 1);
    assert_eq!(layout(&t.wh, &t.ours.path()).await["d1/2"].len(), 1);

    // Java's writer upserts old and new keys through lakescope's rebuilt index.
    t.java_upsert(vec![
        rows(&[1, 2, 3, 4, 5, 6], "ju", "d1", "1"),
        rows(&[1, 2, 3, 4, 5], "ju", "d1", "2"),
        rows(&[7, 10], "ju", "d2", "1"),
        rows(&[1, 2], "ju", "d3", "1"),
    ]);
    // (pypaimon 2.1 cannot read the Java 0.9 manifests from here on.)
    let r4 = t.check(4, false).await;
    assert_eq!(r4.len(), 7 + 5 + 3 + 2, "{r4:?}");
    assert_eq!(
        r4.iter().filter(|l| l.contains("\"ju\"")).count(),
        6 + 5 + 2 + 2
    );

    // INSERT OVERWRITE test_p /*+ OPTIONS('dynamic-partition-overwrite'='false') */
    // SELECT * FROM test_p WHERE false: everything, index included, is gone.
    t.overwrite(Overwrite::Static(Vec::new()), "all", Vec::new())
        .await;
    assert!(t.check(5, false).await.is_empty());
    assert!(layout(&t.wh, &t.ours.path()).await.is_empty());

    // Java upserts into the emptied table, then lakescope upserts over Java's index.
    t.java_upsert(vec![rows(&[1, 2, 3], "again", "d1", "1")]);
    assert_eq!(t.check(6, false).await.len(), 3);
    let (batch, _) = rows(&[3, 4], "ls", "d1", "1");
    t.catalog
        .insert_with(&t.env, &t.ours, &[batch], None)
        .await
        .unwrap();
    let r7 = ours(&t.catalog, &t.ours, 7).await;
    assert_eq!(java_rows(&o, &t.dir(&t.ours), 7), r7);
    assert_eq!(unique_keys(&r7).len(), 4);
    let _ = std::fs::remove_dir_all(&t.wh);
}

#[tokio::test]
async fn unpartitioned_overwrite_matches_java_and_keeps_keys_unique() {
    let Some(o) = oracles() else { return };
    let t = twins(
        &o,
        "test",
        false,
        vec![
            rows(&[1, 3], "order", "2023-07-01", "1"),
            rows(&[2, 4, 5], "pay", "2023-07-01", "2"),
        ],
    )
    .await;
    assert_eq!(t.check(1, true).await.len(), 5);
    // INSERT OVERWRITE test VALUES (3, 30, 'pay', '2023-07-01', '2').
    t.overwrite(
        Overwrite::Dynamic,
        "dynamic",
        vec![rows(&[3], "pay", "2023-07-01", "2")],
    )
    .await;
    assert_eq!(t.check(2, true).await.len(), 1);
    let l2 = layout(&t.wh, &t.ours.path()).await;
    assert_eq!(l2[""].len(), 1, "{l2:?}");
    t.java_upsert(vec![
        rows(&[1, 3], "ju", "2023-07-01", "1"),
        rows(&[2, 3, 4], "ju", "2023-07-01", "2"),
    ]);
    let r3 = t.check(3, false).await;
    assert_eq!(r3.len(), 5, "{r3:?}");
    let _ = std::fs::remove_dir_all(&t.wh);
}
