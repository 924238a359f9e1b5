//! Reading a Paimon table's data files into Arrow record batches: the file decoders of
//! `lakescope-format` (re-exported here under their Paimon paths), plus what needs Paimon's
//! metadata: BLOB files, row tracking, data-evolution stitching and the support checks.

pub mod blob;
pub mod row_tracking;
pub(crate) mod stitch;
pub mod support;

use crate::spec::DataField;
use crate::Result;
use arrow_array::RecordBatch;
use bytes::Bytes;

pub use lakescope_format::read::{
    array_transfer, arrow_schema, avro, avro_container, deletion_vector, evolution,
    key_value_fields, orc, output_schema, parquet, row_file_layout, source, to_arrow_field,
    to_arrow_schema, variant, vortex, ColumnPlan, DeletionVector, FileFormat, FileKind, BATCH_SIZE,
    KEY_PREFIX, SEQUENCE_NUMBER, VALUE_KIND,
};

/// [`lakescope_format::read::read_file`] with the Paimon layer's [`Error`](crate::Error): decodes
/// a whole data file into batches of `read_fields` (and the system columns of key-value files).
pub async fn read_file(
    file_name: &str,
    bytes: Bytes,
    format: FileFormat,
    file_fields: &[DataField],
    read_fields: &[DataField],
    kind: FileKind,
) -> Result<Vec<RecordBatch>> {
    let batches =
        lakescope_format::read::read_file(file_name, bytes, format, file_fields, read_fields, kind)
            .await?;
    Ok(batches)
}
