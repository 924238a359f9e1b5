//! Full compaction (`compact::compact`): every bucket's live files merged with the table's merge
//! engine and rewritten at the top level in one COMPACT snapshot; the table reads the same before
//! and after, later writes still win over compacted rows, `target-file-size` rolls the output,
//! and a concurrent commit that deleted a rewritten file aborts the compaction without touching
//! the table (a concurrent append is rebased over); a Java 0.9 deletion-vector table is compacted
//! (vectors applied, their index entries dropped) and Java reads the same rows.

use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, StringArray};
use lakescope_paimon::commit::{CommitOptions, Committer, Overwrite};
use lakescope_paimon::compact::{compact, rewrite};
use lakescope_paimon::scan::{plan, PartitionFilter};
use lakescope_paimon::spec::{CommitKind, Datum, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::{write, FixedEnv, WriteEnv};
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::tables::{batch, commit_message, create, rows, string, t};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// A table `(dt STRING, id BIGINT, v STRING, n BIGINT)` partitioned by dt; primary key
/// (dt, id) unless `append`; extra options.
async fn table(options: &[(&str, &str)], append: bool) -> Table {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let def = TableDefinition {
        columns: vec![
            ("dt".into(), string(), None),
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
            ("n".into(), t(TypeKind::BigInt), None),
        ],
        partition_keys: vec!["dt".into()],
        primary_keys: if append {
            Vec::new()
        } else {
            vec!["dt".into(), "id".into()]
        },
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        ..Default::default()
    };
    let env = FixedEnv::new(1_700_000_000_000, 1);
    create(&store, "db.db/t", &def, &env).await
}

/// Rows `(dt, id, "v<id>-<tag>", id)`, with row kinds when `kinds` is given.
fn rows_of(dt: &str, ids: &[i64], tag: &str, kinds: Option<&[i8]>) -> RecordBatch {
    let mut cols: Vec<(&str, ArrayRef)> = vec![
        ("dt", Arc::new(StringArray::from(vec![dt; ids.len()]))),
        ("id", Arc::new(Int64Array::from(ids.to_vec()))),
        (
            "v",
            Arc::new(StringArray::from(
                ids.iter()
                    .map(|i| format!("v{i}-{tag}"))
                    .collect::<Vec<_>>(),
            )),
        ),
        ("n", Arc::new(Int64Array::from(ids.to_vec()))),
    ];
    if let Some(k) = kinds {
        cols.push(("_VALUE_KIND", Arc::new(Int8Array::from(k.to_vec()))));
    }
    batch(cols)
}

async fn insert(table: &Table, env: &dyn WriteEnv, b: RecordBatch) -> i64 {
    let seq = lakescope_paimon::commit::next_sequence_number(table)
        .await
        .unwrap();
    let message = write(table, env, &[b], seq).await.unwrap();
    commit_message(table, env, message, None, "compaction-test")
        .await
        .id
}

async fn latest_rows(table: &Table) -> Vec<String> {
    let s = table.latest_snapshot().await.unwrap();
    rows(
        &read_snapshot(table, s.as_ref(), &ReadRequest::default())
            .await
            .unwrap()
            .batches,
    )
}

/// (partition values, bucket, level, file name, min key, max key) of every live file.
async fn live_files(table: &Table) -> Vec<(Vec<Datum>, i32, i32, String, Vec<u8>, Vec<u8>)> {
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let mut out = Vec::new();
    for split in plan(table, &s, &PartitionFilter::All).await.unwrap().splits {
        for f in split.files {
            out.push((
                split.partition.clone(),
                split.bucket,
                f.level,
                f.file_name.clone(),
                f.min_key.clone(),
                f.max_key.clone(),
            ));
        }
    }
    out
}

fn options(table: &Table) -> CommitOptions {
    CommitOptions::for_table(table, "compactor").unwrap()
}

/// Four commits with updates and deletes into two partitions and two buckets.
async fn history(table: &Table, env: &dyn WriteEnv) {
    insert(table, env, rows_of("a", &[1, 2, 3, 4], "1", None)).await;
    insert(table, env, rows_of("b", &[1, 2, 3], "1", None)).await;
    insert(table, env, rows_of("a", &[2, 5], "2", None)).await;
    insert(table, env, rows_of("a", &[3], "3", Some(&[3]))).await;
}

#[tokio::test]
async fn deduplicate_compaction_reads_the_same_and_moves_files_to_the_top_level() {
    let table = table(&[("bucket", "2")], false).await;
    let env = FixedEnv::new(1_700_000_000_000, 2);
    history(&table, &env).await;
    let before = latest_rows(&table).await;
    let files_before = live_files(&table).await;
    assert!(files_before.iter().all(|f| f.2 == 0));

    let done = compact(&table, &env, options(&table), &[])
        .await
        .unwrap()
        .expect("a compaction");
    assert_eq!(done.snapshot.commit_kind, CommitKind::Compact);
    assert_eq!(done.snapshot.id, 5);
    assert_eq!(latest_rows(&table).await, before);
    // Deletes are dropped: the snapshot's record count is the live row count.
    assert_eq!(done.snapshot.total_record_count, Some(before.len() as i64));
    let after = live_files(&table).await;
    // The top level, where Java 0.9 compacts to: num-levels defaults to the compaction trigger
    // (5) + 1.
    assert!(after.iter().all(|f| f.2 == 5), "{after:?}");
    let mut buckets: Vec<_> = after.iter().map(|f| (f.0.clone(), f.1)).collect();
    buckets.dedup();
    assert_eq!(buckets.len(), after.len(), "one file per bucket");
    for f in &files_before {
        assert!(after.iter().all(|a| a.3 != f.3), "{} still live", f.3);
    }
    // The previous snapshot still reads as before (time travel over the COMPACT snapshot).
    let s4 = table.snapshot(4).await.unwrap();
    let r = read_snapshot(&table, Some(&s4), &ReadRequest::default())
        .await
        .unwrap();
    assert_eq!(rows(&r.batches), before);

    // Nothing left to compact.
    assert!(compact(&table, &env, options(&table), &[])
        .await
        .unwrap()
        .is_none());

    // Later writes win over the compacted rows (higher sequence numbers).
    insert(&table, &env, rows_of("a", &[1, 3], "4", None)).await;
    let now = latest_rows(&table).await;
    assert!(now.contains(&"a|1|v1-4|1".to_string()), "{now:?}");
    assert!(now.contains(&"a|3|v3-4|3".to_string()), "{now:?}");
    assert!(!now.contains(&"a|1|v1-1|1".to_string()), "{now:?}");
}

#[tokio::test]
async fn partition_filter_compacts_only_that_partition() {
    let table = table(&[("bucket", "1")], false).await;
    let env = FixedEnv::new(1_700_000_000_000, 3);
    history(&table, &env).await;
    let before = latest_rows(&table).await;
    let only_b = PartitionFilter::Eq(vec![("dt".into(), Datum::String("b".into()))]);
    compact(&table, &env, options(&table), &[only_b])
        .await
        .unwrap()
        .expect("a compaction");
    assert_eq!(latest_rows(&table).await, before);
    for f in live_files(&table).await {
        let top = f.0 == vec![Datum::String("b".into())];
        assert_eq!(f.2, if top { 5 } else { 0 }, "{f:?}");
    }
}

#[tokio::test]
async fn aggregation_and_partial_update_merge_when_compacting() {
    for opts in [
        vec![
            ("bucket", "1"),
            ("merge-engine", "aggregation"),
            ("fields.n.aggregate-function", "sum"),
        ],
        vec![("bucket", "1"), ("merge-engine", "partial-update")],
    ] {
        let table = table(&opts, false).await;
        let env = FixedEnv::new(1_700_000_000_000, 4);
        insert(&table, &env, rows_of("a", &[1, 2], "1", None)).await;
        insert(&table, &env, rows_of("a", &[1, 3], "2", None)).await;
        let before = latest_rows(&table).await;
        compact(&table, &env, options(&table), &[])
            .await
            .unwrap()
            .expect("a compaction");
        assert_eq!(latest_rows(&table).await, before, "{opts:?}");
        // A further write merges with the compacted row once, not with the old runs.
        insert(&table, &env, rows_of("a", &[1], "3", None)).await;
        let now = latest_rows(&table).await;
        let want = if opts.len() == 3 {
            "a|1|v1-3|3"
        } else {
            "a|1|v1-3|1"
        };
        assert!(now.contains(&want.to_string()), "{opts:?}: {now:?}");
    }
}

#[tokio::test]
async fn target_file_size_rolls_the_compacted_files() {
    let table = table(&[("bucket", "1"), ("target-file-size", "1kb")], false).await;
    let env = FixedEnv::new(1_700_000_000_000, 5);
    let ids: Vec<i64> = (0..400).collect();
    insert(&table, &env, rows_of("a", &ids, "1", None)).await;
    let odd: Vec<i64> = (0..400).filter(|i| i % 2 == 1).collect();
    insert(&table, &env, rows_of("a", &odd, "2", None)).await;
    let before = latest_rows(&table).await;
    compact(&table, &env, options(&table), &[])
        .await
        .unwrap()
        .expect("a compaction");
    assert_eq!(latest_rows(&table).await, before);
    assert!(
        live_files(&table).await.len() > 1,
        "one file of 400 rows at 1kb"
    );
    // Top-level files of a bucket never overlap: sorted by min key, each ends before the next.
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let mut ranges = Vec::new();
    for split in plan(&table, &s, &PartitionFilter::All)
        .await
        .unwrap()
        .splits
    {
        for f in split.files {
            let (lo, hi) = (key_id(&f.min_key), key_id(&f.max_key));
            assert!(lo <= hi);
            ranges.push((lo, hi, f.row_count));
        }
    }
    ranges.sort();
    for w in ranges.windows(2) {
        assert!(w[0].1 < w[1].0, "overlapping key ranges {ranges:?}");
    }
    assert_eq!(ranges.iter().map(|r| r.2).sum::<i64>(), 400);
}

/// The `id` of a key BinaryRow (the key without the partition field dt, as Paimon trims it).
fn key_id(key: &[u8]) -> i64 {
    let types = [t(TypeKind::BigInt)];
    match &lakescope_paimon::spec::BinaryRow::decode(key, &types).unwrap()[0] {
        Datum::BigInt(v) => *v,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn append_tables_concatenate_a_bucket() {
    let table = table(&[], true).await;
    let env = FixedEnv::new(1_700_000_000_000, 6);
    insert(&table, &env, rows_of("a", &[1, 2], "1", None)).await;
    insert(&table, &env, rows_of("a", &[2, 3], "2", None)).await;
    insert(&table, &env, rows_of("b", &[9], "1", None)).await;
    let before = latest_rows(&table).await;
    compact(&table, &env, options(&table), &[])
        .await
        .unwrap()
        .expect("a compaction");
    assert_eq!(latest_rows(&table).await, before);
    let files = live_files(&table).await;
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(files.iter().all(|f| f.2 == 0));
}

#[tokio::test]
async fn a_commit_deleting_a_rewritten_file_aborts_the_compaction() {
    let table = table(&[("bucket", "1")], false).await;
    let env = FixedEnv::new(1_700_000_000_000, 7);
    history(&table, &env).await;
    let change = rewrite(&table, &env, &[]).await.unwrap();
    assert!(!change.before.is_empty());

    // Meanwhile an INSERT OVERWRITE replaces partition a.
    let seq = lakescope_paimon::commit::next_sequence_number(&table)
        .await
        .unwrap();
    let message = lakescope_paimon::write::table_write::write_overwrite(
        &table,
        &env,
        &[rows_of("a", &[7], "o", None)],
        seq,
    )
    .await
    .unwrap();
    let overwrite = Overwrite::Static(vec![("dt".into(), Datum::String("a".into()))]);
    commit_message(&table, &env, message, Some(overwrite), "other").await;
    let after_overwrite = latest_rows(&table).await;
    let latest = table.latest_snapshot().await.unwrap().unwrap().id;

    let err = Committer::new(&table, &env, options(&table))
        .commit_compact(&change)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("conflict"), "{err}");
    assert_eq!(table.latest_snapshot().await.unwrap().unwrap().id, latest);
    assert_eq!(latest_rows(&table).await, after_overwrite);
    assert!(after_overwrite.contains(&"a|7|v7-o|7".to_string()));
}

#[tokio::test]
async fn a_concurrent_append_is_kept_when_the_compaction_commits_after_it() {
    let table = table(&[("bucket", "1")], false).await;
    let env = FixedEnv::new(1_700_000_000_000, 8);
    history(&table, &env).await;
    let change = rewrite(&table, &env, &[]).await.unwrap();
    insert(&table, &env, rows_of("a", &[1, 8], "late", None)).await;
    let with_append = latest_rows(&table).await;
    let done = Committer::new(&table, &env, options(&table))
        .commit_compact(&change)
        .await
        .unwrap();
    assert_eq!(done.snapshot.commit_kind, CommitKind::Compact);
    assert_eq!(latest_rows(&table).await, with_append);
    assert!(with_append.contains(&"a|1|v1-late|1".to_string()));
}

/// Java 0.9's deletion-vector table of the corpus (APPEND + COMPACT pairs, DV index files):
/// lakescope's full compaction applies the vectors, drops their index entries and rewrites
/// the bucket at the top level; lakescope and Java Paimon 0.9 read the same rows before and after.
#[tokio::test]
async fn java_deletion_vector_table_compacts_and_java_reads_it() {
    let Some(o) = lakescope_test_support::oracles::oracles() else {
        return;
    };
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/paimon/warehouse/java09.db/pk_deletion_vectors");
    let dir = lakescope_test_support::temp_dir("lakescope-compaction", "dv");
    let table_dir = dir.join("java09.db/pk_deletion_vectors");
    lakescope_test_support::copy_dir(&corpus, &table_dir);
    let store: Rc<dyn ObjectStore> = Rc::new(lakescope_storage::LocalStore::new(&dir));
    let table = Table::open(store, "java09.db/pk_deletion_vectors")
        .await
        .unwrap();
    let before_id = table.latest_snapshot_id().await.unwrap().unwrap();
    let s = table.latest_snapshot().await.unwrap().unwrap();
    let dv_entries = table
        .index_manifest(s.index_manifest.as_deref().unwrap())
        .await
        .unwrap();
    assert!(dv_entries
        .iter()
        .any(|e| e.index_type == "DELETION_VECTORS"));
    let before = latest_rows(&table).await;

    let env = FixedEnv::new(1_800_000_000_000, 9);
    let done = compact(&table, &env, options(&table), &[])
        .await
        .unwrap()
        .expect("a compaction");
    assert_eq!(done.snapshot.id, before_id + 1);
    assert_eq!(latest_rows(&table).await, before);
    let files = live_files(&table).await;
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0].2, 5, "the top level, as Java 0.9 compacts to");
    let index = done.snapshot.index_manifest.as_deref().unwrap();
    assert!(table
        .index_manifest(index)
        .await
        .unwrap()
        .iter()
        .all(|e| e.index_type != "DELETION_VECTORS"));

    let java =
        lakescope_test_support::oracles::read_java(&o, &table_dir, &[before_id, before_id + 1]);
    let old = java[&before_id]
        .as_ref()
        .expect("Java reads the old snapshot");
    let new = java[&(before_id + 1)]
        .as_ref()
        .expect("Java reads the compacted snapshot");
    assert_eq!(new, old);
    assert_eq!(new.len(), before.len());
    let _ = std::fs::remove_dir_all(&dir);
}
