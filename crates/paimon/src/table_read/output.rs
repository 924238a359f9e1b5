//! How a split's batches become rows of the read schema: the key-value system columns dropped, retractions filtered, or `_VALUE_KIND` turned into `rowkind`.

use super::projection::ROW_KIND_COLUMN;
use super::ReadRequest;
use crate::merge::RowKind;
use crate::{Error, Result};
use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Schema};
use std::sync::Arc;

/// How a split's batches become rows of the read schema (plus `rowkind` when asked).
#[derive(Debug, Clone, Copy)]
pub(super) enum Output {
    /// Append files: as read.
    AsRead,
    /// Unmerged key-value files: additions only, without the system columns.
    AdditionsOnly,
    /// Merged: without `_VALUE_KIND`.
    DropValueKind,
    /// Merged with retractions: `_VALUE_KIND` as a leading `rowkind` column.
    RowKindFirst,
    /// Append files read with `rowkind`: every row an insertion (`+I`), as Paimon's audit log
    /// of an append table shows it.
    InsertsKindFirst,
}

impl Output {
    /// How an append table's files become rows of `request`'s read schema.
    pub(super) fn append(request: &ReadRequest) -> Self {
        if request.with_row_kind {
            Output::InsertsKindFirst
        } else {
            Output::AsRead
        }
    }

    /// `batch` (a split's raw batch) as rows of the read schema.
    pub(super) fn apply(self, batch: RecordBatch) -> Result<RecordBatch> {
        match self {
            Output::AsRead => Ok(batch),
            Output::AdditionsOnly => drop_system_columns(&batch),
            Output::DropValueKind => drop_value_kind(&batch),
            Output::RowKindFirst => row_kind_first(&batch),
            Output::InsertsKindFirst => inserts_kind_first(&batch),
        }
    }
}

/// Drops `_SEQUENCE_NUMBER` and `_VALUE_KIND` (the last two columns) of a key-value batch,
/// keeping only rows that are additions.
fn drop_system_columns(batch: &RecordBatch) -> Result<RecordBatch> {
    let n = batch.num_columns().saturating_sub(2);
    let kinds = batch.column(n + 1);
    let keep = additions_mask(kinds)?;
    let filtered = arrow_select::filter::filter_record_batch(batch, &keep)
        .map_err(|e| Error::Invalid(format!("filtering retractions: {e}")))?;
    filtered
        .project(&(0..n).collect::<Vec<_>>())
        .map_err(|e| Error::Invalid(format!("dropping system columns: {e}")))
}

/// Drops the trailing `_VALUE_KIND` column of merged output.
fn drop_value_kind(batch: &RecordBatch) -> Result<RecordBatch> {
    let n = batch.num_columns().saturating_sub(1);
    batch
        .project(&(0..n).collect::<Vec<_>>())
        .map_err(|e| Error::Invalid(format!("dropping _VALUE_KIND: {e}")))
}

/// Moves the trailing `_VALUE_KIND` of merged output to a leading `rowkind` text column.
fn row_kind_first(batch: &RecordBatch) -> Result<RecordBatch> {
    let n = batch.num_columns().saturating_sub(1);
    let kinds = batch
        .column(n)
        .as_any()
        .downcast_ref::<arrow_array::Int8Array>()
        .ok_or_else(|| Error::Invalid("_VALUE_KIND is not TINYINT".into()))?;
    let text: arrow_array::StringArray = kinds
        .iter()
        .map(|k| k.and_then(RowKind::from_i8).map(RowKind::short_string))
        .collect();
    kinds_first(text, &drop_value_kind(batch)?)
}

/// A leading `rowkind` column of `+I` on every row of append-file rows.
fn inserts_kind_first(batch: &RecordBatch) -> Result<RecordBatch> {
    let insert = RowKind::Insert.short_string();
    kinds_first(
        arrow_array::StringArray::from(vec![insert; batch.num_rows()]),
        batch,
    )
}

/// `kinds` as a leading `rowkind` column before the columns of `batch`.
fn kinds_first(kinds: arrow_array::StringArray, batch: &RecordBatch) -> Result<RecordBatch> {
    let mut columns: Vec<arrow_array::ArrayRef> = vec![Arc::new(kinds)];
    columns.extend(batch.columns().iter().cloned());
    let mut fields = vec![Arc::new(Field::new(ROW_KIND_COLUMN, ArrowType::Utf8, true))];
    fields.extend(batch.schema().fields().iter().cloned());
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| Error::Invalid(format!("adding rowkind: {e}")))
}

fn additions_mask(kinds: &arrow_array::ArrayRef) -> Result<arrow_array::BooleanArray> {
    let kinds = kinds
        .as_any()
        .downcast_ref::<arrow_array::Int8Array>()
        .ok_or_else(|| Error::Invalid("_VALUE_KIND is not TINYINT".into()))?;
    Ok(kinds
        .iter()
        .map(|k| Some(matches!(k, Some(0) | Some(2))))
        .collect())
}
