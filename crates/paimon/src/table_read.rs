//! Reading a whole snapshot: plan → read data files → apply deletion vectors → merge (PK) → rows,
//! streamed batch by batch within an optional memory budget.

use crate::merge::{MergeReader, MergeSettings, MergeStep, RowKind};
use crate::read::parquet::FirstPiece;
use crate::read::source::{Fetch, FileSource, FileSpec};
use crate::read::{self, DeletionVector, FileFormat, FileKind};
use crate::scan::{self, PartitionFilter, Split};
use crate::spec::{DataField, DataFileMeta, MergeEngine, Snapshot, TableSchema, TypeKind};
use crate::table::Table;
use crate::{Error, Result};
use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// What to read from a snapshot.
#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    /// Only these columns, in this order (all when `None`).
    pub columns: Option<Vec<String>>,
    /// Add a leading `rowkind` column (`+I`, `-U`, `+U`, `-D`) as the `$audit_log` view does,
    /// and keep retractions.
    pub with_row_kind: bool,
    /// Read only the top level of each bucket, without merging (`$ro`, read-optimized).
    pub read_optimized: bool,
    /// Append `_ROW_ID` and `_SEQUENCE_NUMBER` (BIGINT NOT NULL) as the `$row_tracking` view
    /// does ([`read::row_tracking`]); only for append tables with `row-tracking.enabled`.
    pub with_row_tracking: bool,
    /// Only rows where this holds: prunes partitions and files when planning, then filters the
    /// final (merged) rows.
    pub filter: Option<crate::predicate::Predicate>,
    /// Read with the table's latest schema instead of the snapshot's, as Java does for a read
    /// without time travel (after an ALTER TABLE that wrote no snapshot, the latest snapshot
    /// still names the old schema).
    pub latest_schema: bool,
    /// Bytes of fetched data-file content to hold at once (`None`: no limit). A split whose
    /// files together fit is fetched whole, one GET per file, all at once. Otherwise the files
    /// of a primary-key split are read one Parquet row group at a time with ranged GETs (the
    /// footer, then the row group's needed column chunks), and a row group larger than the
    /// budget's share of one sorted run a few pages at a time (through the file's offset
    /// index), so memory stays near the budget plus the batches being merged; the files of an
    /// append split are read one after another, each whole if it fits the budget, else the same
    /// way with the whole budget. ORC and Avro files are always fetched whole.
    pub memory_budget: Option<u64>,
    /// Bytes of data pages the first batch may wait for (`None`: no such limit), so a viewer
    /// shows the first rows before whole files arrive. When the first split read is an append
    /// split that fits the budget, its first Parquet file is read alone: its footer, a first
    /// piece of at most about this many bytes of pages (through the offset index; without one,
    /// its first row group), then the rest in row groups; the split's other files are fetched
    /// (whole, together) once that file is read. Merged splits are read as without it.
    pub first_batch_bytes: Option<u64>,
    /// Rows the first batch of the first merged (primary-key) split holds at most (`None`: a
    /// whole batch), so a viewer shows the first rows before a whole batch is merged. Each of
    /// its sorted runs fetched whole first decodes only this many rows.
    pub first_batch_rows: Option<usize>,
    /// Bytes fetched from the end of a Parquet file read in pieces, in one request that should
    /// hold its footer and offset index (`None`: [`read::parquet::FOOTER_PREFETCH`]; a memory
    /// budget caps it). A file no larger comes whole with it.
    pub footer_prefetch: Option<u64>,
}

impl ReadRequest {
    /// Bytes of a Parquet file's end fetched with its footer.
    fn footer_bytes(&self) -> u64 {
        let bytes = self
            .footer_prefetch
            .unwrap_or(read::parquet::FOOTER_PREFETCH);
        self.memory_budget.map_or(bytes, |b| b.min(bytes))
    }
}

/// Rows read, with their schema.
#[derive(Debug, Clone)]
pub struct ReadOutput {
    /// Schema of the batches (meaningful also with no rows).
    pub schema: SchemaRef,
    /// The rows.
    pub batches: Vec<RecordBatch>,
}

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
        let append = !self.reader.is_primary_key_table()
            && !self.request.with_row_tracking
            && !self.reader.postpone_bucket;
        let independent = |split: &Split| {
            append
                && !read::stitch::needs_stitching(&split.files)
                && !split.files.iter().any(read::stitch::is_blob_file)
        };
        self.take_splits()
            .into_iter()
            .flat_map(|split| {
                if split.files.len() > 1 && independent(&split) {
                    split.by_file()
                } else {
                    vec![split]
                }
            })
            .collect()
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

/// Name of the row-kind column of `$audit_log`.
pub const ROW_KIND_COLUMN: &str = "rowkind";

/// Column indices of the requested columns in the table schema.
/// Column indices of the requested columns in the batches a split yields: the table's fields,
/// then, when `tracked`, `_ROW_ID` and `_SEQUENCE_NUMBER` ([`read::row_tracking::append`]).
fn projection(
    schema: &TableSchema,
    columns: Option<&[String]>,
    tracked: bool,
) -> Result<Vec<usize>> {
    let Some(cols) = columns else {
        return Ok((0..schema.fields.len()).collect());
    };
    cols.iter()
        .map(|c| {
            if let Some(i) = schema.field_index(c) {
                return Ok(i);
            }
            match read::row_tracking::hidden_index(c) {
                Some(i) if tracked => Ok(schema.fields.len() + i),
                hidden => {
                    let names: Vec<&str> = schema.fields.iter().map(|f| f.name.as_str()).collect();
                    let mut context = format!("columns: {}", names.join(", "));
                    if hidden.is_some() {
                        context.push_str(&format!(
                            "; '{c}' is a hidden column of tables with 'row-tracking.enabled' = 'true'"
                        ));
                    }
                    Err(Error::NotFound {
                        what: format!("column '{c}'"),
                        context: Some(context),
                    })
                }
            }
        })
        .collect()
}

/// The Arrow schema of `projection` over the table's fields (and the two row-tracking columns
/// when `tracked`).
fn project_schema(fields: &[DataField], projection: &[usize], tracked: bool) -> Result<SchemaRef> {
    let mut full = read::to_arrow_schema(fields);
    if tracked {
        let mut all = full.fields().to_vec();
        all.extend(read::row_tracking::fields().into_iter().map(Arc::new));
        full = Arc::new(Schema::new(all));
    }
    full.project(projection)
        .map(Arc::new)
        .map_err(|e| Error::Invalid(format!("projecting columns: {e}")))
}

/// Reads the splits of one table with one read schema: data files decoded and evolved to that
/// schema, deletion vectors applied, primary-key buckets merged. Shared by batch reads and the
/// snapshot diff ([`crate::diff`]).
pub(crate) struct SplitReader<'a> {
    table: &'a Table,
    schema: Rc<TableSchema>,
    primary_keys: Vec<String>,
    merge_engine: MergeEngine,
    deletion_vectors: bool,
    /// `deletion-vectors.merge-on-read`: batch reads also see (and merge) level-0 files.
    dv_merge_on_read: bool,
    /// `bucket = -2`: batch reads skip the files still in the postpone bucket.
    postpone_bucket: bool,
    default_format: Option<FileFormat>,
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
    fn files_to_read(&self, split: &Split, request: &ReadRequest) -> Result<Vec<DataFileMeta>> {
        // Postpone-bucket tables: a batch read sees only real buckets (Paimon's
        // `onlyReadRealBuckets`); the postpone bucket's files wait for compaction.
        if self.postpone_bucket && split.bucket < 0 {
            return Ok(Vec::new());
        }
        read::support::check_files(&split.files, |f| self.file_path(split, f))?;
        let mut files: Vec<&DataFileMeta> = split.files.iter().collect();
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
                output: Output::AsRead,
            });
        }
        let size = |f: &DataFileMeta| u64::try_from(f.file_size).unwrap_or(0);
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
                Output::AsRead
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
                    let whole = Fetch::Whole { first_rows: None };
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

    /// A data file's store key, for messages (its name when the path cannot be built).
    fn file_path(&self, split: &Split, file: &DataFileMeta) -> String {
        self.table
            .data_file_path(&split.partition, split.bucket, file)
            .unwrap_or_else(|_| file.file_name.clone())
    }

    /// The path, format and write schema of one data file of `split`, read on its own (a file
    /// of only some columns is refused: it is stitched with others, see [`Self::read_group`]).
    async fn locate(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<(String, FileFormat, Rc<TableSchema>)> {
        let located = self.locate_part(split, file).await?;
        read::support::check_write_cols(&located.0, file, &located.2)?;
        read::blob::check_inline(&located.0, file, &located.2)?;
        Ok(located)
    }

    /// [`Self::locate`] of a file that may hold only some columns (`_WRITE_COLS`).
    async fn locate_part(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<(String, FileFormat, Rc<TableSchema>)> {
        let path = self
            .table
            .data_file_path(&split.partition, split.bucket, file)?;
        let format = match file.file_name.rsplit_once('.') {
            Some((_, ext)) => FileFormat::from_option(ext)
                .ok_or_else(|| Error::unsupported(&path, format!("data file format '{ext}'")))?,
            None => self.default_format.ok_or_else(|| {
                Error::unsupported(
                    &path,
                    format!(
                        "data file format '{}'",
                        self.schema.core_options().file_format()
                    ),
                )
            })?,
        };
        if format == FileFormat::Vortex {
            read::vortex::check_supported(&path)?;
        }
        let file_schema = self.table.schema(file.schema_id).await?;
        Ok((path, format, file_schema))
    }

    /// Opens one data file of `split` as a lazy source with its deletion vector.
    async fn open_file(
        &self,
        split: &Split,
        file: &DataFileMeta,
        fetch: Fetch,
    ) -> Result<FileSource> {
        let (path, format, file_schema) = self.locate(split, file).await?;
        let file_fields = file_columns(&path, format, &file_schema, file, self.kind())?;
        let spec = FileSpec {
            path,
            format,
            size: u64::try_from(file.file_size).unwrap_or(0),
            file_fields: &file_fields,
            read_fields: &self.schema.fields,
            kind: self.kind(),
        };
        let store = self.table.store().clone();
        let (dv, source) = futures::future::try_join(self.deletion_vector(split, file), async {
            Ok(FileSource::open(store, spec, fetch).await?)
        })
        .await?;
        Ok(source.with_deletion_vector(dv))
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

    /// Decodes one data file with the read schema (no deletion vector applied): the table's
    /// columns, plus `_SEQUENCE_NUMBER` and `_VALUE_KIND` for key-value files.
    pub(crate) async fn read_data_file(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<Vec<RecordBatch>> {
        let (path, format, file_schema) = self.locate(split, file).await?;
        let file_fields = file_columns(&path, format, &file_schema, file, self.kind())?;
        let bytes = self.table.store().get(&path).await?;
        read::read_file(
            &path,
            bytes,
            format,
            &file_fields,
            &self.schema.fields,
            self.kind(),
        )
        .await
    }

    /// The rows of one data file still live in `split`: [`Self::read_data_file`] with the
    /// file's deletion vector applied.
    pub(crate) async fn read_live_rows(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<Vec<RecordBatch>> {
        let batches = self.read_data_file(split, file).await?;
        match self.deletion_vector(split, file).await? {
            Some(dv) => Ok(dv.apply(batches)?),
            None => Ok(batches),
        }
    }

    /// The rows of one row-id range of a data-evolution split ([`read::stitch::groups`], newest
    /// file first): each column from the newest file holding it, with `_ROW_ID` and
    /// `_SEQUENCE_NUMBER` appended when `row_tracking` ([`read::row_tracking::append`]), the
    /// range's deletion vector applied.
    async fn read_group(
        &self,
        split: &Split,
        group: &[DataFileMeta],
        row_tracking: bool,
    ) -> Result<Vec<RecordBatch>> {
        let schema = read::output_schema(&self.schema.fields, FileKind::Append);
        let ids: Vec<i32> = self.schema.fields.iter().map(|f| f.id).collect();
        let schema = &schema;
        let (blobs, files): (Vec<&DataFileMeta>, Vec<&DataFileMeta>) =
            group.iter().partition(|f| read::stitch::is_blob_file(f));
        let reads = files.iter().map(|file| async move {
            let (path, format, file_schema) = self.locate_part(split, file).await?;
            read::blob::check_inline(&path, file, &file_schema)?;
            let file_fields = file_columns(&path, format, &file_schema, file, FileKind::Append)?;
            let bytes = self.table.store().get(&path).await?;
            let batches = read::read_file(
                &path,
                bytes,
                format,
                &file_fields,
                &self.schema.fields,
                FileKind::Append,
            )
            .await?;
            let batch = arrow_select::concat::concat_batches(schema, &batches)
                .map_err(|e| Error::corrupt(&path, e))?;
            Ok::<_, Error>(read::stitch::Part {
                fields: read::stitch::written_field_ids(file, &file_schema),
                rows: usize::try_from(file.row_count).unwrap_or(usize::MAX),
                path,
                batch,
            })
        });
        let mut parts = futures::future::try_join_all(reads).await?;
        // The blob files of each BLOB column, one part per column over the group's rows.
        let mut bunches: BTreeMap<Option<&[String]>, Vec<DataFileMeta>> = BTreeMap::new();
        for blob in &blobs {
            let cols = blob.write_cols.as_deref();
            bunches.entry(cols).or_default().push((*blob).clone());
        }
        for bunch in bunches.into_values() {
            let Some(range) = files.first() else {
                break; // groups() puts blob files only into groups of data files
            };
            let start = range.first_row_id.unwrap_or_default();
            let kept = read::stitch::blob_bunch(bunch, start, range.row_count, |f| {
                self.file_path(split, f)
            })?;
            parts.push(self.read_blob_part(split, &kept).await?);
        }
        let mut rows = read::stitch::stitch(schema, &ids, &parts)?;
        if row_tracking {
            // the newest data file's, as Paimon's `DataEvolutionSplitRead` takes them
            let Some(newest) = files.first() else {
                return Err(Error::Invalid("a row-id range of no data files".into()));
            };
            rows = read::row_tracking::append(&self.file_path(split, newest), newest, &rows)?;
        }
        // The range's deletion vector is its anchor's: the oldest data file (Paimon's
        // `DataEvolutionUtils.retrieveAnchorFile`), positions counted in the range; blob files
        // have no deletion vectors.
        let anchor = files.into_iter().min_by(|a, b| {
            (a.max_sequence_number, &a.file_name).cmp(&(b.max_sequence_number, &b.file_name))
        });
        let dv = match anchor {
            Some(file) => self.deletion_vector(split, file).await?,
            None => None,
        };
        match dv {
            Some(dv) => Ok(dv.apply(vec![rows])?),
            None => Ok(vec![rows]),
        }
    }

    /// The `.blob` files of one BLOB column over a data-evolution range ([`read::stitch::blob_bunch`],
    /// in row order) as a stitch part: the column as references (only each file's index is
    /// read, see [`read::blob`]), the other columns null.
    async fn read_blob_part(
        &self,
        split: &Split,
        bunch: &[DataFileMeta],
    ) -> Result<read::stitch::Part> {
        let mut blob_id = None;
        let mut pieces = Vec::with_capacity(bunch.len());
        let mut path = String::new();
        for file in bunch {
            path = self
                .table
                .data_file_path(&split.partition, split.bucket, file)?;
            let file_schema = self.table.schema(file.schema_id).await?;
            let id = read::blob::blob_field(&path, file, &file_schema)?.id;
            if blob_id.is_some_and(|b| b != id) {
                return Err(Error::corrupt(
                    &path,
                    "blob files of one range hold other columns",
                ));
            }
            blob_id = Some(id);
            let rows = usize::try_from(file.row_count).map_err(|e| Error::corrupt(&path, e))?;
            let size = u64::try_from(file.file_size).map_err(|e| Error::corrupt(&path, e))?;
            let store = self.table.store().as_ref();
            pieces.push(read::blob::read_references(store, &path, size, rows).await?);
        }
        let pieces: Vec<&dyn arrow_array::Array> = pieces.iter().map(|a| a.as_ref()).collect();
        let references =
            arrow_select::concat::concat(&pieces).map_err(|e| Error::corrupt(&path, e))?;
        let rows = references.len();
        let Some(blob_id) = blob_id else {
            return Err(Error::Invalid("a blob part of no files".into()));
        };
        let mut fields = Vec::with_capacity(self.schema.fields.len());
        let mut columns = Vec::with_capacity(self.schema.fields.len());
        for field in &self.schema.fields {
            let arrow = read::to_arrow_field(field).with_nullable(true);
            if field.id == blob_id {
                if field.data_type.kind != TypeKind::Blob {
                    return Err(Error::unsupported(
                        &path,
                        format!(
                            "blob file of column '{}', now of type {}",
                            field.name, field.data_type
                        ),
                    ));
                }
                columns.push(references.clone());
            } else {
                columns.push(arrow_array::new_null_array(arrow.data_type(), rows));
            }
            fields.push(arrow);
        }
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
            .map_err(|e| Error::corrupt(&path, e))?;
        Ok(read::stitch::Part {
            fields: std::collections::BTreeSet::from([blob_id]),
            rows,
            path,
            batch,
        })
    }

    /// The deletion vector of `file` in `split`, if any.
    pub(crate) async fn deletion_vector(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<Option<DeletionVector>> {
        let Some(dv) = split.deletion_files.get(&file.file_name) else {
            return Ok(None);
        };
        let bytes = self.table.store().get(&dv.index_file_path).await?;
        let dv = read::deletion_vector::decode_range(
            &dv.index_file_path,
            &bytes,
            dv.offset as u64,
            dv.length as u64,
        )?;
        Ok(Some(dv))
    }
}

/// The rows of one split, produced batch by batch (before filtering and projection).
pub(crate) struct SplitStream {
    mode: Mode,
    output: Output,
}

enum Mode {
    /// Files one after another (append tables, deletion-vector and read-optimized reads).
    Sequential {
        split: Split,
        /// Files fetched up front (the split fits the budget).
        opened: std::collections::VecDeque<FileSource>,
        /// Files not fetched yet.
        pending: std::collections::VecDeque<DataFileMeta>,
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
        groups: std::collections::VecDeque<Vec<DataFileMeta>>,
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

/// How a split's batches become rows of the read schema (plus `rowkind` when asked).
#[derive(Debug, Clone, Copy)]
enum Output {
    /// Append files: as read.
    AsRead,
    /// Unmerged key-value files: additions only, without the system columns.
    AdditionsOnly,
    /// Merged: without `_VALUE_KIND`.
    DropValueKind,
    /// Merged with retractions: `_VALUE_KIND` as a leading `rowkind` column.
    RowKindFirst,
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
        match self.output {
            Output::AsRead => Ok(Some(batch)),
            Output::AdditionsOnly => drop_system_columns(&batch).map(Some),
            Output::DropValueKind => drop_value_kind(&batch).map(Some),
            Output::RowKindFirst => row_kind_first(&batch).map(Some),
        }
    }
}

/// Drops `_SEQUENCE_NUMBER` and `_VALUE_KIND` (the last two columns) of a key-value batch,
/// keeping only rows that are additions.
fn drop_system_columns(batch: &RecordBatch) -> Result<RecordBatch> {
    let n = batch.num_columns().saturating_sub(2);
    let kinds = batch.column(n + 1);
    let keep = additions_mask(kinds)?;
    let filtered = arrow_select::filter::filter_record_batch(batch, &keep)
        .map_err(|e| Error::Invalid(format!("filtering retractions: {e}")))?;
    filtered
        .project(&(0..n).collect::<Vec<_>>())
        .map_err(|e| Error::Invalid(format!("dropping system columns: {e}")))
}

/// Drops the trailing `_VALUE_KIND` column of merged output.
fn drop_value_kind(batch: &RecordBatch) -> Result<RecordBatch> {
    let n = batch.num_columns().saturating_sub(1);
    batch
        .project(&(0..n).collect::<Vec<_>>())
        .map_err(|e| Error::Invalid(format!("dropping _VALUE_KIND: {e}")))
}

/// Moves the trailing `_VALUE_KIND` of merged output to a leading `rowkind` text column.
fn row_kind_first(batch: &RecordBatch) -> Result<RecordBatch> {
    let n = batch.num_columns().saturating_sub(1);
    let kinds = batch
        .column(n)
        .as_any()
        .downcast_ref::<arrow_array::Int8Array>()
        .ok_or_else(|| Error::Invalid("_VALUE_KIND is not TINYINT".into()))?;
    let text: arrow_array::StringArray = kinds
        .iter()
        .map(|k| k.and_then(RowKind::from_i8).map(RowKind::short_string))
        .collect();
    let mut columns: Vec<arrow_array::ArrayRef> = vec![Arc::new(text)];
    columns.extend(batch.columns()[..n].iter().cloned());
    let mut fields = vec![Arc::new(Field::new(ROW_KIND_COLUMN, ArrowType::Utf8, true))];
    fields.extend(batch.schema().fields()[..n].iter().cloned());
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| Error::Invalid(format!("adding rowkind: {e}")))
}

fn additions_mask(kinds: &arrow_array::ArrayRef) -> Result<arrow_array::BooleanArray> {
    let kinds = kinds
        .as_any()
        .downcast_ref::<arrow_array::Int8Array>()
        .ok_or_else(|| Error::Invalid("_VALUE_KIND is not TINYINT".into()))?;
    Ok(kinds
        .iter()
        .map(|k| Some(matches!(k, Some(0) | Some(2))))
        .collect())
}

/// The columns of `file` as its decoder needs them: its schema's fields (formats that store
/// their own schema are matched by name), or for a Paimon row-format file the exact row type it
/// was written with.
fn file_columns<'a>(
    path: &str,
    format: FileFormat,
    file_schema: &'a TableSchema,
    file: &DataFileMeta,
    kind: FileKind,
) -> Result<std::borrow::Cow<'a, [DataField]>> {
    Ok(match format {
        FileFormat::Row => std::borrow::Cow::Owned(read::row_file_layout(
            path,
            file_schema,
            file.write_cols.as_deref(),
            kind,
        )?),
        _ => std::borrow::Cow::Borrowed(&file_schema.fields),
    })
}
