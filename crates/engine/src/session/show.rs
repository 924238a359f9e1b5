//! Rows of SHOW / DESCRIBE / SET results: string tables as Flink's SQL client prints them.

use super::{Outcome, QueryOutput};
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A table of strings (NULL where `None`).
pub(super) fn strings(columns: &[&str], rows: Vec<Vec<Option<String>>>) -> Outcome {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|c| Field::new(*c, DataType::Utf8, true))
            .collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = (0..columns.len())
        .map(|i| {
            Arc::new(StringArray::from(
                rows.iter()
                    .map(|r| r.get(i).cloned().flatten())
                    .collect::<Vec<_>>(),
            )) as ArrayRef
        })
        .collect();
    let batches = match RecordBatch::try_new(schema.clone(), arrays) {
        Ok(b) if b.num_rows() > 0 => vec![b],
        _ => Vec::new(),
    };
    Outcome::Rows(QueryOutput { schema, batches })
}

/// One column of names.
pub(super) fn names(column: &str, values: Vec<String>) -> Outcome {
    strings(
        &[column],
        values.into_iter().map(|v| vec![Some(v)]).collect(),
    )
}

/// `key`, `value` rows.
pub(super) fn key_values(map: &BTreeMap<String, String>) -> Outcome {
    strings(
        &["key", "value"],
        map.iter()
            .map(|(k, v)| vec![Some(k.clone()), Some(v.clone())])
            .collect(),
    )
}
