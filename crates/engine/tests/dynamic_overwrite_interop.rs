//! Interop of INSERT OVERWRITE on dynamic-bucket (`bucket = -1`) primary-key tables: a twin of
//! each table is overwritten by Java Paimon 0.9's own batch overwrite (SimpleHashBucketAssigner,
//! writer ignoring previous files, FileStoreCommit.overwrite) and must end with the same rows,
//! the same HASH index (partition → bucket → key hashes) and the same rows per bucket as the
//! table lakescope overwrote; Java 0.9 and pypaimon 2.1 read lakescope's snapshots with the
//! rows lakescope reads; Java's writer upserting through lakescope's rebuilt index afterwards
//! creates no duplicate key. Cross-partition upsert tables (bucket = -1, primary key without
//! the partition fields) are written by lakescope and, on a twin, by Java's global-index steps
//! (`DynOverwriteJava cross`): keys moving partitions, updates and deletes read the same
//! everywhere with the same rows per bucket, and Java commits on lakescope's table keep each
//! key once. The oracles are subprocesses set up by `scripts/oracles.sh`
//! (`DynOverwriteJava` is compiled here); without them the tests fail (set
//! `LAKESCOPE_SKIP_ORACLES=1` to skip them).

use arrow_array::{Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field};
use lakescope_engine::write::Overwrite;
use lakescope_engine::Version;
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
use std::rc::Rc;
use std::sync::Arc;

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
        o.java("DynOverwriteJava")
            .arg(command[0])
            .arg(table_dir)
            .args(&command[1..])
            .args(rows),
        &format!("Java 0.9 {command:?}"),
    );
}

async fn ours(catalog: &Catalog, table: &TableRef, id: i64) -> Vec<String> {
    canonical_rows(catalog, table, Version::SnapshotId(id))
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

/// `rows` with a `_VALUE_KIND` column of `kind` (`-D`, `+U`...), as lakescope's and Java's input.
fn kind_rows(
    kind: &str,
    users: &[i64],
    behavior: &str,
    dt: &str,
    hh: &str,
) -> (RecordBatch, Vec<String>) {
    let (batch, args) = rows(users, behavior, dt, hh);
    let code: i8 = match kind {
        "+I" => 0,
        "-U" => 1,
        "+U" => 2,
        "-D" => 3,
        other => panic!("row kind {other}"),
    };
    let mut fields: Vec<Field> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.push(Field::new("_VALUE_KIND", ArrowType::Int8, false));
    let mut columns = batch.columns().to_vec();
    columns.push(Arc::new(Int8Array::from(vec![code; batch.num_rows()])));
    let batch = RecordBatch::try_new(Arc::new(arrow_schema::Schema::new(fields)), columns).unwrap();
    (
        batch,
        args.into_iter().map(|a| format!("{kind}:{a}")).collect(),
    )
}

/// The seed's behavior table with primary key `user_id` only, partitioned by (dt, hh): a
/// cross-partition upsert table (2 keys a bucket), with `options` added.
fn cross_table(options: &[(&str, &str)]) -> lakescope_paimon::write::schema::TableDefinition {
    let mut def = behavior_table(true);
    def.primary_keys = vec!["user_id".into()];
    for (k, v) in options {
        def.options.insert(k.to_string(), v.to_string());
    }
    def
}

/// Empty twins of a cross-partition table: lakescope writes one, Java the other.
async fn cross_twins<'a>(o: &'a Oracles, name: &str, options: &[(&str, &str)]) -> Twins<'a> {
    let wh = temp_warehouse(name);
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 99);
    let ours = catalog
        .create_table_with(&env, "w", name, &cross_table(options))
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

/// The users each (partition, bucket) holds after merging, in the latest snapshot.
async fn placement(warehouse: &Path, table_path: &str) -> BTreeMap<(String, i32), Vec<i64>> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(warehouse));
    let table = Table::open(store, table_path).await.unwrap();
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let splits = plan(&table, &s, &PartitionFilter::All)
        .await
        .unwrap()
        .splits;
    let request = ReadRequest {
        columns: Some(vec!["user_id".into()]),
        ..ReadRequest::default()
    };
    // The reader reads the splits of the same plan, in order.
    let mut reader = SnapshotReader::open(&table, Some(&s), &request)
        .await
        .unwrap();
    let mut out = BTreeMap::new();
    for split in splits {
        let label = split
            .partition
            .iter()
            .map(|d| match d {
                Datum::String(s) => s.clone(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join("/");
        let mut users: Vec<i64> = Vec::new();
        for b in reader.next_split().await.unwrap().unwrap() {
            users.extend(b.column(0).as_primitive::<Int64Type>().values().iter());
        }
        users.sort();
        out.insert((label, split.bucket), users);
    }
    assert!(reader.next_split().await.is_none());
    out
}

impl Twins<'_> {
    /// [`Twins::check`] for cross-partition tables: the same rows everywhere and each user in
    /// the same (partition, bucket) as Java's twin, once; with `raw_layout` also the same rows
    /// stored per bucket (deletes included; other merge engines' Java write buffer merges a
    /// key's rows of one write, lakescope writes them as further sorted runs).
    async fn cross_check(&self, id: i64, pypaimon: bool, raw_layout: bool) -> Vec<String> {
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
            "snapshot {id}: Java's own write of the twin reads differently"
        );
        assert_eq!(
            placement(&self.wh, &self.ours.path()).await,
            placement(&self.wh, &self.java.path()).await,
            "snapshot {id}: users are placed in other buckets than Java's"
        );
        if raw_layout {
            assert_eq!(
                layout(&self.wh, &self.ours.path()).await,
                layout(&self.wh, &self.java.path()).await,
                "snapshot {id}: rows stored per bucket differ from Java's"
            );
        }
        by_user(&mine);
        eprintln!("{} snapshot {id}: {} rows agree", self.ours, mine.len());
        mine
    }

    /// One commit of the same rows: lakescope into ours, Java's global index into the twin.
    async fn cross_upsert(&self, groups: Vec<(RecordBatch, Vec<String>)>) {
        let (batches, args) = all(groups);
        self.catalog
            .insert_with(&self.env, &self.ours, &batches, None)
            .await
            .unwrap();
        java_write(self.o, &self.dir(&self.java), &["cross"], &args);
    }
}

/// `user_id -> (behavior, dt, hh)` of canonical rows; asserts each user appears once.
fn by_user(rows: &[String]) -> BTreeMap<i64, (String, String, String)> {
    let mut users = BTreeMap::new();
    for r in rows {
        let v: serde_json::Value = serde_json::from_str(r).unwrap();
        let s = |f: &str| v[f].as_str().unwrap().to_string();
        let user = v["user_id"].as_i64().unwrap();
        let row = (s("behavior"), s("dt"), s("hh"));
        assert!(
            users.insert(user, row).is_none(),
            "user {user} twice in {rows:?}"
        );
    }
    users
}

fn placed(b: &str, dt: &str, hh: &str) -> (String, String, String) {
    (b.to_string(), dt.to_string(), hh.to_string())
}

#[tokio::test]
async fn cross_partition_deduplicate_matches_java() {
    let Some(o) = oracles() else { return };
    let t = cross_twins(&o, "cross_d", &[]).await;
    // Into an empty table (Java's bulk load): user 3 twice, the last row wins; 2 keys a bucket
    // in key order.
    t.cross_upsert(vec![
        rows(&[5, 1, 3, 2, 4], "a", "d1", "1"),
        rows(&[3], "b", "d1", "2"),
        rows(&[7, 6], "a", "d2", "1"),
    ])
    .await;
    let u1 = by_user(&t.cross_check(1, true, true).await);
    assert_eq!(u1.len(), 7);
    assert_eq!(u1[&3], placed("b", "d1", "2"));
    let l1 = layout(&t.wh, &t.ours.path()).await;
    assert_eq!(l1["d1/1"].len(), 2, "{l1:?}");

    // Keys move (1 and 6), update in place (2), a new key (8), a delete (4), and 5 moves twice.
    t.cross_upsert(vec![
        rows(&[1], "m", "d2", "1"),
        rows(&[6, 2, 8], "m", "d1", "1"),
        kind_rows("-D", &[4], "x", "d1", "1"),
        rows(&[5], "m", "d2", "1"),
        rows(&[5], "m2", "d1", "2"),
    ])
    .await;
    let u2 = by_user(&t.cross_check(2, true, true).await);
    assert_eq!(u2.len(), 7, "{u2:?}");
    assert_eq!(u2[&1], placed("m", "d2", "1"));
    assert_eq!(u2[&5], placed("m2", "d1", "2"));
    assert!(!u2.contains_key(&4));

    // A delete naming another partition removes the key from its own; 4 comes back elsewhere.
    t.cross_upsert(vec![
        kind_rows("-D", &[7], "x", "d1", "1"),
        rows(&[4], "back", "d3", "1"),
    ])
    .await;
    let u3 = by_user(&t.cross_check(3, true, true).await);
    assert!(!u3.contains_key(&7), "{u3:?}");
    assert_eq!(u3[&4], placed("back", "d3", "1"));

    // INSERT OVERWRITE (dynamic) bootstraps the index too, as Flink's global-index sink: user 1
    // moves from d2/1 to d1/2, so both partitions are replaced (d2/1 by a lone -D).
    let (batches, args) = all(vec![rows(&[1, 10], "ow", "d1", "2")]);
    t.catalog
        .insert_with(&t.env, &t.ours, &batches, Some(Overwrite::Dynamic))
        .await
        .unwrap();
    let mut java_args = vec!["overwrite=dynamic".to_string()];
    java_args.extend(args);
    java_write(&o, &t.dir(&t.java), &["cross"], &java_args);
    let u4 = by_user(&t.cross_check(4, true, true).await);
    assert_eq!(
        u4.keys().copied().collect::<Vec<_>>(),
        vec![1, 2, 4, 6, 8, 10],
        "{u4:?}"
    );
    assert_eq!(u4[&1], placed("ow", "d1", "2"));

    // Java's writer on lakescope's table, then lakescope over Java's files.
    java_write(
        &o,
        &t.dir(&t.ours),
        &["cross"],
        &all(vec![
            rows(&[1, 9], "j", "d1", "1"),
            rows(&[3], "j", "d3", "1"),
        ])
        .1,
    );
    let r5 = ours(&t.catalog, &t.ours, 5).await;
    assert_eq!(java_rows(&o, &t.dir(&t.ours), 5), r5);
    let u5 = by_user(&r5);
    assert_eq!(u5[&1], placed("j", "d1", "1"));
    assert_eq!(u5[&3], placed("j", "d3", "1"));
    assert_eq!(u5.len(), 8);
    let (batch, _) = rows(&[9, 2], "ls", "d2", "1");
    t.catalog
        .insert_with(&t.env, &t.ours, &[batch], None)
        .await
        .unwrap();
    let r6 = ours(&t.catalog, &t.ours, 6).await;
    assert_eq!(java_rows(&o, &t.dir(&t.ours), 6), r6);
    let u6 = by_user(&r6);
    assert_eq!(u6[&9], placed("ls", "d2", "1"));
    assert_eq!(u6[&2], placed("ls", "d2", "1"));
    assert_eq!(u6.len(), 8);
    let _ = std::fs::remove_dir_all(&t.wh);
}

#[tokio::test]
async fn cross_partition_partial_update_and_first_row_match_java() {
    let Some(o) = oracles() else { return };
    // partial-update: a key arriving in another partition updates it where it is.
    let t = cross_twins(&o, "cross_pu", &[("merge-engine", "partial-update")]).await;
    t.cross_upsert(vec![
        rows(&[1, 2, 3], "a", "d1", "1"),
        rows(&[2], "b", "d2", "1"),
    ])
    .await;
    let u1 = by_user(&t.cross_check(1, true, false).await);
    assert_eq!(u1[&2], placed("b", "d1", "1"), "{u1:?}");
    t.cross_upsert(vec![
        rows(&[1, 4], "m", "d2", "1"),
        rows(&[5, 6, 7], "n", "d1", "1"),
    ])
    .await;
    let u2 = by_user(&t.cross_check(2, true, false).await);
    assert_eq!(u2[&1], placed("m", "d1", "1"));
    assert_eq!(u2[&4], placed("m", "d2", "1"));
    assert_eq!(u2.len(), 7);
    let _ = std::fs::remove_dir_all(&t.wh);

    // first-row: a key arriving in another partition is ignored.
    let t = cross_twins(&o, "cross_fr", &[("merge-engine", "first-row")]).await;
    t.cross_upsert(vec![
        rows(&[1, 2, 3], "a", "d1", "1"),
        rows(&[2], "b", "d2", "1"),
    ])
    .await;
    let last = latest_id(&t).await;
    let u1 = by_user(&t.cross_check(last, true, false).await);
    assert_eq!(u1[&2], placed("a", "d1", "1"), "{u1:?}");
    t.cross_upsert(vec![
        rows(&[1, 4], "m", "d2", "1"),
        rows(&[3, 5], "n", "d1", "1"),
    ])
    .await;
    let last = latest_id(&t).await;
    let u2 = by_user(&t.cross_check(last, true, false).await);
    assert_eq!(u2[&1], placed("a", "d1", "1"));
    assert_eq!(u2[&3], placed("a", "d1", "1"));
    assert_eq!(u2[&4], placed("m", "d2", "1"));
    assert_eq!(u2.len(), 5);
    let _ = std::fs::remove_dir_all(&t.wh);
}

/// The latest snapshot id of both twins (first-row writes add a COMPACT snapshot); they agree.
async fn latest_id(t: &Twins<'_>) -> i64 {
    let id = |path: String| {
        let wh = t.wh.clone();
        async move {
            let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(&wh));
            let table = Table::open(store, &path).await.unwrap();
            table.latest_snapshot().await.unwrap().unwrap().id
        }
    };
    let (a, b) = (id(t.ours.path()).await, id(t.java.path()).await);
    assert_eq!(
        a, b,
        "snapshot counts of lakescope's and Java's writes differ"
    );
    a
}
