//! v3 row lineage: the `_row_id` and `_last_updated_sequence_number` metadata columns.
//!
//! Spec "Row Lineage": a null or absent `_row_id` reads as the data file's (inherited)
//! `first_row_id` plus the row's position in the file; a null or absent
//! `_last_updated_sequence_number` as the file's data sequence number; a file without a
//! `first_row_id` (written before the table was upgraded to v3) reads both as null.

use crate::plan::FileEntry;
use crate::spec::{NestedField, Schema, Type};
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch};
use lakescope_format::spec::DataField;
use std::borrow::Cow;
use std::sync::Arc;

/// Field id of `_row_id`.
pub const ROW_ID: i32 = 2_147_483_540;
/// Field id of `_last_updated_sequence_number`.
pub const LAST_UPDATED_SEQUENCE_NUMBER: i32 = 2_147_483_539;

const COLUMNS: [(i32, &str); 2] = [
    (ROW_ID, "_row_id"),
    (
        LAST_UPDATED_SEQUENCE_NUMBER,
        "_last_updated_sequence_number",
    ),
];

/// `schema` with the lineage columns among `requested` (by name, not shadowed by a table
/// column) appended, for tables of format version 3 or later.
pub fn with_requested<'a>(
    format_version: u8,
    schema: &'a Schema,
    requested: Option<&[String]>,
) -> Cow<'a, Schema> {
    let Some(requested) = requested.filter(|_| format_version >= 3) else {
        return Cow::Borrowed(schema);
    };
    let extra: Vec<NestedField> = COLUMNS
        .iter()
        .filter(|(_, name)| requested.iter().any(|r| r == name))
        .filter(|(_, name)| !schema.fields.iter().any(|f| f.name == *name))
        .map(|(id, name)| NestedField {
            id: *id,
            name: (*name).to_string(),
            required: false,
            field_type: Type::Long,
            doc: None,
            initial_default: None,
            write_default: None,
        })
        .collect();
    if extra.is_empty() {
        return Cow::Borrowed(schema);
    }
    let mut out = schema.clone();
    out.fields.extend(extra);
    Cow::Owned(out)
}

/// The batches of the whole data file `data` (in file order, before deletes), decoded onto
/// `read_fields`, with their lineage columns inherited.
pub fn inherit(
    data: &FileEntry,
    read_fields: &[DataField],
    batches: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>> {
    let targets: Vec<(usize, i32)> = read_fields
        .iter()
        .enumerate()
        .filter(|(_, f)| COLUMNS.iter().any(|(id, _)| *id == f.id))
        .map(|(i, f)| (i, f.id))
        .collect();
    if targets.is_empty() {
        return Ok(batches);
    }
    let mut position = 0i64;
    batches
        .into_iter()
        .map(|batch| {
            let rows = batch.num_rows();
            let mut columns = batch.columns().to_vec();
            for (i, id) in &targets {
                columns[*i] = inherited(data, *id, &columns[*i], position)?;
            }
            position += i64::try_from(rows).map_err(|e| Error::corrupt(&data.key, e))?;
            RecordBatch::try_new(batch.schema(), columns).map_err(|e| {
                Error::corrupt(&data.key, format!("inheriting row lineage columns: {e}"))
            })
        })
        .collect()
}

/// One lineage column of a batch whose first row is at `position` in the file.
fn inherited(data: &FileEntry, id: i32, column: &ArrayRef, position: i64) -> Result<ArrayRef> {
    let Some(first_row_id) = data.file.first_row_id else {
        return Ok(arrow_array::new_null_array(
            column.data_type(),
            column.len(),
        ));
    };
    let Some(stored) = column.as_primitive_opt::<Int64Type>() else {
        return Err(Error::corrupt(
            &data.key,
            format!("row lineage column (field id {id}) is not a long"),
        ));
    };
    let out: Int64Array = (0..stored.len())
        .map(|row| {
            if stored.is_valid(row) {
                return Ok(Some(stored.value(row)));
            }
            let value = if id == ROW_ID {
                i64::try_from(row)
                    .ok()
                    .and_then(|r| position.checked_add(r))
                    .and_then(|p| first_row_id.checked_add(p))
                    .ok_or_else(|| Error::corrupt(&data.key, "_row_id overflows i64"))?
            } else {
                data.sequence_number
            };
            Ok(Some(value))
        })
        .collect::<Result<_>>()?;
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::{DataContentType, DataFile, FileFormat};
    use arrow_schema::{DataType, Field, Schema as ArrowSchema};

    fn entry(first_row_id: Option<i64>) -> FileEntry {
        FileEntry {
            key: "data/a.parquet".into(),
            sequence_number: 7,
            spec_id: 0,
            file: DataFile {
                content: DataContentType::Data,
                file_path: "data/a.parquet".into(),
                file_format: FileFormat::Parquet,
                partition: Vec::new(),
                record_count: 4,
                file_size_in_bytes: 1,
                equality_ids: Vec::new(),
                referenced_data_file: None,
                content_offset: None,
                content_size_in_bytes: None,
                first_row_id,
            },
        }
    }

    fn long_field(id: i32, name: &str) -> DataField {
        DataField {
            id,
            name: name.into(),
            data_type: lakescope_format::spec::DataType::nullable(
                lakescope_format::spec::TypeKind::BigInt,
            ),
            description: None,
        }
    }

    /// Positions count across batches; stored values are kept; a file without a first row id
    /// reads null for both columns.
    #[test]
    fn nulls_are_inherited_by_position_and_sequence_number() {
        let fields = vec![
            long_field(ROW_ID, "_row_id"),
            long_field(
                LAST_UPDATED_SEQUENCE_NUMBER,
                "_last_updated_sequence_number",
            ),
        ];
        let schema = Arc::new(ArrowSchema::new(vec![
            Field::new("_row_id", DataType::Int64, true),
            Field::new("_last_updated_sequence_number", DataType::Int64, true),
        ]));
        let batch = |ids: Vec<Option<i64>>, seqs: Vec<Option<i64>>| {
            RecordBatch::try_new(
                schema.clone(),
                vec![
                    Arc::new(Int64Array::from(ids)),
                    Arc::new(Int64Array::from(seqs)),
                ],
            )
            .unwrap()
        };
        let batches = vec![
            batch(vec![None, Some(3)], vec![None, Some(2)]),
            batch(vec![None, None], vec![None, None]),
        ];
        let out = inherit(&entry(Some(100)), &fields, batches.clone()).unwrap();
        let col = |b: usize, c: usize| -> Vec<Option<i64>> {
            out[b]
                .column(c)
                .as_primitive::<Int64Type>()
                .iter()
                .collect()
        };
        assert_eq!(col(0, 0), vec![Some(100), Some(3)]);
        assert_eq!(col(1, 0), vec![Some(102), Some(103)]);
        assert_eq!(col(0, 1), vec![Some(7), Some(2)]);
        assert_eq!(col(1, 1), vec![Some(7), Some(7)]);
        let out = inherit(&entry(None), &fields, batches).unwrap();
        assert!(out
            .iter()
            .all(|b| b.columns().iter().all(|c| c.null_count() == c.len())));
    }
}
