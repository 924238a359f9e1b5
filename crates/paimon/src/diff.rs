//! Snapshot diff for the UI: the rows inserted, deleted and updated between two snapshots.
//!
//! # What is compared
//! Both snapshots are *planned* (metadata only: manifests, cached by [`Table`]); data files are
//! read only for the (partition, bucket)s whose live file set or deletion vectors differ
//! between the two. Untouched buckets cost no data read at all, so two snapshots a few commits
//! apart read only the files those commits wrote plus the other files of the buckets they
//! touched — never the whole table twice (unless every bucket changed).
//!
//! * **Primary-key tables**: each touched bucket is merged at A and at B exactly as a batch read
//!   does (merge engine, deletion vectors, level-0 rules), and the merged rows are matched by
//!   primary key: a key only in B is an `insert`, only in A a `delete`, in both with different
//!   values an `update_before` (A's row) followed by `update_after` (B's row).
//! * **Append tables**: rows of files live in B but not in A are `insert`s, rows of files live
//!   in A but not in B are `delete`s; for a file live in both whose deletion vector changed,
//!   the rows newly deleted in B are `delete`s (and rows deleted in A but not B `insert`s).
//! * **Data-evolution buckets** (append files stitched by row id on either side: column
//!   updates, rows written with only some columns): both sides are read stitched with
//!   `_ROW_ID` and matched by row id, like primary keys: a row whose columns an update by row id
//!   changed is an `update_before`/`update_after` pair.
//!
//! Both sides are read with B's schema (columns matched by field id).

use crate::read::{self, DeletionVector};
use crate::scan::{self, PartitionFilter, Split};
use crate::spec::binary_row::Datum;
use crate::spec::manifest::DataFileMeta;
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::SplitReader;
use crate::{Error, Result};
use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch, StringArray};
use arrow_row::{RowConverter, SortField};
use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef};
pub use lakescope_format::diff::{Change, DiffProgress, PartitionCounts, CHANGE_COLUMN};
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// The difference between two snapshots.
#[derive(Debug, Clone)]
pub struct SnapshotDiff {
    /// The "from" snapshot id (`None`: the empty table before the first snapshot).
    pub from: Option<i64>,
    /// The "to" snapshot id.
    pub to: Option<i64>,
    /// `_change` (Utf8: insert/delete/update_before/update_after), then the table's columns
    /// (B's schema). Each `update_before` row is immediately followed by its `update_after`.
    pub schema: SchemaRef,
    /// Changed rows, grouped by (partition, bucket).
    pub batches: Vec<RecordBatch>,
    /// Counts per partition that has at least one change, in partition order.
    pub partitions: Vec<PartitionCounts>,
    /// How many (partition, bucket)s had to be read (their files or deletion vectors differ).
    pub buckets_read: usize,
    /// How many data files were read.
    pub files_read: usize,
}

impl SnapshotDiff {
    /// Total rows of [`SnapshotDiff::batches`].
    pub fn num_rows(&self) -> usize {
        self.batches.iter().map(|b| b.num_rows()).sum()
    }
}

/// Diffs snapshot `from` (A, `None` = empty table) against snapshot `to` (B).
///
/// See the module docs for the semantics. Errors name the table and snapshots.
pub async fn diff_snapshots(
    table: &Table,
    from: Option<&Snapshot>,
    to: &Snapshot,
) -> Result<SnapshotDiff> {
    diff_snapshots_with_progress(table, from, to, &mut |_| {}).await
}

/// [`diff_snapshots`], calling `progress` once planning is done and after every bucket.
pub async fn diff_snapshots_with_progress(
    table: &Table,
    from: Option<&Snapshot>,
    to: &Snapshot,
    progress: &mut dyn FnMut(DiffProgress),
) -> Result<SnapshotDiff> {
    let context = |e: Error| match e {
        Error::Invalid(m) => Error::Invalid(format!(
            "diff of {} snapshot {} → {}: {m}",
            table.path(),
            from.map_or("none".to_string(), |s| s.id.to_string()),
            to.id
        )),
        other => other,
    };
    diff_inner(table, from, to, progress).await.map_err(context)
}

async fn diff_inner(
    table: &Table,
    from: Option<&Snapshot>,
    to: &Snapshot,
    progress: &mut dyn FnMut(DiffProgress),
) -> Result<SnapshotDiff> {
    let schema = table.schema(to.schema_id).await?;
    let reader = BucketReader::new(table, schema.clone())?;
    let pairs = touched_buckets(table, from, to).await?;
    let out_schema = diff_schema(&reader.value_schema());
    let mut batches = Vec::new();
    let mut counts: BTreeMap<Vec<u8>, PartitionCounts> = BTreeMap::new();
    let mut files_read = 0;
    let mut done = DiffProgress {
        total: pairs.len(),
        ..DiffProgress::default()
    };
    progress(done);
    for (before, after) in &pairs {
        done.done += 1;
        let any = after.as_ref().or(before.as_ref());
        let Some(any) = any else { continue };
        let entry = counts
            .entry(any.partition_bytes.clone())
            .or_insert_with(|| PartitionCounts {
                partition: any.partition.clone(),
                ..PartitionCounts::default()
            });
        let (changes, read) = if reader.is_primary_key_table() {
            pk_bucket_diff(&reader, before.as_ref(), after.as_ref(), entry).await?
        } else {
            append_bucket_diff(&reader, before.as_ref(), after.as_ref(), entry).await?
        };
        files_read += read;
        done.files_read = files_read;
        progress(done);
        for batch in changes {
            batches.push(
                RecordBatch::try_new(out_schema.clone(), batch.columns().to_vec())
                    .map_err(|e| Error::Invalid(format!("assembling diff rows: {e}")))?,
            );
        }
    }
    let mut partitions: Vec<PartitionCounts> = counts
        .into_values()
        .filter(|c| c.inserted + c.deleted + c.updated > 0)
        .collect();
    partitions.sort_by(|a, b| cmp_datums(&a.partition, &b.partition));
    Ok(SnapshotDiff {
        from: from.map(|s| s.id),
        to: Some(to.id),
        schema: out_schema,
        batches,
        partitions,
        buckets_read: pairs.len(),
        files_read,
    })
}

fn cmp_datums(a: &[Datum], b: &[Datum]) -> std::cmp::Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| o.is_ne())
        .unwrap_or_else(|| a.len().cmp(&b.len()))
}

fn diff_schema(values: &SchemaRef) -> SchemaRef {
    let mut fields = vec![Arc::new(Field::new(CHANGE_COLUMN, ArrowType::Utf8, false))];
    fields.extend(values.fields().iter().cloned());
    Arc::new(Schema::new(fields))
}

/// A live file as (level, name, deletion vector location).
type FileIdentity<'a> = (i32, &'a str, Option<(&'a str, i64)>);

/// Identity of the live files of a bucket (names are unique within a bucket).
fn file_set(split: &Split) -> Vec<FileIdentity<'_>> {
    let mut v: Vec<_> = split
        .files
        .iter()
        .map(|f| {
            let dv = split
                .deletion_files
                .get(&f.file_name)
                .map(|d| (d.index_file_path.as_str(), d.offset));
            (f.level, f.file_name.as_str(), dv)
        })
        .collect();
    v.sort();
    v
}

/// The (partition, bucket)s whose files or deletion vectors differ, as (A's split, B's split).
pub(crate) async fn touched_buckets(
    table: &Table,
    from: Option<&Snapshot>,
    to: &Snapshot,
) -> Result<Vec<(Option<Split>, Option<Split>)>> {
    let after = scan::plan(table, to, &PartitionFilter::All).await?;
    let before = match from {
        Some(s) => Some(scan::plan(table, s, &PartitionFilter::All).await?),
        None => None,
    };
    let mut by_key: HashMap<(Vec<u8>, i32), Split> = HashMap::new();
    for split in before.into_iter().flat_map(|p| p.splits) {
        by_key.insert((split.partition_bytes.clone(), split.bucket), split);
    }
    let mut out = Vec::new();
    for split in after.splits {
        match by_key.remove(&(split.partition_bytes.clone(), split.bucket)) {
            Some(old) if file_set(&old) == file_set(&split) => {}
            old => out.push((old, Some(split))),
        }
    }
    let mut removed: Vec<Split> = by_key.into_values().collect();
    removed.sort_by(|a, b| cmp_datums(&a.partition, &b.partition).then(a.bucket.cmp(&b.bucket)));
    out.extend(removed.into_iter().map(|s| (Some(s), None)));
    Ok(out)
}

/// One side of a bucket: merged rows (value columns + `_VALUE_KIND`) concatenated in key order.
pub(crate) struct MergedSide {
    pub batch: Option<RecordBatch>,
}

/// Builds a batch holding `_change` then the rows picked by `(source, row)` from `sources`.
fn pick(
    sources: &[&RecordBatch],
    picks: &[(usize, usize)],
    changes: &[Change],
    value_columns: usize,
) -> Result<RecordBatch> {
    let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from(
        changes.iter().map(|c| c.as_str()).collect::<Vec<_>>(),
    ))];
    for col in 0..value_columns {
        let arrays: Vec<&dyn Array> = sources.iter().map(|b| b.column(col).as_ref()).collect();
        columns.push(
            arrow_select::interleave::interleave(&arrays, picks)
                .map_err(|e| Error::Invalid(format!("assembling diff rows: {e}")))?,
        );
    }
    let mut fields = vec![Arc::new(Field::new(CHANGE_COLUMN, ArrowType::Utf8, false))];
    let schema = sources
        .first()
        .map(|b| b.schema())
        .ok_or_else(|| Error::Invalid("no input rows".into()))?;
    fields.extend(schema.fields()[..value_columns].iter().cloned());
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns)
        .map_err(|e| Error::Invalid(format!("assembling diff rows: {e}")))
}

/// Row-comparable encodings of the key columns and of all value columns of a merged batch.
pub(crate) fn encode(
    batch: &RecordBatch,
    key_cols: &[usize],
    value_columns: usize,
) -> Result<(arrow_row::Rows, arrow_row::Rows)> {
    let err = |e: arrow_schema::ArrowError| Error::Invalid(format!("comparing rows: {e}"));
    let key_fields: Vec<SortField> = key_cols
        .iter()
        .map(|&i| SortField::new(batch.schema().field(i).data_type().clone()))
        .collect();
    let keys = RowConverter::new(key_fields)
        .map_err(err)?
        .convert_columns(
            &key_cols
                .iter()
                .map(|&i| batch.column(i).clone())
                .collect::<Vec<_>>(),
        )
        .map_err(err)?;
    let all_fields: Vec<SortField> = (0..value_columns)
        .map(|i| SortField::new(batch.schema().field(i).data_type().clone()))
        .collect();
    let all = RowConverter::new(all_fields)
        .map_err(err)?
        .convert_columns(&batch.columns()[..value_columns])
        .map_err(err)?;
    Ok((keys, all))
}

async fn pk_bucket_diff(
    reader: &BucketReader<'_>,
    before: Option<&Split>,
    after: Option<&Split>,
    counts: &mut PartitionCounts,
) -> Result<(Vec<RecordBatch>, usize)> {
    let (a, read_a) = reader.merged(before, false).await?;
    let (b, read_b) = reader.merged(after, false).await?;
    let files = read_a + read_b;
    let key_cols = reader.key_columns()?;
    let batches = diff_sides(a.batch, b.batch, &key_cols, reader.value_columns(), counts)?;
    Ok((batches, files))
}

/// The changes from side A's rows to side B's (`None`: no rows), matched by `key_cols`
/// ([`match_by_key`]).
fn diff_sides(
    a: Option<RecordBatch>,
    b: Option<RecordBatch>,
    key_cols: &[usize],
    value_columns: usize,
    counts: &mut PartitionCounts,
) -> Result<Vec<RecordBatch>> {
    Ok(match (a, b) {
        (None, None) => Vec::new(),
        (Some(a), None) => vec![pick_all(&a, Change::Delete, value_columns, counts)?],
        (None, Some(b)) => vec![pick_all(&b, Change::Insert, value_columns, counts)?],
        (Some(a), Some(b)) => match_by_key(&a, &b, key_cols, value_columns, counts)?,
    })
}

/// Rows of `b` whose key is not in `a` are inserts, rows of `a` whose key is not in `b`
/// deletes, and a key in both with other values an `update_before` (A's row) followed by its
/// `update_after` (B's row). `key_cols` index columns of both batches; the first
/// `value_columns` are compared and returned.
fn match_by_key(
    a: &RecordBatch,
    b: &RecordBatch,
    key_cols: &[usize],
    value_columns: usize,
    counts: &mut PartitionCounts,
) -> Result<Vec<RecordBatch>> {
    let (a_keys, a_all) = encode(a, key_cols, value_columns)?;
    let (b_keys, b_all) = encode(b, key_cols, value_columns)?;
    let mut a_index: HashMap<&[u8], usize> = HashMap::with_capacity(a.num_rows());
    for r in 0..a.num_rows() {
        a_index.insert(a_keys.row(r).data(), r);
    }
    let mut picks = Vec::new();
    let mut changes = Vec::new();
    let mut matched = vec![false; a.num_rows()];
    for r in 0..b.num_rows() {
        match a_index.get(b_keys.row(r).data()) {
            None => {
                picks.push((1, r));
                changes.push(Change::Insert);
                counts.inserted += 1;
            }
            Some(&ar) => {
                matched[ar] = true;
                if a_all.row(ar) != b_all.row(r) {
                    picks.push((0, ar));
                    changes.push(Change::UpdateBefore);
                    picks.push((1, r));
                    changes.push(Change::UpdateAfter);
                    counts.updated += 1;
                }
            }
        }
    }
    for (ar, seen) in matched.iter().enumerate() {
        if !seen {
            picks.push((0, ar));
            changes.push(Change::Delete);
            counts.deleted += 1;
        }
    }
    if picks.is_empty() {
        return Ok(Vec::new());
    }
    Ok(vec![pick(&[a, b], &picks, &changes, value_columns)?])
}

async fn append_bucket_diff(
    reader: &BucketReader<'_>,
    before: Option<&Split>,
    after: Option<&Split>,
    counts: &mut PartitionCounts,
) -> Result<(Vec<RecordBatch>, usize)> {
    let n = reader.value_columns();
    let empty: Vec<std::sync::Arc<DataFileMeta>> = Vec::new();
    let a_files = before.map_or(&empty, |s| &s.files);
    let b_files = after.map_or(&empty, |s| &s.files);
    if read::stitch::needs_stitching(a_files) || read::stitch::needs_stitching(b_files) {
        return evolution_bucket_diff(reader, before, after, counts).await;
    }
    let mut out = Vec::new();
    let mut files = 0;
    // Inserts: B's files (all rows of files new in B; rows of common files deleted only in A).
    // Deletes: A's files (all rows of files gone in B; rows of common files deleted only in B).
    for (side, other_side, change) in [
        (after, before, Change::Insert),
        (before, after, Change::Delete),
    ] {
        let Some(split) = side else { continue };
        let others = if change == Change::Insert {
            a_files
        } else {
            b_files
        };
        for file in if change == Change::Insert {
            b_files
        } else {
            a_files
        } {
            let in_other = others.iter().any(|o| o.file_name == file.file_name);
            let batches = if !in_other {
                let live = reader.files.read_live_rows(split, file).await?;
                files += 1;
                live
            } else {
                // Live on both sides: rows deleted only on the other side changed.
                let own_dv = reader.files.deletion_vector(split, file).await?;
                let Some(other) = other_side else { continue };
                let other_dv = reader.files.deletion_vector(other, file).await?;
                let newly: Vec<u64> = match (&own_dv, &other_dv) {
                    (_, None) => continue,
                    (None, Some(o)) => o.positions().collect(),
                    (Some(d), Some(o)) => o.positions().filter(|p| !d.is_deleted(*p)).collect(),
                };
                if newly.is_empty() {
                    continue;
                }
                let raw = reader.read_file(split, file).await?;
                files += 1;
                // Rows live on `side` but deleted on the other side: `change` itself.
                DeletionVector::from_positions(newly).select(raw)?
            };
            for b in batches.iter().filter(|b| b.num_rows() > 0) {
                out.push(pick_all(b, change, n, counts)?);
            }
        }
    }
    Ok((out, files))
}

/// The diff of a data-evolution bucket whose files are stitched by row id on either side (column
/// updates, rows written with only some columns): files cannot be compared one by one, since a
/// file holds only some columns of its rows. Both sides are read whole, stitched, with
/// `_ROW_ID` ([`read::row_tracking`]), and matched by row id: a row whose columns changed (an
/// update by row id, a MERGE INTO) is an `update_before`/`update_after` pair.
async fn evolution_bucket_diff(
    reader: &BucketReader<'_>,
    before: Option<&Split>,
    after: Option<&Split>,
    counts: &mut PartitionCounts,
) -> Result<(Vec<RecordBatch>, usize)> {
    let (a, read_a) = reader.tracked_rows(before).await?;
    let (b, read_b) = reader.tracked_rows(after).await?;
    let n = reader.value_columns();
    // `_ROW_ID` follows the value columns
    let batches = diff_sides(a, b, &[n], n, counts)?;
    Ok((batches, read_a + read_b))
}

/// Every row of `batch` as `change`, counted in `counts`.
fn pick_all(
    batch: &RecordBatch,
    change: Change,
    value_columns: usize,
    counts: &mut PartitionCounts,
) -> Result<RecordBatch> {
    add_count(counts, change, batch.num_rows());
    let picks: Vec<_> = (0..batch.num_rows()).map(|r| (0, r)).collect();
    pick(&[batch], &picks, &vec![change; picks.len()], value_columns)
}

fn add_count(counts: &mut PartitionCounts, change: Change, rows: usize) {
    match change {
        Change::Insert => counts.inserted += rows as u64,
        Change::Delete => counts.deleted += rows as u64,
        _ => counts.updated += rows as u64,
    }
}

/// Reads single (partition, bucket)s with one read schema exactly as a batch read does (the
/// batch read's [`SplitReader`]), plus what diffs need on top: key columns and merged sides.
pub(crate) struct BucketReader<'a> {
    files: SplitReader<'a>,
}

impl<'a> BucketReader<'a> {
    pub(crate) fn new(table: &'a Table, schema: Rc<TableSchema>) -> Result<Self> {
        Ok(Self {
            files: SplitReader::new(table, schema)?,
        })
    }

    pub(crate) fn is_primary_key_table(&self) -> bool {
        self.files.is_primary_key_table()
    }

    /// Arrow schema of the table's columns (without system columns).
    pub(crate) fn value_schema(&self) -> SchemaRef {
        read::to_arrow_schema(&self.files.schema().fields)
    }

    pub(crate) fn value_columns(&self) -> usize {
        self.files.schema().fields.len()
    }

    /// Indices of the primary-key columns among the value columns.
    pub(crate) fn key_columns(&self) -> Result<Vec<usize>> {
        let schema = self.files.schema();
        schema
            .primary_keys
            .iter()
            .map(|k| {
                schema
                    .field_index(k)
                    .ok_or_else(|| Error::Invalid(format!("primary key '{k}' is not a column")))
            })
            .collect()
    }

    /// Decodes one data file (no deletion vector applied): the table's columns, plus
    /// `_SEQUENCE_NUMBER` and `_VALUE_KIND` for key-value files.
    pub(crate) async fn read_file(
        &self,
        split: &Split,
        file: &DataFileMeta,
    ) -> Result<Vec<RecordBatch>> {
        self.files.read_data_file(split, file).await
    }

    /// The live rows of an append bucket with `_ROW_ID` and `_SEQUENCE_NUMBER` after the value
    /// columns, as one batch (`None` when it has none), and the number of files read.
    pub(crate) async fn tracked_rows(
        &self,
        split: Option<&Split>,
    ) -> Result<(Option<RecordBatch>, usize)> {
        let Some(split) = split else {
            return Ok((None, 0));
        };
        let request = crate::table_read::ReadRequest {
            with_row_tracking: true,
            ..Default::default()
        };
        let batches = self.files.read_split(split, &request).await?;
        let files = split.files.len();
        let Some(first) = batches.first() else {
            return Ok((None, files));
        };
        let batch = arrow_select::concat::concat_batches(&first.schema(), &batches)
            .map_err(|e| Error::Invalid(format!("concatenating stitched rows: {e}")))?;
        Ok(((batch.num_rows() > 0).then_some(batch), files))
    }

    /// Merges the live files of a primary-key bucket as a batch read does (level-0 files
    /// skipped for deletion-vector and first-row tables, deletion vectors applied). Returns the
    /// merged rows (value columns + `_VALUE_KIND`) as one batch, and the number of files read.
    /// With `keep_deletes`, keys whose merged record is a retraction are kept.
    pub(crate) async fn merged(
        &self,
        split: Option<&Split>,
        keep_deletes: bool,
    ) -> Result<(MergedSide, usize)> {
        let Some(split) = split else {
            return Ok((MergedSide { batch: None }, 0));
        };
        let skip_level0 = self.files.skips_level_zero();
        let mut runs = Vec::new();
        for file in split.files.iter().filter(|f| !skip_level0 || f.level > 0) {
            runs.push(self.files.read_live_rows(split, file).await?);
        }
        let files = runs.len();
        if runs.iter().all(|r| r.iter().all(|b| b.num_rows() == 0)) {
            return Ok((MergedSide { batch: None }, files));
        }
        let merger = self.files.merge_reader(runs, keep_deletes)?;
        let schema = merger.schema();
        let batches = merger.collect::<Result<Vec<_>>>()?;
        let Some(schema) = schema else {
            return Ok((MergedSide { batch: None }, files));
        };
        let batch = arrow_select::concat::concat_batches(&schema, &batches)
            .map_err(|e| Error::Invalid(format!("concatenating merged rows: {e}")))?;
        if batch.num_rows() == 0 {
            return Ok((MergedSide { batch: None }, files));
        }
        Ok((MergedSide { batch: Some(batch) }, files))
    }
}

/// `_VALUE_KIND` of a merged/key-value batch column.
pub(crate) fn value_kinds(batch: &RecordBatch, column: usize) -> Result<&Int8Array> {
    batch
        .column(column)
        .as_any()
        .downcast_ref::<Int8Array>()
        .ok_or_else(|| Error::Invalid("_VALUE_KIND is not TINYINT".into()))
}
