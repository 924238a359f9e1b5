//! Paimon's `vortex` data files (`file.format = vortex`, written by pypaimon with vortex-data):
//! decoded with the Vortex crates into Arrow (feature `vortex`), else refused by name.
//!
//! The Vortex crates build for the CLI; the browser app leaves them out of its first load, so
//! without the feature a vortex file is refused naming the format and the CLI.

use super::Wanted;
use crate::{Error, Result};
use arrow_array::RecordBatch;
use bytes::Bytes;

/// Why a build without the `vortex` feature refuses a vortex data file.
#[cfg(not(feature = "vortex"))]
const NOT_BUILT_IN: &str =
    "format vortex is not supported in the browser; the lakescope CLI reads it";

/// Refuses vortex data files up front in a build without the decoder (before any download).
pub(crate) fn check_supported(file: &str) -> Result<()> {
    #[cfg(feature = "vortex")]
    {
        let _ = file;
        Ok(())
    }
    #[cfg(not(feature = "vortex"))]
    Err(Error::unsupported(file, NOT_BUILT_IN))
}

/// Decodes the wanted columns of a whole vortex file, one batch per chunk of the file; columns
/// keep their names, a wanted column the file lacks is left out.
#[cfg(not(feature = "vortex"))]
pub(crate) fn decode(file: &str, _bytes: Bytes, _wanted: &[Wanted]) -> Result<Vec<RecordBatch>> {
    check_supported(file).map(|()| Vec::new())
}

/// Decodes the wanted columns of a whole vortex file, one batch per chunk of the file; columns
/// keep their names, a wanted column the file lacks is left out.
#[cfg(feature = "vortex")]
pub(crate) fn decode(file: &str, bytes: Bytes, wanted: &[Wanted]) -> Result<Vec<RecordBatch>> {
    use super::arrow_schema::to_arrow_type;
    use arrow_array::Array;
    use arrow_schema::{DataType as ArrowType, Field, Fields};
    use std::sync::Arc;
    use vortex::array::expr::{root, select};
    use vortex::array::VortexSessionExecute;
    use vortex::arrow::ArrowSessionExt;
    use vortex::file::OpenOptionsSessionExt;
    use vortex::io::runtime::current::CurrentThreadRuntime;
    use vortex::io::runtime::BlockingRuntime;
    use vortex::io::session::RuntimeSessionExt;
    use vortex::session::VortexSession;
    use vortex::VortexSessionDefault;

    let corrupt =
        |e: vortex::error::VortexError| Error::corrupt(file, format!("invalid vortex file: {e}"));
    let runtime = CurrentThreadRuntime::new();
    let session = VortexSession::default().with_handle(runtime.handle());
    let vortex_file = session.open_options().open_buffer(bytes).map_err(corrupt)?;
    let file_columns = vortex_file.dtype().as_struct_fields_opt().ok_or_else(|| {
        Error::corrupt(
            file,
            "invalid vortex file: its top-level type is not a struct",
        )
    })?;
    let present: Vec<&Wanted> = wanted
        .iter()
        .filter(|w| file_columns.find(&w.name).is_some())
        .collect();
    let fields: Fields = present
        .iter()
        .map(|w| Field::new(&w.name, to_arrow_type(&w.data_type), true))
        .collect();
    let schema = Arc::new(arrow_schema::Schema::new(fields.clone()));
    let rows = usize::try_from(vortex_file.row_count()).unwrap_or(usize::MAX);
    if present.is_empty() {
        // No wanted column in the file (a projection of added columns only): the row count.
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(rows));
        return RecordBatch::try_new_with_options(schema, Vec::new(), &options)
            .map(|b| vec![b])
            .map_err(|e| Error::corrupt(file, e));
    }
    let names: Vec<&str> = present.iter().map(|w| w.name.as_str()).collect();
    let projection = select(names, root())
        .bind(vortex_file.dtype())
        .and_then(|e| e.optimize_recursive())
        .map_err(corrupt)?;
    let chunks = vortex_file
        .scan()
        .map_err(corrupt)?
        .with_projection(projection)
        .into_array_iter(&runtime)
        .map_err(corrupt)?;
    let target = Field::new("", ArrowType::Struct(fields), false);
    let mut ctx = session.create_execution_ctx();
    let mut batches = Vec::new();
    for chunk in chunks {
        let chunk = chunk.map_err(corrupt)?;
        let array = session
            .arrow()
            .execute_arrow(chunk, Some(&target), &mut ctx)
            .map_err(corrupt)?;
        let columns = array
            .as_any()
            .downcast_ref::<arrow_array::StructArray>()
            .ok_or_else(|| Error::corrupt(file, "invalid vortex file: a chunk is not a struct"))?
            .columns()
            .to_vec();
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(array.len()));
        batches.push(
            RecordBatch::try_new_with_options(schema.clone(), columns, &options)
                .map_err(|e| Error::corrupt(file, format!("invalid vortex file: {e}")))?,
        );
    }
    Ok(batches)
}
