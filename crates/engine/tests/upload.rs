//! Uploads (CSV, Parquet) inserted chunk by chunk into Paimon tables: one snapshot (then a COMPACT
//! one for tables whose batch readers skip level-0 files), later chunks win on primary keys,
//! columns matched by name and cast, errors name the file and the column and commit nothing.

use arrow_array::{ArrayRef, Int32Array, RecordBatch, StringArray};
use async_trait::async_trait;
use bytes::Bytes;
use lakescope_engine::upload::{insert_file, FileKind, FileSource, Progress, Upload};
use lakescope_paimon::spec::{CommitKind, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::schema::TableDefinition;
use lakescope_paimon::write::FixedEnv;
use lakescope_storage::{MemoryStore, ObjectStore};
use lakescope_test_support::tables::{create, rows_at, string, t};
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// A file in memory, read by ranges; counts the largest read.
struct Memory(Bytes, std::cell::Cell<u64>);

#[async_trait(?Send)]
impl FileSource for Memory {
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
    async fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        self.1.set(self.1.get().max(end - start));
        Ok(self.0.slice(start as usize..end as usize))
    }
}

fn table_def(primary_key: bool) -> TableDefinition {
    TableDefinition {
        columns: vec![
            ("id".into(), t(TypeKind::BigInt), None),
            ("name".into(), string(), None),
            ("qty".into(), t(TypeKind::Int), None),
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

async fn open(primary_key: bool, env: &FixedEnv) -> Table {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    create(&store, "db.db/t", &table_def(primary_key), env).await
}

async fn upload(
    table: &Table,
    env: &FixedEnv,
    file: &str,
    bytes: Vec<u8>,
    chunk_rows: usize,
) -> (Result<i64, String>, Vec<Progress>) {
    let source = Memory(Bytes::from(bytes), Default::default());
    let mut seen = Vec::new();
    let result = insert_file(
        table,
        env,
        &Upload {
            file,
            kind: FileKind::from_name(file).unwrap(),
            table_name: "db.t",
            chunk_rows,
        },
        &source,
        &mut |p| seen.push(*p),
    )
    .await
    .map(|o| o.snapshot.id)
    .map_err(|e| e.to_string());
    (result, seen)
}

#[tokio::test]
async fn csv_into_a_primary_key_table_is_one_commit_and_later_rows_win() {
    let env = FixedEnv::new(1_700_000_000_000, 3);
    let table = open(true, &env).await;
    // Columns in another order than the table's; a quoted comma; key 2 again in a later chunk.
    let csv = "qty,id,name\n1,1,a\n2,2,\"b,c\"\n3,3,c\n4,4,d\n20,2,B\n";
    let (result, progress) = upload(&table, &env, "in.csv", csv.into(), 2).await;
    assert_eq!(result, Ok(1));
    assert_eq!(
        rows_at(&table, 1).await,
        ["1|a|1", "2|B|20", "3|c|3", "4|d|4"]
    );
    let last = progress.last().unwrap();
    assert!(last.committing);
    assert_eq!((last.bytes_read, last.rows_written), (csv.len() as u64, 5));
}

#[tokio::test]
async fn csv_into_a_first_row_table_commits_the_write_then_compacts_it_as_java_does() {
    let env = FixedEnv::new(1_700_000_000_000, 7);
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let mut def = table_def(true);
    def.options
        .insert("merge-engine".into(), "first-row".into());
    let table = create(&store, "db.db/t", &def, &env).await;
    // Key 2 again in a later chunk: the first row kept.
    let csv = "id,name,qty\n1,a,1\n2,b,2\n3,c,3\n2,late,20\n";
    let (result, _) = upload(&table, &env, "in.csv", csv.into(), 2).await;
    // The outcome is the second, COMPACT snapshot: batch readers skip the APPEND's level-0 files.
    assert_eq!(result, Ok(2));
    let kind = |id| {
        let table = &table;
        async move { table.snapshot(id).await.unwrap().commit_kind }
    };
    assert_eq!(
        (kind(1).await, kind(2).await),
        (CommitKind::Append, CommitKind::Compact)
    );
    assert!(rows_at(&table, 1).await.is_empty());
    assert_eq!(rows_at(&table, 2).await, ["1|a|1", "2|b|2", "3|c|3"]);
}

#[tokio::test]
async fn a_bad_value_or_column_names_the_file_and_column_and_commits_nothing() {
    let env = FixedEnv::new(1_700_000_000_000, 4);
    let table = open(true, &env).await;
    let cases = [
        (
            "id,name,qty\n1,a,1\n2,b,x2\n",
            "bad.csv: column `qty`: 'x2' (data row 2) is not a valid INT",
        ),
        (
            "id,nmae,qty\n1,a,1\n",
            "bad.csv: column `nmae`: is not a column of db.t (its columns: id, name, qty)",
        ),
        (
            "id,qty\n1,1\n",
            "bad.csv: column `name`: db.t has this column but the file does not",
        ),
        (
            "id,name,qty\n1,a,1\n,b,2\n",
            "bad.csv: column `id`: is NOT NULL in db.t but data row 2 has no value",
        ),
    ];
    for (csv, message) in cases {
        let (result, _) = upload(&table, &env, "bad.csv", csv.into(), 1).await;
        assert_eq!(result, Err(message.to_string()));
    }
    assert!(table.latest_snapshot().await.unwrap().is_none());
}

#[tokio::test]
async fn parquet_row_groups_are_read_one_at_a_time_into_an_append_table() {
    let env = FixedEnv::new(1_700_000_000_000, 5);
    let table = open(false, &env).await;
    // `id` as INT in the file (cast to BIGINT), columns in another order, 4 row groups.
    let n = 1000;
    let ids: ArrayRef = Arc::new(Int32Array::from((0..n).collect::<Vec<_>>()));
    let names: ArrayRef = Arc::new(StringArray::from(
        (0..n).map(|i| format!("name-{i:04}")).collect::<Vec<_>>(),
    ));
    let qty: ArrayRef = Arc::new(Int32Array::from((0..n).map(|i| i * 2).collect::<Vec<_>>()));
    let batch = RecordBatch::try_from_iter([("name", names), ("qty", qty), ("id", ids)]).unwrap();
    let mut bytes = Vec::new();
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(250))
        .build();
    let mut writer = ArrowWriter::try_new(&mut bytes, batch.schema(), Some(props)).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let size = bytes.len() as u64;
    let source = Memory(Bytes::from(bytes), Default::default());
    let mut seen = Vec::new();
    let outcome = insert_file(
        &table,
        &env,
        &Upload {
            file: "in.parquet",
            kind: FileKind::Parquet,
            table_name: "db.t",
            chunk_rows: 100,
        },
        &source,
        &mut |p| seen.push(*p),
    )
    .await
    .unwrap();
    assert_eq!(outcome.snapshot.id, 1);
    let rows = rows_at(&table, 1).await;
    let expected: Vec<String> = {
        let mut v: Vec<String> = (0..n)
            .map(|i| format!("{i}|name-{i:04}|{}", i * 2))
            .collect();
        v.sort();
        v
    };
    assert_eq!(rows, expected);
    // One progress report per row group, then the commit; no read took the whole file.
    assert_eq!(seen.len(), 5);
    assert!(seen[..4]
        .windows(2)
        .all(|w| w[0].bytes_read < w[1].bytes_read));
    assert!(
        source.1.get() < size / 2,
        "largest read {} of {size}",
        source.1.get()
    );
}

#[tokio::test]
async fn a_csv_larger_than_one_slice_is_decoded_across_slice_boundaries() {
    let env = FixedEnv::new(1_700_000_000_000, 6);
    let table = open(true, &env).await;
    // About 2.5 MiB: records (with quoted commas) are cut at the 1 MiB slice boundaries.
    let n = 80_000;
    let mut csv = String::from("id,name,qty\n");
    for i in 0..n {
        csv.push_str(&format!("{i},\"name, number {i:08}\",{}\n", i % 1000));
    }
    assert!(csv.len() > 2 << 20);
    let (result, progress) = upload(&table, &env, "big.csv", csv.clone().into(), 7_000).await;
    assert_eq!(result, Ok(1));
    let rows = rows_at(&table, 1).await;
    assert_eq!(rows.len(), n);
    assert!(rows.contains(&format!(
        "{}|name, number {:08}|{}",
        n - 1,
        n - 1,
        (n - 1) % 1000
    )));
    // one report per slice, then the commit
    assert_eq!(progress.len(), csv.len().div_ceil(1 << 20) + 1);
    assert_eq!(progress.last().map(|p| p.rows_written), Some(n as u64));
}
