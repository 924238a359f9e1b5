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
pub fn check_supported(file: &str) -> Result<()> {
    #[cfg(feature = "vortex")]
    {
        let _ = file;
        Ok(())
    }
    #[cfg(not(feature = "vortex"))]
    Err(Error::unsupported(file, NOT_BUILT_IN))
}

/// A build without the `vortex` feature refuses the file (as [`check_supported`]).
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
    use vortex::io::runtime::single::SingleThreadRuntime;
    use vortex::io::runtime::BlockingRuntime;
    use vortex::io::session::RuntimeSessionExt;
    use vortex::session::VortexSession;
    use vortex::VortexSessionDefault;

    let corrupt = |e: vortex::error::VortexError| {
        // The Vortex error text, without the backtrace it carries under RUST_BACKTRACE.
        let text = e.to_string();
        let cause = text
            .split("\nBacktrace:")
            .next()
            .unwrap_or_default()
            .to_string();
        Error::corrupt(file, format!("invalid vortex file: {cause}"))
    };
    // The file is in memory: its chunks are decoded on this thread (no thread pool, also in wasm32).
    let runtime = SingleThreadRuntime::default();
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
    // Vortex exports timestamps only in the unit the file stores (pypaimon: TIMESTAMP(3) in
    // milliseconds): export in that unit, then cast to the read type's.
    let mut export = Vec::with_capacity(present.len());
    for (w, field) in present.iter().zip(fields.iter()) {
        let stored = file_columns
            .field(&w.name)
            .map(|dtype| session.arrow().to_arrow_datatype(&dtype))
            .transpose()
            .map_err(corrupt)?;
        let ty = match stored {
            Some(stored) => with_stored_units(field.data_type(), &stored),
            None => field.data_type().clone(),
        };
        export.push(Field::new(&w.name, ty, true));
    }
    let export = Fields::from(export);
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
    let target = Field::new("", ArrowType::Struct(export), false);
    let mut ctx = session.create_execution_ctx();
    let mut batches = Vec::new();
    for chunk in chunks {
        let chunk = chunk.map_err(corrupt)?;
        let array = session
            .arrow()
            .execute_arrow(chunk, Some(&target), &mut ctx)
            .map_err(corrupt)?;
        let exported = array
            .as_any()
            .downcast_ref::<arrow_array::StructArray>()
            .ok_or_else(|| Error::corrupt(file, "invalid vortex file: a chunk is not a struct"))?;
        let mut columns = Vec::with_capacity(fields.len());
        for (column, field) in exported.columns().iter().zip(fields.iter()) {
            columns.push(if column.data_type() == field.data_type() {
                column.clone()
            } else {
                arrow_cast::cast(column, field.data_type()).map_err(|e| {
                    Error::corrupt(file, format!("invalid vortex file: {}: {e}", field.name()))
                })?
            });
        }
        let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(array.len()));
        batches.push(
            RecordBatch::try_new_with_options(schema.clone(), columns, &options)
                .map_err(|e| Error::corrupt(file, format!("invalid vortex file: {e}")))?,
        );
    }
    Ok(batches)
}

/// `target` with each timestamp unit replaced by the one at the same place in `stored` (the
/// type the file stores), through lists, maps and structs.
#[cfg(feature = "vortex")]
fn with_stored_units(
    target: &arrow_schema::DataType,
    stored: &arrow_schema::DataType,
) -> arrow_schema::DataType {
    use arrow_schema::{DataType as T, Field, Fields};
    use std::sync::Arc;
    let child = |t: &Field, s: &Field| {
        Arc::new(
            t.clone()
                .with_data_type(with_stored_units(t.data_type(), s.data_type())),
        )
    };
    match (target, stored) {
        (T::Timestamp(_, tz), T::Timestamp(unit, _)) => T::Timestamp(*unit, tz.clone()),
        (T::List(t), T::List(s) | T::LargeList(s) | T::ListView(s) | T::LargeListView(s)) => {
            T::List(child(t, s))
        }
        (T::FixedSizeList(t, n), T::FixedSizeList(s, _)) => T::FixedSizeList(child(t, s), *n),
        (T::Map(t, sorted), T::Map(s, _)) => T::Map(child(t, s), *sorted),
        (T::Struct(t), T::Struct(s)) if t.len() == s.len() => T::Struct(Fields::from(
            t.iter()
                .zip(s.iter())
                .map(|(t, s)| child(t, s))
                .collect::<Vec<_>>(),
        )),
        _ => target.clone(),
    }
}
