//! Writes to `changelog-producer` = `input` tables (issue 6), as Java 0.9's `MergeTreeWriter`
//! and `FileStoreCommitImpl` make them: the changelog files of a write hold every input row
//! (keys repeated within the write too, all row kinds), sorted by key then sequence number, in
//! the data file layout, level 0, named `changelog-…`; the snapshot lists them in its changelog
//! manifest list with `changelogRecordCount`; `ignore-delete` drops retractions from both; an
//! INSERT OVERWRITE commits no changelog; `write_files` refuses these tables. (Interop with
//! Java 0.9 and pypaimon is in lakescope-engine's `changelog_input_interop`.)

use arrow_array::cast::AsArray;
use arrow_array::{ArrayRef, Int32Array, Int8Array, RecordBatch, StringArray};
use lakescope_paimon::commit::{next_sequence_number, CommitOptions, Overwrite};
use lakescope_paimon::incremental::{read_incremental, IncrementalMode, IncrementalRequest};
use lakescope_paimon::spec::{CommitKind, FileKind, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::table_write::write_overwrite;
use lakescope_paimon::write::{write, write_files, FixedEnv, ROW_KIND_COLUMN};
use lakescope_paimon::write_commit::commit_write;
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::tables::{batch, create, string, t};
use std::rc::Rc;
use std::sync::Arc;

fn definition(extra: &[(&str, &str)]) -> TableDefinition {
    let mut options: Vec<(String, String)> = vec![
        ("bucket".into(), "1".into()),
        ("changelog-producer".into(), "input".into()),
    ];
    options.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::Int), None),
            ("v".into(), string(), None),
        ],
        primary_keys: vec!["id".into()],
        options: options.into_iter().collect(),
        ..Default::default()
    }
}

/// (kind, id, v) rows with a `_VALUE_KIND` column.
fn input(rows: &[(i8, i32, &str)]) -> RecordBatch {
    batch(vec![
        (
            "id",
            Arc::new(Int32Array::from(
                rows.iter().map(|r| r.1).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        (
            "v",
            Arc::new(StringArray::from(
                rows.iter().map(|r| r.2).collect::<Vec<_>>(),
            )),
        ),
        (
            ROW_KIND_COLUMN,
            Arc::new(Int8Array::from(
                rows.iter().map(|r| r.0).collect::<Vec<_>>(),
            )),
        ),
    ])
}

async fn table(extra: &[(&str, &str)]) -> (Table, FixedEnv) {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 3);
    let table = create(&store, "db.db/t", &definition(extra), &env).await;
    (table, env)
}

async fn commit(
    table: &Table,
    env: &FixedEnv,
    rows: &[(i8, i32, &str)],
) -> lakescope_paimon::spec::Snapshot {
    let seq = next_sequence_number(table).await.unwrap();
    let message = write(table, env, &[input(rows)], seq).await.unwrap();
    let options = CommitOptions::for_table(table, "u").unwrap();
    commit_write(table, env, options, message, None)
        .await
        .unwrap()
        .snapshot
}

/// lakescope's changelog read of `(start, end]` as "kind|id|v" lines, in read (file) order.
async fn changelog(table: &Table, start: i64, end: i64) -> Vec<String> {
    let out = read_incremental(
        table,
        &IncrementalRequest {
            start: start.to_string(),
            end: end.to_string(),
            mode: Some(IncrementalMode::Changelog),
            with_row_kind: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    out.batches
        .iter()
        .flat_map(|b| {
            let text =
                |i: usize| arrow_cast::cast(b.column(i), &arrow_schema::DataType::Utf8).unwrap();
            let (kind, id, v) = (text(0), text(1), text(2));
            let s = |a: &ArrayRef, r: usize| a.as_string::<i32>().value(r).to_string();
            (0..b.num_rows())
                .map(|r| format!("{}|{}|{}", s(&kind, r), s(&id, r), s(&v, r)))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[tokio::test]
async fn changelog_files_hold_every_input_row_sorted_by_key_then_sequence() {
    let (table, env) = table(&[]).await;
    let rows = [
        (0, 3, "c"),
        (0, 1, "a"),
        (2, 3, "c2"),
        (3, 2, "b"),
        (0, 1, "a2"),
    ];
    let message = write(&table, &env, &[input(&rows)], 10).await.unwrap();
    // The data file keeps each key's last row; the changelog file all of them.
    assert_eq!(message.files.len(), 1);
    assert_eq!(message.files[0].file.row_count, 3);
    assert_eq!(message.changelog.len(), 1);
    let cl = &message.changelog[0].file;
    assert!(cl.file_name.starts_with("changelog-"), "{}", cl.file_name);
    assert!(cl.file_name.ends_with(".parquet"), "{}", cl.file_name);
    assert_eq!(cl.row_count, 5);
    assert_eq!(cl.level, 0);
    assert_eq!(cl.file_source, Some(0));
    assert_eq!(cl.delete_row_count, Some(1));
    assert_eq!((cl.min_sequence_number, cl.max_sequence_number), (10, 14));
    assert_eq!(cl.min_key, message.files[0].file.min_key);
    assert_eq!(cl.max_key, message.files[0].file.max_key);
    assert_ne!(cl.file_name, message.files[0].file.file_name);

    let options = CommitOptions::for_table(&table, "u").unwrap();
    let s = commit_write(&table, &env, options, message.clone(), None)
        .await
        .unwrap()
        .snapshot;
    assert_eq!(s.commit_kind, CommitKind::Append);
    assert_eq!(s.changelog_record_count, Some(5));
    assert_eq!(s.delta_record_count, Some(3));
    let list = s.changelog_manifest_list.as_deref().unwrap();
    assert!(s.changelog_manifest_list_size.unwrap() > 0);
    let metas = table.manifest_list(list).await.unwrap();
    assert_eq!(metas.len(), 1);
    assert_eq!(
        (metas[0].num_added_files, metas[0].num_deleted_files),
        (1, 0)
    );
    let entries = table.manifest(&metas[0].file_name).await.unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].kind, FileKind::Add);
    assert_eq!(*entries[0].file, *cl);
    assert_eq!(entries[0].total_buckets, Some(1));

    // In file order: sorted by key, then by sequence number (input order).
    assert_eq!(
        changelog(&table, 0, 1).await,
        ["+I|1|a", "+I|1|a2", "-D|2|b", "+I|3|c", "+U|3|c2"]
    );
}

#[tokio::test]
async fn ignore_delete_drops_retractions_from_the_changelog_too() {
    let (table, env) = table(&[("ignore-delete", "true")]).await;
    commit(&table, &env, &[(0, 1, "a"), (0, 2, "b")]).await;
    let s = commit(&table, &env, &[(3, 1, "a"), (1, 2, "b"), (2, 2, "b2")]).await;
    assert_eq!(s.changelog_record_count, Some(1));
    assert_eq!(changelog(&table, 1, 2).await, ["+U|2|b2"]);
}

#[tokio::test]
async fn overwrite_commits_no_changelog_and_write_files_refuses() {
    let (table, env) = table(&[]).await;
    commit(&table, &env, &[(0, 1, "a")]).await;
    let seq = next_sequence_number(&table).await.unwrap();
    let message = write_overwrite(&table, &env, &[input(&[(0, 2, "b")])], seq)
        .await
        .unwrap();
    assert!(message.changelog.is_empty());
    let options = CommitOptions::for_table(&table, "u").unwrap();
    let s = commit_write(&table, &env, options, message, Some(Overwrite::Dynamic))
        .await
        .unwrap()
        .snapshot;
    assert_eq!(s.commit_kind, CommitKind::Overwrite);
    assert_eq!(s.changelog_manifest_list, None);
    assert_eq!(s.changelog_record_count, Some(0));
    // A plain write's changelog is not committed with an overwrite either (as Java).
    let seq = next_sequence_number(&table).await.unwrap();
    let message = write(&table, &env, &[input(&[(0, 3, "c")])], seq)
        .await
        .unwrap();
    assert_eq!(message.changelog.len(), 1);
    let options = CommitOptions::for_table(&table, "u").unwrap();
    let s = commit_write(
        &table,
        &env,
        options,
        message,
        Some(Overwrite::Static(Vec::new())),
    )
    .await
    .unwrap()
    .snapshot;
    assert_eq!(s.changelog_manifest_list, None);

    let err = write_files(&table, &env, &[input(&[(0, 4, "d")])], 0)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("changelog-producer=input"), "{err}");
    assert!(err.contains("write::write"), "{err}");
}
