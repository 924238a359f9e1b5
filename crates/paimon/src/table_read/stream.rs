//! The rows of one split, produced batch by batch ([`SplitStream`]): sequential files, stitched ranges or a merge.

use super::output::Output;
use super::split::SplitReader;
use crate::merge::{MergeReader, MergeStep};
use crate::read::source::{Fetch, FileSource};
use crate::scan::Split;
use crate::spec::DataFileMeta;
use crate::Result;
use arrow_array::RecordBatch;

/// The rows of one split, produced batch by batch (before filtering and projection).
pub(crate) struct SplitStream {
    pub(super) mode: Mode,
    pub(super) output: Output,
}

pub(super) enum Mode {
    /// Files one after another (append tables, deletion-vector and read-optimized reads).
    Sequential {
        split: Split,
        /// Files fetched up front (the split fits the budget).
        opened: std::collections::VecDeque<FileSource>,
        /// Files not fetched yet.
        pending: std::collections::VecDeque<std::sync::Arc<DataFileMeta>>,
        current: Option<FileSource>,
        budget: Option<u64>,
        /// The split fits the budget: pending files are fetched whole, together.
        fits: bool,
        /// Bytes fetched with a footer ([`ReadRequest::footer_prefetch`]).
        footer_prefetch: u64,
    },
    /// A data-evolution append split: one row-id range after another, its files stitched.
    Stitched {
        split: Split,
        /// Row-id ranges not read yet, newest file first in each.
        groups: std::collections::VecDeque<Vec<std::sync::Arc<DataFileMeta>>>,
        /// Rows of the range read last, not returned yet.
        ready: std::collections::VecDeque<RecordBatch>,
        /// Append `_ROW_ID` and `_SEQUENCE_NUMBER` ([`ReadRequest::with_row_tracking`]).
        row_tracking: bool,
    },
    /// A primary-key bucket: the files are the merge's sorted runs.
    Merge {
        /// One source per run; `None` once the run ended.
        sources: Vec<Option<FileSource>>,
        merge: MergeReader,
    },
}

impl SplitStream {
    /// The next batch of the split, `None` at its end.
    pub(crate) async fn next(&mut self, reader: &SplitReader<'_>) -> Result<Option<RecordBatch>> {
        let raw = match &mut self.mode {
            Mode::Sequential {
                split,
                opened,
                pending,
                current,
                budget,
                fits,
                footer_prefetch,
            } => loop {
                if let Some(source) = current {
                    if let Some(batch) = source.next().await? {
                        break Some(batch);
                    }
                }
                *current = None;
                if let Some(source) = opened.pop_front() {
                    *current = Some(source);
                    continue;
                }
                if *fits && !pending.is_empty() {
                    let files = std::mem::take(pending);
                    let opens = files
                        .iter()
                        .map(|f| reader.open_file(split, f, Fetch::Whole { first_rows: None }));
                    *opened = futures::future::try_join_all(opens).await?.into();
                    continue;
                }
                let Some(file) = pending.pop_front() else {
                    break None;
                };
                let size = u64::try_from(file.file_size).unwrap_or(0);
                let fetch = match *budget {
                    Some(b) if size > b => Fetch::RowGroups {
                        footer_prefetch: *footer_prefetch,
                        window_bytes: b,
                        first_piece: None,
                    },
                    _ => Fetch::Whole { first_rows: None },
                };
                *current = Some(reader.open_file(split, &file, fetch).await?);
            },
            Mode::Stitched {
                split,
                groups,
                ready,
                row_tracking,
            } => loop {
                if let Some(batch) = ready.pop_front() {
                    break Some(batch);
                }
                let Some(group) = groups.pop_front() else {
                    break None;
                };
                ready.extend(reader.read_group(split, &group, *row_tracking).await?);
            },
            Mode::Merge { sources, merge } => loop {
                match merge.step()? {
                    MergeStep::Batch(batch) => break Some(batch),
                    MergeStep::Done => break None,
                    MergeStep::NeedInput(run) => {
                        let source = sources.get_mut(run).and_then(Option::as_mut);
                        let batch = match source {
                            Some(source) => source.next().await?,
                            None => None,
                        };
                        match batch {
                            Some(batch) => merge.push_batch(run, batch)?,
                            None => {
                                if let Some(s) = sources.get_mut(run) {
                                    *s = None;
                                }
                                merge.end_run(run)?;
                            }
                        }
                    }
                }
            },
        };
        let Some(batch) = raw else {
            return Ok(None);
        };
        self.output.apply(batch).map(Some)
    }
}
