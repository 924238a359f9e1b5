//! ORC data files (orc-rust), decoding only the wanted top-level columns.

use super::{Wanted, BATCH_SIZE};
use crate::spec::{DataType, TypeKind};
use crate::{Error, Result};
use arrow_array::RecordBatch;
use bytes::{Buf, Bytes};
use orc_rust::projection::ProjectionMask;
use orc_rust::reader::ChunkReader;
use orc_rust::schema::TimestampPrecision;
use orc_rust::ArrowReaderBuilder;
use std::io;

fn corrupt(file: &str, e: impl std::fmt::Display) -> Error {
    Error::corrupt(file, format!("invalid ORC file: {e}"))
}

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

fn needs_nanos(t: &DataType) -> bool {
    match &t.kind {
        TypeKind::Timestamp(p) | TypeKind::LocalZonedTimestamp(p) => *p > 6,
        TypeKind::Array(e) | TypeKind::Multiset(e) => needs_nanos(e),
        TypeKind::Map(k, v) => needs_nanos(k) || needs_nanos(v),
        TypeKind::Row(fields) => fields.iter().any(|f| needs_nanos(&f.data_type)),
        _ => false,
    }
}

/// Decodes the wanted columns of a whole ORC file (columns keep their file names).
pub(crate) fn decode(file: &str, bytes: Bytes, wanted: &[Wanted]) -> Result<Vec<RecordBatch>> {
    let builder = ArrowReaderBuilder::try_new(CheckedBytes(bytes)).map_err(|e| corrupt(file, e))?;
    let root = builder.file_metadata().root_data_type();
    let present: Vec<&str> = wanted
        .iter()
        .map(|w| w.name.as_str())
        .filter(|n| root.children().iter().any(|c| c.name() == *n))
        .collect();
    let mask = ProjectionMask::named_roots(root, &present);
    // Microseconds cover years 1..9999; nanoseconds only when some TIMESTAMP(p > 6) needs them.
    let precision = if wanted.iter().any(|w| needs_nanos(&w.data_type)) {
        TimestampPrecision::Nanosecond
    } else {
        TimestampPrecision::Microsecond
    };
    let reader = builder
        .with_projection(mask)
        .with_batch_size(BATCH_SIZE)
        .with_timestamp_precision(precision)
        .build();
    reader.map(|b| b.map_err(|e| corrupt(file, e))).collect()
}
