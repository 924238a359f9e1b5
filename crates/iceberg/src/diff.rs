//! Snapshot diff of an Iceberg table: the rows inserted, deleted and changed between two snapshots.
//!
//! # What is read
//! Both snapshots are *planned* (manifests only). A data file live in both plans whose set of
//! applicable delete files (position deletes, deletion vectors, equality deletes) is identical
//! yields exactly the same rows on both sides, so it is skipped on both sides. Every other data
//! file — new in B, gone from B, or live in both with a different delete-file set — is read on
//! the side(s) where it is live, deletes applied as a batch read does. Memory is bounded by the
//! rows of those differing files; untouched files cost no data read at all. "Applicable" is the
//! planner's rule: a position delete file without `referenced_data_file` applies to every data
//! file of an older or equal sequence number, so a commit of such deletes makes all older data
//! files differ (correct, but read more than strictly needed).
//!
//! # How rows are matched
//! * **Identifier fields** (the schema's primary key): rows are matched by key. A key only in B
//!   is an `insert`, only in A a `delete`, in both with other values an `update_before` (A's row)
//!   immediately followed by its `update_after` (B's row); [`SnapshotDiff::changed_columns`]
//!   names the columns that differ. Rows equal on both sides (e.g. the surviving rows of a file
//!   that got a delete file) cancel out.
//! * **No identifier fields**: a multiset difference of whole rows — each row of B cancels one
//!   equal row of A; what is left of B is `insert`, of A `delete` (no `update`s).
//!
//! Both sides are read with B's schema, columns matched by field id (columns A lacks are null),
//! as the Paimon diff does. The result reuses the Paimon diff's [`Change`] kinds, `_change`
//! column and [`PartitionCounts`]; partitions are the data files' partition tuples as text
//! (`name=value`, dates for day/month/year/hour transforms), counted where the row lives (an
//! update in B's partition).

use crate::convert::to_data_fields;
use crate::plan::{plan, FileTask, ScanPlan};
use crate::read::{read_task, DeleteCache};
use crate::scan::{output_batch, output_schema, read_fields};
use crate::spec::manifest::Literal;
use crate::spec::transform::{civil_from_days, Transform};
use crate::spec::{Schema, Snapshot};
use crate::table::{SnapshotSelector, Table};
use crate::{Error, Result};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_row::{RowConverter, Rows, SortField};
use arrow_schema::{DataType as ArrowType, Field, Schema as ArrowSchema, SchemaRef};
pub use lakescope_format::diff::{Change, DiffProgress, PartitionCounts, CHANGE_COLUMN};
use lakescope_format::spec::binary_row::Datum;
use lakescope_format::spec::DataField;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

/// The difference between two snapshots of an Iceberg table.
#[derive(Debug, Clone)]
pub struct SnapshotDiff {
    /// The "from" snapshot id (`None`: the empty table before the first snapshot).
    pub from: Option<i64>,
    /// The "to" snapshot id.
    pub to: Option<i64>,
    /// `_change` (insert/delete/update_before/update_after), then B's columns.
    pub schema: SchemaRef,
    /// Changed rows; each `update_before` row is immediately followed by its `update_after`.
    pub batches: Vec<RecordBatch>,
    /// Counts per partition with at least one change, sorted by partition text.
    pub partitions: Vec<PartitionCounts>,
    /// For each update pair, in row order, the names of the columns whose values differ.
    pub changed_columns: Vec<Vec<String>>,
    /// Data files read (both sides).
    pub files_read: usize,
    /// Data files skipped because they and their deletes are the same in both snapshots.
    pub files_skipped: usize,
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

/// [`diff_snapshots`], calling `progress` once planning is done and after every data file read
/// (its units are the differing data files of both sides).
pub async fn diff_snapshots_with_progress(
    table: &Table,
    from: Option<&Snapshot>,
    to: &Snapshot,
    progress: &mut dyn FnMut(DiffProgress),
) -> Result<SnapshotDiff> {
    diff_inner(table, from, to, None, progress)
        .await
        .map_err(|e| named(table, from, to, e))
}

/// Diffs the snapshots two selectors name (`from` `None`: the empty table), each side read with
/// the schema [`Table::read_schema_at`] gives it: a branch (`main` too) with the table's current
/// schema, a snapshot named by id, time or tag with its own. B's schema shapes the output.
pub async fn diff_at(
    table: &Table,
    from: Option<&SnapshotSelector>,
    to: &SnapshotSelector,
    progress: &mut dyn FnMut(DiffProgress),
) -> Result<SnapshotDiff> {
    let a = match from {
        Some(sel) => table.snapshot(sel)?,
        None => None,
    };
    let b = table.snapshot(to)?.ok_or_else(|| {
        Error::Invalid(format!("diff of {}: {to} has no snapshot yet", table.key()))
    })?;
    let schema_b = table.read_schema_at(to)?;
    let schema_a = match (from, a) {
        (Some(sel), Some(_)) => table.read_schema_at(sel)?,
        _ => schema_b,
    };
    diff_inner(table, a, b, Some((schema_a, schema_b)), progress)
        .await
        .map_err(|e| named(table, a, b, e))
}

/// `e` with the table and snapshots named.
fn named(table: &Table, from: Option<&Snapshot>, to: &Snapshot, e: Error) -> Error {
    match e {
        Error::Invalid(m) => Error::Invalid(format!(
            "diff of {} snapshot {} → {}: {m}",
            table.key(),
            from.map_or("none".to_string(), |s| s.snapshot_id.to_string()),
            to.snapshot_id
        )),
        other => other,
    }
}

/// A task's identity: the data file and the delete files (key, blob offset) that apply to it.
type TaskIdentity = (String, Vec<(String, Option<i64>)>);

fn identity(task: &FileTask) -> TaskIdentity {
    let mut deletes: Vec<_> = task
        .position_deletes
        .iter()
        .chain(&task.equality_deletes)
        .map(|d| (d.key.clone(), d.file.content_offset))
        .collect();
    deletes.sort();
    (task.data.key.clone(), deletes)
}

/// The rows of one side: B's columns, plus the partition (index into `parts`) of each row.
#[derive(Default)]
struct Side {
    batches: Vec<RecordBatch>,
    row_parts: Vec<usize>,
    files: usize,
}

/// `schemas`: A's and B's read schemas (default: each snapshot's own).
async fn diff_inner(
    table: &Table,
    from: Option<&Snapshot>,
    to: &Snapshot,
    schemas: Option<(&Schema, &Schema)>,
    progress: &mut dyn FnMut(DiffProgress),
) -> Result<SnapshotDiff> {
    let schema_b = match schemas {
        Some((_, b)) => b,
        None => table.read_schema(Some(to))?,
    };
    let values = output_schema(table, schema_b)?;
    let plan_b = plan(table, to).await?;
    let plan_a = match from {
        Some(a) => plan(table, a).await?,
        None => ScanPlan::default(),
    };
    let ids_a: HashSet<_> = plan_a.tasks.iter().map(identity).collect();
    let ids_b: HashSet<_> = plan_b.tasks.iter().map(identity).collect();
    let mut parts = PartitionNames::default();
    let reader = SideReader::new(table, schema_b)?;
    let schema_a = match (schemas, from) {
        (Some((a, _)), _) => a,
        (None, Some(a)) => table.read_schema(Some(a))?,
        (None, None) => schema_b,
    };
    let differing = |plan: &ScanPlan, other: &HashSet<TaskIdentity>| {
        plan.tasks
            .iter()
            .filter(|t| !other.contains(&identity(t)))
            .count()
    };
    let mut done = DiffProgress {
        total: differing(&plan_a, &ids_b) + differing(&plan_b, &ids_a),
        ..DiffProgress::default()
    };
    progress(done);
    let mut file_read = || {
        done.done += 1;
        done.files_read += 1;
        progress(done);
    };
    let a = reader
        .read(
            &plan_a,
            &ids_b,
            schema_a,
            &values,
            &mut parts,
            &mut file_read,
        )
        .await?;
    let b = reader
        .read(
            &plan_b,
            &ids_a,
            schema_b,
            &values,
            &mut parts,
            &mut file_read,
        )
        .await?;
    let skipped = plan_b.tasks.len() - (b.files);
    let key_cols: Vec<usize> = schema_b
        .identifier_field_ids
        .iter()
        .map(|id| {
            schema_b
                .fields
                .iter()
                .position(|f| f.id == *id)
                .ok_or_else(|| Error::Invalid(format!("identifier field {id} is not a column")))
        })
        .collect::<Result<_>>()?;
    let a_rows = concat(&values, &a.batches)?;
    let b_rows = concat(&values, &b.batches)?;
    let matched = match_rows(&a_rows, &b_rows, &key_cols)?;
    let mut counts: BTreeMap<usize, PartitionCounts> = BTreeMap::new();
    let mut count = |part: usize, change: Change| {
        let c = counts.entry(part).or_insert_with(|| PartitionCounts {
            partition: parts.datums(part),
            ..PartitionCounts::default()
        });
        match change {
            Change::Insert => c.inserted += 1,
            Change::Delete => c.deleted += 1,
            Change::UpdateAfter => c.updated += 1,
            Change::UpdateBefore => {}
        }
    };
    for &(side, row, change) in &matched {
        let part = if side == 0 {
            a.row_parts[row]
        } else {
            b.row_parts[row]
        };
        count(part, change);
    }
    // Each update_before (A's row) is immediately followed by its update_after (B's row).
    let changed_columns = matched
        .iter()
        .zip(matched.iter().skip(1))
        .filter(|(before, _)| before.2 == Change::UpdateBefore)
        .map(|(before, after)| differing_columns(&a_rows, before.1, &b_rows, after.1))
        .collect();
    let schema = diff_schema(&values);
    let batches = if matched.is_empty() {
        Vec::new()
    } else {
        vec![pick(&schema, &a_rows, &b_rows, &matched)?]
    };
    let mut partitions: Vec<PartitionCounts> = counts.into_values().collect();
    partitions.sort_by_key(|p| {
        p.partition
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
    });
    Ok(SnapshotDiff {
        from: from.map(|s| s.snapshot_id),
        to: Some(to.snapshot_id),
        schema,
        batches,
        partitions,
        changed_columns,
        files_read: a.files + b.files,
        files_skipped: skipped,
    })
}

/// Reads one side's differing tasks onto B's columns.
struct SideReader<'a> {
    table: &'a Table,
    schema_b: &'a Schema,
    fields_b: Vec<DataField>,
}

impl<'a> SideReader<'a> {
    fn new(table: &'a Table, schema_b: &'a Schema) -> Result<Self> {
        Ok(Self {
            table,
            schema_b,
            fields_b: read_fields(table, schema_b)?,
        })
    }

    /// Reads the tasks of `plan` whose identity is not in `other`, calling `file_read` after
    /// each. `own` is the side's schema (for equality-delete columns B no longer has).
    async fn read(
        &self,
        plan: &ScanPlan,
        other: &HashSet<TaskIdentity>,
        own: &Schema,
        values: &SchemaRef,
        parts: &mut PartitionNames,
        file_read: &mut dyn FnMut(),
    ) -> Result<Side> {
        let n = self.fields_b.len();
        let mut side = Side::default();
        let mut cache = DeleteCache::default();
        for task in plan.tasks.iter().filter(|t| !other.contains(&identity(t))) {
            let mut fields = self.fields_b.clone();
            let mut extra = Vec::new();
            for id in task
                .equality_deletes
                .iter()
                .flat_map(|d| d.file.equality_ids.iter())
            {
                let known = fields.iter().any(|f| f.id == *id);
                if !known && !extra.iter().any(|f: &crate::spec::NestedField| f.id == *id) {
                    extra.extend(own.field(*id).cloned());
                }
            }
            if !extra.is_empty() {
                fields.extend(to_data_fields(&extra).ok_or_else(|| {
                    Error::unsupported(&task.data.key, "an equality column type cannot be read")
                })?);
            }
            let needed: Vec<usize> = (0..fields.len()).collect();
            let indices: Vec<usize> = (0..n).collect();
            let part = parts.index(self.table, task);
            for batch in read_task(self.table, task, &fields, &mut cache).await? {
                if batch.num_rows() == 0 {
                    continue;
                }
                let batch = output_batch(
                    self.schema_b,
                    values,
                    &indices,
                    &needed,
                    &batch,
                    &task.data.key,
                )?;
                side.row_parts
                    .extend(std::iter::repeat_n(part, batch.num_rows()));
                side.batches.push(batch);
            }
            side.files += 1;
            file_read();
        }
        Ok(side)
    }
}

/// Distinct partition tuples as text, indexed in order of appearance.
#[derive(Default)]
struct PartitionNames {
    names: Vec<Vec<String>>,
    index: HashMap<Vec<String>, usize>,
}

impl PartitionNames {
    fn index(&mut self, table: &Table, task: &FileTask) -> usize {
        let spec = table.metadata().spec(task.data.spec_id);
        let text: Vec<String> = task
            .data
            .file
            .partition
            .iter()
            .map(|(name, value)| {
                let transform = spec
                    .and_then(|s| s.fields.iter().find(|f| &f.name == name))
                    .and_then(|f| Transform::parse(&f.transform));
                format!("{name}={}", literal_text(value.as_ref(), transform))
            })
            .collect();
        let next = self.names.len();
        *self.index.entry(text.clone()).or_insert_with(|| {
            self.names.push(text);
            next
        })
    }

    fn datums(&self, index: usize) -> Vec<Datum> {
        self.names
            .get(index)
            .map(|n| n.iter().map(|t| Datum::String(t.clone())).collect())
            .unwrap_or_default()
    }
}

/// A partition value as text: temporal transforms as dates, bytes as hex.
fn literal_text(value: Option<&Literal>, transform: Option<Transform>) -> String {
    let Some(value) = value else {
        return "null".into();
    };
    let n = match value {
        Literal::Int(v) => Some(i64::from(*v)),
        Literal::Long(v) => Some(*v),
        _ => None,
    };
    match (transform, n) {
        (Some(Transform::Day), Some(d)) => {
            let (y, m, d) = civil_from_days(d);
            return format!("{y:04}-{m:02}-{d:02}");
        }
        (Some(Transform::Month), Some(months)) => {
            return format!(
                "{:04}-{:02}",
                1970 + months.div_euclid(12),
                months.rem_euclid(12) + 1
            );
        }
        (Some(Transform::Year), Some(y)) => return format!("{}", 1970 + y),
        (Some(Transform::Hour), Some(h)) => {
            let (y, m, d) = civil_from_days(h.div_euclid(24));
            return format!("{y:04}-{m:02}-{d:02}-{:02}", h.rem_euclid(24));
        }
        _ => {}
    }
    match value {
        Literal::Boolean(b) => b.to_string(),
        Literal::Int(v) => v.to_string(),
        Literal::Long(v) => v.to_string(),
        Literal::Float(v) => v.to_string(),
        Literal::Double(v) => v.to_string(),
        Literal::String(s) => s.clone(),
        Literal::Bytes(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
        Literal::Decimal(v) => v.to_string(),
    }
}

fn concat(schema: &SchemaRef, batches: &[RecordBatch]) -> Result<RecordBatch> {
    arrow_select::concat::concat_batches(schema, batches)
        .map_err(|e| Error::Invalid(format!("concatenating rows: {e}")))
}

/// Row-comparable encodings of the columns `cols` of `batch`.
fn encode(batch: &RecordBatch, cols: &[usize]) -> Result<Rows> {
    let err = |e: arrow_schema::ArrowError| Error::Invalid(format!("comparing rows: {e}"));
    let fields = cols
        .iter()
        .map(|&i| SortField::new(batch.schema().field(i).data_type().clone()))
        .collect();
    let columns: Vec<ArrayRef> = cols.iter().map(|&i| batch.column(i).clone()).collect();
    RowConverter::new(fields)
        .map_err(err)?
        .convert_columns(&columns)
        .map_err(err)
}

/// Matches A's rows (side 0) to B's (side 1): `(side, row, change)` in output order.
fn match_rows(
    a: &RecordBatch,
    b: &RecordBatch,
    key_cols: &[usize],
) -> Result<Vec<(usize, usize, Change)>> {
    let all: Vec<usize> = (0..a.num_columns()).collect();
    let (a_all, b_all) = (encode(a, &all)?, encode(b, &all)?);
    // Without identifier fields the whole row is the key.
    let (a_keys, b_keys) = if key_cols.is_empty() {
        (None, None)
    } else {
        (Some(encode(a, key_cols)?), Some(encode(b, key_cols)?))
    };
    let key_of = |keys: &Option<Rows>, full: &Rows, r: usize| -> Vec<u8> {
        keys.as_ref().map_or_else(
            || full.row(r).as_ref().to_vec(),
            |k| k.row(r).as_ref().to_vec(),
        )
    };
    let mut by_key: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
    for r in (0..a.num_rows()).rev() {
        by_key
            .entry(key_of(&a_keys, &a_all, r))
            .or_default()
            .push(r);
    }
    let mut out = Vec::new();
    let mut matched = vec![false; a.num_rows()];
    for r in 0..b.num_rows() {
        let candidates = by_key.get_mut(&key_of(&b_keys, &b_all, r));
        let Some(candidates) = candidates.filter(|c| !c.is_empty()) else {
            out.push((1, r, Change::Insert));
            continue;
        };
        // Prefer an A row equal in every column (duplicate keys pair up unchanged first).
        let at = candidates
            .iter()
            .rposition(|&ar| a_all.row(ar) == b_all.row(r))
            .unwrap_or(candidates.len() - 1);
        let ar = candidates.remove(at);
        matched[ar] = true;
        if a_all.row(ar) != b_all.row(r) {
            out.push((0, ar, Change::UpdateBefore));
            out.push((1, r, Change::UpdateAfter));
        }
    }
    out.extend(
        matched
            .iter()
            .enumerate()
            .filter(|(_, m)| !**m)
            .map(|(r, _)| (0, r, Change::Delete)),
    );
    Ok(out)
}

/// Names of the columns whose values differ between row `ar` of `a` and row `br` of `b`.
fn differing_columns(a: &RecordBatch, ar: usize, b: &RecordBatch, br: usize) -> Vec<String> {
    a.schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(c, _)| {
            let x = a.column(*c).slice(ar, 1);
            let y = b.column(*c).slice(br, 1);
            x.to_data() != y.to_data()
        })
        .map(|(_, f)| f.name().clone())
        .collect()
}

fn diff_schema(values: &SchemaRef) -> SchemaRef {
    let mut fields = vec![Arc::new(Field::new(CHANGE_COLUMN, ArrowType::Utf8, false))];
    fields.extend(values.fields().iter().cloned());
    Arc::new(ArrowSchema::new(fields))
}

/// `_change` then the picked rows of A (side 0) and B (side 1).
fn pick(
    schema: &SchemaRef,
    a: &RecordBatch,
    b: &RecordBatch,
    picks: &[(usize, usize, Change)],
) -> Result<RecordBatch> {
    let err = |e: arrow_schema::ArrowError| Error::Invalid(format!("assembling diff rows: {e}"));
    let mut columns: Vec<ArrayRef> = vec![Arc::new(StringArray::from(
        picks.iter().map(|p| p.2.as_str()).collect::<Vec<_>>(),
    ))];
    let index: Vec<(usize, usize)> = picks.iter().map(|p| (p.0, p.1)).collect();
    for c in 0..a.num_columns() {
        let arrays: [&dyn Array; 2] = [a.column(c).as_ref(), b.column(c).as_ref()];
        columns.push(arrow_select::interleave::interleave(&arrays, &index).map_err(err)?);
    }
    RecordBatch::try_new(schema.clone(), columns).map_err(err)
}
