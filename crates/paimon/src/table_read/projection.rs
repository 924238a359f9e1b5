//! The requested columns of a read: their indices in a split's batches and their Arrow schema.

use crate::read;
use crate::spec::{DataField, TableSchema};
use crate::{Error, Result};
use arrow_schema::{Schema, SchemaRef};
use std::sync::Arc;

/// Name of the row-kind column of `$audit_log`.
pub const ROW_KIND_COLUMN: &str = "rowkind";

/// Column indices of the requested columns in the table schema.
/// Column indices of the requested columns in the batches a split yields: the table's fields,
/// then, when `tracked`, `_ROW_ID` and `_SEQUENCE_NUMBER` ([`read::row_tracking::append`]).
pub(super) fn projection(
    schema: &TableSchema,
    columns: Option<&[String]>,
    tracked: bool,
) -> Result<Vec<usize>> {
    let Some(cols) = columns else {
        return Ok((0..schema.fields.len()).collect());
    };
    cols.iter()
        .map(|c| {
            if let Some(i) = schema.field_index(c) {
                return Ok(i);
            }
            match read::row_tracking::hidden_index(c) {
                Some(i) if tracked => Ok(schema.fields.len() + i),
                hidden => {
                    let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
                    let mut context = format!("columns: {}", names.join(", "));
                    if hidden.is_some() {
                        context.push_str(&format!(
                            "; '{c}' is a hidden column of tables with 'row-tracking.enabled' = 'true'"
                        ));
                    }
                    Err(Error::NotFound {
                        what: format!("column '{c}'"),
                        context: Some(context),
                    })
                }
            }
        })
        .collect()
}

/// The Arrow schema of `projection` over the table's fields (and the two row-tracking columns
/// when `tracked`).
pub(super) fn project_schema(
    fields: &[DataField],
    projection: &[usize],
    tracked: bool,
) -> Result<SchemaRef> {
    let mut full = read::to_arrow_schema(fields);
    if tracked {
        let mut all = full.fields().to_vec();
        all.extend(read::row_tracking::fields().into_iter().map(Arc::new));
        full = Arc::new(Schema::new(all));
    }
    full.project(projection)
        .map(Arc::new)
        .map_err(|e| Error::Invalid(format!("projecting columns: {e}")))
}
