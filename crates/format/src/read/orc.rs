//! ORC data files, decoding only the wanted top-level columns: with orc-rust (feature `orc`) or
//! with an [`OrcCodec`] the application sets (the web app's lazily loaded ORC worker).

use super::Wanted;
use crate::spec::{DataType, TypeKind};
use crate::{Error, Result};
use arrow_array::RecordBatch;
use bytes::Bytes;
use std::cell::RefCell;
use std::rc::Rc;

/// What to decode from one ORC file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrcRequest {
    /// The wanted top-level columns, by their name in the file (absent ones are skipped).
    pub columns: Vec<String>,
    /// Decode timestamps as nanoseconds (some wanted TIMESTAMP(p > 6)); microseconds otherwise.
    pub nanosecond_timestamps: bool,
    /// Rows per decoded batch.
    pub batch_size: usize,
}

/// Decodes ORC files for a build without orc-rust: batches of the requested columns that are in
/// the file, named as in the file; `Err` carries the cause (the caller adds the file name).
#[async_trait::async_trait(?Send)]
pub trait OrcCodec {
    /// Decodes `bytes`, the whole ORC file `file`.
    async fn decode(
        &self,
        file: &str,
        bytes: Bytes,
        request: &OrcRequest,
    ) -> std::result::Result<Vec<RecordBatch>, String>;
}

thread_local! {
    static CODEC: RefCell<Option<Rc<dyn OrcCodec>>> = const { RefCell::new(None) };
}

/// Sets the ORC decoder of this thread (it replaces orc-rust, when built in, too).
///
/// A per-thread registration instead of a field of `Table`: ORC files are decoded under every
/// table and engine entry point (Paimon tables opened in several crates, Iceberg data files
/// through [`super::read_file`]), while only the browser app, once at start-up, sets a codec.
pub fn set_codec(codec: Rc<dyn OrcCodec>) {
    CODEC.with(|c| *c.borrow_mut() = Some(codec));
}

/// Decodes the wanted columns of a whole ORC file (columns keep their file names).
pub(crate) async fn decode(
    file: &str,
    bytes: Bytes,
    wanted: &[Wanted],
) -> Result<Vec<RecordBatch>> {
    super::variant::refuse_outside_parquet(file, wanted, "ORC")?;
    let request = OrcRequest {
        columns: wanted.iter().map(|w| w.name.clone()).collect(),
        // Microseconds cover years 1..9999; nanoseconds only when some TIMESTAMP(p > 6) needs them.
        nanosecond_timestamps: wanted.iter().any(|w| needs_nanos(&w.data_type)),
        batch_size: super::BATCH_SIZE,
    };
    if let Some(codec) = CODEC.with(|c| c.borrow().clone()) {
        return codec
            .decode(file, bytes, &request)
            .await
            .map_err(|e| Error::corrupt(file, format!("decoding ORC: {e}")));
    }
    #[cfg(feature = "orc")]
    return decode_with_orc_rust(bytes, &request).map_err(|e| Error::corrupt(file, e));
    #[cfg(not(feature = "orc"))]
    Err(Error::unsupported(
        file,
        "ORC files: this build has no ORC decoder (lakescope-paimon feature `orc`, or read::orc::set_codec)",
    ))
}

fn needs_nanos(t: &DataType) -> bool {
    match &t.kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => *p > 6,
        TypeKind::Array(e) | TypeKind::Multiset(e) => needs_nanos(e),
        TypeKind::Map(k, v) => needs_nanos(k) || needs_nanos(v),
        TypeKind::Row(fields) => fields.iter().any(|f| needs_nanos(&f.data_type)),
        _ => false,
    }
}

/// Decodes the requested columns of a whole ORC file with orc-rust; `Err` is the cause.
#[cfg(feature = "orc")]
pub fn decode_with_orc_rust(
    bytes: Bytes,
    request: &OrcRequest,
) -> std::result::Result<Vec<RecordBatch>, String> {
    lakescope_orc::decode(
        bytes,
        &request.columns,
        request.nanosecond_timestamps,
        request.batch_size,
    )
}
