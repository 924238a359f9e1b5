//! Reading data files (Parquet, ORC, Avro, Paimon's row and mosaic formats, Vortex) into Arrow record batches, evolved to a read schema.
//!
//! Entry points: [`read_file`] (whole file in memory), [`parquet::read_parquet_async`] (ranged
//! reads over an [`ObjectStore`](lakescope_storage::ObjectStore)), and
//! [`deletion_vector::decode`]. Columns are matched by NAME through the file's own schema
//! (`schema-N` of its `_SCHEMA_ID`; Parquet field ids are used when present), then mapped to the
//! read schema by field id (see [`evolution`]).

pub mod array_transfer;
pub mod arrow_schema;
pub mod avro;
pub mod avro_container;
pub mod blob_reference;
pub mod deletion_vector;
pub mod evolution;
pub(crate) mod mosaic;
pub mod orc;
pub mod parquet;
pub(crate) mod parquet_pages;
pub(crate) mod row_file;
pub mod source;
pub mod variant;
#[cfg(feature = "variant")]
mod variant_decode;
#[cfg(feature = "variant")]
mod variant_json;
pub mod vortex;

use crate::spec::{DataField, DataType, TypeKind};
use crate::{Error, Result};
use ::arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use arrow_array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use bytes::Bytes;
use std::sync::Arc;

pub use self::arrow_schema::{to_arrow_field, to_arrow_schema};
pub use deletion_vector::DeletionVector;
pub use evolution::ColumnPlan;

/// Sequence number column of primary-key files (Int64, non-null in the output).
pub const SEQUENCE_NUMBER: &str = "_SEQUENCE_NUMBER";
/// Row kind column of primary-key files (Int8: 0 +I, 1 -U, 2 +U, 3 -D; non-null in the output).
pub const VALUE_KIND: &str = "_VALUE_KIND";
/// Prefix of the key columns of primary-key files (dropped on read).
pub const KEY_PREFIX: &str = "_KEY_";

/// Rows decoded per batch.
pub const BATCH_SIZE: usize = 8192;

/// The format of a data file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileFormat {
    /// Apache Parquet (`file.format = parquet`, Paimon's default).
    Parquet,
    /// Apache ORC (`file.format = orc`).
    Orc,
    /// Apache Avro object container files (`file.format = avro`).
    Avro,
    /// Paimon's own row-oriented format (`file.format = row`, [`row_file`]).
    Row,
    /// Paimon's Mosaic format (`file.format = mosaic`, [`mosaic`]).
    Mosaic,
    /// Vortex files (`file.format = vortex`, [`vortex`]; feature `vortex`, else refused).
    Vortex,
}

impl FileFormat {
    /// The format from a data file name's extension (`data-….parquet`), case-insensitive.
    pub fn from_file_name(name: &str) -> Option<Self> {
        let ext = name.rsplit_once('.')?.1;
        Self::from_option(ext)
    }

    /// The format from the `file.format` table option (`parquet`, `orc`, `avro`, `row`, `mosaic`,
    /// `vortex`).
    pub fn from_option(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "parquet" => Some(Self::Parquet),
            "orc" => Some(Self::Orc),
            "avro" => Some(Self::Avro),
            "row" => Some(Self::Row),
            "mosaic" => Some(Self::Mosaic),
            "vortex" => Some(Self::Vortex),
            _ => None,
        }
    }

    /// The file name extension (without dot).
    pub fn extension(self) -> &'static str {
        match self {
            Self::Parquet => "parquet",
            Self::Orc => "orc",
            Self::Avro => "avro",
            Self::Row => "row",
            Self::Mosaic => "mosaic",
            Self::Vortex => "vortex",
        }
    }
}

/// Whether a data file holds plain rows or key-value records of a primary-key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// Append table: only the declared columns.
    Append,
    /// Primary-key table: `_KEY_*`, `_SEQUENCE_NUMBER`, `_VALUE_KIND`, then the value columns.
    KeyValue,
}

/// A file column a format decoder should produce, named as the file wrote it.
#[derive(Debug, Clone)]
pub(crate) struct Wanted {
    /// Column name in the file.
    pub name: String,
    /// Paimon field id (matched against Parquet field ids when the file has them).
    pub id: Option<i32>,
    /// The type the file's schema gives the column.
    pub data_type: DataType,
}

/// The schema of what [`read_file`] returns: the read fields, then for key-value files
/// `_SEQUENCE_NUMBER` (Int64) and `_VALUE_KIND` (Int8), both non-null.
pub fn output_schema(read_fields: &[DataField], kind: FileKind) -> SchemaRef {
    let mut fields: Vec<Field> = read_fields.iter().map(to_arrow_field).collect();
    if kind == FileKind::KeyValue {
        fields.push(Field::new(SEQUENCE_NUMBER, ArrowType::Int64, false));
        fields.push(Field::new(VALUE_KIND, ArrowType::Int8, false));
    }
    Arc::new(Schema::new(fields))
}

/// Field id offset of `_KEY_` columns (Java `SpecialFields.KEY_FIELD_ID_START`).
const KEY_FIELD_ID_START: i32 = i32::MAX / 2;

/// The row type of a primary-key table's data files (Java `KeyValue.schema`): the key columns
/// (`_KEY_<name>`, non-null, id offset by `KEY_FIELD_ID_START`), `_SEQUENCE_NUMBER`,
/// `_VALUE_KIND`, then the value columns.
pub fn key_value_fields<'a>(
    keys: impl IntoIterator<Item = &'a DataField>,
    values: &[DataField],
) -> Vec<DataField> {
    let mut fields: Vec<DataField> = keys
        .into_iter()
        .map(|f| DataField {
            id: KEY_FIELD_ID_START + f.id,
            name: format!("{KEY_PREFIX}{}", f.name),
            data_type: f.data_type.clone().with_nullable(false),
            description: None,
        })
        .collect();
    for (id, name) in [(i32::MAX - 1, SEQUENCE_NUMBER), (i32::MAX - 2, VALUE_KIND)] {
        fields.push(DataField {
            id,
            name: name.to_string(),
            data_type: system_type(name),
            description: None,
        });
    }
    fields.extend(values.iter().cloned());
    fields
}

fn system_type(name: &str) -> DataType {
    let kind = if name == SEQUENCE_NUMBER {
        TypeKind::BigInt
    } else {
        TypeKind::TinyInt
    };
    DataType::nullable(kind).with_nullable(false)
}

/// The file columns needed for `plan` (and the system columns of key-value files).
pub(crate) fn wanted_columns(plan: &[ColumnPlan], kind: FileKind) -> Vec<Wanted> {
    let mut wanted: Vec<Wanted> = plan
        .iter()
        .filter_map(|c| c.file.as_ref())
        .map(|f| Wanted {
            name: f.name.clone(),
            id: Some(f.id),
            data_type: f.data_type.clone(),
        })
        .collect();
    if kind == FileKind::KeyValue {
        for name in [SEQUENCE_NUMBER, VALUE_KIND] {
            wanted.push(Wanted {
                name: name.to_string(),
                id: None,
                data_type: system_type(name),
            });
        }
    }
    wanted
}

/// Decodes a whole data file and returns batches with exactly [`output_schema`]`(read_fields, kind)`.
///
/// `file_fields` is the schema the file was written with (`schema-N` of its `_SCHEMA_ID`): it
/// gives the column names in the file. Columns are decoded only if the read schema needs them.
/// A row-format file stores no schema: its `file_fields` must be the exact row type it was
/// written with ([`row_file_layout`]).
pub async fn read_file(
    file_name: &str,
    bytes: Bytes,
    format: FileFormat,
    file_fields: &[DataField],
    read_fields: &[DataField],
    kind: FileKind,
) -> Result<Vec<RecordBatch>> {
    let plan = evolution::plan(file_fields, read_fields);
    let wanted = wanted_columns(&plan, kind);
    let decoded = match format {
        FileFormat::Parquet => parquet::decode(file_name, bytes, &wanted)?,
        FileFormat::Orc => orc::decode(file_name, bytes, &wanted).await?,
        FileFormat::Avro => avro::decode(file_name, bytes, &wanted).await?,
        FileFormat::Row => row_file::decode(file_name, bytes, file_fields, &wanted)?,
        FileFormat::Mosaic => mosaic::decode(file_name, bytes, &wanted)?,
        FileFormat::Vortex => vortex::decode(file_name, bytes, &wanted)?,
    };
    let mut batches = Vec::with_capacity(decoded.len());
    for batch in decoded {
        batches.push(variant::decode_batch(file_name, &plan, batch).await?);
    }
    assemble(file_name, &plan, kind, batches)
}

/// The row type a Paimon `row` data file was written with (see [`row_file`]): what
/// [`read_file`] needs as its `file_fields` for such a file.
pub fn row_file_layout(
    file: &str,
    schema: &crate::spec::TableSchema,
    write_cols: Option<&[String]>,
    kind: FileKind,
) -> Result<Vec<DataField>> {
    row_file::layout(file, schema, write_cols, kind)
}

/// Turns decoded file batches (columns named as in the file) into batches of the read schema.
pub(crate) fn assemble(
    file_name: &str,
    plan: &[ColumnPlan],
    kind: FileKind,
    decoded: Vec<RecordBatch>,
) -> Result<Vec<RecordBatch>> {
    let schema = plan_schema(plan, kind);
    decoded
        .into_iter()
        .map(|batch| assemble_batch(file_name, plan, kind, &schema, batch))
        .collect()
}

/// The read schema of `plan` ([`output_schema`]).
pub(crate) fn plan_schema(plan: &[ColumnPlan], kind: FileKind) -> SchemaRef {
    let read_fields: Vec<DataField> = plan.iter().map(|c| c.read.clone()).collect();
    output_schema(&read_fields, kind)
}

/// Turns one decoded file batch into a batch of `schema` ([`plan_schema`]).
pub(crate) fn assemble_batch(
    file_name: &str,
    plan: &[ColumnPlan],
    kind: FileKind,
    schema: &SchemaRef,
    batch: RecordBatch,
) -> Result<RecordBatch> {
    let rows = batch.num_rows();
    let mut columns: Vec<ArrayRef> = Vec::with_capacity(schema.fields().len());
    for column in plan {
        let source = column
            .file
            .as_ref()
            .and_then(|f| batch.column_by_name(&f.name).map(|a| (a.clone(), f)));
        columns.push(match source {
            Some((array, file_field)) => evolution::conform(
                file_name,
                array,
                Some(&file_field.data_type),
                &column.read.data_type,
            )?,
            // Added after the file was written (or a data-evolution file without it).
            None => new_null_array(
                &self::arrow_schema::to_arrow_type(&column.read.data_type),
                rows,
            ),
        });
    }
    if kind == FileKind::KeyValue {
        for name in [SEQUENCE_NUMBER, VALUE_KIND] {
            let array = batch.column_by_name(name).ok_or_else(|| {
                Error::corrupt(file_name, format!("key-value file without column {name}"))
            })?;
            let ty = system_type(name);
            columns.push(evolution::conform(
                file_name,
                array.clone(),
                Some(&ty),
                &ty,
            )?);
        }
    }
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )
    .map_err(|e| Error::corrupt(file_name, format!("does not fit the read schema: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_from_names_and_options() {
        assert_eq!(
            FileFormat::from_file_name("data-1-0.parquet"),
            Some(FileFormat::Parquet)
        );
        assert_eq!(
            FileFormat::from_file_name("data-1-0.ORC"),
            Some(FileFormat::Orc)
        );
        assert_eq!(
            FileFormat::from_file_name("x/data-1-0.avro"),
            Some(FileFormat::Avro)
        );
        assert_eq!(FileFormat::from_file_name("index-1-0"), None);
        assert_eq!(
            FileFormat::from_option(" Parquet "),
            Some(FileFormat::Parquet)
        );
        assert_eq!(FileFormat::from_option("csv"), None);
        assert_eq!(FileFormat::Orc.extension(), "orc");
    }

    #[test]
    fn key_value_schema_has_system_columns() {
        let f = DataField {
            id: 0,
            name: "id".into(),
            data_type: DataType::parse("INT NOT NULL").unwrap(),
            description: None,
        };
        let s = output_schema(&[f], FileKind::KeyValue);
        let names: Vec<_> = s.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["id", SEQUENCE_NUMBER, VALUE_KIND]);
        assert_eq!(s.field(2).data_type(), &ArrowType::Int8);
        assert!(!s.field(1).is_nullable());
    }
}
