//! Reads corpus tables through the crate API: time travel by id, timestamp and ref, projection,
//! re-rooting with an override, and bad input (truncated/corrupt files) → errors naming the file.

use bytes::Bytes;
use lakescope_iceberg::{read_table, Error, OpenOptions, ReadRequest, SnapshotSelector, Table};
use lakescope_storage::{MemoryStore, ObjectStore};
use std::rc::Rc;

mod common;

use common::load_corpus as load;

async fn rows(table: &Table, at: SnapshotSelector) -> Result<usize, Error> {
    let out = read_table(table, &at, &ReadRequest::default()).await?;
    Ok(out.batches.iter().map(|b| b.num_rows()).sum())
}

async fn keys_like(store: &MemoryStore, dir: &str, pattern: &str) -> Vec<String> {
    let listing = store.list_dir(dir).await.unwrap();
    let mut keys: Vec<String> = listing
        .files
        .into_iter()
        .map(|f| f.path)
        .filter(|p| p.contains(pattern))
        .collect();
    keys.sort();
    keys
}

#[tokio::test(flavor = "current_thread")]
async fn time_travel_by_id_timestamp_and_ref() {
    let store = Rc::new(load("mor_position_deletes").await);
    let table = Table::open(store, "corpus/mor_position_deletes")
        .await
        .unwrap();
    assert_eq!(rows(&table, SnapshotSelector::Current).await.unwrap(), 10);
    assert_eq!(
        rows(&table, SnapshotSelector::Id(3573576711843084046))
            .await
            .unwrap(),
        8
    );
    assert_eq!(
        rows(&table, SnapshotSelector::Ref("main".into()))
            .await
            .unwrap(),
        10
    );
    // snapshot-log: 2961… at 1796026406529, 3573… at 1796026406570.
    assert_eq!(
        rows(&table, SnapshotSelector::AsOfTimestamp(1796026406569))
            .await
            .unwrap(),
        10
    );
    assert_eq!(
        rows(&table, SnapshotSelector::AsOfTimestamp(1796026406570))
            .await
            .unwrap(),
        8
    );
    assert!(rows(&table, SnapshotSelector::AsOfTimestamp(1))
        .await
        .is_err());
    assert!(rows(&table, SnapshotSelector::Ref("nope".into()))
        .await
        .is_err());
    assert!(rows(&table, SnapshotSelector::Id(42)).await.is_err());
    let projected = read_table(
        &table,
        &SnapshotSelector::Current,
        &ReadRequest {
            columns: Some(vec!["v".into()]),
            limit: Some(3),
        },
    )
    .await
    .unwrap();
    assert_eq!(projected.schema.fields().len(), 1);
    assert_eq!(
        projected
            .batches
            .iter()
            .map(|b| b.num_rows())
            .sum::<usize>(),
        3
    );
}

#[tokio::test(flavor = "current_thread")]
async fn location_override_and_outside_paths() {
    let store = Rc::new(load("v1_table").await);
    let wrong = OpenOptions {
        location_override: Some("s3://elsewhere/t".into()),
        ..OpenOptions::default()
    };
    let table = Table::open_with(store.clone(), "corpus/v1_table", &wrong)
        .await
        .unwrap();
    let err = rows(&table, SnapshotSelector::Current).await.unwrap_err();
    assert!(
        err.to_string().contains("outside the table location"),
        "{err}"
    );
    let right = OpenOptions {
        location_override: Some("s3://lake-corpus/iceberg/warehouse/corpus/v1_table/".into()),
        ..OpenOptions::default()
    };
    let table = Table::open_with(store, "corpus/v1_table", &right)
        .await
        .unwrap();
    assert_eq!(rows(&table, SnapshotSelector::Current).await.unwrap(), 7);
}

/// Truncates (or replaces) one file of the table and expects a read error naming it.
async fn expect_named_error(name: &str, pattern: &str, corrupt: fn(&[u8]) -> Vec<u8>) {
    let store = load(name).await;
    let dir = if pattern.ends_with(".parquet") {
        "data"
    } else {
        "metadata"
    };
    let mut keys = keys_like(&store, &format!("corpus/{name}/{dir}"), pattern).await;
    let key = keys
        .pop()
        .unwrap_or_else(|| panic!("no file like {pattern}"));
    let original = store.get(&key).await.unwrap();
    store
        .put(&key, Bytes::from(corrupt(&original)))
        .await
        .unwrap();
    let store = Rc::new(store);
    let result = match Table::open(store, &format!("corpus/{name}")).await {
        Ok(table) => rows(&table, SnapshotSelector::Current).await.map(|_| ()),
        Err(e) => Err(e),
    };
    let err = result.expect_err("corrupt file must fail the read");
    let file = key.rsplit('/').next().unwrap();
    assert!(
        err.to_string().contains(file),
        "error does not name {file}: {err}"
    );
}

fn truncate(b: &[u8]) -> Vec<u8> {
    b[..b.len() / 2].to_vec()
}

fn garbage(b: &[u8]) -> Vec<u8> {
    b.iter().map(|x| x ^ 0x5a).collect()
}

#[tokio::test(flavor = "current_thread")]
async fn bad_input_names_the_file() {
    // The current metadata file is the highest-numbered one.
    expect_named_error("mor_position_deletes", "00004-", truncate).await;
    expect_named_error("mor_position_deletes", "00004-", garbage).await;
    expect_named_error("mor_position_deletes", "snap-6017621154899341797", truncate).await;
    expect_named_error("mor_position_deletes", "snap-6017621154899341797", garbage).await;
    expect_named_error(
        "mor_position_deletes",
        "f63c5f3b-c2b0-4d2e-9bdb-ce793a6a290b-m0",
        truncate,
    )
    .await;
    expect_named_error(
        "mor_position_deletes",
        "34078e9c-4e5a-4d6d-b124-649fbe312367-m0",
        garbage,
    )
    .await;
    expect_named_error(
        "mor_position_deletes",
        "00000-0-34078e9c-4e5a-4d6d-b124-649fbe312367.parquet",
        truncate,
    )
    .await;
    expect_named_error(
        "mor_position_deletes",
        "00000-0-b46d8594-06f8-495e-b860-dd9731c80904.parquet",
        garbage,
    )
    .await;
    expect_named_error(
        "mor_position_deletes",
        "pos-del-36aed547-994c-46e6-8573-80482331d42e.parquet",
        truncate,
    )
    .await;
    expect_named_error("all_types", "00002-", |_| {
        b"{\"format-version\": 2, \"location\": 1}".to_vec()
    })
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn missing_table_is_not_found() {
    let store = Rc::new(MemoryStore::new());
    let err = Table::open(store, "corpus/none").await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err}");
}
