//! Inserting a CSV or Parquet file into a Paimon or an Iceberg table, committed once.
//!
//! The file is read through [`FileSource`] in slices (CSV) or per row group (Parquet), each chunk
//! converted to the table's types by column name. A Paimon table writes each chunk as its own
//! level-0 files ([`ChunkedWrite`]): memory stays bounded by one chunk. An Iceberg table takes
//! the chunks as one append (files sized by `write.target-file-size-bytes`). Nothing is visible
//! before the commit.

mod conform;
mod csv;
mod parquet;
pub mod protocol;

use crate::{Catalog, TableRef};
use arrow_array::RecordBatch;
use async_trait::async_trait;
use bytes::Bytes;
use lakescope_paimon::commit::{CommitOptions, CommitOutcome};
use lakescope_paimon::table::Table;
use lakescope_paimon::write::{ChunkedWrite, WriteEnv};
use lakescope_paimon::write_commit::commit_write;

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
    /// Writing or committing an Iceberg table failed (its error names the table).
    #[error(transparent)]
    Iceberg(#[from] lakescope_iceberg::Error),
    /// The table cannot be opened (its error names the table).
    #[error(transparent)]
    Open(#[from] crate::Error),
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

/// Where the chunks of a file go.
#[async_trait(?Send)]
trait ChunkSink {
    /// Takes one chunk (the table's columns).
    async fn write(&mut self, chunk: RecordBatch) -> Result<(), UploadError>;
    /// Rows taken so far.
    fn rows(&self) -> u64;
}

/// A Paimon table's chunks, each written at once as level-0 files.
struct PaimonChunks<'a> {
    writer: ChunkedWrite<'a>,
    table_name: &'a str,
}

/// A Paimon writer's error about table `table_name`.
fn paimon_error(table_name: &str) -> impl Fn(lakescope_paimon::Error) -> UploadError + '_ {
    move |source| UploadError::Table {
        table: table_name.to_string(),
        source,
    }
}

#[async_trait(?Send)]
impl ChunkSink for PaimonChunks<'_> {
    async fn write(&mut self, chunk: RecordBatch) -> Result<(), UploadError> {
        let written = self.writer.write(&[chunk]).await;
        written.map_err(paimon_error(self.table_name))
    }

    fn rows(&self) -> u64 {
        self.writer.rows()
    }
}

/// An Iceberg table's chunks, kept for one append.
#[derive(Default)]
struct IcebergChunks {
    batches: Vec<RecordBatch>,
    rows: u64,
}

#[async_trait(?Send)]
impl ChunkSink for IcebergChunks {
    async fn write(&mut self, chunk: RecordBatch) -> Result<(), UploadError> {
        self.rows += chunk.num_rows() as u64;
        self.batches.push(chunk);
        Ok(())
    }

    fn rows(&self) -> u64 {
        self.rows
    }
}

/// Reads the file chunk by chunk into `sink` (calling `progress` after every slice or row
/// group); an error if it has no rows.
async fn read_chunks(
    target: &Target,
    upload: &Upload<'_>,
    source: &dyn FileSource,
    sink: &mut dyn ChunkSink,
    progress: &mut dyn FnMut(&Progress),
) -> Result<Progress, UploadError> {
    let chunk_rows = upload.chunk_rows.max(1);
    let mut state = Progress {
        total_bytes: source.size(),
        ..Progress::default()
    };
    match upload.kind {
        FileKind::Csv => {
            let mut decoder = csv::CsvChunks::new(target, chunk_rows);
            while state.bytes_read < state.total_bytes {
                let end = (state.bytes_read + CSV_SLICE_BYTES).min(state.total_bytes);
                let bytes = source
                    .read(state.bytes_read, end)
                    .await
                    .map_err(|cause| target.file_error(cause))?;
                for chunk in decoder.push(&bytes)? {
                    sink.write(chunk).await?;
                }
                state.bytes_read = end;
                state.rows_written = sink.rows();
                progress(&state);
            }
            for chunk in decoder.finish()? {
                sink.write(chunk).await?;
            }
        }
        FileKind::Parquet => {
            let file = parquet::ParquetChunks::open(target, source).await?;
            for group in 0..file.row_groups() {
                let (end, chunks) = file.read_row_group(group, chunk_rows).await?;
                for chunk in chunks {
                    sink.write(chunk?).await?;
                }
                state.bytes_read = state.bytes_read.max(end);
                state.rows_written = sink.rows();
                progress(&state);
            }
            state.bytes_read = state.total_bytes;
        }
    }
    state.rows_written = sink.rows();
    if state.rows_written == 0 {
        return Err(target.file_error("it has no rows: nothing was inserted".into()));
    }
    Ok(state)
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
    let table_error = paimon_error(upload.table_name);
    let target = Target::new(
        upload.file,
        upload.table_name,
        &table.current_schema().fields,
    );
    let mut sink = PaimonChunks {
        writer: ChunkedWrite::new(table, env).await.map_err(&table_error)?,
        table_name: upload.table_name,
    };
    let mut state = read_chunks(&target, upload, source, &mut sink, progress).await?;
    let message = sink.writer.finish().await.map_err(&table_error)?;
    state.committing = true;
    progress(&state);
    let options = CommitOptions::for_table(table, env.uuid()).map_err(&table_error)?;
    commit_write(table, env, options, message, None)
        .await
        .map_err(table_error)
}

/// Reads the file and appends its rows to an Iceberg `table` as one snapshot (an upsert by the
/// identifier fields when the table says `write.upsert.enabled`), through the table's catalog
/// when it has one (a REST catalog's `updateTable`). `progress` is called after every slice or
/// row group and before the commit. Returns the table as committed.
pub async fn insert_iceberg_file(
    table: &lakescope_iceberg::Table,
    env: &dyn WriteEnv,
    upload: &Upload<'_>,
    source: &dyn FileSource,
    progress: &mut dyn FnMut(&Progress),
) -> Result<lakescope_iceberg::Table, UploadError> {
    let fields = table
        .metadata()
        .current_schema()
        .and_then(|s| lakescope_iceberg::convert::to_data_fields(&s.fields))
        .ok_or_else(|| {
            lakescope_iceberg::Error::unsupported(
                table.metadata_key(),
                format!("{}: writing the current schema's types", upload.table_name),
            )
        })?;
    let target = Target::new(upload.file, upload.table_name, &fields);
    let mut sink = IcebergChunks::default();
    let mut state = read_chunks(&target, upload, source, &mut sink, progress).await?;
    state.committing = true;
    progress(&state);
    Ok(lakescope_iceberg::write::append(table, &sink.batches, env).await?)
}

/// What [`Catalog::insert_file`] committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Inserted {
    /// Rows written.
    pub rows: u64,
    /// The snapshot committed (an Iceberg table's current snapshot after the commit).
    pub snapshot: Option<i64>,
    /// Lost races with other writers before the commit won (Paimon; an Iceberg commit retries
    /// inside its writer).
    pub retries: u32,
}

impl Catalog {
    /// Inserts the rows of a file into the table `table_ref` names, whichever format it is:
    /// an Iceberg table ([`insert_iceberg_file`], committed through its catalog) or the main
    /// branch of a Paimon table ([`insert_file`], opened by [`Catalog::open_for_write`], so a
    /// REST catalog's table commits through the service). `progress` as those report it.
    pub async fn insert_file(
        &self,
        table_ref: &TableRef,
        env: &dyn WriteEnv,
        upload: &Upload<'_>,
        source: &dyn FileSource,
        progress: &mut dyn FnMut(&Progress),
    ) -> Result<Inserted, UploadError> {
        let mut rows = 0;
        let mut counting = |p: &Progress| {
            rows = p.rows_written;
            progress(p);
        };
        if let Some(table) = self.open_iceberg(table_ref).await? {
            let committed = insert_iceberg_file(&table, env, upload, source, &mut counting).await?;
            return Ok(Inserted {
                rows,
                snapshot: committed.metadata().current_snapshot_id,
                retries: 0,
            });
        }
        let table = self.open_for_write(table_ref).await?;
        let outcome = insert_file(&table, env, upload, source, &mut counting).await?;
        Ok(Inserted {
            rows,
            snapshot: Some(outcome.snapshot.id),
            retries: outcome.retries,
        })
    }
}
