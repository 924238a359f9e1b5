//! `sequence.field` in writes: rows of one key are ordered by the user sequence, then by input order, as Java's write buffer sorts them.
//!
//! Java 0.9 sorts a write's rows by key, then by `UserDefinedSeqComparator` (nulls first; with
//! `sequence.field.sort-order` = `descending` the non-null values reversed), then by sequence
//! number; the merge function then sees them in that order (deduplicate keeps the last) and
//! `changelog-producer` = `input` writes them in that order. The same order the readers merge in.

use crate::error::{Error, Result};
use crate::merge::config::MergeConfig;
use crate::merge::sort_merge::convert_columns;
use crate::spec::schema::TableSchema;
use arrow_array::{ArrayRef, RecordBatch};
use arrow_row::Rows;
use arrow_schema::{Field, Schema, SortOptions};
use std::cmp::Ordering;
use std::sync::Arc;

/// The user sequence of each input row, comparable.
pub(crate) struct UserSequence {
    rows: Rows,
}

impl UserSequence {
    /// The user sequence of the rows of `columns` (the table's columns), or `None` without a
    /// `sequence.field`.
    pub(crate) fn new(schema: &TableSchema, columns: &[ArrayRef]) -> Result<Option<Self>> {
        let config = MergeConfig::from_options(&schema.options)?;
        if config.sequence_fields.is_empty() {
            return Ok(None);
        }
        let idx = config
            .sequence_fields
            .iter()
            .map(|n| {
                schema.field_index(n).ok_or_else(|| {
                    Error::Invalid(format!("sequence.field '{n}' is not a column of the table"))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let fields: Vec<Field> = idx
            .iter()
            .map(|i| Field::new(format!("s{i}"), columns[*i].data_type().clone(), true))
            .collect();
        let batch = RecordBatch::try_new(
            Arc::new(Schema::new(fields)),
            idx.iter().map(|i| columns[*i].clone()).collect(),
        )
        .map_err(|e| Error::Invalid(format!("sequence.field: {e}")))?;
        let options = SortOptions {
            descending: !config.sequence_ascending,
            nulls_first: true,
        };
        let all: Vec<usize> = (0..idx.len()).collect();
        let rows = convert_columns(&[batch], &all, options)?
            .pop()
            .ok_or_else(|| Error::Invalid("sequence.field: no rows converted".into()))?;
        Ok(Some(Self { rows }))
    }

    /// The order of input rows `a` and `b` by user sequence.
    pub(crate) fn cmp(&self, a: usize, b: usize) -> Ordering {
        self.rows.row(a).cmp(&self.rows.row(b))
    }
}
