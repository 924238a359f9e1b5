//! Encoding one data file: Arrow batch → ORC bytes (orc-rust) in Java Paimon's layout.
//!
//! Java Paimon writes each table column as a top-level ORC column of the same name (for
//! primary-key files `_KEY_<k>…`, `_SEQUENCE_NUMBER`, `_VALUE_KIND` first), BOOLEAN/TINYINT/
//! SMALLINT/INT/BIGINT/FLOAT/DOUBLE as the ORC types of the same width, STRING as string,
//! BINARY/VARBINARY as binary, DATE as date, TIMESTAMP as timestamp and TIMESTAMP_LTZ as
//! timestamp with local time zone, compressed per `file.compression` (zstd by default).
//!
//! Where orc-rust 0.9 cannot follow Java: CHAR(n)/VARCHAR(n) become ORC `string` (Java writes
//! `char(n)`/`varchar(n)`; values and readers are unaffected); no DECIMAL, TIME or nested
//! columns (orc-rust would panic), so those are refused up front; no column statistics or row
//! index (readers use them only to skip data); a fixed zstd level (3; Java uses
//! `file.compression.zstd-level`, default 1) — a size difference only; and timestamps in the
//! second before 1970 with a fraction are refused (ORC-763: not representable).

use crate::error::{Error, Result};
use crate::read::arrow_schema::to_arrow_field;
use crate::spec::types::{DataField, TypeKind};
use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use orc_rust::compression::CompressionType;
use orc_rust::ArrowWriterBuilder;
use std::sync::Arc;

/// The Arrow field a Paimon field is written with in ORC; errors for types orc-rust cannot
/// write.
pub fn physical_field(field: &DataField) -> Result<Field> {
    let refuse = |what: &str| {
        Err(Error::unsupported(
            &field.name,
            format!("writing {what} to ORC (orc-rust 0.9 has no writer for it)"),
        ))
    };
    match &field.data_type.kind {
        TypeKind::Decimal { .. } => return refuse("DECIMAL"),
        TypeKind::Time(_) => return refuse("TIME"),
        // Paimon's own ORC writer refuses VARIANT too (`Unsupported type: VARIANT`).
        TypeKind::Variant => {
            return Err(Error::unsupported(
                &field.name,
                "writing VARIANT columns to ORC (Paimon writes VARIANT only to Parquet)",
            ))
        }
        TypeKind::Vector(..) | TypeKind::Blob => {
            return Err(Error::unsupported(
                &field.name,
                format!(
                    "writing {} columns",
                    field.data_type.clone().with_nullable(true)
                ),
            ))
        }
        _ if field.data_type.is_nested() => return refuse(&field.data_type.to_string()),
        _ => {}
    }
    let base = to_arrow_field(field);
    let t = match base.data_type() {
        // Java writes TIMESTAMP_LTZ as ORC `timestamp with local time zone`, which orc-rust
        // writes for UTC-zoned Arrow timestamps.
        ArrowType::Timestamp(unit, Some(_)) => ArrowType::Timestamp(*unit, Some("UTC".into())),
        other => other.clone(),
    };
    // Exactly the types orc-rust's writer encodes; anything else would panic inside it.
    let writable = matches!(
        &t,
        ArrowType::Boolean
            | ArrowType::Int8
            | ArrowType::Int16
            | ArrowType::Int32
            | ArrowType::Int64
            | ArrowType::Float32
            | ArrowType::Float64
            | ArrowType::Utf8
            | ArrowType::LargeUtf8
            | ArrowType::Binary
            | ArrowType::LargeBinary
            | ArrowType::Date32
            | ArrowType::Timestamp(_, None)
    ) || matches!(&t, ArrowType::Timestamp(_, Some(tz)) if tz.as_ref() == "UTC");
    if !writable {
        return refuse(&field.data_type.to_string());
    }
    Ok(Field::new(&field.name, t, field.data_type.nullable))
}

/// The Arrow schema of an ORC file holding these fields.
pub fn physical_schema(fields: &[DataField]) -> Result<SchemaRef> {
    Ok(Arc::new(Schema::new(
        fields
            .iter()
            .map(physical_field)
            .collect::<Result<Vec<_>>>()?,
    )))
}

/// ORC compression for Paimon's `file.compression` value (`None` = uncompressed).
pub fn compression(name: &str) -> Result<Option<CompressionType>> {
    Ok(match name {
        "zstd" => Some(CompressionType::Zstd),
        "lz4" => Some(CompressionType::Lz4),
        "snappy" => Some(CompressionType::Snappy),
        "zlib" | "gzip" | "deflate" => Some(CompressionType::Zlib),
        "none" | "uncompressed" => None,
        other => {
            return Err(Error::Invalid(format!(
            "file.compression '{other}' is not supported for ORC (zstd, lz4, snappy, zlib, none)"
        )))
        }
    })
}

/// Encodes `batch` (built with [`physical_schema`]) as one ORC file.
pub fn encode_orc(
    file: &str,
    batch: &RecordBatch,
    compression: Option<CompressionType>,
) -> Result<Vec<u8>> {
    let err = |e: orc_rust::error::OrcError| Error::corrupt(file, format!("writing ORC: {e}"));
    let mut out = Vec::new();
    let mut builder = ArrowWriterBuilder::new(&mut out, batch.schema());
    if let Some(c) = compression {
        builder = builder.with_compression(c);
    }
    let mut writer = builder.try_build().map_err(err)?;
    writer.write(batch).map_err(err)?;
    writer.close().map_err(err)?;
    Ok(out)
}
