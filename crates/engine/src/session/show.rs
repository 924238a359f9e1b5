//! Rows of SHOW / DESCRIBE / SET results: string tables as Flink's SQL client prints them.

use super::{Outcome, QueryOutput};
use arrow_array::{ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema};
use lakescope_sql::ast::{ColumnKind, CreateTable};
use lakescope_sql::show::{flink_type, quote_str};
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

/// DESCRIBE of a declared table: physical columns with their types, computed (`AS expr`, type
/// unknown until Flink plans it) and metadata columns in `extras`, the watermark on its column.
pub(super) fn describe_declared(t: &CreateTable) -> Outcome {
    let keys: Vec<&str> = t
        .primary_key
        .iter()
        .flat_map(|pk| pk.columns.iter().map(|c| c.name.as_str()))
        .collect();
    let pk = (!keys.is_empty()).then(|| format!("PRI({})", keys.join(", ")));
    let rows = t
        .columns
        .iter()
        .map(|c| {
            let is_key = keys.contains(&c.name.name.as_str());
            let (data_type, extras) = match &c.kind {
                ColumnKind::Physical(dt) => (Some(dt), None),
                ColumnKind::Computed { text, .. } => (None, Some(format!("AS {text}"))),
                ColumnKind::Metadata {
                    data_type,
                    key,
                    is_virtual,
                } => {
                    let mut e = "METADATA".to_string();
                    if let Some(k) = key {
                        e.push_str(&format!(" FROM {}", quote_str(k)));
                    }
                    if *is_virtual {
                        e.push_str(" VIRTUAL");
                    }
                    (Some(data_type), Some(e))
                }
            };
            let nullable = data_type.is_none_or(|t| t.nullable) && !is_key;
            vec![
                Some(c.name.name.clone()),
                data_type.map(|t| flink_type(&t.clone().with_nullable(true))),
                Some(if nullable { "TRUE" } else { "FALSE" }.to_string()),
                pk.clone().filter(|_| is_key),
                extras,
                t.watermark
                    .as_ref()
                    .filter(|w| w.column.name == c.name.name)
                    .map(|w| w.text.clone()),
            ]
        })
        .collect();
    strings(
        &["name", "type", "null", "key", "extras", "watermark"],
        rows,
    )
}
