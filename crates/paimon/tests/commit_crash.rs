//! Crash test of the commit protocol: for an append, a primary-key upsert (dynamic bucket, hash
//! index), an INSERT OVERWRITE, a schema change, a compaction and a first-row write (APPEND then
//! COMPACT), the k-th mutating storage call (data files, index files, manifests, manifest lists,
//! index manifest, snapshot, hints, schema) fails, for every k, either before it reaches the store
//! or after it took effect (a lost answer). Each time: the call returns an error or succeeds
//! without panicking, the table reads exactly as before or exactly as after the operation, and a
//! following commit succeeds and reads as that commit applied to the state the table was left in.

use arrow_array::{ArrayRef, Int64Array, Int8Array, RecordBatch, StringArray};
use lakescope_paimon::commit::{next_sequence_number, CommitOptions, Overwrite};
use lakescope_paimon::compact::compact;
use lakescope_paimon::spec::{DataField, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::schema_change::commit_schema;
use lakescope_paimon::write::table_write::write_overwrite;
use lakescope_paimon::write::{create_table, write, FixedEnv, WriteEnv};
use lakescope_paimon::write_commit::commit_write;
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::faults::{FaultMode, FaultStore};
use lakescope_test_support::tables::{batch, rows, string, t};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

const PATH: &str = "db.db/t";

#[derive(Debug, Clone, Copy)]
enum Op {
    Append,
    Upsert,
    Overwrite,
    SchemaChange,
    Compaction,
    FirstRow,
}

/// Rows `(dt, id, "v<id>-<tag>")` with row kinds (0 `+I`, 3 `-D`).
fn rows_of(dt: &str, ids: &[i64], tag: &str, kinds: &[i8]) -> RecordBatch {
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
    ];
    if !kinds.is_empty() {
        cols.push(("_VALUE_KIND", Arc::new(Int8Array::from(kinds.to_vec()))));
    }
    batch(cols)
}

fn definition(op: Op) -> TableDefinition {
    let (primary_keys, options): (Vec<String>, Vec<(&str, &str)>) = match op {
        Op::Append => (Vec::new(), Vec::new()),
        Op::Upsert | Op::Overwrite | Op::SchemaChange => (
            vec!["dt".into(), "id".into()],
            vec![("dynamic-bucket.target-row-num", "2")],
        ),
        Op::Compaction => (vec!["dt".into(), "id".into()], vec![("bucket", "2")]),
        Op::FirstRow => (
            vec!["dt".into(), "id".into()],
            vec![("bucket", "2"), ("merge-engine", "first-row")],
        ),
    };
    TableDefinition {
        columns: vec![
            ("dt".into(), string(), None),
            ("id".into(), t(TypeKind::BigInt), None),
            ("v".into(), string(), None),
        ],
        partition_keys: vec!["dt".into()],
        primary_keys,
        options: options
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
        ..Default::default()
    }
}

async fn insert(
    store: &Rc<dyn ObjectStore>,
    env: &dyn WriteEnv,
    b: RecordBatch,
    overwrite: Option<Overwrite>,
) -> lakescope_paimon::Result<()> {
    let table = Table::open(store.clone(), PATH).await?;
    let seq = next_sequence_number(&table).await?;
    let message = match overwrite {
        Some(_) => write_overwrite(&table, env, &[b], seq).await?,
        None => write(&table, env, &[b], seq).await?,
    };
    let options = CommitOptions::for_table(&table, "crash-test")?;
    commit_write(&table, env, options, message, overwrite).await?;
    Ok(())
}

fn pk(op: Op) -> bool {
    !matches!(op, Op::Append)
}

/// The table before the operation: created, two commits.
async fn setup(op: Op, store: &Rc<dyn ObjectStore>, env: &dyn WriteEnv) {
    create_table(store.as_ref(), PATH, &definition(op), env)
        .await
        .unwrap();
    let kinds: &[i8] = if pk(op) { &[0, 0, 0, 0] } else { &[] };
    insert(store, env, rows_of("a", &[1, 2, 3, 4], "1", kinds), None)
        .await
        .unwrap();
    let kinds: &[i8] = if pk(op) { &[0, 0] } else { &[] };
    insert(store, env, rows_of("b", &[1, 5], "1", kinds), None)
        .await
        .unwrap();
}

/// The operation under test.
async fn run(
    op: Op,
    store: &Rc<dyn ObjectStore>,
    env: &dyn WriteEnv,
) -> lakescope_paimon::Result<()> {
    match op {
        Op::Append => insert(store, env, rows_of("a", &[5, 6], "2", &[]), None).await,
        Op::Upsert => {
            let b = rows_of("a", &[1, 2, 7, 8, 9], "2", &[0, 3, 0, 0, 0]);
            insert(store, env, b, None).await
        }
        Op::Overwrite => {
            let b = rows_of("a", &[7], "o", &[0]);
            insert(store, env, b, Some(Overwrite::Dynamic)).await
        }
        Op::SchemaChange => {
            let table = Table::open(store.clone(), PATH).await?;
            let mut next = table.latest_schema().await?.as_ref().clone();
            next.id += 1;
            next.highest_field_id += 1;
            next.fields.push(DataField {
                id: next.highest_field_id,
                name: "w".into(),
                data_type: t(TypeKind::BigInt),
                description: None,
            });
            commit_schema(&table, &next, env).await.map(|_| ())
        }
        Op::Compaction => {
            let table = Table::open(store.clone(), PATH).await?;
            let options = CommitOptions::for_table(&table, "crash-test")?;
            compact(&table, env, options, &[]).await.map(|_| ())
        }
        Op::FirstRow => {
            let b = rows_of("a", &[1, 7], "2", &[0, 0]);
            insert(store, env, b, None).await
        }
    }
}

/// The commit after the operation (or its failure).
async fn next_commit(op: Op, store: &Rc<dyn ObjectStore>, env: &dyn WriteEnv) {
    let kinds: &[i8] = if pk(op) { &[0, 0] } else { &[] };
    insert(store, env, rows_of("a", &[4, 10], "n", kinds), None)
        .await
        .unwrap_or_else(|e| panic!("{op:?}: the commit after the failure: {e}"));
}

/// Rows of the latest snapshot with the latest schema, and (latest snapshot id, latest schema id).
async fn state(store: &Rc<dyn ObjectStore>) -> (Vec<String>, (i64, i64)) {
    let table = Table::open(store.clone(), PATH).await.unwrap();
    let s = table.latest_snapshot().await.unwrap();
    let request = ReadRequest {
        latest_schema: true,
        ..Default::default()
    };
    let read = read_snapshot(&table, s.as_ref(), &request).await.unwrap();
    let schema = table.latest_schema().await.unwrap().id;
    (rows(&read.batches), (s.map_or(0, |s| s.id), schema))
}

fn env() -> FixedEnv {
    FixedEnv::new(1_700_000_000_000, 42)
}

/// A fresh table after [`setup`], behind a disarmed fault store.
async fn fresh(op: Op) -> (Rc<FaultStore>, Rc<dyn ObjectStore>, FixedEnv) {
    let inner: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let faults = Rc::new(FaultStore::new(inner));
    let store: Rc<dyn ObjectStore> = faults.clone();
    let env = env();
    setup(op, &store, &env).await;
    (faults, store, env)
}

async fn crash_every_step(op: Op) {
    // References: before / after the operation, each followed by the next commit.
    let (_, store, env) = fresh(op).await;
    let (before, before_ids) = state(&store).await;
    next_commit(op, &store, &env).await;
    let before_next = state(&store).await.0;

    let (faults, store, env) = fresh(op).await;
    faults.disarm();
    run(op, &store, &env).await.unwrap();
    let steps = faults.log();
    let (after, _) = state(&store).await;
    next_commit(op, &store, &env).await;
    let after_next = state(&store).await.0;
    assert!(!steps.is_empty(), "{op:?} mutated nothing");
    eprintln!("{op:?}: {} mutating calls: {steps:#?}", steps.len());
    if !matches!(op, Op::Compaction) {
        assert_ne!(before, after, "{op:?} changed nothing");
    }

    for mode in [FaultMode::Before, FaultMode::After] {
        for k in 1..=steps.len() as u64 {
            let step = &steps[k as usize - 1];
            let what = format!("{op:?}, failing {mode:?} call {k} ({step})");
            let (faults, store, env) = fresh(op).await;
            faults.arm(k, mode);
            let result = run(op, &store, &env).await;
            faults.disarm();
            let (now, ids) = state(&store).await;
            assert!(
                now == before || now == after,
                "{what}: the table reads neither as before nor as after: {now:?}"
            );
            match &result {
                Ok(()) => assert_eq!(now, after, "{what}: succeeded but reads {now:?}"),
                Err(e) => assert!(
                    e.to_string().contains("injected failure"),
                    "{what}: unexpected error {e}"
                ),
            }
            // Something committed (a snapshot or a schema) means the operation took effect,
            // even if its answer was lost or a follow-up step (first-row's compaction) failed.
            let committed = ids != before_ids;
            next_commit(op, &store, &env).await;
            let (last, _) = state(&store).await;
            let want = if committed { &after_next } else { &before_next };
            assert_eq!(&last, want, "{what}: the next commit reads wrong");
        }
    }
}

#[tokio::test]
async fn append_survives_a_failure_at_every_step() {
    crash_every_step(Op::Append).await;
}

#[tokio::test]
async fn upsert_survives_a_failure_at_every_step() {
    crash_every_step(Op::Upsert).await;
}

#[tokio::test]
async fn overwrite_survives_a_failure_at_every_step() {
    crash_every_step(Op::Overwrite).await;
}

#[tokio::test]
async fn schema_change_survives_a_failure_at_every_step() {
    crash_every_step(Op::SchemaChange).await;
}

#[tokio::test]
async fn compaction_survives_a_failure_at_every_step() {
    crash_every_step(Op::Compaction).await;
}

#[tokio::test]
async fn first_row_write_survives_a_failure_at_every_step() {
    crash_every_step(Op::FirstRow).await;
}
