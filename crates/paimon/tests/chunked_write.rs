//! ChunkedWrite: many chunks, one commit. Each chunk is its own level-0 sorted run per bucket
//! with sequence numbers above the earlier chunks', so a key repeated in a later chunk wins;
//! dynamic-bucket tables commit one index; nothing is visible before the commit.

use arrow_array::{ArrayRef, Int64Array, StringArray};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::TypeKind;
use lakescope_paimon::table::Table;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::{ChunkedWrite, FixedEnv};
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::tables::{
    batch, behavior_rows, behavior_table, commit_message, create, rows, rows_at, string, t,
};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

fn kv_table(primary_key: bool) -> TableDefinition {
    TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
        ],
        primary_keys: if primary_key {
            vec!["id".into()]
        } else {
            Vec::new()
        },
        options: BTreeMap::from([("bucket".into(), if primary_key { "2" } else { "-1" }.into())]),
        ..Default::default()
    }
}

fn kv(ids: std::ops::Range<i64>, v: &str) -> arrow_array::RecordBatch {
    let n = ids.end - ids.start;
    let ids: ArrayRef = Arc::new(Int64Array::from(ids.collect::<Vec<_>>()));
    let vs: ArrayRef = Arc::new(StringArray::from(vec![v; n as usize]));
    batch(vec![("id", ids), ("v", vs)])
}

async fn open(def: &TableDefinition, env: &FixedEnv) -> Table {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    create(&store, "db.db/t", def, env).await
}

#[tokio::test]
async fn primary_key_chunks_are_sorted_runs_of_one_commit_and_later_chunks_win() {
    let env = FixedEnv::new(1_700_000_000_000, 7);
    let table = open(&kv_table(true), &env).await;
    let mut w = ChunkedWrite::new(&table, &env).await.unwrap();
    w.write(&[kv(1..11, "a")]).await.unwrap();
    w.write(&[kv(5..16, "b"), kv(15..16, "c")]).await.unwrap();
    assert_eq!(w.rows(), 22);
    let message = w.finish().await.unwrap();
    assert!(table.latest_snapshot().await.unwrap().is_none());
    let snapshot = commit_message(&table, &env, message, None, "chunks").await;
    assert_eq!(snapshot.id, 1);
    let mut expected: Vec<String> = (1..5).map(|i| format!("{i}|a")).collect();
    expected.extend((5..15).map(|i| format!("{i}|b")));
    expected.push("15|c".into());
    expected.sort();
    assert_eq!(rows_at(&table, 1).await, expected);
    // Two chunks → two level-0 runs in each bucket, the second's sequence numbers above the first's.
    for split in plan(&table, &snapshot, &PartitionFilter::All)
        .await
        .unwrap()
        .splits
    {
        let mut files = split.files.clone();
        assert_eq!(files.len(), 2, "bucket {}", split.bucket);
        files.sort_by_key(|f| f.min_sequence_number);
        assert!(files.iter().all(|f| f.level == 0));
        assert!(files[0].max_sequence_number < files[1].min_sequence_number);
    }
}

#[tokio::test]
async fn dynamic_bucket_chunks_commit_one_index_and_read_as_one_write() {
    let env = FixedEnv::new(1_700_000_000_000, 8);
    let table = open(&behavior_table(true), &env).await;
    let mut w = ChunkedWrite::new(&table, &env).await.unwrap();
    w.write(&[behavior_rows(&[1, 2, 3], "buy", "d1", "h1")])
        .await
        .unwrap();
    w.write(&[behavior_rows(&[3, 4, 5], "cart", "d1", "h1")])
        .await
        .unwrap();
    let message = w.finish().await.unwrap();
    let index = message.index.clone().unwrap();
    commit_message(&table, &env, message, None, "chunks").await;
    let expected = vec![
        "1|10|buy|d1|h1",
        "2|20|buy|d1|h1",
        "3|30|cart|d1|h1",
        "4|40|cart|d1|h1",
        "5|50|cart|d1|h1",
    ];
    assert_eq!(rows_at(&table, 1).await, expected);
    // Five keys, at most two per bucket: three buckets, one index file each.
    assert_eq!(index.added.len(), 3);
}

#[tokio::test]
async fn append_chunks_keep_every_row() {
    let env = FixedEnv::new(1_700_000_000_000, 9);
    let table = open(&kv_table(false), &env).await;
    let mut w = ChunkedWrite::new(&table, &env).await.unwrap();
    w.write(&[kv(1..4, "a")]).await.unwrap();
    w.write(&[kv(1..3, "b")]).await.unwrap();
    let message = w.finish().await.unwrap();
    assert_eq!(message.files.len(), 2);
    commit_message(&table, &env, message, None, "chunks").await;
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let out = lakescope_paimon::table_read::read_snapshot(
        &table,
        Some(&s),
        &lakescope_paimon::table_read::ReadRequest::default(),
    )
    .await
    .unwrap();
    assert_eq!(rows(&out.batches), ["1|a", "1|b", "2|a", "2|b", "3|a"]);
}
