//! The changelog of compactions of `changelog-producer` = `lookup` / `full-compaction` tables
//! (issue 6), per merge engine, as Java 0.9's changelog merge function wrappers give it: every
//! write is an APPEND snapshot without changelog, then a COMPACT snapshot whose changelog files
//! (`changelog-` prefix, at the output level, file source APPEND) hold per written key +I, -D
//! or -U/+U; first-row tables only +I for new keys; `changelog-producer.row-deduplicate`
//! drops -U/+U of unchanged values.

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, Int32Array, Int8Array, RecordBatch, StringArray};
use lakescope_paimon::commit::{next_sequence_number, CommitOptions};
use lakescope_paimon::incremental::{read_incremental, IncrementalMode, IncrementalRequest};
use lakescope_paimon::spec::{CommitKind, FileKind, Snapshot, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::{write, FixedEnv, ROW_KIND_COLUMN};
use lakescope_paimon::write_commit::commit_write;
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::tables::{batch, create, string, t};
use std::rc::Rc;
use std::sync::Arc;

async fn table(options: &[(&str, &str)]) -> (Table, FixedEnv) {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let env = FixedEnv::new(1_700_000_000_000, 5);
    let def = TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::Int), None),
            ("v".into(), string(), None),
        ],
        primary_keys: vec!["id".into()],
        options: [("bucket", "1")]
            .iter()
            .chain(options)
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..Default::default()
    };
    let table = create(&store, "db.db/t", &def, &env).await;
    (table, env)
}

/// (kind, id, v) rows with a `_VALUE_KIND` column.
fn input(rows: &[(i8, i32, Option<&str>)]) -> RecordBatch {
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

/// Commits `rows`; returns the snapshot the commit ended with.
async fn commit(table: &Table, env: &FixedEnv, rows: &[(i8, i32, Option<&str>)]) -> Snapshot {
    let seq = next_sequence_number(table).await.unwrap();
    let message = write(table, env, &[input(rows)], seq).await.unwrap();
    let options = CommitOptions::for_table(table, "u").unwrap();
    commit_write(table, env, options, message, None)
        .await
        .unwrap()
        .snapshot
}

/// lakescope's changelog read of snapshot `id` as "kind|id|v" lines, in file order.
async fn changelog(table: &Table, id: i64) -> Vec<String> {
    let out = read_incremental(
        table,
        &IncrementalRequest {
            start: (id - 1).to_string(),
            end: id.to_string(),
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
            (0..b.num_rows())
                .map(|r| {
                    let v = v.as_string::<i32>();
                    format!(
                        "{}|{}|{}",
                        kind.as_string::<i32>().value(r),
                        id.as_string::<i32>().value(r),
                        if v.is_null(r) { "null" } else { v.value(r) }
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Checks the snapshot pair of a commit (APPEND without changelog, then COMPACT `compact`)
/// and returns the COMPACT snapshot's changelog.
async fn compact_changelog(table: &Table, compact: &Snapshot) -> Vec<String> {
    assert_eq!(compact.commit_kind, CommitKind::Compact);
    let append = table.snapshot(compact.id - 1).await.unwrap();
    assert_eq!(append.commit_kind, CommitKind::Append);
    assert_eq!(append.changelog_manifest_list, None);
    assert_eq!(changelog(table, append.id).await, Vec::<String>::new());
    changelog(table, compact.id).await
}

#[tokio::test]
async fn lookup_changelog_files_are_listed_in_the_compact_snapshot() {
    let (table, env) = table(&[("changelog-producer", "lookup")]).await;
    let s = commit(&table, &env, &[(0, 2, Some("b")), (0, 1, Some("a"))]).await;
    assert_eq!(compact_changelog(&table, &s).await, ["+I|1|a", "+I|2|b"]);
    assert_eq!(s.changelog_record_count, Some(2));
    let metas = table
        .manifest_list(s.changelog_manifest_list.as_deref().unwrap())
        .await
        .unwrap();
    let entries = table.manifest(&metas[0].file_name).await.unwrap();
    assert_eq!(entries.len(), 1);
    let f = &entries[0].file;
    assert_eq!(entries[0].kind, FileKind::Add);
    assert!(f.file_name.starts_with("changelog-"), "{}", f.file_name);
    assert_eq!((f.level, f.file_source, f.row_count), (5, Some(0), 2));

    // An update (also to the same value: no row-deduplicate), a delete, a missing key deleted.
    let s = commit(
        &table,
        &env,
        &[
            (2, 1, Some("a")),
            (2, 2, Some("b2")),
            (3, 3, None),
            (0, 4, Some("d")),
        ],
    )
    .await;
    assert_eq!(
        compact_changelog(&table, &s).await,
        ["-U|1|a", "+U|1|a", "-U|2|b", "+U|2|b2", "+I|4|d"]
    );
    let s = commit(&table, &env, &[(3, 2, Some("b2"))]).await;
    assert_eq!(compact_changelog(&table, &s).await, ["-D|2|b2"]);
}

#[tokio::test]
async fn first_row_lookup_gives_only_new_keys() {
    let (table, env) = table(&[
        ("merge-engine", "first-row"),
        ("changelog-producer", "lookup"),
    ])
    .await;
    let s = commit(&table, &env, &[(0, 1, Some("a"))]).await;
    assert_eq!(compact_changelog(&table, &s).await, ["+I|1|a"]);
    let s = commit(&table, &env, &[(0, 1, Some("z")), (0, 2, Some("b"))]).await;
    assert_eq!(compact_changelog(&table, &s).await, ["+I|2|b"]);
}

#[tokio::test]
async fn partial_update_full_compaction_with_row_deduplicate() {
    let (table, env) = table(&[
        ("merge-engine", "partial-update"),
        ("changelog-producer", "full-compaction"),
        ("changelog-producer.row-deduplicate", "true"),
    ])
    .await;
    let s = commit(&table, &env, &[(0, 1, Some("a")), (0, 2, Some("b"))]).await;
    assert_eq!(compact_changelog(&table, &s).await, ["+I|1|a", "+I|2|b"]);
    // A null does not overwrite (partial update): key 1 is unchanged, no -U/+U for it.
    let s = commit(&table, &env, &[(0, 1, None), (0, 2, Some("b2"))]).await;
    assert_eq!(compact_changelog(&table, &s).await, ["-U|2|b", "+U|2|b2"]);
    assert_eq!(s.changelog_record_count, Some(2));
}
