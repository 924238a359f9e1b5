//! Tables written through the Hadoop-catalog writer read back through the crate's own reader:
//! identity/day/bucket/truncate partitions, several commits with time travel to each snapshot,
//! upserts (equality deletes in the same snapshot), the Flink sink's upsert check, and the
//! metadata chain (versions, hint, logs, sequence numbers, summaries).

use arrow_array::{ArrayRef, Decimal128Array, Int64Array, RecordBatch};
use lakescope_format::spec::{DataType, TypeKind};
use lakescope_iceberg::spec::transform::Transform;
use lakescope_iceberg::write::{append, IcebergTableDefinition};
use lakescope_iceberg::{Error, SnapshotSelector, Table};
use lakescope_storage::{MemoryStore, ObjectStore};
use std::collections::BTreeMap;
use std::sync::Arc;

mod common;
use common::*;

async fn keys_under(store: &MemoryStore, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![prefix.to_string()];
    while let Some(dir) = stack.pop() {
        let l = store.list_dir(&dir).await.unwrap();
        out.extend(l.files.into_iter().map(|f| f.path));
        stack.extend(l.dirs.into_iter().map(|d| format!("{dir}/{d}")));
    }
    out.sort();
    out
}

#[tokio::test(flavor = "current_thread")]
async fn partitioned_appends_with_time_travel() {
    let wh = Warehouse::new();
    let def = IcebergTableDefinition {
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
    };
    let table = wh.create("my_db", "user_actions", def).await;
    assert!(rows(&table, SnapshotSelector::Current).await.is_empty());
    let first = batch(vec![
        ("action_id", strings(&["a1", "a2"])),
        ("user_id", strings(&["u1", "u2"])),
        (
            "action_time",
            millis(&[MAY_1_10H, MAY_1_10H + DAY_MS + 3_600_000]),
        ),
        ("action_type", strings(&["click", "view"])),
        ("action_data", strings(&["{}", "{}"])),
    ]);
    let t1 = append(&table, &[first], &wh.env).await.unwrap();
    // Columns may come in any order and optional ones may be missing.
    let second = batch(vec![
        ("action_type", strings(&["click"])),
        ("action_time", millis(&[MAY_1_10H + 60_000])),
        ("action_id", strings(&["a3"])),
        ("user_id", strings(&["u3"])),
    ]);
    let t2 = append(&t1, &[second], &wh.env).await.unwrap();
    let s1 = t1.metadata().current_snapshot_id.unwrap();
    let s2 = t2.metadata().current_snapshot_id.unwrap();

    let reopened = Table::open(wh.store.clone(), t2.key()).await.unwrap();
    assert_eq!(
        reopened.metadata_key(),
        "wh/iceberg/my_db/user_actions/metadata/v3.metadata.json"
    );
    let all = rows(&reopened, SnapshotSelector::Current).await;
    assert_eq!(
        all,
        vec![
            "a1|u1|2024-05-01T10:00:00|click|{}",
            "a2|u2|2024-05-02T11:00:00|view|{}",
            "a3|u3|2024-05-01T10:01:00|click|null",
        ]
    );
    assert_eq!(rows(&reopened, SnapshotSelector::Id(s1)).await.len(), 2);
    assert_eq!(rows(&reopened, SnapshotSelector::Id(s2)).await.len(), 3);
    let at_s1 = reopened.metadata().snapshot(s1).unwrap().timestamp_ms;
    assert_eq!(
        rows(&reopened, SnapshotSelector::AsOfTimestamp(at_s1))
            .await
            .len(),
        2
    );

    // Metadata chain: sequence numbers, parents, logs, refs, hint, summaries.
    let m = reopened.metadata();
    assert_eq!(m.last_sequence_number, 2);
    let snap2 = m.snapshot(s2).unwrap();
    assert_eq!(
        (snap2.sequence_number, snap2.parent_snapshot_id),
        (2, Some(s1))
    );
    assert_eq!(snap2.operation(), Some("append"));
    assert_eq!(snap2.summary["added-records"], "1");
    assert_eq!(snap2.summary["total-records"], "3");
    assert_eq!(snap2.summary["total-data-files"], "3");
    assert_eq!(m.snapshot_log.len(), 2);
    let logged: Vec<&str> = m
        .metadata_log
        .iter()
        .map(|e| e.metadata_file.as_str())
        .collect();
    assert_eq!(
        logged,
        [
            "s3://lake/wh/iceberg/my_db/user_actions/metadata/v1.metadata.json",
            "s3://lake/wh/iceberg/my_db/user_actions/metadata/v2.metadata.json"
        ]
    );
    assert_eq!(m.refs["main"].snapshot_id, s2);
    let hint = wh
        .store
        .get("wh/iceberg/my_db/user_actions/metadata/version-hint.text")
        .await
        .unwrap();
    assert_eq!(&hint[..], b"3");
    let files = keys_under(&wh.store, "wh/iceberg/my_db/user_actions/data").await;
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(files
        .iter()
        .any(|f| f.contains("/data/action_time_day=2024-05-01/action_type=click/")));
    assert!(files
        .iter()
        .any(|f| f.contains("/data/action_time_day=2024-05-02/action_type=view/")));
}

#[tokio::test(flavor = "current_thread")]
async fn bucket_truncate_and_decimal_columns() {
    let wh = Warehouse::new();
    let def = IcebergTableDefinition {
        columns: vec![
            col("user_id", string()),
            col("v", DataType::nullable(TypeKind::BigInt)),
            col(
                "amount",
                DataType::nullable(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
            ),
        ],
        partition: vec![
            ("user_id".into(), Transform::Bucket(16)),
            ("user_id".into(), Transform::Truncate(4)),
        ],
        properties: BTreeMap::from([("write.target-file-size-bytes".into(), "134217728".into())]),
        ..Default::default()
    };
    let table = wh.create("my_db", "bucketed", def).await;
    let amounts: ArrayRef = Arc::new(
        Decimal128Array::from(vec![Some(1250), None, Some(-5)])
            .with_precision_and_scale(10, 2)
            .unwrap(),
    );
    let b = batch(vec![
        ("user_id", strings(&["iceberg", "user_1", "user_2"])),
        ("v", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
        ("amount", amounts),
    ]);
    let t = append(&table, &[b], &wh.env).await.unwrap();
    assert_eq!(
        rows(&t, SnapshotSelector::Current).await,
        vec!["iceberg|1|12.50", "user_1|2|null", "user_2|3|-0.05"]
    );
    let files = keys_under(&wh.store, "wh/iceberg/my_db/bucketed/data").await;
    // murmur3("iceberg") = 1210000089 (the spec's test vector) → bucket 9 of 16.
    assert!(
        files
            .iter()
            .any(|f| f.contains("/user_id_bucket=9/user_id_trunc=iceb/")),
        "{files:?}"
    );
    assert!(files.iter().all(|f| f.contains("user_id_trunc=")));
    // A type that cannot be written is a clear error and commits nothing.
    let bad = batch(vec![("v", strings(&["x"]))]);
    let err = append(&t, &[bad], &wh.env).await.unwrap_err();
    assert!(err.to_string().contains("column v"), "{err}");
    assert_eq!(rows(&t, SnapshotSelector::Current).await.len(), 3);
}

fn profile_def() -> IcebergTableDefinition {
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
    }
}

fn profiles(ids: &[&str], emails: &[&str], times: &[i64], status: &[&str]) -> RecordBatch {
    let names: Vec<&str> = ids
        .iter()
        .map(|i| if *i == "u1" { "ann" } else { "bob" })
        .collect();
    batch(vec![
        ("user_id", strings(ids)),
        ("user_name", strings(&names)),
        ("email", strings(emails)),
        ("update_time", millis(times)),
        ("status", strings(status)),
    ])
}

#[tokio::test(flavor = "current_thread")]
async fn upsert_replaces_rows_by_primary_key() {
    let wh = Warehouse::new();
    let table = wh.create("my_db", "user_profile", profile_def()).await;
    let schema = table.metadata().current_schema().unwrap();
    assert_eq!(schema.identifier_field_ids, vec![1]);
    assert!(schema.fields[0].required);
    let t1 = append(
        &table,
        &[profiles(
            &["u1", "u2"],
            &["a@x", "b@x"],
            &[MAY_1_10H, MAY_1_10H],
            &["new", "new"],
        )],
        &wh.env,
    )
    .await
    .unwrap();
    let t2 = append(
        &t1,
        &[profiles(
            &["u1"],
            &["a@y"],
            &[MAY_1_10H + 2 * DAY_MS],
            &["vip"],
        )],
        &wh.env,
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&t2, SnapshotSelector::Current).await,
        vec![
            "u1|ann|a@y|2024-05-03T10:00:00|vip",
            "u2|bob|b@x|2024-05-01T10:00:00|new"
        ]
    );
    let s1 = t1.metadata().current_snapshot_id.unwrap();
    assert_eq!(
        rows(&t2, SnapshotSelector::Id(s1)).await,
        vec![
            "u1|ann|a@x|2024-05-01T10:00:00|new",
            "u2|bob|b@x|2024-05-01T10:00:00|new"
        ]
    );
    let snap = t2.metadata().current_snapshot().unwrap();
    assert_eq!(snap.operation(), Some("overwrite"));
    assert_eq!(snap.summary["added-equality-deletes"], "1");
    assert_eq!(snap.summary["total-equality-deletes"], "3");
    // Duplicate keys in one insert: the last row wins.
    let t3 = append(
        &t2,
        &[profiles(
            &["u2", "u2"],
            &["b@1", "b@2"],
            &[MAY_1_10H, MAY_1_10H],
            &["a", "b"],
        )],
        &wh.env,
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&t3, SnapshotSelector::Current).await,
        vec![
            "u1|ann|a@y|2024-05-03T10:00:00|vip",
            "u2|bob|b@2|2024-05-01T10:00:00|b"
        ]
    );
    let files = keys_under(&wh.store, "wh/iceberg/my_db/user_profile/data").await;
    assert_eq!(
        files
            .iter()
            .filter(|f| f.ends_with("-eq-deletes.parquet"))
            .count(),
        3
    );
    // A null key is refused before anything is written.
    let null_key = batch(vec![("user_name", strings(&["x"]))]);
    let err = append(&t3, &[null_key], &wh.env).await.unwrap_err();
    assert!(err.to_string().contains("user_id is NOT NULL"), "{err}");
}

fn orders_def(keys: &[&str]) -> IcebergTableDefinition {
    IcebergTableDefinition {
        columns: vec![
            col("order_id", string()),
            col("user_id", string()),
            col("product_id", string()),
            col(
                "amount",
                DataType::nullable(TypeKind::Decimal {
                    precision: 10,
                    scale: 2,
                }),
            ),
            col("order_status", string()),
            col("event_time", ts3()),
        ],
        partition: vec![("event_time".into(), Transform::Day)],
        identifier_fields: keys.iter().map(|k| k.to_string()).collect(),
        properties: BTreeMap::from([
            ("write.upsert.enabled".into(), "true".into()),
            ("write.format.default".into(), "parquet".into()),
            ("write.target-file-size-bytes".into(), "134217728".into()),
        ]),
    }
}

fn order(status: &str, cents: i128) -> RecordBatch {
    let amount: ArrayRef = Arc::new(
        Decimal128Array::from(vec![cents])
            .with_precision_and_scale(10, 2)
            .unwrap(),
    );
    batch(vec![
        ("order_id", strings(&["o1"])),
        ("user_id", strings(&["u1"])),
        ("product_id", strings(&["p1"])),
        ("amount", amount),
        ("order_status", strings(&[status])),
        ("event_time", millis(&[MAY_1_10H])),
    ])
}

#[tokio::test(flavor = "current_thread")]
async fn upsert_needs_partition_sources_in_the_key() {
    let wh = Warehouse::new();
    let plain = wh
        .create("ods", "order_events_plain", orders_def(&["order_id"]))
        .await;
    let err = append(&plain, &[order("paid", 1250)], &wh.env)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Invalid(_)));
    assert_eq!(
        err.to_string(),
        "In UPSERT mode, source column 'event_time' of partition field \
         '1000: event_time_day: day(6)', should be included in equality fields: '[order_id]'"
    );
    assert!(
        keys_under(&wh.store, "wh/iceberg/ods/order_events_plain/data")
            .await
            .is_empty()
    );

    let mut no_key = orders_def(&[]);
    no_key.partition.clear();
    let no_key = wh.create("ods", "no_key", no_key).await;
    let err = append(&no_key, &[order("paid", 1250)], &wh.env)
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Equality field columns shouldn't be empty when configuring to use UPSERT data stream."
    );

    let keyed = wh
        .create(
            "ods",
            "order_events_keyed",
            orders_def(&["order_id", "event_time"]),
        )
        .await;
    let t1 = append(&keyed, &[order("paid", 1250)], &wh.env)
        .await
        .unwrap();
    let t2 = append(&t1, &[order("shipped", 1250)], &wh.env)
        .await
        .unwrap();
    assert_eq!(
        rows(&t2, SnapshotSelector::Current).await,
        vec!["o1|u1|p1|12.50|shipped|2024-05-01T10:00:00"]
    );
    let files = keys_under(&wh.store, "wh/iceberg/ods/order_events_keyed/data").await;
    assert!(
        files
            .iter()
            .all(|f| f.contains("/event_time_day=2024-05-01/")),
        "{files:?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn data_files_roll_at_the_target_size() {
    let wh = Warehouse::new();
    let def = IcebergTableDefinition {
        columns: vec![col("id", DataType::nullable(TypeKind::BigInt))],
        properties: BTreeMap::from([("write.target-file-size-bytes".into(), "1".into())]),
        ..Default::default()
    };
    let table = wh.create("db", "rolled", def).await;
    let ids: ArrayRef = Arc::new(Int64Array::from_iter_values(0..20_000));
    let t = append(&table, &[batch(vec![("id", ids)])], &wh.env)
        .await
        .unwrap();
    let snap = t.metadata().current_snapshot().unwrap();
    // A file is closed after each 8192-row write once it passed the (tiny) target.
    assert_eq!(snap.summary["added-data-files"], "3");
    assert_eq!(rows(&t, SnapshotSelector::Current).await.len(), 20_000);
}

/// A format-version 3 table is never written: lakescope does not maintain row lineage
/// (`next-row-id`, snapshot `first-row-id` / `added-rows`, manifest `first_row_id`) nor write
/// deletion vectors, so every data write and metadata change is refused naming the metadata
/// file and the format version, and nothing new appears in the table folder.
#[tokio::test(flavor = "current_thread")]
async fn writes_to_format_version_3_tables_are_refused() {
    use lakescope_iceberg::write::SchemaChange;
    use lakescope_iceberg::write::{overwrite, update_properties, update_schema, upsert};
    let wh = Warehouse::new();
    let def = IcebergTableDefinition {
        columns: vec![col("id", bigint())],
        identifier_fields: vec!["id".into()],
        ..Default::default()
    };
    let table = wh.create("db", "v3", def).await;
    let one = || batch(vec![("id", longs(&[1]))]);
    let t1 = append(&table, &[one()], &wh.env).await.unwrap();
    // The same table upgraded to v3 by another writer (next metadata version).
    let json = String::from_utf8(wh.store.get(t1.metadata_key()).await.unwrap().to_vec()).unwrap();
    let v3 = json.replacen(
        r#""format-version": 2"#,
        r#""format-version": 3, "next-row-id": 1"#,
        1,
    );
    assert_ne!(v3, json);
    let key = format!("{}/metadata/v3.metadata.json", t1.key());
    wh.store.put(&key, v3.into_bytes().into()).await.unwrap();
    let hint = format!("{}/metadata/version-hint.text", t1.key());
    wh.store.put(&hint, "3".into()).await.unwrap();
    let t3 = Table::open(wh.store.clone(), t1.key()).await.unwrap();
    assert_eq!(t3.metadata_key(), key);
    let before = keys_under(&wh.store, t1.key()).await;
    let refused = |r: Result<Table, Error>, what: &str| {
        let err = r
            .err()
            .unwrap_or_else(|| panic!("{what}: written"))
            .to_string();
        assert!(
            err.contains("v3.metadata.json") && err.contains("format-version 3"),
            "{what}: {err}"
        );
    };
    refused(append(&t3, &[one()], &wh.env).await, "append");
    refused(overwrite(&t3, &[one()], &wh.env).await, "overwrite");
    refused(upsert(&t3, &[one()], &wh.env).await, "upsert");
    let add = SchemaChange::Add {
        name: "x".into(),
        data_type: string(),
        doc: None,
        position: None,
    };
    refused(update_schema(&t3, &[add], &wh.env).await, "schema change");
    let set = BTreeMap::from([("k".to_string(), "v".to_string())]);
    refused(
        update_properties(&t3, &set, &[], &wh.env).await,
        "property change",
    );
    assert_eq!(keys_under(&wh.store, t1.key()).await, before);
}
