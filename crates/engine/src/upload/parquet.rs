//! Parquet read by ranges: the footer first, then one row group at a time (only its column
//! chunks in memory), decoded into chunks of the table's columns.

use super::conform::Target;
use super::{FileSource, UploadError};
use arrow_array::RecordBatch;
use bytes::{Buf, Bytes};
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
};
use parquet::errors::ParquetError;
use parquet::file::metadata::{FooterTail, ParquetMetaData, ParquetMetaDataReader};
use parquet::file::reader::{ChunkReader, Length};
use std::sync::Arc;

/// Parquet's footer: metadata length (4 bytes) and magic (4 bytes).
const FOOTER: u64 = 8;

/// One row group's bytes, at their offset in the file.
struct RowGroupBytes {
    offset: u64,
    bytes: Bytes,
    file_len: u64,
}

impl Length for RowGroupBytes {
    fn len(&self) -> u64 {
        self.file_len
    }
}

impl RowGroupBytes {
    fn range(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        let from = start
            .checked_sub(self.offset)
            .map(|s| s as usize)
            .filter(|s| s + length <= self.bytes.len())
            .ok_or_else(|| {
                ParquetError::General(format!(
                    "bytes {start}..+{length} are outside the row group read"
                ))
            })?;
        Ok(self.bytes.slice(from..from + length))
    }
}

impl ChunkReader for RowGroupBytes {
    type T = bytes::buf::Reader<Bytes>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        let rest = (self.offset + self.bytes.len() as u64).saturating_sub(start) as usize;
        Ok(self.range(start, rest)?.reader())
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        self.range(start, length)
    }
}

/// An open Parquet file: its metadata, read from the footer.
pub(crate) struct ParquetChunks<'a> {
    target: &'a Target,
    source: &'a dyn FileSource,
    metadata: ArrowReaderMetadata,
}

impl<'a> ParquetChunks<'a> {
    /// Reads the footer and checks the file's columns against the table.
    pub(crate) async fn open(
        target: &'a Target,
        source: &'a dyn FileSource,
    ) -> Result<Self, UploadError> {
        let error = |e: String| target.file_error(format!("not a readable Parquet file: {e}"));
        let size = source.size();
        if size < FOOTER {
            return Err(error(format!("{size} bytes")));
        }
        let tail = source.read(size - FOOTER, size).await.map_err(error)?;
        let tail: [u8; 8] = tail[..]
            .try_into()
            .map_err(|_| error("a short read of the footer".into()))?;
        let tail = FooterTail::try_from(tail).map_err(|e| error(e.to_string()))?;
        let length = tail.metadata_length() as u64;
        let start = (size - FOOTER)
            .checked_sub(length)
            .ok_or_else(|| error(format!("metadata of {length} bytes in a {size}-byte file")))?;
        let bytes = source.read(start, size - FOOTER).await.map_err(error)?;
        let metadata: ParquetMetaData =
            ParquetMetaDataReader::decode_metadata(&bytes).map_err(|e| error(e.to_string()))?;
        let metadata = ArrowReaderMetadata::try_new(Arc::new(metadata), ArrowReaderOptions::new())
            .map_err(|e| error(e.to_string()))?;
        let names: Vec<String> = metadata
            .schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect();
        target.check_columns(&names)?;
        Ok(Self {
            target,
            source,
            metadata,
        })
    }

    pub(crate) fn row_groups(&self) -> usize {
        self.metadata.metadata().num_row_groups()
    }

    /// Reads row group `index` and returns the end of its bytes in the file and its rows as
    /// chunks of at most `chunk_rows` rows.
    pub(crate) async fn read_row_group(
        &self,
        index: usize,
        chunk_rows: usize,
    ) -> Result<
        (
            u64,
            impl Iterator<Item = Result<RecordBatch, UploadError>> + '_,
        ),
        UploadError,
    > {
        let error = move |e: String| {
            self.target
                .file_error(format!("row group {index} cannot be read: {e}"))
        };
        let meta = self.metadata.metadata();
        let group = meta.row_group(index);
        let first_row: i64 = (0..index).map(|i| meta.row_group(i).num_rows()).sum();
        let (mut start, mut end) = (u64::MAX, 0u64);
        for column in group.columns() {
            let (s, len) = column.byte_range();
            start = start.min(s);
            end = end.max(s + len);
        }
        let reader = if start >= end {
            None
        } else {
            let bytes = self.source.read(start, end).await.map_err(error)?;
            let chunk = RowGroupBytes {
                offset: start,
                bytes,
                file_len: self.source.size(),
            };
            let reader =
                ParquetRecordBatchReaderBuilder::new_with_metadata(chunk, self.metadata.clone())
                    .with_row_groups(vec![index])
                    .with_batch_size(chunk_rows)
                    .build()
                    .map_err(|e| error(e.to_string()))?;
            Some(reader)
        };
        let mut row = first_row as u64 + 1;
        let chunks = reader.into_iter().flatten().map(move |batch| {
            let batch = batch.map_err(|e| error(e.to_string()))?;
            let first = row;
            row += batch.num_rows() as u64;
            self.target.conform(&batch, first)
        });
        Ok((end, chunks))
    }
}
