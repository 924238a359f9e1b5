//! Reading a table at a point in time into Arrow batches of the snapshot's schema.

use crate::convert::{to_data_fields, uuid_to_text};
use crate::plan::plan;
use crate::read::{read_task, DeleteCache};
use crate::spec::{NestedField, Schema, Type};
use crate::table::{SnapshotSelector, Table};
use crate::{Error, Result};
use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema, SchemaRef};
use lakescope_format::read::to_arrow_field;
use lakescope_format::spec::DataField;
use std::sync::Arc;

/// What to read.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// Only these columns (by name, in this order).
    pub columns: Option<Vec<String>>,
    /// Stop after this many rows.
    pub limit: Option<usize>,
}

/// Rows read, with their schema.
#[derive(Debug, Clone)]
pub struct ReadOutput {
    /// The Arrow schema of the rows: the requested columns in order (all columns of the read
    /// schema when none were asked for), UUID columns as canonical text.
    pub schema: SchemaRef,
    /// The rows, with deletes applied.
    pub batches: Vec<RecordBatch>,
}

/// The Arrow schema of rows read with `schema` (UUID columns as canonical text).
pub fn output_schema(table: &Table, schema: &Schema) -> Result<SchemaRef> {
    let fields = read_fields(table, schema)?;
    Ok(Arc::new(ArrowSchema::new(
        schema
            .fields
            .iter()
            .zip(&fields)
            .map(|(f, d)| output_field(&f.field_type, d))
            .collect::<Vec<_>>(),
    )))
}

fn output_field(t: &Type, d: &DataField) -> Field {
    let f = to_arrow_field(d);
    match t {
        Type::Uuid => f.with_data_type(ArrowType::Utf8),
        t if is_unknown(t) => f.with_data_type(ArrowType::Null),
        _ => f,
    }
}

/// The v3 `unknown` type: always null, never written to data files.
fn is_unknown(t: &Type) -> bool {
    matches!(t, Type::Other(name) if name == "unknown")
}

/// The read field of a top-level column; a type this reader cannot decode is refused by name.
/// `unknown` columns are decoded as (absent, so null) booleans and output as Arrow nulls.
pub(crate) fn read_field(table: &Table, field: &NestedField) -> Result<DataField> {
    if is_unknown(&field.field_type) && !field.required {
        return Ok(DataField {
            id: field.id,
            name: field.name.clone(),
            data_type: lakescope_format::spec::DataType::nullable(
                lakescope_format::spec::TypeKind::Boolean,
            ),
            description: field.doc.clone(),
        });
    }
    to_data_fields(std::slice::from_ref(field))
        .and_then(|mut v| v.pop())
        .ok_or_else(|| {
            Error::unsupported(
                table.metadata_key(),
                format!(
                    "column '{}' of type {}: {}",
                    field.name,
                    field.field_type.to_json(),
                    unsupported_type_feature(&field.field_type)
                ),
            )
        })
}

/// What an undecodable type is, for the refusal.
fn unsupported_type_feature(t: &Type) -> String {
    let mut names = Vec::new();
    fn walk(t: &Type, out: &mut Vec<String>) {
        match t {
            Type::Other(n) => out.push(n.clone()),
            Type::Struct(fields) => fields.iter().for_each(|f| walk(&f.field_type, out)),
            Type::List { element, .. } => walk(element, out),
            Type::Map { key, value, .. } => {
                walk(key, out);
                walk(value, out);
            }
            _ => {}
        }
    }
    walk(t, &mut names);
    let what = |n: &str| -> String {
        if n == "variant" {
            "the Iceberg v3 variant type is not supported".into()
        } else if n.starts_with("geometry") || n.starts_with("geography") {
            format!("the Iceberg v3 geospatial type {n} is not supported")
        } else if n == "unknown" {
            "the Iceberg v3 unknown type is only supported as an optional top-level column".into()
        } else {
            format!("unknown type {n}")
        }
    };
    names
        .first()
        .map(|n| what(n))
        .unwrap_or_else(|| "type not supported".into())
}

pub(crate) fn read_fields(table: &Table, schema: &Schema) -> Result<Vec<DataField>> {
    schema.fields.iter().map(|f| read_field(table, f)).collect()
}

/// The columns `indices` of the schema out of `batch` (decoded columns `needed`, sorted), UUIDs
/// as text, in `out_schema`.
pub(crate) fn output_batch(
    schema: &Schema,
    out_schema: &SchemaRef,
    indices: &[usize],
    needed: &[usize],
    batch: &RecordBatch,
    key: &str,
) -> Result<RecordBatch> {
    let columns = indices
        .iter()
        .map(|i| {
            let at = needed
                .binary_search(i)
                .map_err(|_| Error::Invalid(format!("column {i} was not decoded")))?;
            let c = batch.column(at).clone();
            if is_unknown(&schema.fields[*i].field_type) {
                Ok(arrow_array::new_null_array(&ArrowType::Null, c.len()))
            } else if schema.fields[*i].field_type == Type::Uuid {
                uuid_to_text(&c)
                    .ok_or_else(|| Error::corrupt(key, "uuid column is not 16-byte binary"))
            } else {
                Ok(c)
            }
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new_with_options(
        out_schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )
    .map_err(|e| Error::corrupt(key, e))
}

/// Reads the rows of the selected snapshot, deletes applied: the current snapshot and the head
/// of a branch with the table's current schema, a snapshot named by id, time or tag with its
/// own ([`Table::read_schema_at`], Java's `SnapshotUtil.schemaFor`).
pub async fn read(
    table: &Table,
    at: &SnapshotSelector,
    request: &ReadRequest,
) -> Result<ReadOutput> {
    let snapshot = table.snapshot(at)?;
    // A branch reads with the current schema (columns added or renamed since its last commit
    // show); time travel to a fixed snapshot with the schema of that snapshot.
    let schema = table.read_schema_at(at)?;
    let lineage = crate::lineage::with_requested(
        table.metadata().format_version,
        schema,
        request.columns.as_deref(),
    );
    let schema: &Schema = &lineage;
    let indices: Vec<usize> = match &request.columns {
        Some(cols) => cols
            .iter()
            .map(|c| {
                schema
                    .fields
                    .iter()
                    .position(|f| &f.name == c)
                    .ok_or_else(|| Error::Invalid(format!("unknown column '{c}'")))
            })
            .collect::<Result<_>>()?,
        None => (0..schema.fields.len()).collect(),
    };
    // Only the selected columns must be readable (a column of an unsupported type can be
    // left out).
    let out_schema = Arc::new(ArrowSchema::new(
        indices
            .iter()
            .map(|i| {
                let f = &schema.fields[*i];
                Ok(output_field(&f.field_type, &read_field(table, f)?))
            })
            .collect::<Result<Vec<_>>>()?,
    ));
    let Some(snapshot) = snapshot else {
        return Ok(ReadOutput {
            schema: out_schema,
            batches: Vec::new(),
        });
    };
    let plan = plan(table, snapshot).await?;
    // Decode only the selected columns and those equality deletes compare.
    let mut needed = indices.clone();
    for task in &plan.tasks {
        for d in &task.equality_deletes {
            for id in &d.file.equality_ids {
                if let Some(i) = schema.fields.iter().position(|f| f.id == *id) {
                    needed.push(i);
                }
            }
        }
    }
    needed.sort_unstable();
    needed.dedup();
    let task_fields: Vec<DataField> = needed
        .iter()
        .map(|i| read_field(table, &schema.fields[*i]))
        .collect::<Result<_>>()?;
    let mut cache = DeleteCache::default();
    let mut batches = Vec::new();
    let mut rows = 0usize;
    for task in &plan.tasks {
        if request.limit.is_some_and(|l| rows >= l) {
            break;
        }
        for batch in read_task(table, task, &task_fields, &mut cache).await? {
            if batch.num_rows() == 0 {
                continue;
            }
            let mut batch = output_batch(
                schema,
                &out_schema,
                &indices,
                &needed,
                &batch,
                &task.data.key,
            )?;
            if let Some(limit) = request.limit {
                let take = (limit - rows).min(batch.num_rows());
                batch = batch.slice(0, take);
            }
            rows += batch.num_rows();
            batches.push(batch);
            if request.limit.is_some_and(|l| rows >= l) {
                break;
            }
        }
    }
    Ok(ReadOutput {
        schema: out_schema,
        batches,
    })
}
