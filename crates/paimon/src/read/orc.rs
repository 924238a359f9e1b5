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
    let request = OrcRequest {
        columns: wanted.iter().map(|w| w.name.clone()).collect(),
        // Microseconds cover years 1..9999; nanoseconds only when some TIMESTAMP(p > 6) needs them.
        nanosecond_timestamps: wanted.iter().any(|w| needs_nanos(&w.data_type)),
    };
    if let Some(codec) = CODEC.with(|c| c.borrow().clone()) {
        return codec
            .decode(file, bytes, &request)
            .await
            .map_err(|e| Error::corrupt(file, format!("decoding ORC: {e}")));
    }
    #[cfg(feature = "orc")]
    return native::decode(bytes, &request).map_err(|e| Error::corrupt(file, e));
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

#[cfg(feature = "orc")]
pub use native::decode as decode_with_orc_rust;

/// orc-rust's reader over in-memory bytes.
#[cfg(feature = "orc")]
mod native {
    use super::OrcRequest;
    use crate::read::BATCH_SIZE;
    use arrow_array::RecordBatch;
    use bytes::{Buf, Bytes};
    use orc_rust::projection::ProjectionMask;
    use orc_rust::reader::ChunkReader;
    use orc_rust::schema::TimestampPrecision;
    use orc_rust::ArrowReaderBuilder;
    use std::io;

    /// In-memory file bytes that fail (instead of panicking or over-allocating) on reads past the end.
    struct CheckedBytes(Bytes);

    impl CheckedBytes {
        fn out_of_range(&self, offset: u64, length: u64) -> io::Error {
            io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "bytes {offset}+{length} past the end of a {}-byte file",
                    self.0.len()
                ),
            )
        }
    }

    impl ChunkReader for CheckedBytes {
        type T = bytes::buf::Reader<Bytes>;

        fn len(&self) -> u64 {
            self.0.len() as u64
        }

        fn get_read(&self, offset: u64) -> io::Result<Self::T> {
            let start = usize::try_from(offset)
                .ok()
                .filter(|s| *s <= self.0.len())
                .ok_or_else(|| self.out_of_range(offset, 0))?;
            Ok(self.0.slice(start..).reader())
        }

        fn get_bytes(&self, offset: u64, length: u64) -> io::Result<Bytes> {
            let end = offset
                .checked_add(length)
                .filter(|e| *e <= self.0.len() as u64);
            match end {
                Some(end) => Ok(self.0.slice(offset as usize..end as usize)),
                None => Err(self.out_of_range(offset, length)),
            }
        }
    }

    /// Decodes the requested columns of a whole ORC file with orc-rust; `Err` is the cause.
    pub fn decode(bytes: Bytes, request: &OrcRequest) -> Result<Vec<RecordBatch>, String> {
        let builder = ArrowReaderBuilder::try_new(CheckedBytes(bytes))
            .map_err(|e| format!("invalid ORC file: {e}"))?;
        let root = builder.file_metadata().root_data_type();
        let present: Vec<&str> = request
            .columns
            .iter()
            .map(String::as_str)
            .filter(|n| root.children().iter().any(|c| c.name() == *n))
            .collect();
        let mask = ProjectionMask::named_roots(root, &present);
        let precision = if request.nanosecond_timestamps {
            TimestampPrecision::Nanosecond
        } else {
            TimestampPrecision::Microsecond
        };
        let reader = builder
            .with_projection(mask)
            .with_batch_size(BATCH_SIZE)
            .with_timestamp_precision(precision)
            .build();
        reader
            .map(|b| b.map_err(|e| format!("invalid ORC file: {e}")))
            .collect()
    }
}
