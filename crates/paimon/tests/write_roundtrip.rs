//! Writing tables and reading them back with lakescope's own reader; bucket placement checked
//! against Java- and pypaimon-written corpus tables; racing writers on shared stores.

use arrow_array::{
    ArrayRef, Decimal128Array, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray,
};
use arrow_schema::DataType as ArrowType;
use async_trait::async_trait;
use bytes::Bytes;
use lakescope_paimon::commit::{next_sequence_number, CommitOptions, Overwrite};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::{BinaryRow, CommitKind, Datum, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::binary_row::hash_code;
use lakescope_paimon::write::bucket::bucket_of_hash;
use lakescope_paimon::write::schema::{create_table, TableDefinition};
use lakescope_paimon::write::{write, write_files, FixedEnv, SystemEnv, WriteEnv};
use lakescope_paimon::write_commit::commit_write;
use lakescope_storage::{Listing, LocalStore, MemoryStore, ObjectMeta, ObjectStore, PutOutcome};
use lakescope_test_support::tables::{
    batch, commit_message, create, rows, rows_at, string, t, write_and_commit,
};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

async fn commit(
    table: &Table,
    env: &dyn WriteEnv,
    b: RecordBatch,
    overwrite: Option<Overwrite>,
) -> i64 {
    write_and_commit(table, env, &[b], overwrite, "test-user")
        .await
        .1
        .id
}

#[tokio::test]
async fn append_partitioned_table_round_trips() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 1);
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("name".into(), string(), None),
            (
                "price".into(),
                t(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
                None,
            ),
            ("dt".into(), string(), None),
        ],
        partition_keys: vec!["dt".into()],
        ..Default::default()
    };
    create_table(store.as_ref(), "db.db/app", &def, &env)
        .await
        .unwrap();
    assert!(create_table(store.as_ref(), "db.db/app", &def, &env)
        .await
        .is_err());
    let table = Table::open(store.clone(), "db.db/app").await.unwrap();
    let b1 = batch(vec![
        ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
        (
            "name",
            Arc::new(StringArray::from(vec![
                Some("a"),
                None,
                Some("a very long name beyond sixteen chars"),
            ])),
        ),
        (
            "price",
            Arc::new(
                Decimal128Array::from(vec![100, 250, -5])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
        ),
        ("dt", Arc::new(StringArray::from(vec!["x", "y", "x"]))),
    ]);
    assert_eq!(commit(&table, &env, b1, None).await, 1);
    let b2 = batch(vec![
        ("id", Arc::new(Int64Array::from(vec![4])) as ArrayRef),
        ("dt", Arc::new(StringArray::from(vec!["y"]))),
    ]);
    assert_eq!(commit(&table, &env, b2, None).await, 2);
    let b3 = batch(vec![
        ("id", Arc::new(Int64Array::from(vec![9])) as ArrayRef),
        ("dt", Arc::new(StringArray::from(vec!["x"]))),
    ]);
    assert_eq!(commit(&table, &env, b3, Some(Overwrite::Dynamic)).await, 3);
    assert_eq!(
        rows_at(&table, 1).await,
        vec![
            "1|a|1.00|x",
            "2|null|2.50|y",
            "3|a very long name beyond sixteen chars|-0.05|x"
        ]
    );
    assert_eq!(rows_at(&table, 2).await.len(), 4);
    assert_eq!(
        rows_at(&table, 3).await,
        vec!["2|null|2.50|y", "4|null|null|y", "9|null|null|x"]
    );
    let s3 = table.snapshot(3).await.unwrap();
    assert_eq!(s3.commit_kind, CommitKind::Overwrite);
    assert_eq!(s3.total_record_count, Some(3));
    assert_eq!(s3.delta_record_count, Some(-1));
    assert!(store
        .get_opt("db.db/app/snapshot/EARLIEST")
        .await
        .unwrap()
        .is_some());
    assert_eq!(
        store
            .get("db.db/app/snapshot/LATEST")
            .await
            .unwrap()
            .as_ref(),
        b"3"
    );
}

#[tokio::test]
async fn pk_fixed_bucket_table_upserts_deletes_and_overwrites() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 2);
    let def = TableDefinition {
        columns: vec![
            ("dt".into(), string(), None),
            ("id".into(), t(TypeKind::Int), None),
            ("v".into(), string(), None),
        ],
        partition_keys: vec!["dt".into()],
        primary_keys: vec!["dt".into(), "id".into()],
        options: BTreeMap::from([("bucket".to_string(), "3".to_string())]),
        ..Default::default()
    };
    let table = create(&store, "db.db/pk", &def, &env).await;
    let kv = |dts: Vec<&str>, ids: Vec<i32>, vs: Vec<Option<&str>>, kinds: Option<Vec<i8>>| {
        let mut cols = vec![
            ("dt", Arc::new(StringArray::from(dts)) as ArrayRef),
            ("id", Arc::new(Int32Array::from(ids))),
            ("v", Arc::new(StringArray::from(vs))),
        ];
        if let Some(k) = kinds {
            cols.push(("_VALUE_KIND", Arc::new(Int8Array::from(k))));
        }
        batch(cols)
    };
    commit(
        &table,
        &env,
        kv(vec!["a"; 6], (0..6).collect(), vec![Some("v1"); 6], None),
        None,
    )
    .await;
    // Upsert 1,2 (2 twice in one batch: last wins), delete 3.
    commit(
        &table,
        &env,
        kv(
            vec!["a"; 4],
            vec![1, 2, 2, 3],
            vec![Some("v2"), Some("x"), Some("v2"), None],
            Some(vec![2, 0, 2, 3]),
        ),
        None,
    )
    .await;
    assert_eq!(
        rows_at(&table, 2).await,
        vec!["a|0|v1", "a|1|v2", "a|2|v2", "a|4|v1", "a|5|v1"]
    );
    // Overwrite partition a statically with one row; add partition b.
    commit(
        &table,
        &env,
        kv(vec!["b"], vec![7], vec![Some("b")], None),
        None,
    )
    .await;
    commit(
        &table,
        &env,
        kv(vec!["a"], vec![9], vec![Some("o")], None),
        Some(Overwrite::Static(vec![(
            "dt".into(),
            Datum::String("a".into()),
        )])),
    )
    .await;
    assert_eq!(rows_at(&table, 4).await, vec!["a|9|o", "b|7|b"]);
    // Files sit in the bucket Java's hash picks.
    let s = table.latest_snapshot().await.unwrap().unwrap();
    for split in plan(&table, &s, &PartitionFilter::All)
        .await
        .unwrap()
        .splits
    {
        for f in &split.files {
            let key = BinaryRow::decode(&f.min_key, &[t(TypeKind::Int)]).unwrap();
            let want = bucket_of_hash(hash_code(&key, &[t(TypeKind::Int)]).unwrap(), 3);
            assert_eq!(split.bucket, want, "{}", f.file_name);
        }
    }
    // Dynamic-bucket PK tables need write::write (index files), never write_files.
    let dynamic = TableDefinition {
        options: BTreeMap::new(),
        ..def.clone()
    };
    let dyn_table = create(&store, "db.db/dyn", &dynamic, &env).await;
    let err = write_files(
        &dyn_table,
        &env,
        &[kv(vec!["a"], vec![1], vec![None], None)],
        0,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("dynamic-bucket"), "{err}");
}

/// Every file of a fixed-bucket corpus table (written by Java 0.9 or pypaimon) hashes to its bucket.
#[tokio::test]
async fn bucket_placement_matches_java_and_pypaimon() {
    let store: Rc<dyn ObjectStore> =
        Rc::new(LocalStore::new(Path::new(CORPUS).join("paimon/warehouse")));
    for (path, key_type, buckets) in [
        ("java09.db/pk_compacted", t(TypeKind::Int), 2),
        ("corpus.db/pk_dedup", t(TypeKind::Int), 2),
    ] {
        let table = Table::open(store.clone(), path).await.unwrap();
        let mut checked = 0;
        for id in table.snapshot_ids().await.unwrap() {
            let s = table.snapshot(id).await.unwrap();
            for split in plan(&table, &s, &PartitionFilter::All)
                .await
                .unwrap()
                .splits
            {
                for f in &split.files {
                    for k in [&f.min_key, &f.max_key] {
                        let key = BinaryRow::decode(k, std::slice::from_ref(&key_type)).unwrap();
                        let b = bucket_of_hash(
                            hash_code(&key, std::slice::from_ref(&key_type)).unwrap(),
                            buckets,
                        );
                        assert_eq!(b, split.bucket, "{path} {} key {key:?}", f.file_name);
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 4, "{path}: only {checked} keys checked");
    }
}

/// A `MemoryStore` shared between threads.
struct Shared(Arc<MemoryStore>);

#[async_trait(?Send)]
impl ObjectStore for Shared {
    fn describe(&self) -> String {
        self.0.describe()
    }
    async fn get(&self, p: &str) -> lakescope_storage::Result<Bytes> {
        self.0.get(p).await
    }
    async fn get_range(&self, p: &str, r: Range<u64>) -> lakescope_storage::Result<Bytes> {
        self.0.get_range(p, r).await
    }
    async fn head(&self, p: &str) -> lakescope_storage::Result<ObjectMeta> {
        self.0.head(p).await
    }
    async fn list_dir(&self, p: &str) -> lakescope_storage::Result<Listing> {
        self.0.list_dir(p).await
    }
    async fn put(&self, p: &str, d: Bytes) -> lakescope_storage::Result<()> {
        self.0.put(p, d).await
    }
    async fn put_if_absent(&self, p: &str, d: Bytes) -> lakescope_storage::Result<PutOutcome> {
        self.0.put_if_absent(p, d).await
    }
    async fn delete(&self, p: &str) -> lakescope_storage::Result<()> {
        self.0.delete(p).await
    }
}

/// 4 writers × 10 commits race on one table: every acknowledged commit is in exactly one
/// snapshot, ids are contiguous, no file is referenced twice.
fn race(make_store: impl Fn() -> Rc<dyn ObjectStore> + Send + Sync + 'static) {
    let make_store = Arc::new(make_store);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let store = make_store();
        let def = TableDefinition {
            columns: vec![
                ("w".into(), t(TypeKind::Int), None),
                ("i".into(), t(TypeKind::Int), None),
            ],
            ..Default::default()
        };
        create_table(store.as_ref(), "db.db/race", &def, &FixedEnv::new(0, 0))
            .await
            .unwrap();
    });
    let handles: Vec<_> = (0..4)
        .map(|w| {
            let make_store = make_store.clone();
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .build()
                    .unwrap();
                rt.block_on(async move {
                    let table = Table::open(make_store(), "db.db/race").await.unwrap();
                    let env = SystemEnv::default();
                    let mut acked = Vec::new();
                    for i in 0..10 {
                        let b = batch(vec![
                            ("w", Arc::new(Int32Array::from(vec![w])) as ArrayRef),
                            ("i", Arc::new(Int32Array::from(vec![i]))),
                        ]);
                        let files = write_files(&table, &env, &[b], 0).await.unwrap();
                        let name = files[0].file.file_name.clone();
                        let mut opts =
                            CommitOptions::for_table(&table, format!("writer-{w}")).unwrap();
                        opts.max_retries = 100;
                        opts.min_retry_wait_ms = 1;
                        opts.max_retry_wait_ms = 20;
                        let out = commit_write(&table, &env, opts, files, None).await.unwrap();
                        acked.push((out.snapshot.id, name, w, i));
                    }
                    acked
                })
            })
        })
        .collect();
    let acked: Vec<(i64, String, i32, i32)> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        let table = Table::open(make_store(), "db.db/race").await.unwrap();
        let ids = table.snapshot_ids().await.unwrap();
        assert_eq!(ids, (1..=40).collect::<Vec<i64>>());
        let snap_ids: BTreeSet<i64> = acked.iter().map(|a| a.0).collect();
        assert_eq!(snap_ids.len(), 40, "every commit got its own snapshot");
        let s = table.latest_snapshot().await.unwrap().unwrap();
        assert_eq!(s.total_record_count, Some(40));
        let p = plan(&table, &s, &PartitionFilter::All).await.unwrap();
        let names: Vec<String> = p
            .splits
            .iter()
            .flat_map(|s| s.files.iter().map(|f| f.file_name.clone()))
            .collect();
        let unique: BTreeSet<&String> = names.iter().collect();
        assert_eq!(names.len(), 40);
        assert_eq!(unique.len(), 40);
        for a in &acked {
            assert!(unique.contains(&a.1), "acknowledged file {} missing", a.1);
            // The snapshot that acknowledged it added exactly that file.
            let snap = table.snapshot(a.0).await.unwrap();
            let delta = lakescope_paimon::scan::plan_delta(&table, &snap)
                .await
                .unwrap();
            let added: Vec<&str> = delta
                .added
                .iter()
                .flat_map(|s| s.files.iter().map(|f| f.file_name.as_str()))
                .collect();
            assert_eq!(added, vec![a.1.as_str()]);
        }
        let all = rows(
            &read_snapshot(&table, Some(&s), &ReadRequest::default())
                .await
                .unwrap()
                .batches,
        );
        assert_eq!(all.len(), 40);
    });
}

#[test]
fn racing_writers_on_memory_store() {
    let shared = Arc::new(MemoryStore::new());
    race(move || Rc::new(Shared(shared.clone())) as Rc<dyn ObjectStore>);
}

#[test]
fn racing_writers_on_local_store() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    race(move || Rc::new(LocalStore::new(root.clone())) as Rc<dyn ObjectStore>);
    drop(dir);
}

#[allow(dead_code)]
fn _unused(_: ArrowType) {}

/// `target-file-size` rolls a bucket's rows into several sorted files with disjoint key ranges.
#[tokio::test]
async fn small_target_file_size_rolls_files() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 3);
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::Int), None),
            ("v".into(), string(), None),
        ],
        primary_keys: vec!["id".into()],
        options: BTreeMap::from([
            ("bucket".to_string(), "1".to_string()),
            ("target-file-size".to_string(), "1kb".to_string()),
        ]),
        ..Default::default()
    };
    let table = create(&store, "db.db/roll", &def, &env).await;
    let ids: Vec<i32> = (0..500).rev().collect();
    let b = batch(vec![
        ("id", Arc::new(Int32Array::from(ids.clone())) as ArrayRef),
        (
            "v",
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ),
    ]);
    commit(&table, &env, b, None).await;
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let p = plan(&table, &s, &PartitionFilter::All).await.unwrap();
    let mut ranges: Vec<(i32, i32)> = p.splits[0]
        .files
        .iter()
        .map(|f| {
            let k = |b: &[u8]| match BinaryRow::decode(b, &[t(TypeKind::Int)]).unwrap()[0] {
                Datum::Int(x) => x,
                ref other => panic!("{other:?}"),
            };
            (k(&f.min_key), k(&f.max_key))
        })
        .collect();
    assert!(ranges.len() > 1, "expected several files, got {ranges:?}");
    ranges.sort();
    for w in ranges.windows(2) {
        assert!(w[0].1 < w[1].0, "overlapping key ranges {ranges:?}");
    }
    assert_eq!(rows_at(&table, 1).await.len(), 500);
}

/// Dynamic bucket (`bucket=-1`): keys fill buckets up to `dynamic-bucket.target-row-num`, known
/// keys keep their bucket, and the cumulative HASH index names every key of every bucket.
#[tokio::test]
async fn dynamic_bucket_assigns_like_java() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 4);
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::Int), None),
            ("v".into(), string(), None),
        ],
        primary_keys: vec!["id".into()],
        options: BTreeMap::from([("dynamic-bucket.target-row-num".to_string(), "3".to_string())]),
        ..Default::default()
    };
    let table = create(&store, "db.db/dyn", &def, &env).await;
    let kv = |ids: Vec<i32>, v: &str| {
        batch(vec![
            ("id", Arc::new(Int32Array::from(ids.clone())) as ArrayRef),
            (
                "v",
                Arc::new(StringArray::from(vec![v.to_string(); ids.len()])),
            ),
        ])
    };
    for (ids, v) in [((0..8).collect::<Vec<_>>(), "a"), (vec![6, 7, 8, 9], "b")] {
        let seq = next_sequence_number(&table).await.unwrap();
        let msg = write(&table, &env, &[kv(ids, v)], seq).await.unwrap();
        commit_message(&table, &env, msg, None, "u").await;
    }
    assert_eq!(rows_at(&table, 2).await.len(), 10);
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let index = table
        .index_manifest(s.index_manifest.as_deref().unwrap())
        .await
        .unwrap();
    let mut counts: BTreeMap<i32, i64> = BTreeMap::new();
    let mut bucket_of_hash: BTreeMap<i32, i32> = BTreeMap::new();
    for e in index.iter() {
        counts.insert(e.bucket, e.row_count);
        let bytes = store
            .get(&table.index_file_path(&e.file_name))
            .await
            .unwrap();
        for w in bytes.chunks_exact(4) {
            bucket_of_hash.insert(i32::from_be_bytes([w[0], w[1], w[2], w[3]]), e.bucket);
        }
    }
    assert_eq!(counts, BTreeMap::from([(0, 3), (1, 3), (2, 3), (3, 1)]));
    check_index_covers_keys(&table, &s, &bucket_of_hash).await;
}

async fn check_index_covers_keys(
    table: &Table,
    s: &lakescope_paimon::spec::Snapshot,
    index: &BTreeMap<i32, i32>,
) {
    let int = [t(TypeKind::Int)];
    for split in plan(table, s, &PartitionFilter::All).await.unwrap().splits {
        for f in &split.files {
            for k in [&f.min_key, &f.max_key] {
                let key = BinaryRow::decode(k, &int).unwrap();
                let h = hash_code(&key, &int).unwrap();
                assert_eq!(
                    index.get(&h),
                    Some(&split.bucket),
                    "{} key {key:?}",
                    f.file_name
                );
            }
        }
    }
}

/// pypaimon's dynamic-bucket table: every key's hash sits in its bucket's index file.
#[tokio::test]
async fn corpus_dynamic_bucket_index_holds_key_hashes() {
    let store: Rc<dyn ObjectStore> =
        Rc::new(LocalStore::new(Path::new(CORPUS).join("paimon/warehouse")));
    let table = Table::open(store.clone(), "corpus.db/pk_dynamic_bucket")
        .await
        .unwrap();
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let mut bucket_of_hash = BTreeMap::new();
    for e in table
        .index_manifest(s.index_manifest.as_deref().unwrap())
        .await
        .unwrap()
        .iter()
    {
        let bytes = store
            .get(&table.index_file_path(&e.file_name))
            .await
            .unwrap();
        for w in bytes.chunks_exact(4) {
            bucket_of_hash.insert(i32::from_be_bytes([w[0], w[1], w[2], w[3]]), e.bucket);
        }
    }
    assert_eq!(bucket_of_hash.len(), 16);
    check_index_covers_keys(&table, &s, &bucket_of_hash).await;
}

#[tokio::test]
async fn variant_columns_are_refused_by_the_writers() {
    // lakescope reads a VARIANT as its JSON text and has no encoder of Paimon's variant binary:
    // a write (Parquet or ORC) of a table with a VARIANT column is refused naming the table and
    // the column, before any file is written.
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 7);
    for format in ["parquet", "orc"] {
        let def = TableDefinition {
            columns: vec![
                ("id".into(), t(TypeKind::Int), None),
                ("v".into(), t(TypeKind::Variant), None),
            ],
            options: BTreeMap::from([("file.format".to_string(), format.to_string())]),
            ..Default::default()
        };
        let path = format!("db.db/variant_{format}");
        let table = create(&store, &path, &def, &env).await;
        let b = batch(vec![
            ("id", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
            (
                "v",
                Arc::new(StringArray::from(vec![r#"{"a":1}"#])) as ArrayRef,
            ),
        ]);
        let err = write_files(&table, &env, &[b], 0).await.unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, lakescope_paimon::Error::Unsupported { .. }),
            "{format}: {msg}"
        );
        assert!(
            msg.starts_with(&format!("{path}: unsupported: column 'v': writing VARIANT")),
            "{format}: {msg}"
        );
    }
}
