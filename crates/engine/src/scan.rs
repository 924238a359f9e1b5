//! Scanning a table or system table at a point in time into Arrow record batches.

use crate::version::{paimon_snapshot, read_branch, Version};
use crate::{Catalog, Error, Result, TableRef};
use arrow_array::RecordBatch;
use lakescope_paimon::incremental::{read_incremental, IncrementalRequest};
use lakescope_paimon::table::Table;
use lakescope_paimon::table_read::{ReadRequest, SnapshotReader};

pub use crate::scan_request::{parse_filter, ScanRequest, ScanResult};

impl Catalog {
    /// Opens a Paimon table of this warehouse.
    pub async fn open_table(&self, table: &TableRef) -> Result<Table> {
        self.locate(table).await?.open().await
    }

    /// Reads a table or system table.
    pub async fn scan(&self, table_ref: &TableRef, request: &ScanRequest) -> Result<ScanResult> {
        if let Some(table) = self.open_iceberg(table_ref).await? {
            return crate::iceberg_scan::scan_table(&table, table_ref, request).await;
        }
        let table = self.open_table(table_ref).await?;
        scan_table(&table, table_ref, request).await
    }
}

/// Reads an open Paimon table (or the system table `table_ref` names); `table_ref` also names
/// the table in errors. A branch (`t$branch_dev`, [`Version::Branch`]) is read from its own
/// schemas, snapshots and tags: at its head with its latest schema, or at one of its snapshots
/// or tags (`t$branch_dev` with a snapshot id or tag) with that snapshot's schema.
pub async fn scan_table(
    table: &Table,
    table_ref: &TableRef,
    request: &ScanRequest,
) -> Result<ScanResult> {
    let on_branch;
    let table = match read_branch(table_ref, &request.at)? {
        Some(b) if b != table.branch_name() => {
            on_branch = table.branch(b).await?;
            &on_branch
        }
        _ => table,
    };
    if request.filter.is_some()
        && (table_ref.system_table().is_some()
            || matches!(request.at, Version::IncrementalBetween { .. }))
    {
        return Err(Error::Invalid(format!(
                "{table_ref}: a filter applies to table reads at one snapshot, not to system tables or incremental reads"
            )));
    }
    if let Version::IncrementalBetween { start, end, mode } = &request.at {
        let with_row_kind = match table_ref.system_table() {
                None => false,
                Some("audit_log") => true,
                Some(other) => {
                    return Err(Error::Invalid(format!(
                        "{table_ref}: incremental-between applies to the table and $audit_log, not ${other}"
                    )))
                }
            };
        let incremental = IncrementalRequest {
            start: start.clone(),
            end: end.clone(),
            mode: *mode,
            // `$audit_log` always leads with its `rowkind` column
            columns: request.columns.as_ref().map(|columns| {
                columns
                    .iter()
                    .filter(|c| !(with_row_kind && c.as_str() == "rowkind"))
                    .cloned()
                    .collect()
            }),
            with_row_kind,
        };
        let out = read_incremental(table, &incremental).await?;
        return Ok(ScanResult {
            batches: limit(out.batches, request.limit),
            schema: out.schema,
        });
    }
    let (schema, batches) = match table_ref.system_table() {
        None => {
            let snapshot = paimon_snapshot(table, table_ref, &request.at).await?;
            let read = read_request(request);
            let mut reader = SnapshotReader::open(table, snapshot.as_ref(), &read).await?;
            let mut batches = Vec::new();
            let mut rows = 0;
            // Stop reading once the limit is reached: first rows come fast.
            while request.limit.is_none_or(|limit| rows < limit) {
                let Some(batch) = reader.next_batch().await else {
                    break;
                };
                let batch = batch?;
                rows += batch.num_rows();
                batches.push(batch);
            }
            (reader.schema().clone(), batches)
        }
        Some(system) => {
            let out = if lakescope_paimon::system::is_snapshot_dependent(system) {
                let snapshot = paimon_snapshot(table, table_ref, &request.at).await?;
                lakescope_paimon::system::scan_at(table, system, snapshot.as_ref()).await?
            } else {
                lakescope_paimon::system::scan(table, system).await?
            };
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
pub(crate) fn limit(batches: Vec<RecordBatch>, limit: Option<usize>) -> Vec<RecordBatch> {
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

/// The Paimon read a scan request asks for: its columns and filter, and as Java, without time
/// travel (a branch's head too) the latest schema (ALTERs show at once).
pub(crate) fn read_request(request: &ScanRequest) -> ReadRequest {
    ReadRequest {
        columns: request.columns.clone(),
        filter: request.filter.clone(),
        latest_schema: request.at.reads_latest_schema(),
        ..ReadRequest::default()
    }
}
