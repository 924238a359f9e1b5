//! Decodes whole in-memory ORC files with orc-rust: the wanted top-level columns as Arrow batches.

#![warn(missing_docs)]

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

/// Decodes the `columns` of the whole ORC file `bytes` that the file has (by their names in the
/// file), `batch_size` rows a batch, timestamps in nanoseconds or else microseconds. `Err` is the
/// cause; the caller names the file.
pub fn decode(
    bytes: Bytes,
    columns: &[String],
    nanosecond_timestamps: bool,
    batch_size: usize,
) -> Result<Vec<RecordBatch>, String> {
    let invalid = |e: &dyn std::fmt::Display| format!("invalid ORC file: {e}");
    let builder = ArrowReaderBuilder::try_new(CheckedBytes(bytes)).map_err(|e| invalid(&e))?;
    let root = builder.file_metadata().root_data_type();
    let present: Vec<&str> = columns
        .iter()
        .map(String::as_str)
        .filter(|n| root.children().iter().any(|c| c.name() == *n))
        .collect();
    let mask = ProjectionMask::named_roots(root, &present);
    let precision = if nanosecond_timestamps {
        TimestampPrecision::Nanosecond
    } else {
        TimestampPrecision::Microsecond
    };
    builder
        .with_projection(mask)
        .with_batch_size(batch_size)
        .with_timestamp_precision(precision)
        .build()
        .map(|b| b.map_err(|e| invalid(&e)))
        .collect()
}
