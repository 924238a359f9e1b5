//! Cross-partition upsert (dynamic bucket, primary key lacking partition fields): a global key → (partition, bucket) index, as Java's `GlobalIndexAssigner`.
//!
//! The index is bootstrapped from the latest snapshot's merged rows (as `IndexBootstrap`): each
//! live primary key with its split's partition and bucket, and per partition the number of keys
//! of each bucket. Rows are then taken in input order: a known key in its partition keeps its
//! bucket; a key arriving in another partition is handled by the merge engine (Java's
//! `ExistingProcessor`): deduplicate writes a `-D` of the row (with the old partition's values)
//! to the old bucket and places the row as a new key; partial-update and aggregation write the
//! row, as `+I`, to the old partition and bucket; first-row drops it. A new key goes to the lowest bucket
//! of its partition holding fewer than `dynamic-bucket.target-row-num` keys, else the lowest
//! unused one. With no key to bootstrap, Java's bulk-load path applies instead: rows sorted by
//! key, one per key for deduplicate (the last) and first-row (the first), buckets assigned in
//! key order, later rows of a partial-update/aggregation key following its first row (as `+I`).
//! Row kinds do not matter to the assignment. The index key is the whole primary key (Paimon
//! 1.x; 0.9 matches where the key has no partition field). No HASH index files are written in this mode.

use super::binary_row::serialize;
use super::datum::datum_at;
use super::input::{project, ROW_KIND_COLUMN};
use crate::error::{Error, Result};
use crate::merge::RowKind;
use crate::scan::{plan, PartitionFilter};
use crate::spec::binary_row::Datum;
use crate::spec::options::MergeEngine;
use crate::spec::schema::TableSchema;
use crate::spec::types::DataType;
use crate::table::Table;
use crate::table_read::{ReadRequest, SplitReader};
use arrow_array::{Array, ArrayRef, Int8Array, RecordBatch};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

/// Whether `schema` is written in cross-partition upsert mode: a primary-key table with
/// `bucket` = -1 whose primary key lacks a partition field.
pub(crate) fn applies(schema: &TableSchema) -> Result<bool> {
    Ok(!schema.primary_keys.is_empty()
        && schema.core_options().bucket()? == -1
        && schema
            .partition_keys
            .iter()
            .any(|p| !schema.primary_keys.contains(p)))
}

/// The rows to write, in write order, with the bucket of each.
pub(crate) struct Assigned {
    /// The table's columns plus `_VALUE_KIND`.
    pub batch: RecordBatch,
    /// Bucket of each row of `batch`.
    pub buckets: Vec<i32>,
}

/// One output row: the input row it comes from, the partition whose values it carries when
/// not its own (an index into the partition samples), its kind and bucket.
struct OutRow {
    source: usize,
    partition: Option<(usize, usize)>,
    kind: RowKind,
    bucket: i32,
}

/// The index state of one write.
struct Index {
    target: i64,
    engine: MergeEngine,
    /// Primary key BinaryRow → (partition BinaryRow, bucket).
    keys: HashMap<Vec<u8>, (Vec<u8>, i32)>,
    /// Partition → bucket → keys (Java's `BucketAssigner` statistics).
    stats: HashMap<Vec<u8>, BTreeMap<i32, i64>>,
    /// Partition → (sample source, row) holding its values: source 0 is the input, source
    /// `n > 0` the bootstrap batch `n - 1`.
    samples: HashMap<Vec<u8>, (usize, usize)>,
}

impl Index {
    /// Java `BucketAssigner.assignBucket` with one assigner.
    fn assign_bucket(&mut self, partition: &[u8]) -> i32 {
        let target = self.target;
        let buckets = self.stats.entry(partition.to_vec()).or_default();
        if let Some((b, n)) = buckets.iter_mut().find(|(_, n)| **n < target) {
            *n += 1;
            return *b;
        }
        let free = (0..).find(|b| !buckets.contains_key(b)).unwrap_or(0);
        buckets.insert(free, 1);
        free
    }

    fn decrement(&mut self, partition: &[u8], bucket: i32) {
        let n = self
            .stats
            .entry(partition.to_vec())
            .or_default()
            .entry(bucket)
            .or_insert(0);
        *n = (*n - 1).max(0);
    }
}

/// `dynamic-bucket.target-row-num` (default 2 000 000), as Java's `int` cast of it.
fn target_row_num(table: &Table, schema: &TableSchema) -> Result<i64> {
    match schema.options.get("dynamic-bucket.target-row-num") {
        None => Ok(2_000_000),
        Some(v) => v
            .trim()
            .parse::<i64>()
            .map(|n| n as i32 as i64)
            .map_err(|_| {
                Error::Invalid(format!(
                    "{}: dynamic-bucket.target-row-num '{v}' is not a number",
                    table.path()
                ))
            }),
    }
}

/// Assigns the rows of `batches` to partitions and buckets against the latest snapshot.
pub(crate) async fn assign(
    table: &Table,
    schema: &Rc<TableSchema>,
    batches: &[RecordBatch],
) -> Result<Assigned> {
    let (columns, kinds) = project(schema, batches)?;
    let rows = kinds.len();
    let field_idx = |n: &String| {
        schema.field_index(n).ok_or_else(|| Error::NotFound {
            what: format!("column {n}"),
            context: Some(format!("schema {}", schema.id)),
        })
    };
    let key_idx: Vec<usize> = schema
        .primary_keys
        .iter()
        .map(field_idx)
        .collect::<Result<_>>()?;
    let part_idx: Vec<usize> = schema
        .partition_keys
        .iter()
        .map(field_idx)
        .collect::<Result<_>>()?;
    let types_of = |idx: &[usize]| -> Vec<DataType> {
        idx.iter()
            .map(|i| schema.fields[*i].data_type.clone())
            .collect()
    };
    let (key_types, part_types) = (types_of(&key_idx), types_of(&part_idx));
    let datums = |cols: &[ArrayRef], idx: &[usize], row: usize| -> Result<Vec<Datum>> {
        idx.iter()
            .map(|i| datum_at(cols[*i].as_ref(), row, &schema.fields[*i].data_type))
            .collect()
    };
    let mut index = Index {
        target: target_row_num(table, schema)?,
        engine: schema.core_options().merge_engine()?,
        keys: HashMap::new(),
        stats: HashMap::new(),
        samples: HashMap::new(),
    };
    // Bootstrap (Java `IndexBootstrap`): the live keys of every split of the latest snapshot.
    let mut boot: Vec<RecordBatch> = Vec::new();
    if let Some(snapshot) = table.latest_snapshot().await? {
        let reader = SplitReader::new(table, schema.clone())?;
        for split in plan(table, &snapshot, &PartitionFilter::All).await?.splits {
            let request = ReadRequest {
                latest_schema: true,
                ..ReadRequest::default()
            };
            for batch in reader.read_split(&split, &request).await? {
                let cols = batch.columns();
                for row in 0..batch.num_rows() {
                    let key = serialize(&datums(cols, &key_idx, row)?, &key_types)?;
                    let previous = index
                        .keys
                        .insert(key, (split.partition_bytes.clone(), split.bucket));
                    if previous.is_some() {
                        return Err(Error::Invalid(format!(
                            "{}: cross-partition upsert: a primary key is live in two places (Java's bootstrap refuses such a table too)",
                            table.path()
                        )));
                    }
                    *index
                        .stats
                        .entry(split.partition_bytes.clone())
                        .or_default()
                        .entry(split.bucket)
                        .or_insert(0) += 1;
                    index
                        .samples
                        .entry(split.partition_bytes.clone())
                        .or_insert((boot.len() + 1, row));
                }
                boot.push(batch);
            }
        }
    }
    let mut keys = Vec::with_capacity(rows);
    let mut parts = Vec::with_capacity(rows);
    for row in 0..rows {
        keys.push(datums(&columns, &key_idx, row)?);
        let part = serialize(&datums(&columns, &part_idx, row)?, &part_types)?;
        index.samples.entry(part.clone()).or_insert((0, row));
        parts.push(part);
    }
    let out = if index.keys.is_empty() {
        bulk_load(&mut index, &keys, &parts, &kinds)
    } else {
        let mut out = Vec::with_capacity(rows);
        for row in 0..rows {
            let key = serialize(&keys[row], &key_types)?;
            process(&mut index, key, &parts[row], row, kinds[row], &mut out)?;
        }
        out
    };
    let batch = output_batch(schema, &columns, &part_idx, &boot, &out)?;
    Ok(Assigned {
        batch,
        buckets: out.iter().map(|o| o.bucket).collect(),
    })
}

/// Java `GlobalIndexAssigner.processInput` for one row.
fn process(
    index: &mut Index,
    key: Vec<u8>,
    part: &[u8],
    row: usize,
    kind: RowKind,
    out: &mut Vec<OutRow>,
) -> Result<()> {
    let emit = |out: &mut Vec<OutRow>, partition: Option<(usize, usize)>, kind, bucket| {
        out.push(OutRow {
            source: row,
            partition,
            kind,
            bucket,
        })
    };
    match index.keys.get(&key).cloned() {
        Some((old_part, old_bucket)) if old_part.as_slice() == part => {
            emit(out, None, kind, old_bucket);
        }
        Some((old_part, old_bucket)) => {
            let old = Some(index.samples.get(&old_part).copied().ok_or_else(|| {
                Error::Invalid("cross-partition upsert: a key's partition has no values".into())
            })?);
            match index.engine {
                MergeEngine::Deduplicate => {
                    emit(out, old, RowKind::Delete, old_bucket);
                    index.decrement(&old_part, old_bucket);
                    let bucket = index.assign_bucket(part);
                    index.keys.insert(key, (part.to_vec(), bucket));
                    emit(out, None, kind, bucket);
                }
                MergeEngine::PartialUpdate | MergeEngine::Aggregation => {
                    // Java's `ProjectToRowFunction` builds a new row: its kind is +I.
                    emit(out, old, RowKind::Insert, old_bucket);
                }
                MergeEngine::FirstRow => {}
            }
        }
        None => {
            let bucket = index.assign_bucket(part);
            index.keys.insert(key, (part.to_vec(), bucket));
            emit(out, None, kind, bucket);
        }
    }
    Ok(())
}

/// Java's bulk load of a write into a table without keys (`ExistingProcessor`'s
/// `bulkLoadNewRecords`): rows sorted by key, then input order (descending for deduplicate).
fn bulk_load(
    index: &mut Index,
    keys: &[Vec<Datum>],
    parts: &[Vec<u8>],
    kinds: &[RowKind],
) -> Vec<OutRow> {
    let ascending = index.engine != MergeEngine::Deduplicate;
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|a, b| {
        cmp_keys(&keys[*a], &keys[*b]).then(if ascending { a.cmp(b) } else { b.cmp(a) })
    });
    let mut out = Vec::with_capacity(order.len());
    let mut current: Option<(usize, i32)> = None;
    for (pos, row) in order.iter().copied().enumerate() {
        let same_key = pos > 0 && cmp_keys(&keys[order[pos - 1]], &keys[row]) == Ordering::Equal;
        match current {
            Some((first, bucket)) if same_key => {
                if matches!(
                    index.engine,
                    MergeEngine::PartialUpdate | MergeEngine::Aggregation
                ) {
                    // Java re-projects the row onto the first row's partition: a new +I row.
                    let partition = if parts[first] == parts[row] {
                        None
                    } else {
                        index.samples.get(&parts[first]).copied()
                    };
                    out.push(OutRow {
                        source: row,
                        partition,
                        kind: RowKind::Insert,
                        bucket,
                    });
                }
            }
            _ => {
                let bucket = index.assign_bucket(&parts[row]);
                current = Some((row, bucket));
                out.push(OutRow {
                    source: row,
                    partition: None,
                    kind: kinds[row],
                    bucket,
                });
            }
        }
    }
    out
}

/// Key order of Java's sort buffer: field by field.
fn cmp_keys(a: &[Datum], b: &[Datum]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| *o != Ordering::Equal)
        .unwrap_or(Ordering::Equal)
}

/// The output rows as one batch of the table's columns plus `_VALUE_KIND`: each row's values,
/// with the partition columns of another partition where a row moves to it.
fn output_batch(
    schema: &TableSchema,
    columns: &[ArrayRef],
    part_idx: &[usize],
    boot: &[RecordBatch],
    out: &[OutRow],
) -> Result<RecordBatch> {
    let err = |e: arrow_schema::ArrowError| Error::Invalid(format!("cross-partition upsert: {e}"));
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(columns.len() + 1);
    for (i, column) in columns.iter().enumerate() {
        let is_partition = part_idx.contains(&i);
        // Source 0: the input column; source n > 0: bootstrap batch n - 1's column.
        let mut sources: Vec<&dyn Array> = vec![column.as_ref()];
        if is_partition {
            sources.extend(boot.iter().map(|b| b.column(i).as_ref()));
        }
        let picks: Vec<(usize, usize)> = out
            .iter()
            .map(|o| match o.partition {
                Some(sample) if is_partition => sample,
                _ => (0, o.source),
            })
            .collect();
        arrays.push(arrow_select::interleave::interleave(&sources, &picks).map_err(err)?);
    }
    arrays.push(Arc::new(Int8Array::from(
        out.iter().map(|o| o.kind as i8).collect::<Vec<_>>(),
    )));
    let mut fields: Vec<Field> = schema
        .fields
        .iter()
        .zip(&arrays)
        .map(|(f, a)| Field::new(&f.name, a.data_type().clone(), true))
        .collect();
    fields.push(Field::new(ROW_KIND_COLUMN, ArrowType::Int8, false));
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(err)
}
