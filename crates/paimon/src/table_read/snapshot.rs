//! A snapshot planned and streamed split by split ([`SnapshotReader`]), each batch filtered and projected; [`read_snapshot`] collects it.

use super::projection::{project_schema, projection, ROW_KIND_COLUMN};
use super::request::{ReadOutput, ReadRequest};
use super::share;
use super::split::SplitReader;
use super::stream::SplitStream;
use crate::read;
use crate::scan::{self, PartitionFilter, Split};
use crate::spec::Snapshot;
use crate::table::Table;
use crate::{Error, Result};
use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use std::sync::Arc;

/// Splits a reader should have to share out at least ([`SnapshotReader::take_splits_for`]): more
/// than one, so a reader that finishes early takes another instead of idling.
pub const SPLITS_PER_READER: usize = 4;

/// Rows an append file's piece holds at least ([`SnapshotReader::take_splits_for`]): each piece
/// fetches its own footer and the dictionary pages it needs.
pub const MIN_PIECE_ROWS: u64 = 16 * read::BATCH_SIZE as u64;

/// Reads the table as of `snapshot` (an empty table when `None`) with the snapshot's schema
/// (or the latest, see [`ReadRequest::latest_schema`]), collecting every batch. Prefer
/// [`SnapshotReader`] to stream split by split.
pub async fn read_snapshot(
    table: &Table,
    snapshot: Option<&Snapshot>,
    request: &ReadRequest,
) -> Result<ReadOutput> {
    let mut reader = SnapshotReader::open(table, snapshot, request).await?;
    let mut batches = Vec::new();
    while let Some(batch) = reader.next_batch().await {
        batches.push(batch?);
    }
    Ok(ReadOutput {
        schema: reader.schema().clone(),
        batches,
    })
}

/// Streams the rows of a snapshot batch by batch, split (partition, bucket) after split: a
/// batch is handed on as soon as it is merged, and memory stays bounded by
/// [`ReadRequest::memory_budget`] (or by the split's files without one).
pub struct SnapshotReader<'a> {
    reader: SplitReader<'a>,
    splits: std::vec::IntoIter<Split>,
    total_splits: usize,
    current: Option<SplitStream>,
    request: ReadRequest,
    projection: Vec<usize>,
    schema: SchemaRef,
    /// Row filter with the batch column of each field id.
    filter: Option<(crate::predicate::BoundPredicate, Vec<(i32, usize)>)>,
    pruned_files: usize,
}

impl<'a> SnapshotReader<'a> {
    /// Plans the snapshot (reads its manifests); no data file is read yet.
    pub async fn open(
        table: &'a Table,
        snapshot: Option<&Snapshot>,
        request: &ReadRequest,
    ) -> Result<SnapshotReader<'a>> {
        let mut reader = Self::unplanned(table, snapshot, request).await?;
        if let Some(snapshot) = snapshot {
            let p = request.filter.as_ref();
            let plan = scan::plan_filtered(table, snapshot, &PartitionFilter::All, p).await?;
            reader.pruned_files = plan.pruned_files;
            reader.set_splits(plan.splits);
        }
        Ok(reader)
    }

    /// Reads `splits` of `snapshot`, planned already (by [`SnapshotReader::open`] on another
    /// handle of the same table, then [`SnapshotReader::take_splits`]), with the same request:
    /// no manifest is read.
    pub async fn for_splits(
        table: &'a Table,
        snapshot: Option<&Snapshot>,
        request: &ReadRequest,
        splits: Vec<Split>,
    ) -> Result<SnapshotReader<'a>> {
        let mut reader = Self::unplanned(table, snapshot, request).await?;
        reader.set_splits(splits);
        Ok(reader)
    }

    /// The splits not started yet, in plan order, taken out: this reader then reads no more.
    pub fn take_splits(&mut self) -> Vec<Split> {
        let splits: Vec<Split> = std::mem::take(&mut self.splits).collect();
        self.total_splits -= splits.len();
        splits
    }

    /// [`SnapshotReader::take_splits`], with each append split whose files are read one after
    /// another (no primary key, no row tracking, no data-evolution stitching, no BLOB files) cut
    /// into one split per file: the same rows in the same order, in more, smaller splits (for
    /// readers that share the splits out).
    pub fn take_splits_by_file(&mut self) -> Vec<Split> {
        self.take_splits_for(1)
    }

    /// [`SnapshotReader::take_splits_by_file`] for `readers` readers sharing the splits out: when
    /// that gives fewer than [`SPLITS_PER_READER`] splits a reader, the last append Parquet files
    /// read without a memory budget are also cut into pieces of consecutive rows
    /// ([`Split::cut_rows`], at least [`MIN_PIECE_ROWS`] rows each, starting at multiples of
    /// [`read::BATCH_SIZE`]), as many as keep every reader busy to the end
    /// (`share::cut_for_readers`); the same rows in the same order.
    pub fn take_splits_for(&mut self, readers: usize) -> Vec<Split> {
        let append = !self.reader.is_primary_key_table()
            && !self.request.with_row_tracking
            && !self.reader.postpone_bucket;
        let independent = |split: &Split| {
            append
                && !read::stitch::needs_stitching(&split.files)
                && !split.files.iter().any(|f| read::stitch::is_blob_file(f))
        };
        let by_file: Vec<Split> = self
            .take_splits()
            .into_iter()
            .flat_map(|split| {
                if split.files.len() > 1 && independent(&split) {
                    split.by_file()
                } else {
                    vec![split]
                }
            })
            .collect();
        let wanted = readers.saturating_mul(SPLITS_PER_READER);
        let whole_files =
            self.request.memory_budget.is_none() && self.request.first_batch_bytes.is_none();
        if readers < 2 || by_file.len() >= wanted || !whole_files {
            return by_file;
        }
        let align = read::BATCH_SIZE as u64;
        share::cut_for_readers(by_file, readers, |split, pieces| {
            let parquet = split
                .files
                .iter()
                .all(|f| f.file_name.ends_with(".parquet"));
            let rows = u64::try_from(split.row_count()).unwrap_or(0);
            let most = usize::try_from(rows / MIN_PIECE_ROWS).unwrap_or(usize::MAX);
            if split.files.len() == 1 && parquet && independent(split) && most >= 2 {
                split.cut_rows(pieces.min(most), align)
            } else {
                vec![split.clone()]
            }
        })
    }

    fn set_splits(&mut self, splits: Vec<Split>) {
        self.total_splits = splits.len();
        self.splits = splits.into_iter();
    }

    /// The read schema, projection and filter of `request` on `snapshot`, with no split yet.
    async fn unplanned(
        table: &'a Table,
        snapshot: Option<&Snapshot>,
        request: &ReadRequest,
    ) -> Result<SnapshotReader<'a>> {
        let schema = match snapshot {
            Some(s) if !request.latest_schema => table.schema(s.schema_id).await?,
            _ => table.latest_schema().await?,
        };
        // `_ROW_ID` and `_SEQUENCE_NUMBER` are hidden columns of a row-tracking table: read
        // when named (as Spark's metadata columns), never part of "all columns"
        let columns = request.columns.as_deref();
        let tracked = request.with_row_tracking
            || (read::row_tracking::names_hidden(columns)
                && read::row_tracking::tracks_rows(&schema)?);
        if request.with_row_tracking {
            read::row_tracking::check_table(&format!("{}$row_tracking", table.path()), &schema)?;
        } else if tracked {
            read::row_tracking::check_table(table.path(), &schema)?;
        }
        let mut projection = projection(&schema, columns, tracked)?;
        let n = schema.fields.len();
        if request.with_row_tracking {
            // the `$row_tracking` view: the two columns follow the table's
            for hidden in [n, n + 1] {
                if !projection.contains(&hidden) {
                    projection.push(hidden);
                }
            }
        }
        let out_schema = project_schema(&schema.fields, &projection, tracked)?;
        let request = &ReadRequest {
            with_row_tracking: tracked,
            ..request.clone()
        };
        let (out_schema, projection) = if request.with_row_kind {
            let mut fields = vec![Arc::new(Field::new(
                ROW_KIND_COLUMN,
                ArrowType::Utf8,
                false,
            ))];
            fields.extend(out_schema.fields().iter().cloned());
            let shifted = std::iter::once(0)
                .chain(projection.iter().map(|p| p + 1))
                .collect();
            (Arc::new(Schema::new(fields)), shifted)
        } else {
            (out_schema, projection)
        };
        let filter = match &request.filter {
            Some(p) => {
                let offset = usize::from(request.with_row_kind);
                let columns = schema.fields.iter().enumerate();
                let columns = columns.map(|(i, f)| (f.id, i + offset)).collect();
                Some((p.bind(&schema)?, columns))
            }
            None => None,
        };
        Ok(Self {
            reader: SplitReader::new(table, schema)?,
            total_splits: 0,
            current: None,
            splits: Vec::new().into_iter(),
            request: request.clone(),
            projection,
            schema: out_schema,
            filter,
            pruned_files: 0,
        })
    }

    /// Data files the filter's min/max-stats pruning removed from the plan.
    pub fn pruned_files(&self) -> usize {
        self.pruned_files
    }

    /// Schema of the batches this reader yields.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Number of splits not started yet.
    pub fn remaining_splits(&self) -> usize {
        self.splits.len()
    }

    /// Number of splits of the plan.
    pub fn total_splits(&self) -> usize {
        self.total_splits
    }

    /// The next batch of rows (merged, filtered and projected; at most 8192 rows, never empty),
    /// as soon as it is produced, or `None` when every split has been read.
    pub async fn next_batch(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if self.current.is_none() {
                if let Err(e) = self.start_split().await? {
                    return Some(Err(e));
                }
            }
            match self.pull().await {
                Ok(Some(batch)) => return Some(Ok(batch)),
                Ok(None) => {}
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// The remaining rows of the split being read, or else of the next split, collected; `None`
    /// when every split has been read.
    pub async fn next_split(&mut self) -> Option<Result<Vec<RecordBatch>>> {
        if self.current.is_none() {
            if let Err(e) = self.start_split().await? {
                return Some(Err(e));
            }
        }
        let mut batches = Vec::new();
        loop {
            match self.pull().await {
                Ok(Some(batch)) => batches.push(batch),
                Ok(None) => return Some(Ok(batches)),
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// Opens the next split; `None` when there is none.
    async fn start_split(&mut self) -> Option<Result<()>> {
        let split = self.splits.next()?;
        let opened = self.reader.open_split(&split, &self.request).await;
        // Only the first rows are wanted soon: later splits are fetched and merged in full.
        self.request.first_batch_bytes = None;
        self.request.first_batch_rows = None;
        Some(opened.map(|stream| self.current = Some(stream)))
    }

    /// The next non-empty batch of the current split; `None` (and no current split) at its end
    /// or on an error.
    async fn pull(&mut self) -> Result<Option<RecordBatch>> {
        while let Some(stream) = &mut self.current {
            match stream.next(&self.reader).await {
                Ok(Some(batch)) => {
                    let batch = self.finish(&batch)?;
                    if batch.num_rows() > 0 {
                        return Ok(Some(batch));
                    }
                }
                Ok(None) => self.current = None,
                Err(e) => {
                    self.current = None;
                    return Err(e);
                }
            }
        }
        Ok(None)
    }

    /// Filters and projects one batch of a split.
    fn finish(&self, batch: &RecordBatch) -> Result<RecordBatch> {
        let filtered;
        let batch = match &self.filter {
            Some((p, cols)) => {
                let column_of = |id: i32| cols.iter().find(|(f, _)| *f == id).map(|(_, i)| *i);
                filtered = p.filter(batch, &column_of)?;
                &filtered
            }
            None => batch,
        };
        let projected = batch
            .project(&self.projection)
            .map_err(|e| Error::Invalid(format!("projecting columns: {e}")))?;
        RecordBatch::try_new(self.schema.clone(), projected.columns().to_vec())
            .map_err(|e| Error::Invalid(format!("projecting columns: {e}")))
    }
}
