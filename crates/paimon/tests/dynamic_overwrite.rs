//! INSERT OVERWRITE of dynamic-bucket (`bucket = -1`) primary-key tables: static, dynamic,
//! whole-table and unpartitioned overwrites replace the partitions' data files and HASH index
//! entries in one snapshot, the new rows are bucketed against an empty index, other
//! partitions keep theirs, and later upserts never place a key in a second bucket.

use arrow_array::RecordBatch;
use lakescope_paimon::commit::{next_sequence_number, CommitOptions, Overwrite};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::{BinaryRow, CommitKind, DataType, Datum, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::binary_row::hash_code;
use lakescope_paimon::write::table_write::write_overwrite;
use lakescope_paimon::write::{write, FixedEnv, WriteEnv};
use lakescope_paimon::write_commit::{commit_write, commit_write_or_skip};
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::tables::{behavior_rows, behavior_table, commit_message, create, rows};
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// The seed's `test_p` (partitioned by dt, hh) or `test` (unpartitioned): PK (dt, hh,
/// user_id), dynamic buckets of at most two keys each so overwrites change the layout.
async fn seed_table(partitioned: bool) -> Table {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let def = behavior_table(partitioned);
    let env = FixedEnv::new(1_700_000_000_000, 1);
    create(&store, "db.db/t", &def, &env).await
}

/// Writes and commits `batches` the way the engine's INSERT does; returns the snapshot id.
async fn insert(
    table: &Table,
    env: &dyn WriteEnv,
    batches: &[RecordBatch],
    overwrite: Option<Overwrite>,
) -> i64 {
    let seq = next_sequence_number(table).await.unwrap();
    let message = match overwrite {
        Some(_) => write_overwrite(table, env, batches, seq).await.unwrap(),
        None => write(table, env, batches, seq).await.unwrap(),
    };
    commit_message(table, env, message, overwrite, "overwrite-test")
        .await
        .id
}

/// Rows of the latest snapshot as `user|item|behavior|dt|hh`, sorted.
async fn latest_rows(table: &Table) -> Vec<String> {
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let out = read_snapshot(table, Some(&s), &ReadRequest::default())
        .await
        .unwrap();
    rows(&out.batches)
}

fn line(user: i64, behavior: &str, dt: &str, hh: &str) -> String {
    format!("{user}|{}|{behavior}|{dt}|{hh}", user * 10)
}

/// Partition label `dt/hh` (empty for the unpartitioned table).
fn label(values: &[Datum]) -> String {
    values
        .iter()
        .map(|d| match d {
            Datum::String(s) => s.clone(),
            other => format!("{other:?}"),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// One HASH index file: its name and hashes.
type IndexFile = (String, BTreeSet<i32>);

/// The latest snapshot's HASH index: partition label → bucket → file.
async fn index(table: &Table) -> BTreeMap<String, BTreeMap<i32, IndexFile>> {
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let mut out: BTreeMap<String, BTreeMap<i32, IndexFile>> = BTreeMap::new();
    let Some(name) = &s.index_manifest else {
        return out;
    };
    let types = table.current_schema().partition_types();
    for e in table.index_manifest(name).await.unwrap().iter() {
        assert_eq!(e.index_type, "HASH");
        let bytes = table
            .store()
            .get(&table.index_file_path(&e.file_name))
            .await
            .unwrap();
        let hashes: BTreeSet<i32> = bytes
            .chunks_exact(4)
            .map(|w| i32::from_be_bytes([w[0], w[1], w[2], w[3]]))
            .collect();
        assert_eq!(hashes.len() as i64, e.row_count, "{}", e.file_name);
        let part = label(&BinaryRow::decode(&e.partition, &types).unwrap());
        let prev = out
            .entry(part)
            .or_default()
            .insert(e.bucket, (e.file_name.clone(), hashes));
        assert!(prev.is_none(), "two index files for one bucket");
    }
    out
}

/// Where the live data files put each key: partition label → key hash → buckets. With at most
/// two keys per bucket, a file's min and max key are all of its keys.
async fn key_buckets(table: &Table) -> BTreeMap<String, BTreeMap<i32, BTreeSet<i32>>> {
    let schema = table.current_schema();
    let key_types: Vec<DataType> = schema
        .trimmed_primary_keys()
        .iter()
        .map(|k| {
            let i = schema.field_index(k).unwrap();
            schema.fields[i].data_type.clone().with_nullable(false)
        })
        .collect();
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let mut out: BTreeMap<String, BTreeMap<i32, BTreeSet<i32>>> = BTreeMap::new();
    for split in plan(table, &s, &PartitionFilter::All).await.unwrap().splits {
        for f in &split.files {
            assert!(f.row_count <= 2, "{} holds more than two keys", f.file_name);
            for k in [&f.min_key, &f.max_key] {
                let key = BinaryRow::decode(k, &key_types).unwrap();
                let h = hash_code(&key, &key_types).unwrap();
                out.entry(label(&split.partition))
                    .or_default()
                    .entry(h)
                    .or_default()
                    .insert(split.bucket);
            }
        }
    }
    out
}

/// Every live key sits in exactly one bucket, and the index maps exactly the live keys to
/// those buckets (no stale hash of a replaced partition survives).
async fn assert_index_exact(table: &Table) {
    let keys = key_buckets(table).await;
    let idx = index(table).await;
    let mut from_index: BTreeMap<String, BTreeMap<i32, BTreeSet<i32>>> = BTreeMap::new();
    for (part, buckets) in &idx {
        for (bucket, (_, hashes)) in buckets {
            for h in hashes {
                from_index
                    .entry(part.clone())
                    .or_default()
                    .entry(*h)
                    .or_default()
                    .insert(*bucket);
            }
        }
    }
    assert_eq!(from_index, keys, "index vs live keys");
    for (part, hashes) in &keys {
        for (h, buckets) in hashes {
            assert_eq!(buckets.len(), 1, "{part}: hash {h} in buckets {buckets:?}");
        }
    }
}

/// Buckets of each key of one partition (by user id), from the index.
async fn buckets_of(table: &Table, part: &str, users: &[i64]) -> Vec<i32> {
    let idx = index(table).await;
    let key_types = [DataType::nullable(TypeKind::BigInt).with_nullable(false)];
    users
        .iter()
        .map(|u| {
            let h = hash_code(&[Datum::BigInt(*u)], &key_types).unwrap();
            let found: Vec<i32> = idx[part]
                .iter()
                .filter(|(_, (_, hashes))| hashes.contains(&h))
                .map(|(b, _)| *b)
                .collect();
            assert_eq!(found.len(), 1, "{part} user {u}: buckets {found:?}");
            found[0]
        })
        .collect()
}

fn index_files(idx: &BTreeMap<i32, IndexFile>) -> BTreeMap<i32, String> {
    idx.iter().map(|(b, (f, _))| (*b, f.clone())).collect()
}

#[tokio::test]
async fn static_overwrite_replaces_one_partition_and_its_hash_index() {
    let table = seed_table(true).await;
    let env = FixedEnv::new(1_700_000_000_000, 11);
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[1, 2, 3, 4, 5], "pv", "d1", "1"),
            behavior_rows(&[1, 2, 3], "pv", "d1", "2"),
        ],
        None,
    )
    .await;
    assert_eq!(buckets_of(&table, "d1/2", &[1, 2, 3]).await, [0, 0, 1]);
    let before = index(&table).await;

    let spec = vec![
        ("dt".to_string(), Datum::String("d1".into())),
        ("hh".to_string(), Datum::String("2".into())),
    ];
    let id = insert(
        &table,
        &env,
        &[behavior_rows(&[3, 4], "ow", "d1", "2")],
        Some(Overwrite::Static(spec.clone())),
    )
    .await;
    let s = table.snapshot(id).await.unwrap();
    assert_eq!(s.commit_kind, CommitKind::Overwrite);
    let mut expected: Vec<String> = (1..=5).map(|u| line(u, "pv", "d1", "1")).collect();
    expected.extend([line(3, "ow", "d1", "2"), line(4, "ow", "d1", "2")]);
    expected.sort();
    assert_eq!(latest_rows(&table).await, expected);
    let after = index(&table).await;
    // The untouched partition keeps its very index files.
    assert_eq!(after["d1/1"], before["d1/1"]);
    // The replaced one was bucketed from scratch: key 3 moved from bucket 1 to bucket 0, and
    // the old buckets' files (with keys 1 and 2) are gone.
    assert_eq!(after["d1/2"].keys().copied().collect::<Vec<_>>(), [0]);
    assert_eq!(buckets_of(&table, "d1/2", &[3, 4]).await, [0, 0]);
    assert_index_exact(&table).await;

    // Upserting old and new keys afterwards: each key in one bucket, no duplicate rows.
    insert(
        &table,
        &env,
        &[behavior_rows(&[1, 2, 3, 4, 5], "up", "d1", "2")],
        None,
    )
    .await;
    let rows = latest_rows(&table).await;
    let upserted: Vec<String> = rows
        .iter()
        .filter(|l| l.ends_with("|d1|2"))
        .cloned()
        .collect();
    assert_eq!(
        upserted,
        (1..=5)
            .map(|u| line(u, "up", "d1", "2"))
            .collect::<Vec<_>>()
    );
    assert_eq!(rows.len(), 10);
    assert_eq!(
        buckets_of(&table, "d1/2", &[1, 2, 3, 4, 5]).await,
        [1, 1, 0, 0, 2]
    );
    assert_index_exact(&table).await;

    // A row outside the static partition is refused, and nothing changes.
    let latest = table.latest_snapshot_id().await.unwrap();
    let seq = next_sequence_number(&table).await.unwrap();
    let message = write_overwrite(&table, &env, &[behavior_rows(&[9], "x", "d1", "1")], seq)
        .await
        .unwrap();
    let err = commit_write(
        &table,
        &env,
        CommitOptions::for_table(&table, "u").unwrap(),
        message,
        Some(Overwrite::Static(spec)),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("belongs to partition"), "{err}");
    assert_eq!(table.latest_snapshot_id().await.unwrap(), latest);
}

#[tokio::test]
async fn dynamic_overwrite_replaces_only_partitions_receiving_rows() {
    let table = seed_table(true).await;
    let env = FixedEnv::new(1_700_000_000_000, 12);
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[1, 2, 3, 4, 5], "pv", "d1", "1"),
            behavior_rows(&[1, 2, 3], "pv", "d1", "2"),
            behavior_rows(&[7, 8], "pv", "d2", "1"),
        ],
        None,
    )
    .await;
    let before = index(&table).await;
    assert_eq!(buckets_of(&table, "d1/1", &[5]).await, [2]);

    // As `INSERT OVERWRITE test_p SELECT * FROM test`: rows for d1/1 and a new partition d3/1.
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[5, 6, 9], "ow", "d1", "1"),
            behavior_rows(&[1], "ow", "d3", "1"),
        ],
        Some(Overwrite::Dynamic),
    )
    .await;
    let mut expected: Vec<String> = [5, 6, 9]
        .iter()
        .map(|u| line(*u, "ow", "d1", "1"))
        .collect();
    expected.extend((1..=3).map(|u| line(u, "pv", "d1", "2")));
    expected.extend([7, 8].iter().map(|u| line(*u, "pv", "d2", "1")));
    expected.push(line(1, "ow", "d3", "1"));
    expected.sort();
    assert_eq!(latest_rows(&table).await, expected);
    let after = index(&table).await;
    assert_eq!(
        after.keys().cloned().collect::<Vec<_>>(),
        ["d1/1", "d1/2", "d2/1", "d3/1"]
    );
    assert_eq!(after["d1/2"], before["d1/2"]);
    assert_eq!(after["d2/1"], before["d2/1"]);
    // Key 5 was in bucket 2 of d1/1; the fresh index fills bucket 0 first.
    assert_eq!(buckets_of(&table, "d1/1", &[5, 6, 9]).await, [0, 0, 1]);
    assert!(index_files(&after["d1/1"])
        .values()
        .all(|f| !index_files(&before["d1/1"]).values().any(|g| g == f)));
    assert_index_exact(&table).await;

    // Upserts into replaced and kept partitions afterwards.
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[1, 2, 3, 4, 5, 6], "up", "d1", "1"),
            behavior_rows(&[3, 4], "up", "d1", "2"),
        ],
        None,
    )
    .await;
    let rows = latest_rows(&table).await;
    let d11: Vec<&String> = rows.iter().filter(|l| l.ends_with("|d1|1")).collect();
    assert_eq!(d11.len(), 7, "{d11:?}");
    assert_eq!(rows.iter().filter(|l| l.ends_with("|d1|2")).count(), 4);
    assert_index_exact(&table).await;

    // Dynamic overwrite with no rows replaces nothing (Java skips it): no snapshot, index
    // untouched.
    let latest = table.latest_snapshot().await.unwrap().unwrap();
    let seq = next_sequence_number(&table).await.unwrap();
    let message = write_overwrite(&table, &env, &[], seq).await.unwrap();
    let options = CommitOptions::for_table(&table, "overwrite-test").unwrap();
    let skipped = commit_write_or_skip(&table, &env, options, message, Some(Overwrite::Dynamic))
        .await
        .unwrap();
    assert!(skipped.is_none());
    assert_eq!(latest_rows(&table).await, rows);
    let s = table.latest_snapshot().await.unwrap().unwrap();
    assert_eq!(s, latest);
}

#[tokio::test]
async fn whole_table_overwrite_with_no_rows_drops_all_data_and_index() {
    let table = seed_table(true).await;
    let env = FixedEnv::new(1_700_000_000_000, 13);
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[1, 2, 3], "pv", "d1", "1"),
            behavior_rows(&[4, 5, 6], "pv", "d1", "2"),
        ],
        None,
    )
    .await;
    // As `INSERT OVERWRITE test_p /*+ OPTIONS('dynamic-partition-overwrite'='false') */
    // SELECT * FROM test_p WHERE false`.
    let id = insert(&table, &env, &[], Some(Overwrite::Static(Vec::new()))).await;
    let s = table.snapshot(id).await.unwrap();
    assert_eq!(s.commit_kind, CommitKind::Overwrite);
    assert_eq!(s.total_record_count, Some(0));
    assert!(latest_rows(&table).await.is_empty());
    // A new (empty) index manifest, as Java writes one for the DELETE entries.
    let name = s.index_manifest.as_deref().unwrap();
    assert!(table.index_manifest(name).await.unwrap().is_empty());
    assert!(index(&table).await.is_empty());

    // Writing again starts from bucket 0 in every partition.
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[6, 5, 4], "again", "d1", "2"),
            behavior_rows(&[3], "again", "d1", "1"),
        ],
        None,
    )
    .await;
    assert_eq!(buckets_of(&table, "d1/2", &[6, 5, 4]).await, [0, 0, 1]);
    assert_eq!(buckets_of(&table, "d1/1", &[3]).await, [0]);
    assert_eq!(latest_rows(&table).await.len(), 4);
    assert_index_exact(&table).await;
}

#[tokio::test]
async fn unpartitioned_overwrite_replaces_the_table_and_its_index() {
    let table = seed_table(false).await;
    let env = FixedEnv::new(1_700_000_000_000, 14);
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[1, 2], "order", "2023-07-01", "1"),
            behavior_rows(&[2, 3], "pay", "2023-07-01", "2"),
        ],
        None,
    )
    .await;
    assert_eq!(index(&table).await[""].len(), 2);
    // As `INSERT OVERWRITE test VALUES (3, 3, 'pay', '2023-07-01', '2')`.
    insert(
        &table,
        &env,
        &[behavior_rows(&[3], "pay", "2023-07-01", "2")],
        Some(Overwrite::Dynamic),
    )
    .await;
    assert_eq!(
        latest_rows(&table).await,
        [line(3, "pay", "2023-07-01", "2")]
    );
    let idx = index(&table).await;
    assert_eq!(idx[""].len(), 1);
    assert_eq!(idx[""][&0].1.len(), 1);
    assert_index_exact(&table).await;

    // The replaced keys come back as new keys; the kept one is upserted in place.
    insert(
        &table,
        &env,
        &[
            behavior_rows(&[1, 2], "order", "2023-07-01", "1"),
            behavior_rows(&[2, 3], "cart", "2023-07-01", "2"),
        ],
        None,
    )
    .await;
    assert_eq!(
        latest_rows(&table).await,
        [
            line(1, "order", "2023-07-01", "1"),
            line(2, "cart", "2023-07-01", "2"),
            line(2, "order", "2023-07-01", "1"),
            line(3, "cart", "2023-07-01", "2"),
        ]
    );
    assert_index_exact(&table).await;
}

#[tokio::test]
async fn write_and_commit_modes_must_match() {
    let table = seed_table(true).await;
    let env = FixedEnv::new(1_700_000_000_000, 15);
    insert(
        &table,
        &env,
        &[behavior_rows(&[1, 2, 3], "pv", "d1", "1")],
        None,
    )
    .await;
    let options = CommitOptions::for_table(&table, "u").unwrap();
    let b = [behavior_rows(&[1], "x", "d1", "1")];
    let seq = next_sequence_number(&table).await.unwrap();

    // Buckets from the live index would keep stale hashes of the replaced partition.
    let live = write(&table, &env, &b, seq).await.unwrap();
    let err = commit_write(
        &table,
        &env,
        options.clone(),
        live,
        Some(Overwrite::Dynamic),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("write_overwrite"), "{err}");
    // Buckets from an empty index appended would put key 3 in a second bucket.
    let fresh = write_overwrite(&table, &env, &[behavior_rows(&[3], "x", "d1", "1")], seq)
        .await
        .unwrap();
    let err = commit_write(&table, &env, options, fresh, None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("second bucket"), "{err}");
    assert_eq!(table.latest_snapshot_id().await.unwrap(), Some(1));
}
