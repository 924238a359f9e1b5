//! Writing `file.format = orc` tables: files are ORC in Java Paimon 0.9's layout (column names,
//! ORC types, zstd by default, as in a Java-written corpus file), read back the same as the
//! same rows written as Parquet, with the same manifest statistics; append and primary-key.

use arrow_array::{
    ArrayRef, Decimal128Array, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use bytes::Bytes;
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::{DataType, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::{write_files, FixedEnv, NewFile};
use lakescope_paimon::Error;
use lakescope_storage::{LocalStore, MemoryStore, ObjectStore};
use lakescope_test_support::tables::{
    batch, create, rows, t, writable_types, writable_types_batch, write_and_commit,
};
use orc_rust::compression::CompressionType;
use orc_rust::ArrowReaderBuilder;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/corpus");

/// The ORC layout of a file: (column name, ORC type) and the compression.
type Layout = (Vec<(String, String)>, Option<CompressionType>);

fn layout(bytes: Bytes) -> Layout {
    let b = ArrowReaderBuilder::try_new(bytes).unwrap();
    let meta = b.file_metadata();
    let cols = meta
        .root_data_type()
        .children()
        .iter()
        .map(|c| {
            let kind = format!("{:?}", c.data_type());
            let kind = kind
                .split([' ', '{'])
                .next()
                .unwrap_or_default()
                .to_string();
            (c.name().to_string(), kind)
        })
        .collect();
    (cols, meta.compression().map(|c| c.compression_type()))
}

async fn file_bytes(table: &Table, f: &NewFile) -> Bytes {
    let path = table
        .data_file_path(&f.partition, f.bucket, &f.file)
        .unwrap();
    table.store().get(&path).await.unwrap()
}

/// Writes and commits `b`; returns the new files and the rows of the new snapshot.
async fn commit(table: &Table, env: &FixedEnv, b: RecordBatch) -> (Vec<NewFile>, Vec<String>) {
    let (files, s) = write_and_commit(table, env, &[b], None, "orc-test").await;
    let r = read_snapshot(table, Some(&s), &ReadRequest::default())
        .await
        .unwrap();
    (files, rows(&r.batches))
}

async fn new_table(
    store: &Rc<dyn ObjectStore>,
    path: &str,
    columns: Vec<(&str, DataType)>,
    partition_keys: &[&str],
    primary_keys: &[&str],
    options: &[(&str, &str)],
) -> Table {
    let env = FixedEnv::new(1_700_000_000_000, 99);
    let def = TableDefinition {
        columns: columns
            .into_iter()
            .map(|(n, t)| (n.to_string(), t, None))
            .collect(),
        partition_keys: partition_keys.iter().map(|s| s.to_string()).collect(),
        primary_keys: primary_keys.iter().map(|s| s.to_string()).collect(),
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        comment: None,
    };
    create(store, path, &def, &env).await
}

#[tokio::test]
async fn append_orc_table_matches_java_layout() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 1);
    // The seed statement: CREATE TABLE test3 (user_id BIGINT, item_id BIGINT) WITH ('file.format' = 'orc').
    let table = new_table(
        &store,
        "db.db/test3",
        vec![
            ("user_id", t(TypeKind::BigInt)),
            ("item_id", t(TypeKind::BigInt)),
        ],
        &[],
        &[],
        &[("file.format", "orc")],
    )
    .await;
    let (files, got) = commit(
        &table,
        &env,
        batch(vec![
            (
                "user_id",
                Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef,
            ),
            (
                "item_id",
                Arc::new(Int64Array::from(vec![Some(10), None, Some(30)])),
            ),
        ]),
    )
    .await;
    assert_eq!(got, vec!["1|10", "2|null", "3|30"]);
    assert_eq!(files.len(), 1);
    assert!(files[0].file.file_name.ends_with(".orc"));
    assert_eq!(files[0].file.row_count, 3);
    let (cols, codec) = layout(file_bytes(&table, &files[0]).await);
    assert_eq!(
        cols,
        vec![
            ("user_id".to_string(), "Long".to_string()),
            ("item_id".to_string(), "Long".to_string())
        ]
    );
    assert!(matches!(codec, Some(CompressionType::Zstd)), "{codec:?}");

    // Java 0.9's own file for (id BIGINT, ts TIMESTAMP(6), dt STRING) PARTITIONED BY (dt).
    let java = std::fs::read(
        Path::new(CORPUS).join(
            "paimon/warehouse/java09.db/append_orc/dt=a/bucket-0/data-4115f6f8-321d-46fb-96ca-168e834f2768-0.orc",
        ),
    )
    .unwrap();
    let java = layout(Bytes::from(java));
    let ours = new_table(
        &store,
        "db.db/like_java",
        vec![
            ("id", t(TypeKind::BigInt)),
            ("ts", t(TypeKind::Timestamp(6))),
            ("dt", t(TypeKind::VarChar(MAX_LENGTH))),
        ],
        &["dt"],
        &[],
        &[("file.format", "orc")],
    )
    .await;
    let (files, got) = commit(
        &ours,
        &env,
        batch(vec![
            ("id", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
            (
                "ts",
                Arc::new(TimestampMicrosecondArray::from(vec![
                    Some(1_709_251_200_123_456),
                    None,
                ])),
            ),
            ("dt", Arc::new(StringArray::from(vec!["a", "a"]))),
        ]),
    )
    .await;
    assert_eq!(got, vec!["1|2024-03-01T00:00:00.123456|a", "2|null|a"]);
    let ours = layout(file_bytes(&ours, &files[0]).await);
    assert_eq!(ours.0, java.0);
    assert_eq!(
        format!("{:?}", ours.1),
        format!("{:?}", java.1),
        "compression differs from Java's default"
    );
}

#[tokio::test]
async fn every_writable_type_reads_back_like_parquet_with_the_same_stats() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 2);
    let orc = new_table(
        &store,
        "db.db/orc",
        writable_types(),
        &[],
        &[],
        &[("file.format", "orc")],
    )
    .await;
    let parquet = new_table(&store, "db.db/parquet", writable_types(), &[], &[], &[]).await;
    let (orc_files, orc_rows) = commit(&orc, &env, writable_types_batch()).await;
    let (parquet_files, parquet_rows) = commit(&parquet, &env, writable_types_batch()).await;
    assert_eq!(orc_rows.len(), 3);
    assert_eq!(orc_rows, parquet_rows);
    assert_eq!(
        orc_files[0].file.value_stats,
        parquet_files[0].file.value_stats
    );
    assert_eq!(orc_files[0].file.row_count, 3);
    // ORC-763: timestamps in the last second before 1970 with a fraction are not
    // representable; orc-rust refuses them instead of writing a shifted value.
    let pre_epoch = batch(vec![(
        "ts3",
        Arc::new(TimestampMicrosecondArray::from(vec![-1_000])) as ArrayRef,
    )]);
    let err = write_files(&orc, &env, &[pre_epoch], 0).await.unwrap_err();
    assert!(err.to_string().contains("Cannot encode timestamp"), "{err}");
    let (cols, _) = layout(file_bytes(&orc, &orc_files[0]).await);
    let kinds: Vec<&str> = cols.iter().map(|(_, k)| k.as_str()).collect();
    assert_eq!(
        kinds,
        vec![
            "Boolean",
            "Byte",
            "Short",
            "Int",
            "Long",
            "Float",
            "Double",
            "String",
            "String",
            "Binary",
            "Date",
            "Timestamp",
            "Timestamp",
            "TimestampWithLocalTimezone"
        ]
    );
}

#[tokio::test]
async fn primary_key_orc_table_upserts_and_deletes() {
    let dir = tempfile::tempdir().unwrap();
    let store: Rc<dyn ObjectStore> = Rc::new(LocalStore::new(dir.path()));
    let env = FixedEnv::new(1_700_000_000_000, 3);
    let table = new_table(
        &store,
        "db.db/pk",
        vec![
            ("id", t(TypeKind::BigInt)),
            ("v", t(TypeKind::VarChar(MAX_LENGTH))),
        ],
        &[],
        &["id"],
        &[("file.format", "orc"), ("bucket", "2")],
    )
    .await;
    let kv = |ids: Vec<i64>, vs: Vec<&str>, kinds: Vec<i8>| {
        batch(vec![
            ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
            ("v", Arc::new(StringArray::from(vs))),
            ("_VALUE_KIND", Arc::new(Int8Array::from(kinds))),
        ])
    };
    let (files, got) = commit(&table, &env, kv(vec![1, 2, 3, 4], vec!["a"; 4], vec![0; 4])).await;
    assert_eq!(got, vec!["1|a", "2|a", "3|a", "4|a"]);
    let (cols, _) = layout(file_bytes(&table, &files[0]).await);
    assert_eq!(
        cols,
        [
            ("_KEY_id", "Long"),
            ("_SEQUENCE_NUMBER", "Long"),
            ("_VALUE_KIND", "Byte"),
            ("id", "Long"),
            ("v", "String")
        ]
        .map(|(n, k)| (n.to_string(), k.to_string()))
    );
    let (files, got) = commit(
        &table,
        &env,
        kv(vec![2, 3, 5], vec!["b", "", "c"], vec![2, 3, 0]),
    )
    .await;
    assert_eq!(got, vec!["1|a", "2|b", "4|a", "5|c"]);
    assert!(files.iter().all(|f| f.file.file_name.ends_with(".orc")));
    assert_eq!(
        files
            .iter()
            .map(|f| f.file.delete_row_count)
            .sum::<Option<i64>>(),
        Some(1)
    );
}

#[tokio::test]
async fn codecs_and_unwritable_types() {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 4);
    for (name, want) in [
        ("lz4", Some("Lz4")),
        ("snappy", Some("Snappy")),
        ("zlib", Some("Zlib")),
        ("none", None),
    ] {
        let table = new_table(
            &store,
            &format!("db.db/c_{name}"),
            vec![("id", t(TypeKind::Int))],
            &[],
            &[],
            &[("file.format", "orc"), ("file.compression", name)],
        )
        .await;
        let (files, got) = commit(
            &table,
            &env,
            batch(vec![(
                "id",
                Arc::new(Int32Array::from(vec![4, 5])) as ArrayRef,
            )]),
        )
        .await;
        assert_eq!(got, vec!["4", "5"]);
        let (_, codec) = layout(file_bytes(&table, &files[0]).await);
        assert_eq!(codec.map(|c| format!("{c:?}")).as_deref(), want, "{name}");
    }

    let brotli = new_table(
        &store,
        "db.db/brotli",
        vec![("id", t(TypeKind::Int))],
        &[],
        &[],
        &[("file.format", "orc"), ("file.compression", "brotli")],
    )
    .await;
    let b = batch(vec![(
        "id",
        Arc::new(Int32Array::from(vec![1])) as ArrayRef,
    )]);
    let err = write_files(&brotli, &env, &[b], 0).await.unwrap_err();
    assert!(err.to_string().contains("not supported for ORC"), "{err}");

    // orc-rust has no DECIMAL writer: refused before anything is written.
    let dec = new_table(
        &store,
        "db.db/dec",
        vec![(
            "price",
            t(TypeKind::Decimal {
                precision: 10,
                scale: 2,
            }),
        )],
        &[],
        &[],
        &[("file.format", "orc")],
    )
    .await;
    let b = batch(vec![(
        "price",
        Arc::new(
            Decimal128Array::from(vec![100])
                .with_precision_and_scale(10, 2)
                .unwrap(),
        ) as ArrayRef,
    )]);
    let err = write_files(&dec, &env, &[b], 0).await.unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert!(err.to_string().contains("DECIMAL to ORC"), "{err}");

    // Formats other than parquet/orc are refused naming the table.
    let avro = new_table(
        &store,
        "db.db/avro",
        vec![("id", t(TypeKind::Int))],
        &[],
        &[],
        &[("file.format", "avro")],
    )
    .await;
    let b = batch(vec![(
        "id",
        Arc::new(Int32Array::from(vec![1])) as ArrayRef,
    )]);
    let err = write_files(&avro, &env, &[b], 0).await.unwrap_err();
    assert!(err.to_string().contains("db.db/avro"), "{err}");
}
