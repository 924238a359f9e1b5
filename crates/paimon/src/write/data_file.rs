//! Encoding one data file: Arrow batch → Parquet bytes in Java Paimon's physical layout.
//!
//! Java's mapping is kept where readers care: DECIMAL p ≤ 9 as INT32 and p ≤ 18 as INT64 (the
//! Parquet crate's own choice for p ≥ 2), TIMESTAMP(p ≤ 3) as INT64 millis and p ≤ 6 as INT64
//! micros, TIME as INT32 millis, root group `paimon_schema`, NOT NULL columns `required`.

#[cfg(feature = "orc")]
use super::orc_file;
use crate::error::{Error, Result};
use crate::read::arrow_schema::to_arrow_field;
use crate::spec::types::{DataField, TypeKind};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef, TimeUnit};
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
use parquet::file::properties::WriterProperties;
use std::sync::Arc;

/// The Arrow field a Paimon field is written with (Java's physical units).
pub fn physical_field(field: &DataField) -> Result<Field> {
    let base = to_arrow_field(field);
    let t = match &field.data_type.kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => {
            let tz = match base.data_type() {
                ArrowType::Timestamp(_, tz) => tz.clone(),
                _ => None,
            };
            let unit = match p {
                0..=3 => TimeUnit::Millisecond,
                4..=6 => TimeUnit::Microsecond,
                _ => {
                    return Err(Error::unsupported(
                        &field.name,
                        format!(
                            "writing {} (Java stores precision > 6 as INT96)",
                            field.data_type
                        ),
                    ))
                }
            };
            ArrowType::Timestamp(unit, tz)
        }
        TypeKind::Time(_) => ArrowType::Time32(TimeUnit::Millisecond),
        TypeKind::Decimal { precision: 1, .. } => {
            return Err(Error::unsupported(
                &field.name,
                "writing DECIMAL(1, s) to Parquet (Java expects INT32)",
            ))
        }
        TypeKind::Decimal { .. } => base.data_type().clone(),
        TypeKind::Variant => {
            return Err(Error::unsupported(
                &field.name,
                "writing VARIANT columns (read as JSON text; Paimon stores the variant binary encoding)",
            ))
        }
        k if field.data_type.is_nested() => {
            return Err(Error::unsupported(
                &field.name,
                format!("writing nested type {k:?} is not implemented yet"),
            ))
        }
        _ => base.data_type().clone(),
    };
    Ok(Field::new(&field.name, t, field.data_type.nullable))
}

/// The Arrow schema of a file holding these fields.
pub fn physical_schema(fields: &[DataField]) -> Result<SchemaRef> {
    Ok(Arc::new(Schema::new(
        fields
            .iter()
            .map(physical_field)
            .collect::<Result<Vec<_>>>()?,
    )))
}

/// Casts `columns` (lakescope's Arrow mapping) to the physical schema and builds the batch.
pub fn physical_batch(fields: &[DataField], columns: Vec<ArrayRef>) -> Result<RecordBatch> {
    cast_batch(physical_schema(fields)?, columns)
}

/// Casts `columns` to `schema`'s types and builds the batch.
fn cast_batch(schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch> {
    let columns = columns
        .into_iter()
        .zip(schema.fields().iter())
        .map(|(c, f)| {
            if c.data_type() == f.data_type() {
                Ok(c)
            } else {
                arrow_cast::cast(&c, f.data_type()).map_err(|e| {
                    Error::Invalid(format!(
                        "column {}: cannot cast to {}: {e}",
                        f.name(),
                        f.data_type()
                    ))
                })
            }
        })
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new(schema, columns)
        .map_err(|e| Error::Invalid(format!("building a data file batch: {e}")))
}

/// Parquet compression for Paimon's `file.compression` value.
pub fn compression(name: &str, zstd_level: i32) -> Result<Compression> {
    let c = match name {
        "zstd" => Compression::ZSTD(
            ZstdLevel::try_new(zstd_level)
                .map_err(|e| Error::Invalid(format!("zstd level: {e}")))?,
        ),
        "snappy" => Compression::SNAPPY,
        "lz4" => Compression::LZ4_RAW,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "brotli" => Compression::BROTLI(BrotliLevel::default()),
        "none" | "uncompressed" => Compression::UNCOMPRESSED,
        other => {
            return Err(Error::Invalid(format!(
                "file.compression '{other}' is not supported for Parquet"
            )))
        }
    };
    Ok(c)
}

/// Encodes `batches` (all with the same physical schema) as one Parquet file.
pub fn encode_parquet(
    file: &str,
    schema: &SchemaRef,
    batches: &[RecordBatch],
    compression: Compression,
    row_group_rows: usize,
) -> Result<Vec<u8>> {
    let props = WriterProperties::builder()
        .set_compression(compression)
        .set_max_row_group_row_count(Some(row_group_rows.max(1)))
        .set_created_by("lakescope".into())
        .build();
    let options = ArrowWriterOptions::new()
        .with_properties(props)
        .with_skip_arrow_metadata(true)
        .with_schema_root("paimon_schema".into());
    let err =
        |e: parquet::errors::ParquetError| Error::corrupt(file, format!("writing Parquet: {e}"));
    let mut writer =
        ArrowWriter::try_new_with_options(Vec::new(), schema.clone(), options).map_err(err)?;
    for b in batches {
        writer.write(b).map_err(err)?;
    }
    writer.into_inner().map_err(err)
}

/// How new data files are encoded: `file.format` with its `file.compression`.
#[derive(Debug, Clone, Copy)]
pub enum FileEncoding {
    /// Parquet with this codec and at most this many rows per row group.
    Parquet {
        /// Column chunk compression.
        compression: Compression,
        /// `parquet.row-group.rows`.
        row_group_rows: usize,
    },
    /// ORC with this codec (`None` = uncompressed).
    #[cfg(feature = "orc")]
    Orc {
        /// Stream compression.
        compression: Option<orc_rust::compression::CompressionType>,
    },
}

impl FileEncoding {
    /// The encoding for `file.format` (`parquet` or `orc`) and `file.compression`.
    pub fn new(
        format: &str,
        compression_name: &str,
        zstd_level: i32,
        row_group_rows: usize,
    ) -> Result<Self> {
        match format {
            "parquet" => Ok(Self::Parquet {
                compression: compression(compression_name, zstd_level)?,
                row_group_rows,
            }),
            #[cfg(feature = "orc")]
            "orc" => Ok(Self::Orc {
                compression: orc_file::compression(compression_name)?,
            }),
            // The browser app writes data files only in its SQL worker, which has orc-rust.
            #[cfg(not(feature = "orc"))]
            "orc" => Err(Error::unsupported(
                "file.format",
                "writing ORC: this build has no ORC encoder (lakescope-paimon feature `orc`)",
            )),
            other => Err(Error::unsupported(
                "file.format",
                format!("writing file.format={other} (only parquet and orc)"),
            )),
        }
    }

    /// The data file name extension (`parquet`, `orc`).
    pub fn extension(&self) -> &'static str {
        match self {
            Self::Parquet { .. } => "parquet",
            #[cfg(feature = "orc")]
            Self::Orc { .. } => "orc",
        }
    }

    /// Checks that a field can be written in this format.
    pub fn check_field(&self, field: &DataField) -> Result<()> {
        match self {
            Self::Parquet { .. } => physical_field(field).map(|_| ()),
            #[cfg(feature = "orc")]
            Self::Orc { .. } => orc_file::physical_field(field).map(|_| ()),
        }
    }

    /// Casts `columns` to the format's physical types and encodes them as one file.
    pub fn encode(
        &self,
        file: &str,
        fields: &[DataField],
        columns: Vec<ArrayRef>,
    ) -> Result<(Vec<u8>, usize)> {
        match self {
            Self::Parquet {
                compression,
                row_group_rows,
            } => {
                let batch = physical_batch(fields, columns)?;
                let bytes = encode_parquet(
                    file,
                    batch.schema_ref(),
                    std::slice::from_ref(&batch),
                    *compression,
                    *row_group_rows,
                )?;
                Ok((bytes, batch.num_rows()))
            }
            #[cfg(feature = "orc")]
            Self::Orc { compression } => {
                let batch = cast_batch(orc_file::physical_schema(fields)?, columns)?;
                Ok((
                    orc_file::encode_orc(file, &batch, *compression)?,
                    batch.num_rows(),
                ))
            }
        }
    }
}
