//! Schema and partition-spec evolution read back through the crate's own reader: files written
//! before a change read by field id (renamed, dropped, added and promoted columns), every
//! snapshot with its own schema; files keep their spec while new writes use the new one.

use arrow_array::{ArrayRef, Float32Array, Int32Array, RecordBatch};
use lakescope_format::spec::{DataType, TypeKind};
use lakescope_iceberg::spec::transform::Transform;
use lakescope_iceberg::spec::Type;
use lakescope_iceberg::write::{
    append, overwrite, update_properties, update_schema, update_spec, ColumnPosition,
    IcebergTableDefinition, SchemaChange, SpecChange,
};
use lakescope_iceberg::{SnapshotSelector, Table};
use std::collections::BTreeMap;
use std::sync::Arc;

mod common;
use common::*;

fn int() -> DataType {
    DataType::nullable(TypeKind::Int)
}

fn ints(v: &[i32]) -> ArrayRef {
    Arc::new(Int32Array::from(v.to_vec()))
}

fn floats(v: &[f32]) -> ArrayRef {
    Arc::new(Float32Array::from(v.to_vec()))
}

fn at(t: &Table) -> SnapshotSelector {
    SnapshotSelector::Id(t.metadata().current_snapshot_id.unwrap())
}

fn wide_def() -> IcebergTableDefinition {
    IcebergTableDefinition {
        columns: vec![
            col("id", bigint()),
            col("n", int()),
            col("f", DataType::nullable(TypeKind::Float)),
            col("d", decimal()),
            col("s", string()),
        ],
        identifier_fields: vec!["id".into()],
        ..Default::default()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn columns_added_renamed_dropped_and_promoted_read_by_id() {
    let w = Warehouse::new();
    let t = w.create("db", "wide", wide_def()).await;
    let t1 = append(
        &t,
        &[batch(vec![
            ("id", longs(&[1])),
            ("n", ints(&[7])),
            ("f", floats(&[1.5])),
            ("d", cents(&[1234])),
            ("s", strings(&["x"])),
        ])],
        &w.env,
    )
    .await
    .unwrap();
    let changes = [
        SchemaChange::Add {
            name: "c".into(),
            data_type: string(),
            doc: Some("added".into()),
            position: Some(ColumnPosition::After("id".into())),
        },
        SchemaChange::Rename {
            from: "s".into(),
            to: "s2".into(),
        },
        SchemaChange::Drop { name: "f".into() },
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
    ];
    let t2 = update_schema(&t1, &changes, &w.env).await.unwrap();
    let m = t2.metadata();
    let s = m.current_schema().unwrap();
    assert_eq!(s.schema_id, 1);
    assert_eq!(m.last_column_id, 6);
    let names: Vec<(&str, i32)> = s.fields.iter().map(|f| (f.name.as_str(), f.id)).collect();
    assert_eq!(names, [("id", 1), ("c", 6), ("n", 2), ("d", 4), ("s2", 5)]);
    assert_eq!(s.fields[2].field_type, Type::Long);
    assert_eq!(s.identifier_field_ids, vec![1]);
    // The snapshot of before keeps reading with its own schema.
    assert_eq!(rows(&t2, at(&t1)).await, ["1|7|1.5|12.34|x"]);
    assert_eq!(
        rows(&t2, SnapshotSelector::Current).await,
        ["1|null|7|12.34|x"]
    );
    let t3 = append(
        &t2,
        &[batch(vec![
            ("id", longs(&[2])),
            ("c", strings(&["new"])),
            ("n", longs(&[5_000_000_000])),
            ("d", cents(&[99])),
            ("s2", strings(&["y"])),
        ])],
        &w.env,
    )
    .await
    .unwrap();
    assert_eq!(
        rows(&t3, SnapshotSelector::Current).await,
        ["1|null|7|12.34|x", "2|new|5000000000|0.99|y"]
    );
    // No change: no new version.
    let same = update_schema(&t3, &[], &w.env).await.unwrap();
    assert_eq!(same.metadata_key(), t3.metadata_key());
}

#[tokio::test(flavor = "current_thread")]
async fn schema_changes_iceberg_refuses() {
    let w = Warehouse::new();
    let t = w.create("db", "wide", wide_def()).await;
    let refused = [
        SchemaChange::Update {
            name: "n".into(),
            data_type: string(),
        },
        SchemaChange::Update {
            name: "d".into(),
            data_type: DataType::nullable(TypeKind::Decimal {
                precision: 12,
                scale: 3,
            }),
        },
        SchemaChange::Update {
            name: "n".into(),
            data_type: DataType::nullable(TypeKind::BigInt).with_nullable(false),
        },
        SchemaChange::Drop { name: "id".into() },
        SchemaChange::Add {
            name: "r".into(),
            data_type: DataType::nullable(TypeKind::Int).with_nullable(false),
            doc: None,
            position: None,
        },
        SchemaChange::Add {
            name: "s".into(),
            data_type: string(),
            doc: None,
            position: None,
        },
        SchemaChange::Rename {
            from: "nope".into(),
            to: "x".into(),
        },
    ];
    for change in refused {
        let err = update_schema(&t, std::slice::from_ref(&change), &w.env)
            .await
            .unwrap_err();
        assert!(
            err.to_string().starts_with("wh/iceberg/db/wide: "),
            "{change:?}: {err}"
        );
    }
    let latest = Table::open(w.store.clone(), t.key()).await.unwrap();
    assert_eq!(latest.metadata_key(), t.metadata_key(), "nothing committed");
}

#[tokio::test(flavor = "current_thread")]
async fn properties_are_set_and_removed() {
    let w = Warehouse::new();
    let t = w.create("db", "wide", wide_def()).await;
    let set = BTreeMap::from([(
        "write.target-file-size-bytes".to_string(),
        "1024".to_string(),
    )]);
    let t1 = update_properties(&t, &set, &[], &w.env).await.unwrap();
    assert_eq!(
        t1.metadata().properties["write.target-file-size-bytes"],
        "1024"
    );
    assert_eq!(t1.metadata().metadata_log.len(), 1);
    let t2 = update_properties(
        &t1,
        &BTreeMap::new(),
        &["write.target-file-size-bytes".into()],
        &w.env,
    )
    .await
    .unwrap();
    assert!(!t2
        .metadata()
        .properties
        .contains_key("write.target-file-size-bytes"));
    let bad = BTreeMap::from([("format-version".to_string(), "3".to_string())]);
    assert!(update_properties(&t2, &bad, &[], &w.env).await.is_err());
}

fn kinds(ids: &[i64], kinds: &[&str]) -> RecordBatch {
    batch(vec![("id", longs(ids)), ("kind", strings(kinds))])
}

#[tokio::test(flavor = "current_thread")]
async fn files_keep_their_spec_after_partition_evolution() {
    let w = Warehouse::new();
    let t = w
        .create(
            "db",
            "evo",
            IcebergTableDefinition {
                columns: vec![col("id", bigint()), col("kind", string())],
                partition: vec![("kind".into(), Transform::Identity)],
                ..Default::default()
            },
        )
        .await;
    let t1 = append(&t, &[kinds(&[1, 2, 3], &["a", "b", "a"])], &w.env)
        .await
        .unwrap();
    let t2 = update_spec(
        &t1,
        &[
            SpecChange::Add {
                column: "id".into(),
                transform: Transform::Bucket(4),
            },
            SpecChange::Remove {
                name: "kind".into(),
            },
        ],
        &w.env,
    )
    .await
    .unwrap();
    let m = t2.metadata();
    assert_eq!(m.default_spec_id, Some(1));
    let spec = m.spec(1).unwrap();
    assert_eq!(spec.fields.len(), 1);
    assert_eq!(
        (spec.fields[0].name.as_str(), spec.fields[0].field_id),
        ("id_bucket", Some(1001))
    );
    assert_eq!(m.last_partition_id, Some(1001));
    let t3 = append(&t2, &[kinds(&[4, 5], &["a", "c"])], &w.env)
        .await
        .unwrap();
    assert_eq!(
        rows(&t3, SnapshotSelector::Current).await,
        ["1|a", "2|b", "3|a", "4|a", "5|c"]
    );
    // Files of both specs are planned, each with its own spec.
    let snap = t3.metadata().current_snapshot().unwrap();
    let plan = lakescope_iceberg::plan::plan(&t3, snap).await.unwrap();
    let mut specs: Vec<i32> = plan.tasks.iter().map(|t| t.data.spec_id).collect();
    specs.sort_unstable();
    specs.dedup();
    assert_eq!(specs, [0, 1]);
    // Dynamic overwrite under the new spec replaces only files of its partitions in that spec.
    let t4 = overwrite(&t3, &[kinds(&[4], &["z"])], &w.env)
        .await
        .unwrap();
    assert_eq!(
        rows(&t4, SnapshotSelector::Current).await,
        ["1|a", "2|b", "3|a", "4|z", "5|c"]
    );
    // Back to the first spec: its id (and field id) come back.
    let t5 = update_spec(
        &t4,
        &[
            SpecChange::Remove {
                name: "id_bucket".into(),
            },
            SpecChange::Add {
                column: "kind".into(),
                transform: Transform::Identity,
            },
        ],
        &w.env,
    )
    .await
    .unwrap();
    assert_eq!(t5.metadata().default_spec_id, Some(0));
    assert_eq!(t5.metadata().partition_specs.len(), 2);
    let err = update_spec(
        &t5,
        &[SpecChange::Add {
            column: "kind".into(),
            transform: Transform::Day,
        }],
        &w.env,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("day(kind)"), "{err}");
}
