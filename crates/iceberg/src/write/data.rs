//! Rows to write: input batches conformed to the table schema, Parquet files with field ids.

use crate::spec::{Literal, NestedField, Schema, Type};
use crate::{Error, Result};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int32Type, Int64Type,
    Time64MicrosecondType, TimestampMicrosecondType,
};
use arrow_array::{new_null_array, Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::{ArrowWriter, PARQUET_FIELD_ID_META_KEY};
use parquet::basic::{Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::collections::HashMap;
use std::sync::Arc;

/// Casts that fail on values that do not fit instead of writing nulls.
const STRICT: arrow_cast::CastOptions<'static> = arrow_cast::CastOptions {
    safe: false,
    format_options: arrow_cast::display::FormatOptions::new(),
};

/// The Arrow type a column of this Iceberg type is written with (Parquet's Iceberg mapping:
/// timestamps as µs INT64, `timestamptz` adjusted to UTC, decimals as Parquet decimals).
fn physical_type(field: &NestedField) -> Result<ArrowType> {
    Ok(match &field.field_type {
        Type::Boolean => ArrowType::Boolean,
        Type::Int => ArrowType::Int32,
        Type::Long => ArrowType::Int64,
        Type::Float => ArrowType::Float32,
        Type::Double => ArrowType::Float64,
        Type::Decimal { precision, scale } => ArrowType::Decimal128(*precision, *scale as i8),
        Type::Date => ArrowType::Date32,
        Type::Time => ArrowType::Time64(TimeUnit::Microsecond),
        Type::Timestamp => ArrowType::Timestamp(TimeUnit::Microsecond, None),
        Type::Timestamptz => ArrowType::Timestamp(TimeUnit::Microsecond, Some("+00:00".into())),
        Type::String => ArrowType::Utf8,
        Type::Binary => ArrowType::Binary,
        Type::Fixed(n) => ArrowType::FixedSizeBinary(i32::try_from(*n).map_err(|_| {
            Error::Invalid(format!("column {}: fixed[{n}] is too wide", field.name))
        })?),
        other => {
            return Err(Error::Invalid(format!(
                "column {}: writing {} columns is not supported yet",
                field.name,
                other.to_json()
            )))
        }
    })
}

/// The Arrow schema of a data (or equality delete) file holding `fields`, with field ids.
pub fn file_schema(fields: &[NestedField]) -> Result<SchemaRef> {
    let fields = fields
        .iter()
        .map(|f| {
            Ok(
                Field::new(&f.name, physical_type(f)?, !f.required).with_metadata(HashMap::from([
                    (PARQUET_FIELD_ID_META_KEY.to_string(), f.id.to_string()),
                ])),
            )
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Arc::new(ArrowSchema::new(fields)))
}

/// `batch` (columns matched to the schema by name) cast to the file schema of `schema`:
/// missing columns take their `write-default` (optional ones without one: null); unknown columns,
/// missing required ones without a write-default, and nulls in required ones fail.
pub fn conform(table: &str, schema: &Schema, batch: &RecordBatch) -> Result<RecordBatch> {
    let target = file_schema(&schema.fields)?;
    let input = batch.schema();
    for f in input.fields() {
        if !schema.fields.iter().any(|s| &s.name == f.name()) {
            return Err(Error::Invalid(format!(
                "{table}: column {} is not in the table schema",
                f.name()
            )));
        }
    }
    let columns = schema
        .fields
        .iter()
        .zip(target.fields())
        .map(|(field, out)| {
            let column = match input.index_of(&field.name) {
                Ok(i) => {
                    let c = batch.column(i);
                    if c.data_type() == out.data_type() {
                        c.clone()
                    } else {
                        arrow_cast::cast_with_options(c, out.data_type(), &STRICT).map_err(|e| {
                            Error::Invalid(format!(
                                "{table}: column {}: cannot write {} as {}: {e}",
                                field.name,
                                c.data_type(),
                                field.field_type.to_json()
                            ))
                        })?
                    }
                }
                // Not supplied: the field's write-default (null without one).
                Err(_) => match field.write_default.as_ref().filter(|v| !v.is_null()) {
                    Some(v) => crate::defaults::column(
                        table,
                        field,
                        Some(v),
                        out.data_type(),
                        batch.num_rows(),
                    )?,
                    None if field.required => {
                        return Err(Error::Invalid(format!(
                            "{table}: column {} is NOT NULL but is not supplied and has no write-default",
                            field.name
                        )))
                    }
                    None => new_null_array(out.data_type(), batch.num_rows()),
                },
            };
            if field.required && column.null_count() > 0 {
                return Err(Error::Invalid(format!(
                    "{table}: column {} is NOT NULL but a row has null",
                    field.name
                )));
            }
            Ok(column)
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(target, columns)
        .map_err(|e| Error::Invalid(format!("{table}: building a data batch: {e}")))
}

/// The Parquet codec for `write.parquet.compression-codec`.
pub fn compression(codec: &str) -> Result<Compression> {
    Ok(match codec.to_ascii_lowercase().as_str() {
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        "snappy" => Compression::SNAPPY,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "lz4" => Compression::LZ4_RAW,
        "uncompressed" | "none" => Compression::UNCOMPRESSED,
        other => {
            return Err(Error::Invalid(format!(
                "write.parquet.compression-codec '{other}' is not supported"
            )))
        }
    })
}

/// Rows per write call, after which the file size is checked against the target.
const ROLL_CHECK_ROWS: usize = 8192;

/// Encodes the rows of `batch` as Parquet files whose root is `table` (as Java writes Iceberg
/// files) with the field ids in the schema, starting a new file once one reaches about
/// `target_size` bytes. Returns each file's bytes and its rows (a slice of `batch`).
pub fn encode_parquet(
    file: &str,
    batch: &RecordBatch,
    codec: Compression,
    target_size: u64,
) -> Result<Vec<(Vec<u8>, RecordBatch)>> {
    let err =
        |e: parquet::errors::ParquetError| Error::corrupt(file, format!("writing Parquet: {e}"));
    let new_writer = || {
        let props = WriterProperties::builder()
            .set_compression(codec)
            .set_created_by("lakescope".into())
            .build();
        let options = ArrowWriterOptions::new()
            .with_properties(props)
            .with_skip_arrow_metadata(true)
            .with_schema_root("table".into());
        ArrowWriter::try_new_with_options(Vec::new(), batch.schema(), options).map_err(err)
    };
    let mut files = Vec::new();
    let mut current: Option<(ArrowWriter<Vec<u8>>, usize)> = None;
    let mut offset = 0;
    while offset < batch.num_rows() {
        let len = ROLL_CHECK_ROWS.min(batch.num_rows() - offset);
        let (writer, start) = match current.as_mut() {
            Some(c) => c,
            None => current.insert((new_writer()?, offset)),
        };
        writer.write(&batch.slice(offset, len)).map_err(err)?;
        offset += len;
        let size = writer.bytes_written() + writer.in_progress_size();
        if size as u64 >= target_size {
            let start = *start;
            if let Some((w, _)) = current.take() {
                files.push((
                    w.into_inner().map_err(err)?,
                    batch.slice(start, offset - start),
                ));
            }
        }
    }
    if let Some((w, start)) = current {
        files.push((
            w.into_inner().map_err(err)?,
            batch.slice(start, offset - start),
        ));
    }
    Ok(files)
}

/// The value at `row` of a column in its file type, as a partition/key literal (`None`: null).
pub fn literal_at(array: &dyn Array, row: usize) -> Option<Literal> {
    if array.is_null(row) {
        return None;
    }
    Some(match array.data_type() {
        ArrowType::Boolean => Literal::Boolean(array.as_boolean().value(row)),
        ArrowType::Int32 => Literal::Int(array.as_primitive::<Int32Type>().value(row)),
        ArrowType::Date32 => Literal::Int(array.as_primitive::<Date32Type>().value(row)),
        ArrowType::Int64 => Literal::Long(array.as_primitive::<Int64Type>().value(row)),
        ArrowType::Time64(TimeUnit::Microsecond) => {
            Literal::Long(array.as_primitive::<Time64MicrosecondType>().value(row))
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            Literal::Long(array.as_primitive::<TimestampMicrosecondType>().value(row))
        }
        ArrowType::Float32 => Literal::Float(array.as_primitive::<Float32Type>().value(row)),
        ArrowType::Float64 => Literal::Double(array.as_primitive::<Float64Type>().value(row)),
        ArrowType::Decimal128(_, _) => {
            Literal::Decimal(array.as_primitive::<Decimal128Type>().value(row))
        }
        ArrowType::Utf8 => Literal::String(array.as_string::<i32>().value(row).to_string()),
        ArrowType::Binary => Literal::Bytes(array.as_binary::<i32>().value(row).to_vec()),
        ArrowType::FixedSizeBinary(_) => {
            Literal::Bytes(array.as_fixed_size_binary().value(row).to_vec())
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use bytes::Bytes;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn schema() -> Schema {
        Schema {
            schema_id: 0,
            identifier_field_ids: vec![1],
            fields: vec![
                NestedField {
                    id: 1,
                    name: "id".into(),
                    required: true,
                    field_type: Type::String,
                    doc: None,
                    initial_default: None,
                    write_default: None,
                },
                NestedField {
                    id: 2,
                    name: "ts".into(),
                    required: false,
                    field_type: Type::Timestamp,
                    doc: None,
                    initial_default: None,
                    write_default: None,
                },
                NestedField {
                    id: 3,
                    name: "v".into(),
                    required: false,
                    field_type: Type::Long,
                    doc: None,
                    initial_default: None,
                    write_default: None,
                },
            ],
        }
    }

    #[test]
    fn omitted_columns_take_their_write_default() {
        let mut s = schema();
        // initial-default differs: a write must use the write-default.
        s.fields[0].initial_default = Some(serde_json::json!("old"));
        s.fields[0].write_default = Some(serde_json::json!("new"));
        s.fields[1].write_default = Some(serde_json::json!("2024-05-01T10:00:00"));
        let input = RecordBatch::try_from_iter(vec![(
            "v",
            Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef,
        )])
        .unwrap();
        let b = conform("t", &s, &input).unwrap();
        assert_eq!(
            literal_at(b.column(0).as_ref(), 1),
            Some(Literal::String("new".into()))
        );
        assert_eq!(
            literal_at(b.column(1).as_ref(), 0),
            Some(Literal::Long(1_714_557_600_000_000))
        );
        s.fields[1].write_default = Some(serde_json::json!("not a time"));
        let err = conform("t", &s, &input).unwrap_err().to_string();
        assert!(err.contains("'ts'") && err.contains("not a time"), "{err}");
    }

    #[test]
    fn conforms_and_writes_field_ids() {
        let input = RecordBatch::try_from_iter(vec![
            ("v", Arc::new(Int64Array::from(vec![7, 8])) as ArrayRef),
            (
                "id",
                Arc::new(StringArray::from(vec!["a", "b"])) as ArrayRef,
            ),
        ])
        .unwrap();
        let b = conform("t", &schema(), &input).unwrap();
        assert_eq!(b.num_columns(), 3);
        assert_eq!(b.column(1).null_count(), 2);
        assert_eq!(
            literal_at(b.column(0).as_ref(), 1),
            Some(Literal::String("b".into()))
        );
        let files = encode_parquet("f", &b, compression("zstd").unwrap(), u64::MAX).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files[0].1.num_rows(), 2);
        let bytes = files[0].0.clone();
        let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes)).unwrap();
        let ids: Vec<String> = reader
            .schema()
            .fields()
            .iter()
            .map(|f| f.metadata()[PARQUET_FIELD_ID_META_KEY].clone())
            .collect();
        assert_eq!(ids, ["1", "2", "3"]);
        assert_eq!(reader.parquet_schema().root_schema().name(), "table");

        let missing_key = RecordBatch::try_from_iter(vec![(
            "v",
            Arc::new(Int64Array::from(vec![1])) as ArrayRef,
        )])
        .unwrap();
        let err = conform("t", &schema(), &missing_key).unwrap_err();
        assert!(
            err.to_string()
                .contains("id is NOT NULL but is not supplied"),
            "{err}"
        );
        let unknown = RecordBatch::try_from_iter(vec![(
            "x",
            Arc::new(Int64Array::from(vec![1])) as ArrayRef,
        )])
        .unwrap();
        assert!(conform("t", &schema(), &unknown).is_err());
        assert!(compression("lzo").is_err());
    }
}
