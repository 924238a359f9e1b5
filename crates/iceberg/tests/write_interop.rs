//! Interop: tables written by lakescope into a local Hadoop-catalog warehouse are read by
//! pyiceberg 0.12 (and DuckDB's iceberg extension) at every snapshot, and by a pyiceberg scan
//! with a filter that prunes partitions with pyiceberg's own transforms. pyiceberg 0.12 cannot
//! scan equality deletes: for upsert tables it parses our manifests and the oracle script applies
//! the merge-on-read rule itself (see tests/oracle/read_iceberg.py); DuckDB scans them natively.
//!
//! The oracles live in the venv that `scripts/iceberg-oracle.sh` sets up (under `$LAKE_TOOLS`,
//! default `~/.cache/lake-oracles`); without it these tests fail, unless LAKESCOPE_SKIP_ORACLES=1
//! (then they are skipped with a loud message).

use arrow_array::{Array, ArrayRef, BooleanArray, Int64Array};
use arrow_select::filter::filter_record_batch;
use lakescope_format::spec::{DataType, TypeKind};
use lakescope_format::write_env::SystemEnv;
use lakescope_iceberg::read::DeleteCache;
use lakescope_iceberg::spec::transform::Transform;
use lakescope_iceberg::write::{
    append, overwrite, update_schema, update_spec, upsert, HadoopCatalog, IcebergTableDefinition,
    LiveFiles, SchemaChange, SpecChange,
};
use lakescope_iceberg::Table;
use lakescope_storage::LocalStore;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::Arc;

mod common;
use common::*;

/// What the oracles say about one table version: `{"pyiceberg": rows, "duckdb": rows | text}`.
fn oracle(
    py: &Path,
    table: &Table,
    root: &Path,
    snapshot: Option<i64>,
    filter: Option<&str>,
) -> Value {
    let meta = root.join(table.metadata_key());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/read_iceberg.py");
    let mut cmd = Command::new(py);
    cmd.arg(&script).arg(&meta);
    cmd.arg(snapshot.map_or("-".to_string(), |s| s.to_string()));
    if let Some(f) = filter {
        cmd.arg(f);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "oracle failed on {}: {}",
        meta.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn rows(expected: &[&[Option<&str>]]) -> Value {
    let mut rows: Vec<Value> = expected
        .iter()
        .map(|r| {
            Value::Array(
                r.iter()
                    .map(|c| c.map_or(Value::Null, |s| Value::String(s.into())))
                    .collect(),
            )
        })
        .collect();
    rows.sort_by_key(|r| r.to_string());
    Value::Array(rows)
}

/// Both oracles give `expected` (DuckDB only where it is installed).
fn check(py: &Path, table: &Table, root: &Path, snapshot: Option<i64>, expected: &Value) {
    let got = oracle(py, table, root, snapshot, None);
    eprintln!(
        "{} at {snapshot:?}: pyiceberg mode {}, duckdb {}",
        table.key(),
        got["pyiceberg_mode"],
        if got["duckdb"].is_array() {
            "read"
        } else {
            "not used"
        }
    );
    assert_eq!(
        &got["pyiceberg"],
        expected,
        "pyiceberg, {} at {snapshot:?}",
        table.key()
    );
    match &got["duckdb"] {
        Value::String(s) if s.starts_with("unavailable") => {
            eprintln!("NOTE: DuckDB iceberg reader {s}; only pyiceberg checked")
        }
        other => assert_eq!(other, expected, "duckdb, {} at {snapshot:?}", table.key()),
    }
}

/// A fresh local warehouse folder with its store, catalog and clock.
fn local_warehouse() -> (PathBuf, Rc<LocalStore>, HadoopCatalog, SystemEnv) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let root = std::env::temp_dir().join(format!(
        "lakescope-iceberg-interop-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&root).unwrap();
    let store = Rc::new(LocalStore::new(&root));
    let catalog = HadoopCatalog::new("", &format!("file://{}", root.display()));
    (root, store, catalog, SystemEnv::default())
}

async fn create_table(
    store: &Rc<LocalStore>,
    catalog: &HadoopCatalog,
    env: &SystemEnv,
    ns: &str,
    name: &str,
    def: IcebergTableDefinition,
) -> Table {
    catalog.create_namespace(store.as_ref(), ns).await.unwrap();
    catalog
        .create_table(store.as_ref(), ns, name, &def, env)
        .await
        .unwrap();
    Table::open(store.clone(), &catalog.table_key(ns, name).unwrap())
        .await
        .unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn pyiceberg_and_duckdb_read_what_we_write() {
    let Some(py) = pyiceberg_python("write_interop") else {
        return;
    };
    let (root, store, catalog, env) = local_warehouse();
    let create = |ns: &'static str, name: &'static str, def: IcebergTableDefinition| {
        create_table(&store, &catalog, &env, ns, name, def)
    };

    // Upsert on a primary key: the second insert replaces u1.
    let profile = create(
        "my_db",
        "user_profile",
        IcebergTableDefinition {
            columns: vec![
                col("user_id", string()),
                col("user_name", string()),
                col("email", string()),
                col("update_time", ts3()),
                col("status", string()),
            ],
            identifier_fields: vec!["user_id".into()],
            properties: BTreeMap::from([("write.upsert.enabled".into(), "true".into())]),
            ..Default::default()
        },
    )
    .await;
    let p1 = append(
        &profile,
        &[batch(vec![
            ("user_id", strings(&["u1", "u2"])),
            ("user_name", strings(&["ann", "bob"])),
            ("email", strings(&["a@x", "b@x"])),
            ("update_time", millis(&[MAY_1_10H, MAY_1_10H])),
            ("status", strings(&["new", "new"])),
        ])],
        &env,
    )
    .await
    .unwrap();
    let p2 = append(
        &p1,
        &[batch(vec![
            ("user_id", strings(&["u1"])),
            ("user_name", strings(&["ann"])),
            ("email", strings(&["a@y"])),
            ("update_time", millis(&[MAY_1_10H + 2 * DAY_MS])),
            ("status", strings(&["vip"])),
        ])],
        &env,
    )
    .await
    .unwrap();
    let u2 = [
        Some("u2"),
        Some("bob"),
        Some("b@x"),
        Some("2024-05-01T10:00:00.000000"),
        Some("new"),
    ];
    check(
        &py,
        &p2,
        &root,
        None,
        &rows(&[
            &[
                Some("u1"),
                Some("ann"),
                Some("a@y"),
                Some("2024-05-03T10:00:00.000000"),
                Some("vip"),
            ],
            &u2,
        ]),
    );
    check(
        &py,
        &p2,
        &root,
        p1.metadata().current_snapshot_id,
        &rows(&[
            &[
                Some("u1"),
                Some("ann"),
                Some("a@x"),
                Some("2024-05-01T10:00:00.000000"),
                Some("new"),
            ],
            &u2,
        ]),
    );

    // Day + identity partitions over two commits.
    let actions = create(
        "my_db",
        "user_actions",
        IcebergTableDefinition {
            columns: vec![
                col("action_id", string()),
                col("user_id", string()),
                col("action_time", ts3()),
                col("action_type", string()),
                col("action_data", string()),
            ],
            partition: vec![
                ("action_time".into(), Transform::Day),
                ("action_type".into(), Transform::Identity),
            ],
            ..Default::default()
        },
    )
    .await;
    let a1 = append(
        &actions,
        &[batch(vec![
            ("action_id", strings(&["a1", "a2"])),
            ("user_id", strings(&["u1", "u2"])),
            (
                "action_time",
                millis(&[MAY_1_10H, MAY_1_10H + DAY_MS + 3_600_000]),
            ),
            ("action_type", strings(&["click", "view"])),
            ("action_data", strings(&["{}", "{}"])),
        ])],
        &env,
    )
    .await
    .unwrap();
    let a2 = append(
        &a1,
        &[batch(vec![
            ("action_id", strings(&["a3"])),
            ("user_id", strings(&["u3"])),
            ("action_time", millis(&[MAY_1_10H - DAY_MS])),
            ("action_type", strings(&["click"])),
        ])],
        &env,
    )
    .await
    .unwrap();
    let a1_row = [
        Some("a1"),
        Some("u1"),
        Some("2024-05-01T10:00:00.000000"),
        Some("click"),
        Some("{}"),
    ];
    let a2_row = [
        Some("a2"),
        Some("u2"),
        Some("2024-05-02T11:00:00.000000"),
        Some("view"),
        Some("{}"),
    ];
    let a3_row = [
        Some("a3"),
        Some("u3"),
        Some("2024-04-30T10:00:00.000000"),
        Some("click"),
        None,
    ];
    check(&py, &a2, &root, None, &rows(&[&a1_row, &a2_row, &a3_row]));
    check(
        &py,
        &a2,
        &root,
        a1.metadata().current_snapshot_id,
        &rows(&[&a1_row, &a2_row]),
    );
    let view = oracle(&py, &a2, &root, None, Some("action_type=view"));
    assert_eq!(view["pyiceberg"], rows(&[&a2_row]));
    // A filter on a non-partition column: pyiceberg prunes the other files by our column bounds.
    let by_id = oracle(&py, &a2, &root, None, Some("action_id=a2"));
    assert_eq!(by_id["pyiceberg"], rows(&[&a2_row]));
    assert_eq!(by_id["planned_files"], 1);

    // Bucket + truncate partitions; a filtered pyiceberg scan prunes with its own Murmur3.
    let bucketed = create(
        "my_db",
        "bucketed",
        IcebergTableDefinition {
            columns: vec![
                col("user_id", string()),
                col("v", DataType::nullable(TypeKind::BigInt)),
            ],
            partition: vec![
                ("user_id".into(), Transform::Bucket(16)),
                ("user_id".into(), Transform::Truncate(4)),
            ],
            ..Default::default()
        },
    )
    .await;
    let ids: Vec<String> = (0..20).map(|i| format!("user_{i}")).collect();
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let b1 = append(
        &bucketed,
        &[batch(vec![
            ("user_id", strings(&id_refs)),
            (
                "v",
                Arc::new(Int64Array::from((0..20).collect::<Vec<i64>>())) as ArrayRef,
            ),
        ])],
        &env,
    )
    .await
    .unwrap();
    let all = oracle(&py, &b1, &root, None, None);
    assert_eq!(all["pyiceberg"].as_array().map(Vec::len), Some(20));
    // user_0..user_19 fall into 10 distinct buckets of 16 (Python's mmh3 agrees): one file each.
    assert_eq!(all["planned_files"], 10);
    for (i, id) in ids.iter().enumerate().step_by(3) {
        let one = oracle(&py, &b1, &root, None, Some(&format!("user_id={id}")));
        let v = i.to_string();
        assert_eq!(
            one["pyiceberg"],
            rows(&[&[Some(id), Some(&v)]]),
            "filter user_id={id}"
        );
        // Only the file of the key's bucket survives pruning by pyiceberg's own Murmur3.
        assert_eq!(one["planned_files"], 1, "filter user_id={id}");
    }

    // Upsert on a day-partitioned table whose key holds the partition source.
    let keyed = create(
        "ods",
        "order_events_keyed",
        IcebergTableDefinition {
            columns: vec![
                col("order_id", string()),
                col("user_id", string()),
                col("product_id", string()),
                col("amount", decimal()),
                col("order_status", string()),
                col("event_time", ts3()),
            ],
            partition: vec![("event_time".into(), Transform::Day)],
            identifier_fields: vec!["order_id".into(), "event_time".into()],
            properties: BTreeMap::from([
                ("write.upsert.enabled".into(), "true".into()),
                ("write.format.default".into(), "parquet".into()),
            ]),
        },
    )
    .await;
    let order = |status: &str, amount: i128| {
        batch(vec![
            ("order_id", strings(&["o1"])),
            ("user_id", strings(&["u1"])),
            ("product_id", strings(&["p1"])),
            ("amount", cents(&[amount])),
            ("order_status", strings(&[status])),
            ("event_time", millis(&[MAY_1_10H])),
        ])
    };
    let k1 = append(&keyed, &[order("paid", 1250)], &env).await.unwrap();
    let k2 = append(&k1, &[order("shipped", 1299)], &env).await.unwrap();
    check(
        &py,
        &k2,
        &root,
        None,
        &rows(&[&[
            Some("o1"),
            Some("u1"),
            Some("p1"),
            Some("12.99"),
            Some("shipped"),
            Some("2024-05-01T10:00:00.000000"),
        ]]),
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// Copy-on-write DELETE of the rows whose first column (BIGINT) is in `ids`.
async fn delete_ids(t: &Table, ids: &[i64], env: &SystemEnv) -> Table {
    let mut cache = DeleteCache::default();
    let live = LiveFiles::of(t).await.unwrap();
    let mut removed = Vec::new();
    let mut kept = Vec::new();
    for task in &live.tasks {
        let mut hit = false;
        let mut rows = Vec::new();
        for b in live.read(task, &mut cache).await.unwrap() {
            let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
            let keep: BooleanArray = (0..b.num_rows())
                .map(|i| Some(id.is_null(i) || !ids.contains(&id.value(i))))
                .collect();
            hit |= keep.true_count() < b.num_rows();
            rows.push(filter_record_batch(&b, &keep).unwrap());
        }
        if hit {
            removed.push(task);
            kept.extend(rows);
        }
    }
    live.replace(&removed, &kept, env).await.unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn overwrite_delete_and_update_read_identically() {
    let Some(py) = pyiceberg_python("write_interop") else {
        return;
    };
    let (root, store, catalog, env) = local_warehouse();
    let kinds =
        |ids: &[i64], kinds: &[&str]| batch(vec![("id", longs(ids)), ("kind", strings(kinds))]);
    let r = |id: &str, kind: &str| vec![Some(id.to_string()), Some(kind.to_string())];
    let expect = |rs: &[Vec<Option<String>>]| {
        let refs: Vec<Vec<Option<&str>>> = rs
            .iter()
            .map(|r| r.iter().map(|c| c.as_deref()).collect())
            .collect();
        let slices: Vec<&[Option<&str>]> = refs.iter().map(Vec::as_slice).collect();
        rows(&slices)
    };

    // Identity-partitioned: append, dynamic overwrite of partition a, copy-on-write delete.
    let t = create_table(
        &store,
        &catalog,
        &env,
        "db",
        "kinds",
        IcebergTableDefinition {
            columns: vec![col("id", bigint()), col("kind", string())],
            partition: vec![("kind".into(), Transform::Identity)],
            ..Default::default()
        },
    )
    .await;
    let t1 = append(&t, &[kinds(&[1, 2, 3], &["a", "b", "a"])], &env)
        .await
        .unwrap();
    let t2 = overwrite(&t1, &[kinds(&[10, 11], &["a", "c"])], &env)
        .await
        .unwrap();
    let t3 = delete_ids(&t2, &[2, 11], &env).await;
    let t4 = delete_ids(&t3, &[10], &env).await;
    let snap = |t: &Table| t.metadata().current_snapshot_id;
    let v1 = expect(&[r("1", "a"), r("2", "b"), r("3", "a")]);
    let v2 = expect(&[r("10", "a"), r("11", "c"), r("2", "b")]);
    let v3 = expect(&[r("10", "a")]);
    for (s, want) in [(snap(&t1), &v1), (snap(&t2), &v2), (snap(&t3), &v3)] {
        check(&py, &t4, &root, s, want);
    }
    check(&py, &t4, &root, None, &expect(&[]));

    // Unpartitioned: overwrite replaces the whole table.
    let u = create_table(
        &store,
        &catalog,
        &env,
        "db",
        "flat",
        IcebergTableDefinition {
            columns: vec![col("id", bigint()), col("kind", string())],
            ..Default::default()
        },
    )
    .await;
    let u1 = append(&u, &[kinds(&[1, 2], &["a", "b"])], &env)
        .await
        .unwrap();
    let u2 = overwrite(&u1, &[kinds(&[3], &["c"])], &env).await.unwrap();
    check(
        &py,
        &u2,
        &root,
        snap(&u1),
        &expect(&[r("1", "a"), r("2", "b")]),
    );
    check(&py, &u2, &root, None, &expect(&[r("3", "c")]));

    // Identifier fields: UPDATE as equality delete + insert, then a copy-on-write DELETE over
    // the equality deletes (DuckDB reads those natively; pyiceberg through the merge rule).
    let k = create_table(
        &store,
        &catalog,
        &env,
        "db",
        "keyed",
        IcebergTableDefinition {
            columns: vec![col("id", bigint()), col("kind", string())],
            identifier_fields: vec!["id".into()],
            ..Default::default()
        },
    )
    .await;
    let k1 = append(&k, &[kinds(&[1, 2], &["a", "b"])], &env)
        .await
        .unwrap();
    let k2 = upsert(&k1, &[kinds(&[1], &["a2"])], &env).await.unwrap();
    let k3 = delete_ids(&k2, &[2], &env).await;
    check(
        &py,
        &k3,
        &root,
        snap(&k1),
        &expect(&[r("1", "a"), r("2", "b")]),
    );
    check(
        &py,
        &k3,
        &root,
        snap(&k2),
        &expect(&[r("1", "a2"), r("2", "b")]),
    );
    check(&py, &k3, &root, None, &expect(&[r("1", "a2")]));
    std::fs::remove_dir_all(&root).unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn schema_and_partition_evolution_read_identically() {
    let Some(py) = pyiceberg_python("write_interop") else {
        return;
    };
    let (root, store, catalog, env) = local_warehouse();
    let t = create_table(
        &store,
        &catalog,
        &env,
        "db",
        "evolving",
        IcebergTableDefinition {
            columns: vec![
                col("id", bigint()),
                col("n", DataType::nullable(TypeKind::Int)),
                col("d", decimal()),
                col("kind", string()),
                col("gone", string()),
            ],
            partition: vec![("kind".into(), Transform::Identity)],
            ..Default::default()
        },
    )
    .await;
    let t1 = append(
        &t,
        &[batch(vec![
            ("id", longs(&[1, 2])),
            (
                "n",
                Arc::new(arrow_array::Int32Array::from(vec![7, 8])) as ArrayRef,
            ),
            ("d", cents(&[1234, 5])),
            ("kind", strings(&["a", "b"])),
            ("gone", strings(&["g1", "g2"])),
        ])],
        &env,
    )
    .await
    .unwrap();
    let t2 = update_schema(
        &t1,
        &[
            SchemaChange::Add {
                name: "c".into(),
                data_type: string(),
                doc: None,
                position: None,
            },
            SchemaChange::Rename {
                from: "kind".into(),
                to: "category".into(),
            },
            SchemaChange::Drop {
                name: "gone".into(),
            },
            SchemaChange::Update {
                name: "n".into(),
                data_type: bigint(),
            },
            SchemaChange::Update {
                name: "d".into(),
                data_type: DataType::nullable(TypeKind::Decimal {
                    precision: 12,
                    scale: 2,
                }),
            },
        ],
        &env,
    )
    .await
    .unwrap();
    // New spec: bucket on id instead of the (renamed) identity column.
    let t3 = update_spec(
        &t2,
        &[
            SpecChange::Add {
                column: "id".into(),
                transform: Transform::Bucket(4),
            },
            SpecChange::Remove {
                name: "kind".into(),
            },
        ],
        &env,
    )
    .await
    .unwrap();
    let t4 = append(
        &t3,
        &[batch(vec![
            ("id", longs(&[3, 4])),
            ("n", longs(&[5_000_000_000, 9])),
            ("d", cents(&[99, 100])),
            ("category", strings(&["a", "c"])),
            ("c", strings(&["new", "new"])),
        ])],
        &env,
    )
    .await
    .unwrap();
    let t5 = delete_ids(&t4, &[2, 4], &env).await;
    let snap = |t: &Table| t.metadata().current_snapshot_id;
    let old = rows(&[
        &[Some("1"), Some("7"), Some("12.34"), Some("a"), Some("g1")],
        &[Some("2"), Some("8"), Some("0.05"), Some("b"), Some("g2")],
    ]);
    check(&py, &t5, &root, snap(&t1), &old);
    let r = |id: &'static str, n: &'static str, d: &'static str, k: &'static str, c| {
        [Some(id), Some(n), Some(d), Some(k), c]
    };
    check(
        &py,
        &t5,
        &root,
        snap(&t4),
        &rows(&[
            &r("1", "7", "12.34", "a", None),
            &r("2", "8", "0.05", "b", None),
            &r("3", "5000000000", "0.99", "a", Some("new")),
            &r("4", "9", "1.00", "c", Some("new")),
        ]),
    );
    let now = rows(&[
        &r("1", "7", "12.34", "a", None),
        &r("3", "5000000000", "0.99", "a", Some("new")),
    ]);
    check(&py, &t5, &root, None, &now);
    // Filters across specs: pyiceberg prunes files of both specs with its own transforms.
    let a = oracle(&py, &t5, &root, None, Some("category=a"));
    assert_eq!(a["pyiceberg"], now);
    let three = oracle(&py, &t5, &root, None, Some("id=3"));
    assert_eq!(
        three["pyiceberg"],
        rows(&[&r("3", "5000000000", "0.99", "a", Some("new"))])
    );
    std::fs::remove_dir_all(&root).unwrap();
}

/// `write.metadata.compression-codec = gzip`: every metadata version lakescope writes is
/// `v<N>.gz.metadata.json` holding gzip bytes (as Java's HadoopTableOperations names them),
/// found again by lakescope and read by pyiceberg 0.12 (and DuckDB) with the same rows.
#[tokio::test(flavor = "current_thread")]
async fn gzip_metadata_codec_is_honoured_and_read_by_pyiceberg() {
    let Some(py) = pyiceberg_python("gzip_metadata_codec") else {
        return;
    };
    let (root, store, catalog, env) = local_warehouse();
    let def = IcebergTableDefinition {
        columns: vec![col("id", bigint()), col("name", string())],
        properties: BTreeMap::from([("write.metadata.compression-codec".into(), "gzip".into())]),
        ..Default::default()
    };
    let t0 = create_table(&store, &catalog, &env, "db", "gz", def).await;
    let ids = |v: &[i64]| -> ArrayRef { Arc::new(Int64Array::from(v.to_vec())) };
    let t1 = append(
        &t0,
        &[batch(vec![
            ("id", ids(&[1, 2])),
            ("name", strings(&["a", "b"])),
        ])],
        &env,
    )
    .await
    .unwrap();
    let t2 = append(
        &t1,
        &[batch(vec![("id", ids(&[3])), ("name", strings(&["c"]))])],
        &env,
    )
    .await
    .unwrap();
    let meta_dir = root.join(t2.key()).join("metadata");
    let mut names: Vec<String> = std::fs::read_dir(&meta_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".metadata.json"))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "v1.gz.metadata.json",
            "v2.gz.metadata.json",
            "v3.gz.metadata.json"
        ]
    );
    for n in &names {
        let bytes = std::fs::read(meta_dir.join(n)).unwrap();
        assert_eq!(&bytes[..2], &[0x1f, 0x8b], "{n} is not gzip");
    }
    let reopened = Table::open(store.clone(), t2.key()).await.unwrap();
    assert!(reopened.metadata_key().ends_with("v3.gz.metadata.json"));
    let expected = rows(&[
        &[Some("1"), Some("a")],
        &[Some("2"), Some("b")],
        &[Some("3"), Some("c")],
    ]);
    let ours: Vec<Value> = common::rows(&reopened, lakescope_iceberg::SnapshotSelector::Current)
        .await
        .iter()
        .map(|l| Value::Array(l.split('|').map(|s| Value::String(s.into())).collect()))
        .collect();
    assert_eq!(Value::Array(ours), expected);
    check(&py, &reopened, &root, None, &expected);
    // An unknown codec is refused naming the table; nothing is written.
    let bad = BTreeMap::from([(
        "write.metadata.compression-codec".to_string(),
        "lz4".to_string(),
    )]);
    let err = lakescope_iceberg::write::update_properties(&reopened, &bad, &[], &env)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("lz4") && err.contains("gz"), "{err}");
}
