//! Scanning a table or system table at a point in time into Arrow record batches.

use crate::{Catalog, Error, Result, TableRef};
use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{read_snapshot, ReadRequest};

/// Which version of the table to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum TimeTravel {
    /// The latest snapshot.
    #[default]
    Latest,
    /// `scan.snapshot-id`.
    SnapshotId(i64),
    /// `scan.tag-name`.
    Tag(String),
    /// `scan.timestamp-millis`: the latest snapshot committed at or before this instant.
    TimestampMillis(i64),
}

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ScanRequest {
    /// Version to read.
    pub at: TimeTravel,
    /// Only these columns, in this order.
    pub columns: Option<Vec<String>>,
    /// At most this many rows.
    pub limit: Option<usize>,
}

/// Rows read, with their schema.
#[derive(Debug, Clone)]
pub struct ScanResult {
    /// Schema of the batches (also meaningful when there are no rows).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}

impl Catalog {
    /// Opens a Paimon table of this warehouse.
    pub async fn open_table(&self, table: &TableRef) -> Result<Table> {
        Ok(Table::open(self.store().clone(), &table.path()).await?)
    }

    /// Reads a table or system table.
    pub async fn scan(&self, table_ref: &TableRef, request: &ScanRequest) -> Result<ScanResult> {
        let table = self.open_table(table_ref).await?;
        let (schema, batches) = match table_ref.system.as_deref() {
            None => {
                let snapshot = match &request.at {
                    TimeTravel::Latest => table.latest_snapshot().await?,
                    TimeTravel::SnapshotId(id) => Some(table.snapshot(*id).await?),
                    TimeTravel::Tag(name) => Some(table.tag(name).await?.snapshot),
                    TimeTravel::TimestampMillis(ms) => Some(
                        table
                            .snapshot_at_or_before_timestamp(*ms)
                            .await?
                            .ok_or_else(|| {
                                Error::Invalid(format!(
                                    "{table_ref} has no snapshot committed at or before {ms} ms"
                                ))
                            })?,
                    ),
                };
                let read = ReadRequest {
                    columns: request.columns.clone(),
                    ..ReadRequest::default()
                };
                let out = read_snapshot(&table, snapshot.as_ref(), &read).await?;
                (out.schema, out.batches)
            }
            Some(system) => {
                let out = lakescope_paimon::system::scan(&table, system).await?;
                let out = match &request.columns {
                    Some(cols) => project(out, cols)?,
                    None => out,
                };
                (out.schema, out.batches)
            }
        };
        Ok(ScanResult {
            batches: limit(batches, request.limit),
            schema,
        })
    }
}

fn project(
    out: lakescope_paimon::table_read::ReadOutput,
    columns: &[String],
) -> Result<lakescope_paimon::table_read::ReadOutput> {
    let indices = columns
        .iter()
        .map(|c| {
            out.schema
                .index_of(c)
                .map_err(|_| Error::Invalid(format!("unknown column '{c}'")))
        })
        .collect::<Result<Vec<_>>>()?;
    let schema =
        std::sync::Arc::new(
            out.schema
                .project(&indices)
                .map_err(|source| Error::Arrow {
                    context: "projecting columns".into(),
                    source,
                })?,
        );
    let batches = out
        .batches
        .iter()
        .map(|b| b.project(&indices))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|source| Error::Arrow {
            context: "projecting columns".into(),
            source,
        })?;
    Ok(lakescope_paimon::table_read::ReadOutput { schema, batches })
}

/// Keeps at most `limit` rows.
fn limit(batches: Vec<RecordBatch>, limit: Option<usize>) -> Vec<RecordBatch> {
    let Some(mut left) = limit else {
        return batches;
    };
    let mut out = Vec::new();
    for batch in batches {
        if left == 0 {
            break;
        }
        let take = left.min(batch.num_rows());
        out.push(batch.slice(0, take));
        left -= take;
    }
    out
}
