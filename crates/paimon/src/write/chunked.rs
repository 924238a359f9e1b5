//! A write of many chunks committed once: each chunk becomes its own level-0 files (as Java's
//! writer spills its buffer), sequence numbers keep rising across chunks, one message at the end.

use super::dynamic_bucket::DynamicBucketAssigner;
use super::env::WriteEnv;
use super::table_write::{check_writable, write_inner, CommitMessage};
use crate::commit::next_sequence_number;
use crate::error::Result;
use crate::table::Table;
use arrow_array::RecordBatch;

/// An INSERT INTO written chunk by chunk: only the files' metadata is kept between chunks, so
/// memory is bounded by one chunk. Commit [`ChunkedWrite::finish`]'s message with
/// [`crate::write_commit::commit_write`] (no overwrite); files of an abandoned write are orphans.
pub struct ChunkedWrite<'a> {
    table: &'a Table,
    env: &'a dyn WriteEnv,
    next_sequence: i64,
    /// Dynamic-bucket tables: one assigner for the whole write, its index committed once.
    dynamic: Option<DynamicBucketAssigner>,
    message: CommitMessage,
    rows: u64,
}

impl<'a> ChunkedWrite<'a> {
    /// Starts a write into `table` (its current schema) after its latest snapshot.
    pub async fn new(table: &'a Table, env: &'a dyn WriteEnv) -> Result<Self> {
        let schema = table.current_schema();
        check_writable(table, schema)?;
        let dynamic = if !schema.primary_keys.is_empty() && schema.core_options().bucket()? == -1 {
            let latest = table.latest_snapshot().await?;
            Some(DynamicBucketAssigner::load(table, latest.as_ref()).await?)
        } else {
            None
        };
        Ok(Self {
            table,
            env,
            next_sequence: next_sequence_number(table).await?,
            dynamic,
            message: CommitMessage::default(),
            rows: 0,
        })
    }

    /// Writes one chunk as new level-0 files (a primary-key chunk is one sorted run per bucket,
    /// its keys' sequence numbers above every earlier chunk's, so later rows win on merge).
    pub async fn write(&mut self, batches: &[RecordBatch]) -> Result<()> {
        let rows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        let written = write_inner(
            self.table,
            self.env,
            batches,
            self.next_sequence,
            self.dynamic.as_mut(),
            true,
        )
        .await?;
        self.next_sequence += rows as i64;
        self.rows += rows as u64;
        self.message.files.extend(written.files);
        self.message.changelog.extend(written.changelog);
        Ok(())
    }

    /// Input rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// The files (and index change) of every chunk, for one commit.
    pub async fn finish(self) -> Result<CommitMessage> {
        let mut message = self.message;
        if let Some(assigner) = self.dynamic {
            message.index = Some(assigner.finish(self.table, self.env).await?);
        }
        Ok(message)
    }
}
