//! Reads two tiny tables held in memory (one merged from two sorted runs, one appended), so that
//! a browser compiles the reader before the first table is opened: V8 compiles each WebAssembly
//! function on its first call, 90–130 ms of a page's main thread on the way to a table's first
//! rows (docs/benchmarks.md, P4). The app runs it while the catalog is on screen.

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_schema::DataType as ArrowType;
use lakescope_paimon::read::to_arrow_schema;
use lakescope_paimon::spec::types::MAX_LENGTH;
use lakescope_paimon::spec::{DataType, TypeKind};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};
use lakescope_paimon::write::schema::{create_table, TableDefinition};
use lakescope_paimon::write::WriteEnv;
use lakescope_storage::{MemoryStore, ObjectStore};

use crate::write::insert_into_table;
use crate::{Error, Result};

/// Rows of each commit.
const ROWS: i64 = 64;

/// Writes the two tables into a fresh memory store and reads each with `request`; returns what
/// was read (the merged table's rows, then the appended table's). Yields to the caller's event
/// loop (`env.sleep(0)`) between steps, so a page stays responsive.
pub async fn read_tiny_tables(
    env: &dyn WriteEnv,
    request: &ReadRequest,
) -> Result<Vec<RecordBatch>> {
    let store: Rc<dyn ObjectStore> = Rc::new(MemoryStore::new());
    let mut read = Vec::new();
    for primary_key in [true, false] {
        let path = if primary_key {
            "warm_up.db/merged"
        } else {
            "warm_up.db/appended"
        };
        create_table(store.as_ref(), path, &definition(primary_key), env).await?;
        let table = Table::open(store.clone(), path).await?;
        // Two overlapping commits: keys 32..64 are in both sorted runs and are merged.
        let commits = if primary_key { 2 } else { 1 };
        for commit in 0..commits {
            env.sleep(0).await;
            insert_into_table(env, &table, &[rows(&table, commit * ROWS / 2)?], None).await?;
        }
        env.sleep(0).await;
        let snapshot = table.latest_snapshot().await?;
        let mut reader = SnapshotReader::open(&table, snapshot.as_ref(), request).await?;
        while let Some(batch) = reader.next_batch().await {
            read.push(batch?);
        }
    }
    Ok(read)
}

/// `(id BIGINT, n INT, x DOUBLE, s STRING)`, Parquet with zstd (Paimon's defaults), one bucket.
fn definition(primary_key: bool) -> TableDefinition {
    let column = |name: &str, kind| (name.to_string(), DataType::nullable(kind), None);
    TableDefinition {
        columns: vec![
            column("id", TypeKind::BigInt),
            column("n", TypeKind::Int),
            column("x", TypeKind::Double),
            column("s", TypeKind::VarChar(MAX_LENGTH)),
        ],
        primary_keys: if primary_key {
            vec!["id".into()]
        } else {
            Vec::new()
        },
        options: BTreeMap::from([
            ("bucket".into(), if primary_key { "1" } else { "-1" }.into()),
            ("file.format".into(), "parquet".into()),
            ("file.compression".into(), "zstd".into()),
        ]),
        ..TableDefinition::default()
    }
}

/// [`ROWS`] rows with ids from `first`, in the table's Arrow schema.
fn rows(table: &Table, first: i64) -> Result<RecordBatch> {
    let schema = to_arrow_schema(&table.current_schema().fields);
    let ids = first..first + ROWS;
    let columns = schema
        .fields()
        .iter()
        .map(|f| -> Result<ArrayRef> {
            Ok(match f.data_type() {
                ArrowType::Int64 => Arc::new(Int64Array::from_iter_values(ids.clone())),
                ArrowType::Int32 => Arc::new(Int32Array::from_iter_values(
                    ids.clone().map(|i| (i % 7) as i32),
                )),
                ArrowType::Float64 => Arc::new(Float64Array::from_iter_values(
                    ids.clone().map(|i| i as f64 / 3.0),
                )),
                ArrowType::Utf8 => Arc::new(StringArray::from_iter_values(
                    ids.clone().map(|i| format!("row {i}")),
                )),
                other => {
                    return Err(Error::Invalid(format!(
                        "warm-up table: no values for {other}"
                    )))
                }
            })
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(schema, columns).map_err(|e| Error::Invalid(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use lakescope_paimon::write::FixedEnv;

    #[tokio::test(flavor = "current_thread")]
    async fn the_tiny_tables_read_back_merged_and_appended() {
        let env = FixedEnv::new(1_700_000_000_000, 7);
        let request = ReadRequest {
            first_batch_bytes: Some(512 * 1024),
            first_batch_rows: Some(10),
            ..ReadRequest::default()
        };
        let read = read_tiny_tables(&env, &request).await.unwrap();
        let rows: usize = read.iter().map(|b| b.num_rows()).sum();
        // Merged: ids 0..96 once each; appended: ids 0..64.
        assert_eq!(rows, 96 + 64);
        assert_eq!(
            read[0].num_rows(),
            10,
            "the first batch has first_batch_rows rows"
        );
        let ids: Vec<i64> = read
            .iter()
            .flat_map(|b| {
                let a = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
                a.values().to_vec()
            })
            .collect();
        let merged: Vec<i64> = (0..96).collect();
        assert_eq!(ids[..96], merged[..]);
    }
}
