//! INSERT OVERWRITE without rows, as Java Paimon's `FileStoreCommitImpl.overwrite` does it: a
//! dynamic partition overwrite of a partitioned table replaces no partition and commits no
//! snapshot; a static partition overwrite deletes the partition; an unpartitioned table is
//! overwritten whole (emptied).

use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
use lakescope_paimon::commit::{commits_nothing, next_sequence_number, CommitOptions, Overwrite};
use lakescope_paimon::spec::{CommitKind, Datum, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::table_write::write_overwrite;
use lakescope_paimon::write::{FixedEnv, WriteEnv};
use lakescope_paimon::write_commit::{commit_write, commit_write_or_skip};
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::tables::{batch, create, rows_at, string, t};
use std::rc::Rc;
use std::sync::Arc;

/// A primary-key table (dt, id, v), dynamic bucket, partitioned by dt or not, with rows in
/// partitions a and b (one snapshot).
async fn table(partitioned: bool, env: &dyn WriteEnv) -> Table {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let def = TableDefinition {
        columns: vec![
            ("dt".into(), string(), None),
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
        ],
        partition_keys: if partitioned {
            vec!["dt".into()]
        } else {
            Vec::new()
        },
        primary_keys: vec!["dt".into(), "id".into()],
        ..Default::default()
    };
    let table = create(&store, "db.db/t", &def, env).await;
    let b = rows(&["a", "a", "b"], &[1, 2, 3]);
    let out = overwrite(&table, env, b, None).await.unwrap();
    assert_eq!(out, Some(1));
    table
}

fn rows(dts: &[&str], ids: &[i64]) -> RecordBatch {
    batch(vec![
        ("dt", Arc::new(StringArray::from(dts.to_vec())) as ArrayRef),
        ("id", Arc::new(Int64Array::from(ids.to_vec()))),
        (
            "v",
            Arc::new(StringArray::from(
                ids.iter().map(|i| format!("v{i}")).collect::<Vec<_>>(),
            )),
        ),
    ])
}

/// Writes and commits `b` (an append when `how` is `None`); the new snapshot id, if any.
async fn overwrite(
    table: &Table,
    env: &dyn WriteEnv,
    b: RecordBatch,
    how: Option<Overwrite>,
) -> lakescope_paimon::Result<Option<i64>> {
    let seq = next_sequence_number(table).await?;
    let message = match how {
        Some(_) => write_overwrite(table, env, &[b], seq).await?,
        None => lakescope_paimon::write::write(table, env, &[b], seq).await?,
    };
    let options = CommitOptions::for_table(table, "empty-overwrite")?;
    let done = commit_write_or_skip(table, env, options, message, how).await?;
    Ok(done.map(|d| d.snapshot.id))
}

#[tokio::test]
async fn a_dynamic_overwrite_without_rows_commits_nothing() {
    let env = FixedEnv::new(1_700_000_000_000, 3);
    let table = table(true, &env).await;
    assert!(commits_nothing(
        table.current_schema(),
        0,
        Some(&Overwrite::Dynamic)
    ));
    let before = rows_at(&table, 1).await;
    let got = overwrite(&table, &env, rows(&[], &[]), Some(Overwrite::Dynamic))
        .await
        .unwrap();
    assert_eq!(got, None);
    assert_eq!(table.latest_snapshot_id().await.unwrap(), Some(1));
    assert_eq!(rows_at(&table, 1).await, before);
    // `commit` refuses it instead of committing an empty snapshot.
    let seq = next_sequence_number(&table).await.unwrap();
    let message = write_overwrite(&table, &env, &[rows(&[], &[])], seq)
        .await
        .unwrap();
    let options = CommitOptions::for_table(&table, "empty-overwrite").unwrap();
    let err = commit_write(&table, &env, options, message, Some(Overwrite::Dynamic))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("commits no snapshot"), "{err}");
    assert_eq!(table.latest_snapshot_id().await.unwrap(), Some(1));
}

#[tokio::test]
async fn a_static_overwrite_without_rows_deletes_the_partition() {
    let env = FixedEnv::new(1_700_000_000_000, 4);
    let table = table(true, &env).await;
    let spec = Overwrite::Static(vec![("dt".into(), Datum::String("a".into()))]);
    let got = overwrite(&table, &env, rows(&[], &[]), Some(spec))
        .await
        .unwrap();
    assert_eq!(got, Some(2));
    let s = table.snapshot(2).await.unwrap();
    assert_eq!(s.commit_kind, CommitKind::Overwrite);
    assert_eq!(rows_at(&table, 2).await, ["b|3|v3"]);
}

#[tokio::test]
async fn an_unpartitioned_overwrite_without_rows_empties_the_table() {
    let env = FixedEnv::new(1_700_000_000_000, 5);
    let table = table(false, &env).await;
    assert!(!commits_nothing(
        table.current_schema(),
        0,
        Some(&Overwrite::Dynamic)
    ));
    let got = overwrite(&table, &env, rows(&[], &[]), Some(Overwrite::Dynamic))
        .await
        .unwrap();
    assert_eq!(got, Some(2));
    assert_eq!(rows_at(&table, 2).await, Vec::<String>::new());
}
