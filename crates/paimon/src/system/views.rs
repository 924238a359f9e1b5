//! Views over the table's rows: `$audit_log` (a leading `rowkind` column), `$ro` (read-optimized)
//! and `$row_tracking` (`_ROW_ID`, `_SEQUENCE_NUMBER` appended).

use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::{read_snapshot, ReadOutput, ReadRequest, ROW_KIND_COLUMN};
use crate::{Error, Result};
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use std::sync::Arc;

/// `$audit_log`: the snapshot's rows with a leading `rowkind` (`+I`, `-U`, `+U`, `-D`).
///
/// Primary-key tables are merged keeping retractions (Paimon's `AuditLogTable` read forces
/// `keepDelete`), so a key whose newest record is a `-D` not yet compacted away shows as `-D`.
/// Append tables have only `+I` rows.
pub async fn audit_log(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let schema = match snapshot {
        Some(s) => table.schema(s.schema_id).await?,
        None => table.latest_schema().await?,
    };
    if !schema.primary_keys.is_empty() {
        let request = ReadRequest {
            with_row_kind: true,
            ..ReadRequest::default()
        };
        return read_snapshot(table, snapshot, &request).await;
    }
    let out = read_snapshot(table, snapshot, &ReadRequest::default()).await?;
    with_constant_row_kind(out, "+I")
        .map_err(|e| Error::Invalid(format!("{}$audit_log: {e}", table.path())))
}

/// Prepends a `rowkind` column holding `kind` on every row.
pub(crate) fn with_constant_row_kind(out: ReadOutput, kind: &str) -> Result<ReadOutput> {
    let mut fields = vec![Arc::new(Field::new(ROW_KIND_COLUMN, DataType::Utf8, false))];
    fields.extend(out.schema.fields().iter().cloned());
    let schema = Arc::new(Schema::new(fields));
    let batches = out
        .batches
        .iter()
        .map(|b| {
            let kinds: ArrayRef = Arc::new(StringArray::from(vec![kind; b.num_rows()]));
            let mut columns = vec![kinds];
            columns.extend(b.columns().iter().cloned());
            RecordBatch::try_new(schema.clone(), columns)
                .map_err(|e| Error::Invalid(format!("adding rowkind: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ReadOutput { schema, batches })
}

/// `$ro`: the read-optimized view — for primary-key tables only the files of each bucket's
/// top level, without merging (fresh level-0 data is invisible); append tables read fully.
pub async fn read_optimized(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let request = ReadRequest {
        read_optimized: true,
        ..ReadRequest::default()
    };
    read_snapshot(table, snapshot, &request).await
}

/// `$row_tracking`: the snapshot's rows with `_ROW_ID` and `_SEQUENCE_NUMBER` appended (Java's
/// `RowTrackingTable`, Paimon 1.x), see [`crate::read::row_tracking`]; a table without
/// `row-tracking.enabled` is refused.
pub async fn row_tracking(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let request = ReadRequest {
        with_row_tracking: true,
        ..ReadRequest::default()
    };
    read_snapshot(table, snapshot, &request).await
}
