//! Inserting a CSV or Parquet file into a Paimon table chunk by chunk, committed once.
//!
//! The file is read through [`FileSource`] in slices (CSV) or per row group (Parquet), each chunk
//! converted to the table's types by column name and written as its own level-0 files
//! ([`ChunkedWrite`]): memory stays bounded by one chunk. Nothing is visible before the commit.

mod conform;
mod csv;
mod parquet;
pub mod protocol;

use async_trait::async_trait;
use bytes::Bytes;
use lakescope_paimon::commit::{CommitOptions, CommitOutcome, Committer};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::{ChunkedWrite, WriteEnv};

pub use conform::Target;

/// Bytes of CSV read per slice.
const CSV_SLICE_BYTES: u64 = 1 << 20;

/// Why an upload failed; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// A column of the file (or of the table) is missing, unknown or cannot be converted.
    #[error("{file}: column `{column}`: {cause}")]
    Column {
        /// The file's name.
        file: String,
        /// The column.
        column: String,
        /// What is wrong with it.
        cause: String,
    },
    /// The file cannot be read or decoded.
    #[error("{file}: {cause}")]
    File {
        /// The file's name.
        file: String,
        /// What went wrong.
        cause: String,
    },
    /// Writing or committing the table failed.
    #[error("{table}: {source}")]
    Table {
        /// The table (`db.t`).
        table: String,
        /// The writer's error.
        source: lakescope_paimon::Error,
    },
}

/// The formats an upload takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FileKind {
    /// Comma-separated values with a header row.
    Csv,
    /// Apache Parquet.
    Parquet,
}

impl FileKind {
    /// The kind a file name says (`.csv`, `.parquet`/`.parq`), if any.
    pub fn from_name(name: &str) -> Option<Self> {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".csv") {
            Some(Self::Csv)
        } else if lower.ends_with(".parquet") || lower.ends_with(".parq") {
            Some(Self::Parquet)
        } else {
            None
        }
    }
}

/// A file read by byte ranges (a browser `File` sliced, or bytes in memory).
#[async_trait(?Send)]
pub trait FileSource {
    /// The file's size in bytes.
    fn size(&self) -> u64;
    /// Bytes `start..end` of the file.
    async fn read(&self, start: u64, end: u64) -> Result<Bytes, String>;
}

/// How far an upload is.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Progress {
    /// Bytes of the file read so far.
    pub bytes_read: u64,
    /// The file's size.
    pub total_bytes: u64,
    /// Rows written to data files so far.
    pub rows_written: u64,
    /// Every chunk is written; the commit is running (it can no longer be cancelled cleanly).
    pub committing: bool,
}

/// What one upload describes: the file, the table and the chunk size.
pub struct Upload<'a> {
    /// The file's name (for messages).
    pub file: &'a str,
    /// Its format.
    pub kind: FileKind,
    /// The table's name `db.t` (for messages).
    pub table_name: &'a str,
    /// Rows per chunk (each chunk is written as its own files).
    pub chunk_rows: usize,
}

/// Reads the file chunk by chunk, writes each chunk into `table` (INSERT INTO: primary-key
/// tables upsert, merge engines apply) and commits all of them as one snapshot. `progress` is
/// called after every slice or row group and before the commit.
pub async fn insert_file(
    table: &Table,
    env: &dyn WriteEnv,
    upload: &Upload<'_>,
    source: &dyn FileSource,
    progress: &mut dyn FnMut(&Progress),
) -> Result<CommitOutcome, UploadError> {
    let table_error = |source| UploadError::Table {
        table: upload.table_name.to_string(),
        source,
    };
    let target = Target::new(upload.file, upload.table_name, table.current_schema());
    let chunk_rows = upload.chunk_rows.max(1);
    let mut writer = ChunkedWrite::new(table, env).await.map_err(table_error)?;
    let mut state = Progress {
        total_bytes: source.size(),
        ..Progress::default()
    };
    match upload.kind {
        FileKind::Csv => {
            let mut decoder = csv::CsvChunks::new(&target, chunk_rows);
            while state.bytes_read < state.total_bytes {
                let end = (state.bytes_read + CSV_SLICE_BYTES).min(state.total_bytes);
                let bytes = source
                    .read(state.bytes_read, end)
                    .await
                    .map_err(|cause| target.file_error(cause))?;
                for chunk in decoder.push(&bytes)? {
                    writer.write(&[chunk]).await.map_err(table_error)?;
                }
                state.bytes_read = end;
                state.rows_written = writer.rows();
                progress(&state);
            }
            for chunk in decoder.finish()? {
                writer.write(&[chunk]).await.map_err(table_error)?;
            }
        }
        FileKind::Parquet => {
            let file = parquet::ParquetChunks::open(&target, source).await?;
            for group in 0..file.row_groups() {
                let (end, chunks) = file.read_row_group(group, chunk_rows).await?;
                for chunk in chunks {
                    writer.write(&[chunk?]).await.map_err(table_error)?;
                }
                state.bytes_read = state.bytes_read.max(end);
                state.rows_written = writer.rows();
                progress(&state);
            }
            state.bytes_read = state.total_bytes;
        }
    }
    state.rows_written = writer.rows();
    if state.rows_written == 0 {
        return Err(target.file_error("it has no rows: nothing was inserted".into()));
    }
    let message = writer.finish().await.map_err(table_error)?;
    state.committing = true;
    progress(&state);
    let options = CommitOptions::for_table(table, env.uuid()).map_err(table_error)?;
    Committer::new(table, env, options)
        .commit(message, None)
        .await
        .map_err(table_error)
}
