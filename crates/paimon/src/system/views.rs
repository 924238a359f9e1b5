//! Views over the table's rows: `$audit_log` (a leading `rowkind` column), `$binlog` (the same,
//! each value in an array), `$ro` (read-optimized) and `$row_tracking` (`_ROW_ID`,
//! `_SEQUENCE_NUMBER` appended).

use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::{read_snapshot, ReadOutput, ReadRequest, ROW_KIND_COLUMN};
use crate::{Error, Result};
use arrow_array::{ArrayRef, ListArray, RecordBatch, StringArray};
use arrow_buffer::OffsetBuffer;
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

/// `$binlog` read in a batch (Java's `BinlogTable`, Paimon 1.x): the `$audit_log` rows with
/// every column but `rowkind` an ARRAY holding the one value (`[v]`; elements nullable, as
/// Java's row type makes them). Only a streaming read pairs `-U`/`+U` into `[before, after]`;
/// a batch read never does.
pub async fn binlog(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let out = audit_log(table, snapshot).await?;
    let wrap =
        |e: arrow_schema::ArrowError| Error::Invalid(format!("{}$binlog: {e}", table.path()));
    let mut fields = Vec::with_capacity(out.schema.fields().len());
    for (i, field) in out.schema.fields().iter().enumerate() {
        if i == 0 {
            fields.push(field.clone()); // rowkind
            continue;
        }
        let element = Field::new(
            crate::read::arrow_schema::LIST_ELEMENT_NAME,
            field.data_type().clone(),
            true,
        );
        let list = Field::new(field.name(), DataType::List(Arc::new(element)), true)
            .with_metadata(field.metadata().clone());
        fields.push(Arc::new(list));
    }
    let schema = Arc::new(Schema::new(fields));
    let batches = out
        .batches
        .iter()
        .map(|b| {
            let mut columns: Vec<ArrayRef> = Vec::with_capacity(b.num_columns());
            for (i, column) in b.columns().iter().enumerate() {
                let DataType::List(element) = schema.field(i).data_type() else {
                    columns.push(column.clone()); // rowkind
                    continue;
                };
                let offsets = OffsetBuffer::from_lengths(std::iter::repeat_n(1, b.num_rows()));
                let list = ListArray::try_new(element.clone(), offsets, column.clone(), None)
                    .map_err(wrap)?;
                columns.push(Arc::new(list));
            }
            RecordBatch::try_new(schema.clone(), columns).map_err(wrap)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(ReadOutput { schema, batches })
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
