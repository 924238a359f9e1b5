//! How one split is read ([`SplitReader`]): which of its files a read sees, then one file after another, row-id ranges stitched, or the merge of a primary-key bucket's sorted runs.

use super::output::Output;
use super::request::ReadRequest;
use super::stream::{Mode, SplitStream};
use crate::merge::{MergeReader, MergeSettings};
use crate::read::parquet::FirstPiece;
use crate::read::source::Fetch;
use crate::read::{self, FileFormat, FileKind};
use crate::scan::Split;
use crate::spec::{DataFileMeta, MergeEngine, TableSchema};
use crate::table::Table;
use crate::Result;
use arrow_array::RecordBatch;
use std::rc::Rc;
use std::sync::Arc;

/// Reads the splits of one table with one read schema: data files decoded and evolved to that
/// schema, deletion vectors applied, primary-key buckets merged. Shared by batch reads and the
/// snapshot diff ([`crate::diff`]).
pub(crate) struct SplitReader<'a> {
    pub(super) table: &'a Table,
    pub(super) schema: Rc<TableSchema>,
    pub(super) primary_keys: Vec<String>,
    pub(super) merge_engine: MergeEngine,
    pub(super) deletion_vectors: bool,
    /// `deletion-vectors.merge-on-read`: batch reads also see (and merge) level-0 files.
    pub(super) dv_merge_on_read: bool,
    /// `bucket = -2`: batch reads skip the files still in the postpone bucket.
    pub(super) postpone_bucket: bool,
    pub(super) default_format: Option<FileFormat>,
}

impl<'a> SplitReader<'a> {
    pub(crate) fn new(table: &'a Table, schema: Rc<TableSchema>) -> Result<Self> {
        read::support::check_table(table.path(), &schema)?;
        let options = schema.core_options();
        Ok(Self {
            table,
            primary_keys: schema.primary_keys.clone(),
            merge_engine: options.merge_engine()?,
            deletion_vectors: options.deletion_vectors_enabled()?,
            dv_merge_on_read: options.get_bool("deletion-vectors.merge-on-read", false)?,
            postpone_bucket: options.bucket()? == read::support::POSTPONE_BUCKET,
            default_format: FileFormat::from_option(&options.file_format()),
            schema,
        })
    }

    /// The read schema.
    pub(crate) fn schema(&self) -> &TableSchema {
        &self.schema
    }

    pub(crate) fn is_primary_key_table(&self) -> bool {
        !self.primary_keys.is_empty()
    }

    /// Key-value files for primary-key tables, plain rows otherwise.
    pub(crate) fn kind(&self) -> FileKind {
        if self.is_primary_key_table() {
            FileKind::KeyValue
        } else {
            FileKind::Append
        }
    }

    /// Batch reads of deletion-vector and first-row tables see only compacted (level ≥ 1) files,
    /// unless `deletion-vectors.merge-on-read` (Paimon's `CoreOptions.batchScanSkipLevel0`).
    pub(crate) fn skips_level_zero(&self) -> bool {
        self.is_primary_key_table()
            && if self.deletion_vectors {
                !self.dv_merge_on_read
            } else {
                self.merge_engine == MergeEngine::FirstRow
            }
    }

    /// The rows of a split, collected ([`Self::open_split`]).
    pub(crate) async fn read_split(
        &self,
        split: &Split,
        request: &ReadRequest,
    ) -> Result<Vec<RecordBatch>> {
        let mut stream = self.open_split(split, request).await?;
        let mut batches = Vec::new();
        while let Some(batch) = stream.next(self).await? {
            batches.push(batch);
        }
        Ok(batches)
    }

    /// The files of `split` a read of `request` sees.
    fn files_to_read(
        &self,
        split: &Split,
        request: &ReadRequest,
    ) -> Result<Vec<Arc<DataFileMeta>>> {
        // Postpone-bucket tables: a batch read sees only real buckets (Paimon's
        // `onlyReadRealBuckets`); the postpone bucket's files wait for compaction.
        if self.postpone_bucket && split.bucket < 0 {
            return Ok(Vec::new());
        }
        read::support::check_files(&split.files, |f| self.file_path(split, f))?;
        let mut files: Vec<&Arc<DataFileMeta>> = split.files.iter().collect();
        if request.read_optimized && self.is_primary_key_table() {
            // `$ro`: the top level of the LSM tree (`num-levels` - 1), as Paimon's
            // `ReadOptimizedTable` filters; a bucket not fully compacted shows nothing.
            let top = crate::compact::max_level(&self.schema)?;
            files.retain(|f| f.level == top);
        } else if self.skips_level_zero() {
            files.retain(|f| f.level > 0);
        }
        Ok(files.into_iter().cloned().collect())
    }

    /// Starts reading a split: fetches its files (all at once when they fit the memory budget,
    /// see [`ReadRequest::memory_budget`]) and prepares the merge of primary-key buckets.
    pub(crate) async fn open_split(
        &self,
        split: &Split,
        request: &ReadRequest,
    ) -> Result<SplitStream> {
        let files = self.files_to_read(split, request)?;
        if let Some(rows) = &split.rows {
            // A range of rows is read from one append file (`Split::cut_rows`).
            let one_append_file = !self.is_primary_key_table()
                && files.len() == 1
                && !request.with_row_tracking
                && request.first_batch_bytes.is_none()
                && request.memory_budget.is_none();
            if !one_append_file {
                let path = match files.first() {
                    Some(f) => self.file_path(split, f),
                    None => self.table.path().to_string(),
                };
                return Err(crate::Error::unsupported(
                    path,
                    format!(
                        "reading rows {}..{} of a split that is not one append file read \
                         without a memory budget",
                        rows.start, rows.end
                    ),
                ));
            }
        }
        // Row tracking numbers each row by its position in its file (before deletion vectors):
        // every file is read as a row-id range of its own, or stitched with those sharing it.
        let by_range = request.with_row_tracking || read::stitch::needs_stitching(&files);
        if !self.is_primary_key_table() && by_range {
            let groups = read::stitch::groups(files, |f| self.file_path(split, f))?;
            return Ok(SplitStream {
                mode: Mode::Stitched {
                    split: split.clone(),
                    groups: groups.into(),
                    ready: Default::default(),
                    row_tracking: request.with_row_tracking,
                },
                output: Output::append(request),
            });
        }
        let size = |f: &Arc<DataFileMeta>| u64::try_from(f.file_size).unwrap_or(0);
        let total: u64 = files.iter().map(size).sum();
        let budget = request.memory_budget;
        let fits = budget.is_none_or(|b| total <= b);
        // Deletion-vector tables: compacted files hold at most one live row per key; level-0
        // files (visible with merge-on-read) must be merged (MergeTreeSplitGenerator).
        let raw_convertible =
            request.read_optimized || (self.deletion_vectors && files.iter().all(|f| f.level > 0));
        if !self.is_primary_key_table() || (raw_convertible && !request.with_row_kind) {
            // Files one after another; deletion-vector tables: compacted files hold at most one
            // live row per key.
            let output = if self.is_primary_key_table() {
                Output::AdditionsOnly
            } else {
                Output::append(request)
            };
            let (opened, pending) = match (fits, request.first_batch_bytes) {
                (true, Some(first)) => {
                    // The first file alone, from a small first piece; the others later.
                    let mut files = files;
                    let rest = files.split_off(files.len().min(1));
                    let fetch = Fetch::RowGroups {
                        footer_prefetch: request.footer_bytes(),
                        window_bytes: u64::MAX,
                        first_piece: Some(FirstPiece {
                            bytes: first,
                            rows: request.first_batch_rows.unwrap_or(read::BATCH_SIZE),
                        }),
                    };
                    let opens = files.iter().map(|f| self.open_file(split, f, fetch));
                    (futures::future::try_join_all(opens).await?, rest)
                }
                (true, None) => {
                    let whole = match &split.rows {
                        Some(rows) => Fetch::Rows {
                            start: rows.start,
                            end: rows.end,
                            footer_prefetch: request.footer_bytes(),
                        },
                        None => Fetch::Whole { first_rows: None },
                    };
                    let opens = files.iter().map(|f| self.open_file(split, f, whole));
                    (futures::future::try_join_all(opens).await?, Vec::new())
                }
                (false, _) => (Vec::new(), files),
            };
            return Ok(SplitStream {
                mode: Mode::Sequential {
                    split: split.clone(),
                    opened: opened.into(),
                    pending: pending.into(),
                    current: None,
                    budget,
                    fits,
                    footer_prefetch: request.footer_bytes(),
                },
                output,
            });
        }
        // Every sorted run holds one piece at a time: the budget is shared between them.
        let runs = u64::try_from(files.len().max(1)).unwrap_or(u64::MAX);
        // (No small first piece here: the first merged rows may need several pieces of every
        // run, each a round trip, where whole files that fit come in one.)
        let fetch = match budget {
            Some(b) if !fits => Fetch::RowGroups {
                footer_prefetch: request.footer_bytes(),
                window_bytes: b / runs,
                first_piece: None,
            },
            // Each run decodes only the rows the first merged batch may need first.
            _ => Fetch::Whole {
                first_rows: request.first_batch_rows,
            },
        };
        let opens = files.iter().map(|f| self.open_file(split, f, fetch));
        let sources = futures::future::try_join_all(opens).await?;
        let merge = MergeReader::streaming(
            read::output_schema(&self.schema.fields, FileKind::KeyValue),
            sources.len(),
            &self.schema.fields,
            &self.primary_keys,
            &self.schema.options,
            MergeSettings {
                keep_deletes: request.with_row_kind,
                first_batch_size: request.first_batch_rows,
                ..MergeSettings::default()
            },
        )?;
        Ok(SplitStream {
            mode: Mode::Merge {
                sources: sources.into_iter().map(Some).collect(),
                merge,
            },
            output: if request.with_row_kind {
                Output::RowKindFirst
            } else {
                Output::DropValueKind
            },
        })
    }

    /// Merges the runs (the live rows of each file of one primary-key bucket) with the table's
    /// merge engine; the output keeps `_VALUE_KIND` as its last column.
    pub(crate) fn merge_reader(
        &self,
        runs: Vec<Vec<RecordBatch>>,
        keep_deletes: bool,
    ) -> Result<MergeReader> {
        MergeReader::new(
            runs,
            &self.schema.fields,
            &self.primary_keys,
            &self.schema.options,
            MergeSettings {
                keep_deletes,
                ..MergeSettings::default()
            },
        )
    }
}
