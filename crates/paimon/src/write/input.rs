//! The rows handed to a write: the table's columns taken by name (cast to its Arrow types,
//! NOT NULL checked) and each row's kind.

use crate::error::{Error, Result};
use crate::merge::RowKind;
use crate::spec::schema::TableSchema;
use arrow_array::cast::AsArray;
use arrow_array::types::Int8Type;
use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch};
use arrow_schema::DataType as ArrowType;

/// Name of the optional input column carrying each row's kind (`_VALUE_KIND` byte: 0 `+I`,
/// 1 `-U`, 2 `+U`, 3 `-D`) for primary-key tables.
pub const ROW_KIND_COLUMN: &str = "_VALUE_KIND";

/// The table's columns (by name, cast to the table's Arrow types) and the row kinds.
pub(crate) fn project(
    schema: &TableSchema,
    batches: &[RecordBatch],
) -> Result<(Vec<ArrayRef>, Vec<RowKind>)> {
    let options = schema.core_options();
    let rowkind_field = options.rowkind_field();
    let mut per_field: Vec<Vec<ArrayRef>> = vec![Vec::new(); schema.fields.len()];
    let mut kinds = Vec::new();
    for batch in batches {
        for (i, f) in schema.fields.iter().enumerate() {
            let target = crate::read::arrow_schema::to_arrow_type(&f.data_type);
            let col = match batch.column_by_name(&f.name) {
                Some(c) if c.data_type() == &target => c.clone(),
                Some(c) => arrow_cast::cast(c, &target).map_err(|e| {
                    Error::Invalid(format!(
                        "column {}: cannot cast {} to {target}: {e}",
                        f.name,
                        c.data_type()
                    ))
                })?,
                None if f.data_type.nullable => new_null_array(&target, batch.num_rows()),
                None => {
                    return Err(Error::Invalid(format!(
                        "column {} is NOT NULL but missing from the input",
                        f.name
                    )))
                }
            };
            if !f.data_type.nullable && col.null_count() > 0 {
                return Err(Error::Invalid(format!(
                    "column {} is NOT NULL but the input has {} nulls",
                    f.name,
                    col.null_count()
                )));
            }
            per_field[i].push(col);
        }
        kinds.extend(row_kinds(batch, rowkind_field.as_deref())?);
    }
    let columns = per_field
        .into_iter()
        .zip(&schema.fields)
        .map(|(parts, f)| {
            let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
            if refs.is_empty() {
                Ok(new_null_array(
                    &crate::read::arrow_schema::to_arrow_type(&f.data_type),
                    0,
                ))
            } else {
                arrow_select::concat::concat(&refs)
                    .map_err(|e| Error::Invalid(format!("column {}: {e}", f.name)))
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((columns, kinds))
}

fn row_kinds(batch: &RecordBatch, rowkind_field: Option<&str>) -> Result<Vec<RowKind>> {
    let n = batch.num_rows();
    if let Some(c) = batch.column_by_name(ROW_KIND_COLUMN) {
        let c = arrow_cast::cast(c, &ArrowType::Int8)
            .map_err(|e| Error::Invalid(format!("{ROW_KIND_COLUMN}: {e}")))?;
        let c = c.as_primitive::<Int8Type>();
        return (0..n)
            .map(|i| {
                let v = if c.is_null(i) { 0 } else { c.value(i) };
                RowKind::from_i8(v).ok_or_else(|| {
                    Error::Invalid(format!("{ROW_KIND_COLUMN}: invalid row kind {v}"))
                })
            })
            .collect();
    }
    if let Some(name) = rowkind_field {
        if let Some(c) = batch.column_by_name(name) {
            let c = arrow_cast::cast(c, &ArrowType::Utf8)
                .map_err(|e| Error::Invalid(format!("rowkind.field {name}: {e}")))?;
            let c = c.as_string::<i32>();
            return (0..n)
                .map(|i| {
                    RowKind::from_short_string(c.value(i)).ok_or_else(|| {
                        Error::Invalid(format!(
                            "rowkind.field {name}: invalid row kind '{}'",
                            c.value(i)
                        ))
                    })
                })
                .collect();
        }
    }
    Ok(vec![RowKind::Insert; n])
}
