//! Small Paimon tables for tests: column types, batches, creating a table and committing rows
//! with a `WriteEnv` (a `FixedEnv` in tests), and reading rows back as sorted text lines.

use arrow_array::{
    Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Float32Array, Float64Array,
    Int16Array, Int32Array, Int64Array, Int8Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use arrow_schema::{Field, Schema};
use lakescope_paimon::commit::{next_sequence_number, CommitOptions, Overwrite};
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::{DataType, Snapshot, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::schema::{create_table, TableDefinition};
use lakescope_paimon::write::{write_files, CommitMessage, NewFile, WriteEnv};
use lakescope_paimon::write_commit::commit_write;
use lakescope_storage::ObjectStore;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// A nullable column type.
pub fn t(kind: TypeKind) -> DataType {
    DataType::nullable(kind)
}

/// A nullable STRING.
pub fn string() -> DataType {
    t(TypeKind::VarChar(MAX_LENGTH))
}

/// A batch of nullable columns.
pub fn batch(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    let fields: Vec<Field> = cols
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
        .collect();
    RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        cols.into_iter().map(|(_, a)| a).collect(),
    )
    .unwrap()
}

/// The seed's `test_p` (partitioned by dt, hh) or `test` (unpartitioned): columns (user_id,
/// item_id, behavior, dt, hh), primary key (dt, hh, user_id), dynamic buckets of at most two
/// keys each (so that overwrites change the layout).
pub fn behavior_table(partitioned: bool) -> TableDefinition {
    let bigint = t(TypeKind::BigInt);
    TableDefinition {
        columns: vec![
            ("user_id".into(), bigint.clone(), None),
            ("item_id".into(), bigint, None),
            ("behavior".into(), string(), None),
            ("dt".into(), string(), None),
            ("hh".into(), string(), None),
        ],
        partition_keys: if partitioned {
            vec!["dt".into(), "hh".into()]
        } else {
            Vec::new()
        },
        primary_keys: vec!["dt".into(), "hh".into(), "user_id".into()],
        options: BTreeMap::from([("dynamic-bucket.target-row-num".into(), "2".into())]),
        ..Default::default()
    }
}

/// Rows `(user_id, item_id, behavior, dt, hh)` = `(user, user * 10, behavior, dt, hh)` of the
/// seed's `test` / `test_p` tables, one a user.
pub fn behavior_rows(users: &[i64], behavior: &str, dt: &str, hh: &str) -> RecordBatch {
    let n = users.len();
    batch(vec![
        ("user_id", Arc::new(Int64Array::from(users.to_vec()))),
        (
            "item_id",
            Arc::new(Int64Array::from(
                users.iter().map(|u| u * 10).collect::<Vec<_>>(),
            )),
        ),
        ("behavior", Arc::new(StringArray::from(vec![behavior; n]))),
        ("dt", Arc::new(StringArray::from(vec![dt; n]))),
        ("hh", Arc::new(StringArray::from(vec![hh; n]))),
    ])
}

/// A nullable column of every type lakescope writes to ORC and Parquet files.
pub fn writable_types() -> Vec<(&'static str, DataType)> {
    vec![
        ("flag", t(TypeKind::Boolean)),
        ("ti", t(TypeKind::TinyInt)),
        ("si", t(TypeKind::SmallInt)),
        ("i", t(TypeKind::Int)),
        ("bi", t(TypeKind::BigInt)),
        ("f", t(TypeKind::Float)),
        ("d", t(TypeKind::Double)),
        ("s", t(TypeKind::VarChar(MAX_LENGTH))),
        ("vc", t(TypeKind::VarChar(10))),
        ("b", t(TypeKind::VarBinary(MAX_LENGTH))),
        ("dt", t(TypeKind::Date)),
        ("ts3", t(TypeKind::Timestamp(3))),
        ("ts6", t(TypeKind::Timestamp(6))),
        ("ltz", t(TypeKind::LocalZonedTimestamp(6))),
    ]
}

/// Three rows of [`writable_types`]: nulls and edge values in every column.
pub fn writable_types_batch() -> RecordBatch {
    let long = "a string that is longer than sixteen characters";
    batch(vec![
        (
            "flag",
            Arc::new(BooleanArray::from(vec![Some(true), None, Some(false)])) as ArrayRef,
        ),
        (
            "ti",
            Arc::new(Int8Array::from(vec![Some(-128), Some(127), None])),
        ),
        (
            "si",
            Arc::new(Int16Array::from(vec![Some(-3), None, Some(300)])),
        ),
        (
            "i",
            Arc::new(Int32Array::from(vec![None, Some(i32::MIN), Some(7)])),
        ),
        (
            "bi",
            Arc::new(Int64Array::from(vec![Some(i64::MAX), Some(0), None])),
        ),
        (
            "f",
            Arc::new(Float32Array::from(vec![Some(1.5), None, Some(-0.25)])),
        ),
        (
            "d",
            Arc::new(Float64Array::from(vec![Some(2.5), Some(-1e300), None])),
        ),
        (
            "s",
            Arc::new(StringArray::from(vec![Some(long), None, Some("é")])),
        ),
        (
            "vc",
            Arc::new(StringArray::from(vec![Some("x"), Some(""), None])),
        ),
        (
            "b",
            Arc::new(BinaryArray::from(vec![
                Some(&b"\x00\x01"[..]),
                None,
                Some(&b""[..]),
            ])),
        ),
        (
            "dt",
            Arc::new(Date32Array::from(vec![Some(19_783), None, Some(-1)])),
        ),
        (
            "ts3",
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(1_709_251_200_123_000),
                None,
                Some(-86_400_001_000),
            ])),
        ),
        (
            "ts6",
            Arc::new(TimestampMicrosecondArray::from(vec![
                Some(1_709_251_200_123_456),
                Some(0),
                None,
            ])),
        ),
        (
            "ltz",
            Arc::new(
                TimestampMicrosecondArray::from(vec![None, Some(1_709_251_200_000_001), Some(5)])
                    .with_timezone("UTC"),
            ),
        ),
    ])
}

/// Rows as `a|b|c` lines (Arrow's display of each cell, `null` for nulls), sorted.
pub fn rows(batches: &[RecordBatch]) -> Vec<String> {
    let mut out = Vec::new();
    for b in batches {
        let fmts: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &FormatOptions::default()).unwrap())
            .collect();
        for r in 0..b.num_rows() {
            let cells: Vec<String> = (0..b.num_columns())
                .map(|i| {
                    if b.column(i).is_null(r) {
                        "null".into()
                    } else {
                        fmts[i].value(r).to_string()
                    }
                })
                .collect();
            out.push(cells.join("|"));
        }
    }
    out.sort();
    out
}

/// Rows of snapshot `id`.
pub async fn rows_at(table: &Table, id: i64) -> Vec<String> {
    let s = table.snapshot(id).await.unwrap();
    rows(
        &read_snapshot(table, Some(&s), &ReadRequest::default())
            .await
            .unwrap()
            .batches,
    )
}

/// Creates the table at `path` and opens it.
pub async fn create(
    store: &Rc<dyn ObjectStore>,
    path: &str,
    def: &TableDefinition,
    env: &dyn WriteEnv,
) -> Table {
    create_table(store.as_ref(), path, def, env).await.unwrap();
    Table::open(store.clone(), path).await.unwrap()
}

/// Commits `message` as `user`; returns the new snapshot.
pub async fn commit_message(
    table: &Table,
    env: &dyn WriteEnv,
    message: impl Into<CommitMessage>,
    overwrite: Option<Overwrite>,
    user: &str,
) -> Snapshot {
    let opts = CommitOptions::for_table(table, user).unwrap();
    commit_write(table, env, opts, message, overwrite)
        .await
        .unwrap()
        .snapshot
}

/// Writes `batches` as new data files (after the table's last sequence number) and commits
/// them as `user`; returns the files and the new snapshot.
pub async fn write_and_commit(
    table: &Table,
    env: &dyn WriteEnv,
    batches: &[RecordBatch],
    overwrite: Option<Overwrite>,
    user: &str,
) -> (Vec<NewFile>, Snapshot) {
    let seq = next_sequence_number(table).await.unwrap();
    let files = write_files(table, env, batches, seq).await.unwrap();
    let snapshot = commit_message(table, env, files.clone(), overwrite, user).await;
    (files, snapshot)
}
