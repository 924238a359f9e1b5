//! Reading a whole snapshot: plan → read data files → apply deletion vectors → merge (PK) → rows.

use crate::merge::{MergeReader, MergeSettings, RowKind};
use crate::read::{self, DeletionVector, FileFormat, FileKind};
use crate::scan::{self, PartitionFilter, Split};
use crate::spec::{DataField, DataFileMeta, MergeEngine, Snapshot, TableSchema};
use crate::table::Table;
use crate::{Error, Result};
use arrow_array::RecordBatch;
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
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
    /// Only rows where this holds: prunes partitions and files when planning, then filters the
    /// final (merged) rows.
    pub filter: Option<crate::predicate::Predicate>,
    /// Read with the table's latest schema instead of the snapshot's, as Java does for a read
    /// without time travel (after an ALTER TABLE that wrote no snapshot, the latest snapshot
    /// still names the old schema).
    pub latest_schema: bool,
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
    while let Some(split_batches) = reader.next_split().await {
        batches.extend(split_batches?);
    }
    Ok(ReadOutput {
        schema: reader.schema().clone(),
        batches,
    })
}

/// Streams the rows of a snapshot one split (partition, bucket) at a time, so memory stays
/// bounded by the largest bucket and the first rows arrive after the first split.
pub struct SnapshotReader<'a> {
    reader: SplitReader<'a>,
    splits: std::vec::IntoIter<Split>,
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
        let schema = match snapshot {
            Some(s) if !request.latest_schema => table.schema(s.schema_id).await?,
            _ => table.latest_schema().await?,
        };
        let projection = projection(&schema, request.columns.as_deref())?;
        let out_schema = project_schema(&schema.fields, &projection)?;
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
        let (splits, pruned_files) = match snapshot {
            Some(snapshot) => {
                let p = request.filter.as_ref();
                let plan = scan::plan_filtered(table, snapshot, &PartitionFilter::All, p).await?;
                (plan.splits, plan.pruned_files)
            }
            None => (Vec::new(), 0),
        };
        Ok(Self {
            reader: SplitReader::new(table, schema)?,
            splits: splits.into_iter(),
            request: request.clone(),
            projection,
            schema: out_schema,
            filter,
            pruned_files,
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

    /// Number of splits not read yet.
    pub fn remaining_splits(&self) -> usize {
        self.splits.len()
    }

    /// The rows of the next split, or `None` when every split has been read.
    pub async fn next_split(&mut self) -> Option<Result<Vec<RecordBatch>>> {
        let split = self.splits.next()?;
        Some(self.read(&split).await)
    }

    async fn read(&self, split: &Split) -> Result<Vec<RecordBatch>> {
        self.reader
            .read_split(split, &self.request)
            .await?
            .iter()
            .map(|batch| {
                let filtered;
                let batch = match &self.filter {
                    Some((p, cols)) => {
                        let column_of =
                            |id: i32| cols.iter().find(|(f, _)| *f == id).map(|(_, i)| *i);
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
            })
            .collect()
    }
}

/// Name of the row-kind column of `$audit_log`.
pub const ROW_KIND_COLUMN: &str = "rowkind";

/// Column indices of the requested columns in the table schema.
fn projection(schema: &TableSchema, columns: Option<&[String]>) -> Result<Vec<usize>> {
    match columns {
        None => Ok((0..schema.fields.len()).collect()),
        Some(cols) => cols
            .iter()
            .map(|c| {
                schema.field_index(c).ok_or_else(|| Error::NotFound {
                    what: format!("column '{c}'"),
                    context: Some(format!(
                        "columns: {}",
                        schema
                            .fields
                            .iter()
                            .map(|f| f.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )),
                })
            })
            .collect(),
    }
}

fn project_schema(fields: &[DataField], projection: &[usize]) -> Result<SchemaRef> {
    let full = read::to_arrow_schema(fields);
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
    default_format: Option<FileFormat>,
}

impl<'a> SplitReader<'a> {
    pub(crate) fn new(table: &'a Table, schema: Rc<TableSchema>) -> Result<Self> {
        let options = schema.core_options();
        Ok(Self {
            table,
            primary_keys: schema.primary_keys.clone(),
            merge_engine: options.merge_engine()?,
            deletion_vectors: options.deletion_vectors_enabled()?,
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

    /// Batch reads of deletion-vector and first-row tables see only compacted (level ≥ 1) files.
    pub(crate) fn skips_level_zero(&self) -> bool {
        self.is_primary_key_table()
            && (self.deletion_vectors || self.merge_engine == MergeEngine::FirstRow)
    }

    pub(crate) async fn read_split(
        &self,
        split: &Split,
        request: &ReadRequest,
    ) -> Result<Vec<RecordBatch>> {
        let mut files: Vec<&DataFileMeta> = split.files.iter().collect();
        if self.skips_level_zero() || (request.read_optimized && self.is_primary_key_table()) {
            files.retain(|f| f.level > 0);
        }
        if request.read_optimized && self.is_primary_key_table() {
            let top = files.iter().map(|f| f.level).max();
            files.retain(|f| Some(f.level) == top);
        }
        let mut per_file = Vec::with_capacity(files.len());
        for file in &files {
            per_file.push(self.read_live_rows(split, file).await?);
        }
        if !self.is_primary_key_table() || per_file.is_empty() {
            return Ok(per_file.into_iter().flatten().collect());
        }
        let raw_convertible = self.deletion_vectors || request.read_optimized;
        if raw_convertible && !request.with_row_kind {
            // Deletion-vector tables: compacted files hold at most one live row per key.
            return per_file
                .into_iter()
                .flatten()
                .map(|b| drop_system_columns(&b))
                .collect();
        }
        let merged = self
            .merge_reader(per_file, request.with_row_kind)?
            .collect::<Result<Vec<_>>>()?;
        if request.with_row_kind {
            merged.iter().map(row_kind_first).collect()
        } else {
            merged.iter().map(drop_value_kind).collect()
        }
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
        let path = self
            .table
            .data_file_path(&split.partition, split.bucket, file)?;
        let format = FileFormat::from_file_name(&file.file_name)
            .or(self.default_format)
            .ok_or_else(|| Error::unsupported(&path, "unknown data file format"))?;
        let file_schema = self.table.schema(file.schema_id).await?;
        let bytes = self.table.store().get(&path).await?;
        read::read_file(
            &path,
            bytes,
            format,
            &file_schema.fields,
            &self.schema.fields,
            self.kind(),
        )
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
            Some(dv) => dv.apply(batches),
            None => Ok(batches),
        }
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
        read::deletion_vector::decode_range(
            &dv.index_file_path,
            &bytes,
            dv.offset as u64,
            dv.length as u64,
        )
        .map(Some)
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
