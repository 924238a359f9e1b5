//! Interop: tables lakescope writes are read identically, at every snapshot, by lakescope,
//! pypaimon 2.1 and Java Paimon 0.9; and lakescope appends on top of Java-written tables read
//! correctly in Java. The oracles are subprocesses set up by `scripts/oracles.sh`; without
//! them the test fails (set `LAKESCOPE_SKIP_ORACLES=1` to skip it).

use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Decimal128Array, Float64Array, Int32Array, Int64Array,
    Int8Array, RecordBatch, StringArray, TimestampMicrosecondArray,
};
use lakescope_engine::write::{Definition, Overwrite};
use lakescope_engine::{Catalog, TableRef};
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::{Datum, TypeKind};
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::LocalStore;
use lakescope_test_support::interop::{agree_at_snapshots, Pypaimon};
use lakescope_test_support::oracles::{oracles, run};
use lakescope_test_support::tables::{batch, t};
use lakescope_test_support::temp_dir;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

fn temp_warehouse(name: &str) -> PathBuf {
    temp_dir("lakescope-interop", name)
}

fn app_rows(ids: std::ops::Range<i64>, dt: impl Fn(i64) -> &'static str) -> RecordBatch {
    let n = ids.clone().count();
    batch(vec![
        (
            "id",
            Arc::new(Int64Array::from(ids.clone().collect::<Vec<_>>())) as ArrayRef,
        ),
        (
            "name",
            Arc::new(StringArray::from(
                ids.clone()
                    .map(|i| {
                        if i % 4 == 3 {
                            None
                        } else {
                            Some(format!("name-{i}-{}", "z".repeat(i as usize % 20)))
                        }
                    })
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "price",
            Arc::new(
                Decimal128Array::from(
                    ids.clone()
                        .map(|i| i128::from(i * 1234 - 500))
                        .collect::<Vec<_>>(),
                )
                .with_precision_and_scale(10, 2)
                .unwrap(),
            ),
        ),
        (
            "big",
            Arc::new(
                Decimal128Array::from(
                    ids.clone()
                        .map(|i| i128::from(i * 1_000_000_007))
                        .collect::<Vec<_>>(),
                )
                .with_precision_and_scale(18, 3)
                .unwrap(),
            ),
        ),
        (
            "d",
            Arc::new(Date32Array::from(
                ids.clone().map(|i| 19_000 + i as i32).collect::<Vec<_>>(),
            )),
        ),
        (
            "ts",
            Arc::new(TimestampMicrosecondArray::from(
                ids.clone()
                    .map(|i| 1_700_000_000_000_000 + i * 1_000_123)
                    .collect::<Vec<_>>(),
            )),
        ),
        (
            "ok",
            Arc::new(BooleanArray::from(
                ids.clone().map(|i| i % 2 == 0).collect::<Vec<_>>(),
            )),
        ),
        (
            "score",
            Arc::new(Float64Array::from(
                ids.clone().map(|i| i as f64 * 0.5).collect::<Vec<_>>(),
            )),
        ),
        (
            "dt",
            Arc::new(StringArray::from(ids.map(dt).collect::<Vec<_>>())),
        ),
    ])
    .slice(0, n)
}

#[tokio::test]
async fn lakescope_written_tables_read_identically_in_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("write");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 42);

    // Append table partitioned by dt, bucket-unaware.
    let s = t(TypeKind::VarChar(MAX_LENGTH));
    let def = Definition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("name".into(), s.clone(), None),
            (
                "price".into(),
                t(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
                None,
            ),
            (
                "big".into(),
                t(TypeKind::Decimal {
                    precision: 18,
                    scale: 3,
                }),
                None,
            ),
            ("d".into(), t(TypeKind::Date), None),
            ("ts".into(), t(TypeKind::Timestamp(6)), None),
            ("ok".into(), t(TypeKind::Boolean), None),
            ("score".into(), t(TypeKind::Double), None),
            ("dt".into(), s.clone(), None),
        ],
        partition_keys: vec!["dt".into()],
        ..Default::default()
    };
    let app = catalog
        .create_table_with(&env, "w", "app", &def)
        .await
        .unwrap();
    let cycle = |i: i64| ["2024-01-01", "2024-01-02", "2024-01-03"][i as usize % 3];
    catalog
        .insert_with(&env, &app, &[app_rows(0..12, cycle)], None)
        .await
        .unwrap();
    catalog
        .insert_with(
            &env,
            &app,
            &[app_rows(12..20, cycle), app_rows(20..25, |_| "2024-01-04")],
            None,
        )
        .await
        .unwrap();
    let stat = Overwrite::Static(vec![("dt".into(), Datum::String("2024-01-02".into()))]);
    catalog
        .insert_with(
            &env,
            &app,
            &[app_rows(100..103, |_| "2024-01-02")],
            Some(stat),
        )
        .await
        .unwrap();
    catalog
        .insert_with(
            &env,
            &app,
            &[app_rows(200..202, |_| "2024-01-01")],
            Some(Overwrite::Dynamic),
        )
        .await
        .unwrap();
    let rows = agree_at_snapshots(&o, &catalog, &wh, &app, &[1, 2, 3, 4], Pypaimon::Agrees).await;
    // 3: dt=2024-01-02 replaced by 3 rows; 4: dt=2024-01-01 replaced by 2 rows.
    assert_eq!(rows[&3].len(), 25 - 7 + 3);
    assert_eq!(rows[&4].len(), 21 - 7 + 2);
    assert_eq!(rows[&1].len(), 12);
    assert_eq!(rows[&2].len(), 25);

    // PK table, fixed buckets: insert, upsert, delete via _VALUE_KIND, static overwrite.
    let def = Definition {
        columns: vec![
            ("dt".into(), s.clone(), None),
            ("id".into(), t(TypeKind::Int), None),
            ("v".into(), s.clone(), None),
            ("n".into(), t(TypeKind::BigInt), None),
        ],
        partition_keys: vec!["dt".into()],
        primary_keys: vec!["dt".into(), "id".into()],
        options: BTreeMap::from([
            ("bucket".to_string(), "3".to_string()),
            // Small files: a commit rolls into several level-0 files per bucket.
            ("target-file-size".to_string(), "2kb".to_string()),
        ]),
        ..Default::default()
    };
    let pk = catalog
        .create_table_with(&env, "w", "pk", &def)
        .await
        .unwrap();
    let kv = |dt: &str, ids: Vec<i32>, v: &str, kinds: Option<Vec<i8>>| {
        let n = ids.len();
        let mut cols = vec![
            (
                "dt",
                Arc::new(StringArray::from(vec![dt.to_string(); n])) as ArrayRef,
            ),
            ("id", Arc::new(Int32Array::from(ids.clone()))),
            ("v", Arc::new(StringArray::from(vec![v.to_string(); n]))),
            (
                "n",
                Arc::new(Int64Array::from(
                    ids.iter().map(|i| i64::from(*i) * 10).collect::<Vec<_>>(),
                )),
            ),
        ];
        if let Some(k) = kinds {
            cols.push(("_VALUE_KIND", Arc::new(Int8Array::from(k))));
        }
        batch(cols)
    };
    catalog
        .insert_with(
            &env,
            &pk,
            &[
                kv("a", (0..20).collect(), "v1", None),
                kv("b", (0..10).collect(), "v1", None),
            ],
            None,
        )
        .await
        .unwrap();
    catalog
        .insert_with(
            &env,
            &pk,
            &[kv("a", (5..15).collect(), "v2", Some(vec![2; 10]))],
            None,
        )
        .await
        .unwrap();
    catalog
        .insert_with(
            &env,
            &pk,
            &[
                kv("a", vec![0, 1, 7], "", Some(vec![3; 3])),
                kv("b", vec![3], "", Some(vec![3])),
            ],
            None,
        )
        .await
        .unwrap();
    let stat = Overwrite::Static(vec![("dt".into(), Datum::String("b".into()))]);
    catalog
        .insert_with(&env, &pk, &[kv("b", vec![42, 43], "ow", None)], Some(stat))
        .await
        .unwrap();
    catalog
        .insert_with(&env, &pk, &[kv("a", vec![2, 100], "v3", None)], None)
        .await
        .unwrap();
    let rows = agree_at_snapshots(&o, &catalog, &wh, &pk, &[1, 2, 3, 4, 5], Pypaimon::Agrees).await;
    assert_eq!(rows[&1].len(), 30);
    assert_eq!(rows[&2].len(), 30);
    assert_eq!(rows[&3].len(), 26);
    assert_eq!(rows[&4].len(), 17 + 2);
    assert_eq!(rows[&5].len(), 20);

    // PK table with dynamic buckets (bucket=-1, the default): HASH index files.
    let def = Definition {
        columns: vec![
            ("id".into(), t(TypeKind::Int), None),
            ("v".into(), s.clone(), None),
        ],
        primary_keys: vec!["id".into()],
        options: BTreeMap::from([("dynamic-bucket.target-row-num".to_string(), "4".to_string())]),
        ..Default::default()
    };
    let dynamic = catalog
        .create_table_with(&env, "w", "dyn", &def)
        .await
        .unwrap();
    let idv = |ids: Vec<i32>, v: &str, kinds: Vec<i8>| {
        batch(vec![
            ("id", Arc::new(Int32Array::from(ids.clone())) as ArrayRef),
            (
                "v",
                Arc::new(StringArray::from(vec![v.to_string(); ids.len()])),
            ),
            ("_VALUE_KIND", Arc::new(Int8Array::from(kinds))),
        ])
    };
    catalog
        .insert_with(
            &env,
            &dynamic,
            &[idv((0..10).collect(), "a", vec![0; 10])],
            None,
        )
        .await
        .unwrap();
    let mut kinds = vec![2; 10];
    kinds[0] = 3;
    catalog
        .insert_with(&env, &dynamic, &[idv((5..15).collect(), "b", kinds)], None)
        .await
        .unwrap();
    let rows = agree_at_snapshots(&o, &catalog, &wh, &dynamic, &[1, 2], Pypaimon::Agrees).await;
    assert_eq!((rows[&1].len(), rows[&2].len()), (10, 14));
    assert!(
        wh.join("w.db/dyn/bucket-3").exists(),
        "15 keys / 4 per bucket fill buckets 0-3"
    );
    // Java's writer upserts keys we placed (and one new key) through our HASH index: each key
    // must stay in one bucket, or the table would show duplicates.
    run(
        o.java("ReadJava")
            .arg("upsert-int-string")
            .arg(wh.join("w.db/dyn"))
            .args(["1", "java", "13", "java", "99", "java"]),
        "Java upsert into the dynamic-bucket table",
    );
    let rows = agree_at_snapshots(&o, &catalog, &wh, &dynamic, &[3], Pypaimon::Skip).await;
    // (pypaimon 2.1 cannot read the Java 0.9 manifests of snapshot 3.)
    assert_eq!(rows[&3].len(), 15, "{:?}", rows[&3]);
    assert_eq!(rows[&3].iter().filter(|l| l.contains("java")).count(), 3);
    let _ = std::fs::remove_dir_all(&wh);
}

#[tokio::test]
async fn lakescope_appends_on_java_written_tables() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("reverse");
    run(
        o.java("ReadJava").arg("write-seed").arg(&wh),
        "Java write-seed",
    );
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 7);
    let app: TableRef = "jw.app".parse().unwrap();
    // Our statistics of Java's rows are byte-identical to the `_VALUE_STATS` Java wrote.
    {
        let table = catalog.open_table(&app).await.unwrap();
        let snap = table.snapshot(1).await.unwrap();
        let plan = lakescope_paimon::scan::plan(&table, &snap, &Default::default())
            .await
            .unwrap();
        let schema = table.current_schema().clone();
        assert_eq!(plan.splits.len(), 2);
        for split in &plan.splits {
            let Datum::String(dt) = &split.partition[0] else {
                panic!("{:?}", split.partition)
            };
            let ids: Vec<i64> = (0..6).filter(|i| (i % 2 == 0) == (dt == "x")).collect();
            let cols: Vec<ArrayRef> = vec![
                Arc::new(Int64Array::from(ids.clone())),
                Arc::new(StringArray::from(
                    ids.iter().map(|i| format!("java{i}")).collect::<Vec<_>>(),
                )),
                Arc::new(
                    Decimal128Array::from(
                        ids.iter().map(|i| i128::from(i * 125)).collect::<Vec<_>>(),
                    )
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
                ),
                Arc::new(StringArray::from(vec![dt.clone(); ids.len()])),
            ];
            let ours = lakescope_paimon::write::stats::collect(
                &schema.fields,
                &cols,
                &schema.core_options(),
            )
            .unwrap();
            assert_eq!(split.files.len(), 1);
            assert_eq!(
                ours, split.files[0].value_stats,
                "value stats of partition {dt}"
            );
        }
    }
    catalog
        .insert_with(
            &env,
            &app,
            &[app_rows(10..14, |i| if i % 2 == 0 { "x" } else { "z" })],
            None,
        )
        .await
        .unwrap();
    // Java 0.9 manifests lack `_VALUE_STATS_COLS`, so pypaimon 2.1 cannot read these tables at all.
    let rows = agree_at_snapshots(&o, &catalog, &wh, &app, &[1, 2], Pypaimon::Skip).await;
    assert_eq!((rows[&1].len(), rows[&2].len()), (6, 10));
    let pk: TableRef = "jw.pk".parse().unwrap();
    let kv = batch(vec![
        (
            "dt",
            Arc::new(StringArray::from(vec!["x", "x", "y"])) as ArrayRef,
        ),
        ("id", Arc::new(Int32Array::from(vec![0, 8, 1]))),
        ("v", Arc::new(StringArray::from(vec!["ls0", "ls8", "gone"]))),
        ("_VALUE_KIND", Arc::new(Int8Array::from(vec![2, 0, 3]))),
    ]);
    catalog.insert_with(&env, &pk, &[kv], None).await.unwrap();
    let rows = agree_at_snapshots(&o, &catalog, &wh, &pk, &[1, 2], Pypaimon::Skip).await;
    assert_eq!((rows[&1].len(), rows[&2].len()), (6, 6));
    assert!(rows[&2].iter().any(|l| l.contains("ls0")), "{:?}", rows[&2]);
    // Our upsert of key (x, 0) landed in the bucket Java's writer chose for it.
    let table = catalog.open_table(&pk).await.unwrap();
    let snap = table.latest_snapshot().await.unwrap().unwrap();
    let plan = lakescope_paimon::scan::plan(&table, &snap, &Default::default())
        .await
        .unwrap();
    let int = [t(TypeKind::Int).with_nullable(false)];
    let mut bucket_of_key: BTreeMap<(Vec<u8>, Vec<u8>), i32> = BTreeMap::new();
    let mut files = 0;
    for split in &plan.splits {
        for f in &split.files {
            files += 1;
            for k in [&f.min_key, &f.max_key] {
                lakescope_paimon::spec::BinaryRow::decode(k, &int).unwrap();
                let prev =
                    bucket_of_key.insert((split.partition_bytes.clone(), k.clone()), split.bucket);
                assert!(
                    prev.is_none() || prev == Some(split.bucket),
                    "key in two buckets: {:?}",
                    f.file_name
                );
            }
        }
    }
    assert!(files >= 5, "Java files plus ours: {files}");
    let _ = std::fs::remove_dir_all(&wh);
}

/// Columns the Parquet writer encodes differently (issue 27): unique keys and random doubles
/// PLAIN, few values with a dictionary, a column whose first page has 4 values and whose later
/// values are unique (dictionary, then PLAIN once the dictionary page is full), nulls; with
/// small pages and dictionary pages, and with `parquet.enable.dictionary` off and
/// `parquet.compression` over `file.compression`. Java 0.9 and pypaimon 2.1 read them as
/// lakescope does.
#[tokio::test]
async fn parquet_encodings_and_options_read_identically_in_java_and_pypaimon() {
    let Some(o) = oracles() else { return };
    let wh = temp_warehouse("parquet-settings");
    let catalog = Catalog::new(Rc::new(LocalStore::new(&wh)));
    let env = FixedEnv::new(1_790_000_000_000, 42);
    let s = t(TypeKind::VarChar(MAX_LENGTH));
    let rows = |ids: std::ops::Range<i64>, version: i32| {
        let mut x: u64 = 7;
        batch(vec![
            (
                "id",
                Arc::new(Int64Array::from_iter_values(ids.clone())) as ArrayRef,
            ),
            (
                "cat",
                Arc::new(StringArray::from_iter(ids.clone().map(|i| {
                    (i % 7 != 0).then(|| ["red", "green", "blue", "cyan"][i as usize % 4])
                }))),
            ),
            (
                "drift",
                Arc::new(StringArray::from_iter_values(ids.clone().map(|i| {
                    if i < 20_000 {
                        format!("w{}", i % 4)
                    } else {
                        format!("unique-{i}")
                    }
                }))),
            ),
            (
                "score",
                Arc::new(Float64Array::from_iter(ids.clone().map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (i % 5 != 0).then_some((x >> 11) as f64 / 1e10)
                }))),
            ),
            (
                "k",
                Arc::new(Int32Array::from_iter_values(
                    ids.map(|i| (i % 3) as i32 + version),
                )),
            ),
        ])
    };
    let columns = vec![
        ("id".into(), t(TypeKind::BigInt), None),
        ("cat".into(), s.clone(), None),
        ("drift".into(), s.clone(), None),
        ("score".into(), t(TypeKind::Double), None),
        ("k".into(), t(TypeKind::Int), None),
    ];
    let variants: [(&str, &[(&str, &str)]); 2] = [
        (
            "small_pages",
            &[
                ("parquet.page.size", "8192"),
                ("parquet.dictionary.page.size", "2048"),
            ],
        ),
        (
            "no_dictionary",
            &[
                ("parquet.enable.dictionary", "false"),
                ("parquet.compression", "snappy"),
            ],
        ),
    ];
    for (name, options) in variants {
        let mut opts: BTreeMap<String, String> = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        opts.insert("bucket".into(), "2".into());
        let def = Definition {
            columns: columns.clone(),
            primary_keys: vec!["id".into()],
            options: opts,
            ..Default::default()
        };
        let table = catalog
            .create_table_with(&env, "w", name, &def)
            .await
            .unwrap();
        catalog
            .insert_with(&env, &table, &[rows(0..30_000, 0)], None)
            .await
            .unwrap();
        // An upsert of 10,000 keys: a second sorted run to merge.
        catalog
            .insert_with(&env, &table, &[rows(10_000..20_000, 10)], None)
            .await
            .unwrap();
        let got = agree_at_snapshots(&o, &catalog, &wh, &table, &[1, 2], Pypaimon::Agrees).await;
        assert_eq!(got[&2].len(), 30_000, "{name}");
    }
}
