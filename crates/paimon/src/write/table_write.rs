//! Turning Arrow batches into new data files of a table: partition, bucket, sort, encode, store.

use super::binary_row::{empty_row, hash_code, serialize};
use super::bucket::BucketAssigner;
use super::cross_partition;
use super::data_file::FileEncoding;
use super::datum::datum_at;
use super::dynamic_bucket::{DynamicBucketAssigner, IndexChange};
use super::env::WriteEnv;
use super::input::project;
use super::sequence_field::UserSequence;
use super::stats;
use crate::error::{Error, Result};
use crate::merge::config::{MergeConfig, MergeEngine as MergeConfigEngine};
use crate::merge::{MergeReader, MergeSettings, RowKind, SEQUENCE_NUMBER, VALUE_KIND};
use crate::spec::binary_row::Datum;
use crate::spec::manifest::{DataFileMeta, SimpleStats};
use crate::spec::options::{ChangelogProducer, CoreOptions, MergeEngine};
use crate::spec::schema::TableSchema;
use crate::spec::types::DataType;
use crate::table::Table;
use arrow_array::{Array, ArrayRef, Int64Array, Int8Array, RecordBatch, UInt32Array};
use arrow_schema::{DataType as ArrowType, Field, Schema};
use bytes::Bytes;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

pub use super::input::ROW_KIND_COLUMN;

/// Rows of one file: (partition BinaryRow bytes, bucket).
type GroupKey = (Vec<u8>, i32);

/// A data file written for a commit, with where it belongs.
#[derive(Debug, Clone, PartialEq)]
pub struct NewFile {
    /// Partition values (partition-key order).
    pub partition: Vec<Datum>,
    /// The `_PARTITION` BinaryRow bytes.
    pub partition_bytes: Vec<u8>,
    /// Bucket.
    pub bucket: i32,
    /// Buckets of the partition (`-1` for bucket-unaware tables).
    pub total_buckets: i32,
    /// The file's metadata.
    pub file: DataFileMeta,
}

/// The checks every write does before touching storage: only layouts Paimon readers will see
/// exactly as written are accepted.
pub fn check_writable(table: &Table, schema: &TableSchema) -> Result<()> {
    let options = schema.core_options();
    let refuse = |what: String| Err(Error::unsupported(table.path(), what));
    check_file_layout(table, schema)?;
    let bucket = options.bucket()?;
    if schema.primary_keys.is_empty() && bucket > 0 && options.bucket_key().is_empty() {
        return refuse("an append table with bucket > 0 needs a 'bucket-key'".into());
    }
    Ok(())
}

/// The checks shared by writes and compactions: files lakescope can encode at the table's
/// paths, a bucket mode it can place them in, valid merge options.
pub(crate) fn check_file_layout(table: &Table, schema: &TableSchema) -> Result<()> {
    table.ensure_main("writing")?;
    let options = schema.core_options();
    let refuse = |what: String| Err(Error::unsupported(table.path(), what));
    let encoding = file_encoding(&options).map_err(|e| match e {
        Error::Unsupported { feature, .. } => Error::unsupported(table.path(), feature),
        e => e,
    })?;
    if options.get("data-file.path-directory").is_some()
        || options.get("data-file.external-paths").is_some()
    {
        return refuse("writing with data-file.path-directory / external paths".into());
    }
    let bucket = options.bucket()?;
    if schema.primary_keys.is_empty() {
        if bucket == -2 {
            return refuse("writing postpone-bucket (bucket=-2) tables".into());
        }
        if options.get("row-tracking.enabled") == Some("true")
            || options.get("data-evolution.enabled") == Some("true")
        {
            return refuse("writing row-tracking / data-evolution tables".into());
        }
    } else {
        if bucket < -1 {
            return refuse(format!("writing bucket={bucket} primary-key tables"));
        }
        // The merge options must be valid, as Java's writer builds the merge function too.
        merge_reader_for(schema)?;
    }
    for f in &schema.fields {
        encoding.check_field(f).map_err(|e| match e {
            Error::Unsupported { feature, .. } => {
                Error::unsupported(table.path(), format!("column '{}': {feature}", f.name))
            }
            e => e,
        })?;
    }
    Ok(())
}

/// Whether Paimon's writers compact the buckets they write before committing: batch readers
/// skip level-0 files (first-row, deletion vectors, `changelog-producer` = `lookup`; Java's
/// lookup compaction) or the changelog comes from compaction (`full-compaction`). lakescope
/// compacts the written buckets in a COMPACT snapshot right after the APPEND; that compaction
/// writes the changelog of lookup / full-compaction tables.
pub(crate) fn compacts_after_write(schema: &TableSchema) -> Result<bool> {
    if schema.primary_keys.is_empty() {
        return Ok(false);
    }
    let options = schema.core_options();
    Ok(options.merge_engine()? == MergeEngine::FirstRow
        || options.deletion_vectors_enabled()?
        || matches!(
            options.changelog_producer()?,
            ChangelogProducer::Lookup | ChangelogProducer::FullCompaction
        ))
}

/// A merge reader over no rows of `schema`: building it validates the merge options as the
/// reader of the written files will.
fn merge_reader_for(schema: &TableSchema) -> Result<MergeReader> {
    let mut fields: Vec<Field> = schema
        .fields
        .iter()
        .map(|f| {
            let t = crate::read::arrow_schema::to_arrow_type(&f.data_type);
            Field::new(&f.name, t, true)
        })
        .collect();
    fields.push(Field::new(SEQUENCE_NUMBER, ArrowType::Int64, false));
    fields.push(Field::new(VALUE_KIND, ArrowType::Int8, false));
    let empty = RecordBatch::new_empty(Arc::new(Schema::new(fields)));
    MergeReader::new(
        vec![vec![empty]],
        &schema.fields,
        &schema.primary_keys,
        &schema.options,
        MergeSettings::default(),
    )
}

/// Java's field aggregators that implement `retract` (the others throw).
fn retractable(func: &str) -> bool {
    matches!(
        func,
        "sum"
            | "product"
            | "last_value"
            | "last_non_null_value"
            | "primary-key"
            | "collect"
            | "merge_map"
            | "nested_update"
    )
}

/// Refuses -U/-D rows the table's merge engine would reject when merging (on read and in
/// compaction): the table would become unreadable. Called only when the input has retractions
/// and `ignore-delete` is off (with it they are dropped before writing, as Java's
/// `TableWriteImpl` does).
fn check_retractions(table: &Table, schema: &TableSchema) -> Result<()> {
    let config = MergeConfig::from_options(&schema.options)?;
    let refuse = |what: String| Err(Error::unsupported(table.path(), what));
    let agg_func = |name: &str| {
        config
            .field_aggregate_function(name)
            .or(config.default_aggregate_function.as_deref())
    };
    let cannot_retract = |name: &str, func: &str| -> Result<bool> {
        Ok(!retractable(func) && !config.field_bool(name, "ignore-retract")?)
    };
    match config.engine {
        MergeConfigEngine::Deduplicate => Ok(()),
        MergeConfigEngine::FirstRow => refuse(
            "-U/-D rows in a first-row table (its merge function rejects them): set 'ignore-delete' = 'true' to drop them".into(),
        ),
        MergeConfigEngine::PartialUpdate => {
            if config.sequence_groups.is_empty() {
                if config.partial_update_remove_record_on_delete {
                    return Ok(());
                }
                return refuse(
                    "-U/-D rows in a partial-update table without 'ignore-delete', 'partial-update.remove-record-on-delete' or sequence groups (its merge function rejects them)".into(),
                );
            }
            // Retracting a sequence group retracts its fields' aggregates.
            for group in &config.sequence_groups {
                for name in &group.protected_fields {
                    if let Some(func) = agg_func(name) {
                        if cannot_retract(name, func)? {
                            return refuse(format!(
                                "-U/-D rows in a partial-update table: aggregate function '{func}' of field '{name}' does not support retraction (set 'fields.{name}.ignore-retract' = 'true')"
                            ));
                        }
                    }
                }
            }
            Ok(())
        }
        MergeConfigEngine::Aggregation => {
            for f in &schema.fields {
                if schema.primary_keys.contains(&f.name) {
                    continue;
                }
                let func = agg_func(&f.name).unwrap_or("last_non_null_value");
                if cannot_retract(&f.name, func)? {
                    return refuse(format!(
                        "-U/-D rows in an aggregation table: aggregate function '{func}' of field '{}' does not support retraction (set 'fields.{}.ignore-retract' = 'true')",
                        f.name, f.name
                    ));
                }
            }
            Ok(())
        }
    }
}

/// The table's data file encoding (`file.format`, `file.compression`, `parquet.*`).
fn file_encoding(options: &CoreOptions) -> Result<FileEncoding> {
    FileEncoding::new(options)
}

/// Files and index changes one write produced, ready for [`crate::write_commit::commit_write`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CommitMessage {
    /// New data files.
    pub files: Vec<NewFile>,
    /// New HASH index files (dynamic-bucket tables).
    pub index: Option<IndexChange>,
    /// New changelog files (`changelog-producer` = `input`): the written rows again, every row
    /// kind kept, listed in the snapshot's changelog manifest list.
    pub changelog: Vec<NewFile>,
}

impl From<Vec<NewFile>> for CommitMessage {
    fn from(files: Vec<NewFile>) -> Self {
        Self {
            files,
            ..Self::default()
        }
    }
}

/// The files of one write: data files and changelog files.
pub(crate) struct Written {
    pub(crate) files: Vec<NewFile>,
    pub(crate) changelog: Vec<NewFile>,
}

/// Whether writes of `schema` also write their input rows as changelog files
/// (`changelog-producer` = `input` on a primary-key table).
fn writes_input_changelog(schema: &TableSchema) -> Result<bool> {
    Ok(!schema.primary_keys.is_empty()
        && schema.core_options().changelog_producer()? == ChangelogProducer::Input)
}

/// Writes the rows of `batches` as new level-0 files of `table` (its current schema), for any
/// writable bucket mode (dynamic buckets are assigned against the latest snapshot's index);
/// nothing is committed. See [`write_files`] for the sequence numbers.
pub async fn write(
    table: &Table,
    env: &dyn WriteEnv,
    batches: &[RecordBatch],
    first_sequence: i64,
) -> Result<CommitMessage> {
    write_message(table, env, batches, first_sequence, false).await
}

/// [`write`] for an INSERT OVERWRITE commit: dynamic buckets are assigned against an empty
/// index, since every partition receiving rows is replaced (Java's overwrite writer ignores
/// the previous files and index too). The message must be committed with an overwrite. No
/// changelog files are written: Java's commit drops the changelog of an overwrite.
pub async fn write_overwrite(
    table: &Table,
    env: &dyn WriteEnv,
    batches: &[RecordBatch],
    first_sequence: i64,
) -> Result<CommitMessage> {
    write_message(table, env, batches, first_sequence, true).await
}

async fn write_message(
    table: &Table,
    env: &dyn WriteEnv,
    batches: &[RecordBatch],
    first_sequence: i64,
    overwrite: bool,
) -> Result<CommitMessage> {
    let schema = table.current_schema().clone();
    check_writable(table, &schema)?;
    if cross_partition::applies(&schema)? {
        // Java's global index: no HASH index files, buckets from the key index bootstrapped
        // from the table's data, for INSERT OVERWRITE too (Flink's GlobalDynamicBucketSink):
        // the partitions receiving rows, moved keys' old ones included, are then replaced.
        let assigned = cross_partition::assign(table, &schema, batches).await?;
        let mut planned = DynamicBucketAssigner::planned(assigned.buckets);
        let written = write_inner(
            table,
            env,
            &[assigned.batch],
            first_sequence,
            Some(&mut planned),
            !overwrite,
        )
        .await?;
        return Ok(CommitMessage {
            files: written.files,
            index: None,
            changelog: written.changelog,
        });
    }
    if !schema.primary_keys.is_empty() && schema.core_options().bucket()? == -1 {
        let mut assigner = if overwrite {
            DynamicBucketAssigner::for_overwrite(table)?
        } else {
            let latest = table.latest_snapshot().await?;
            DynamicBucketAssigner::load(table, latest.as_ref()).await?
        };
        let written = write_inner(
            table,
            env,
            batches,
            first_sequence,
            Some(&mut assigner),
            !overwrite,
        )
        .await?;
        let index = assigner.finish(table, env).await?;
        return Ok(CommitMessage {
            files: written.files,
            index: Some(index),
            changelog: written.changelog,
        });
    }
    let written = write_inner(table, env, batches, first_sequence, None, !overwrite).await?;
    Ok(CommitMessage {
        files: written.files,
        index: None,
        changelog: written.changelog,
    })
}

/// Writes the rows of `batches` as new level-0 files of `table` (its current schema) and
/// returns them; nothing is committed. Primary-key files get sequence numbers from
/// `first_sequence` on, in input order; a key repeated within the batches keeps its last row.
/// Dynamic-bucket tables and `changelog-producer` = `input` tables need [`write`] (their index
/// or changelog changes too).
pub async fn write_files(
    table: &Table,
    env: &dyn WriteEnv,
    batches: &[RecordBatch],
    first_sequence: i64,
) -> Result<Vec<NewFile>> {
    let schema = table.current_schema();
    if !schema.primary_keys.is_empty() && schema.core_options().bucket()? == -1 {
        return Err(Error::Invalid(format!(
            "{}: dynamic-bucket tables are written with write::write (the hash index changes too)",
            table.path()
        )));
    }
    if writes_input_changelog(schema)? {
        return Err(Error::Invalid(format!(
            "{}: changelog-producer=input tables are written with write::write (their changelog files are committed too)",
            table.path()
        )));
    }
    Ok(
        write_inner(table, env, batches, first_sequence, None, false)
            .await?
            .files,
    )
}

pub(crate) async fn write_inner(
    table: &Table,
    env: &dyn WriteEnv,
    batches: &[RecordBatch],
    first_sequence: i64,
    mut dynamic: Option<&mut DynamicBucketAssigner>,
    with_changelog: bool,
) -> Result<Written> {
    let schema = table.current_schema().clone();
    check_writable(table, &schema)?;
    // As Java's MergeTreeWriter: every input row (after `ignore-delete` dropped retractions),
    // sorted by key then sequence number, goes to changelog files as well.
    let input_changelog = with_changelog && writes_input_changelog(&schema)?;
    let (mut columns, mut kinds) = project(&schema, batches)?;
    let is_pk = !schema.primary_keys.is_empty();
    if !is_pk && kinds.iter().any(|k| *k != RowKind::Insert) {
        return Err(Error::Invalid(format!(
            "{}: append tables accept only +I rows",
            table.path()
        )));
    }
    let merge = MergeConfig::from_options(&schema.options)?;
    if is_pk && kinds.iter().any(|k| !k.is_add()) {
        if merge.ignore_delete {
            // Java's TableWriteImpl drops retractions of `ignore-delete` tables.
            let keep: Vec<u32> = (0..kinds.len() as u32)
                .filter(|i| kinds[*i as usize].is_add())
                .collect();
            let keep = UInt32Array::from(keep);
            columns = columns
                .iter()
                .map(|c| {
                    arrow_select::take::take(c.as_ref(), &keep, None)
                        .map_err(|e| Error::Invalid(format!("dropping retractions: {e}")))
                })
                .collect::<Result<_>>()?;
            kinds.retain(|k| k.is_add());
        } else {
            check_retractions(table, &schema)?;
        }
    }
    // Deduplicate keeps a key's last row of the write; the other engines merge all of them
    // (Java's write buffer applies the merge function): each further row of a key goes to a
    // further sorted run (file), with a higher sequence number, and the readers merge them.
    let keep_last = merge.engine == MergeConfigEngine::Deduplicate;
    let rows = kinds.len();
    if rows == 0 {
        return Ok(Written {
            files: Vec::new(),
            changelog: Vec::new(),
        });
    }
    let partition_idx = indexes(&schema, &schema.partition_keys)?;
    let partition_types: Vec<DataType> = schema.partition_types();
    let assigner = BucketAssigner::new(&schema)?;
    let key_names = schema.trimmed_primary_keys();
    let key_idx = if is_pk {
        indexes(&schema, &key_names)?
    } else {
        Vec::new()
    };
    let key_types: Vec<DataType> = key_idx
        .iter()
        .map(|i| schema.fields[*i].data_type.clone())
        .collect();

    // Group row numbers by (partition bytes, bucket).
    let mut groups: BTreeMap<GroupKey, (Vec<Datum>, Vec<usize>)> = BTreeMap::new();
    for row in 0..rows {
        let part: Vec<Datum> = partition_idx
            .iter()
            .map(|i| datum_at(columns[*i].as_ref(), row, &schema.fields[*i].data_type))
            .collect::<Result<_>>()?;
        let part_bytes = serialize(&part, &partition_types)?;
        let bucket = match dynamic.as_deref_mut() {
            Some(d) => {
                let key: Vec<Datum> = key_idx
                    .iter()
                    .map(|i| datum_at(columns[*i].as_ref(), row, &schema.fields[*i].data_type))
                    .collect::<Result<_>>()?;
                d.assign_row(row, &part_bytes, hash_code(&key, &key_types)?)?
            }
            None => assigner.bucket(&columns, row)?,
        };
        groups
            .entry((part_bytes, bucket))
            .or_insert_with(|| (part, Vec::new()))
            .1
            .push(row);
    }

    let user_sequence = UserSequence::new(&schema, &columns)?;
    let writer_uuid = env.uuid();
    let layout = FileLayout::new(&schema, env)?;
    let rows_per_file = layout.rows_per_file(&columns, rows)?;
    // One job per file: rows in file order, with the min/max key.
    let mut jobs = Vec::new();
    let mut changelog_jobs = Vec::new();
    for ((part_bytes, bucket), (part, rows_of)) in groups {
        if !is_pk {
            for chunk in rows_of.chunks(rows_per_file) {
                let job = (
                    part.clone(),
                    part_bytes.clone(),
                    bucket,
                    chunk.to_vec(),
                    empty_row(),
                    empty_row(),
                );
                jobs.push(job);
            }
            continue;
        }
        let keys: Vec<Vec<Datum>> = rows_of
            .iter()
            .map(|r| {
                key_idx
                    .iter()
                    .map(|i| datum_at(columns[*i].as_ref(), *r, &schema.fields[*i].data_type))
                    .collect::<Result<Vec<_>>>()
            })
            .collect::<Result<_>>()?;
        let mut order: Vec<usize> = (0..rows_of.len()).collect();
        // Rows of a key by user sequence (if any), then input order (the sort is stable).
        order.sort_by(|a, b| {
            cmp_keys(&keys[*a], &keys[*b]).then_with(|| match &user_sequence {
                Some(s) => s.cmp(rows_of[*a], rows_of[*b]),
                None => Ordering::Equal,
            })
        });
        if input_changelog {
            // Stable sort: equal keys stay in input (sequence) order.
            for chunk in order.chunks(rows_per_file) {
                let (Some(first), Some(last)) = (chunk.first(), chunk.last()) else {
                    continue;
                };
                changelog_jobs.push((
                    part.clone(),
                    part_bytes.clone(),
                    bucket,
                    chunk.iter().map(|i| rows_of[*i]).collect::<Vec<_>>(),
                    serialize(&keys[*first], &key_types)?,
                    serialize(&keys[*last], &key_types)?,
                ));
            }
        }
        // Stable sort: among equal keys the last one is the latest input row. Sorted runs
        // hold each key once: `runs[n]` gets the n-th row of every key (or only the last).
        let mut runs: Vec<Vec<usize>> = vec![Vec::new()];
        let mut nth = 0;
        for (pos, i) in order.iter().copied().enumerate() {
            let same = pos > 0 && cmp_keys(&keys[order[pos - 1]], &keys[i]) == Ordering::Equal;
            if same && keep_last {
                if let Some(last) = runs[0].last_mut() {
                    *last = i;
                }
                continue;
            }
            nth = if same { nth + 1 } else { 0 };
            if runs.len() <= nth {
                runs.push(Vec::new());
            }
            runs[nth].push(i);
        }
        for chunk in runs.iter().flat_map(|run| run.chunks(rows_per_file)) {
            let (Some(first), Some(last)) = (chunk.first(), chunk.last()) else {
                continue;
            };
            let min_key = serialize(&keys[*first], &key_types)?;
            let max_key = serialize(&keys[*last], &key_types)?;
            let file_rows = chunk.iter().map(|i| rows_of[*i]).collect();
            jobs.push((
                part.clone(),
                part_bytes.clone(),
                bucket,
                file_rows,
                min_key,
                max_key,
            ));
        }
    }
    let data_jobs = jobs.len();
    let mut files = Vec::with_capacity(data_jobs);
    let mut changelog = Vec::with_capacity(changelog_jobs.len());
    for (n, (is_changelog, (part, part_bytes, bucket, rows_of, min_key, max_key))) in jobs
        .into_iter()
        .map(|j| (false, j))
        .chain(changelog_jobs.into_iter().map(|j| (true, j)))
        .enumerate()
    {
        let take_idx = UInt32Array::from(rows_of.iter().map(|r| *r as u32).collect::<Vec<_>>());
        let values: Vec<ArrayRef> = columns
            .iter()
            .map(|a| {
                arrow_select::take::take(a.as_ref(), &take_idx, None)
                    .map_err(|e| Error::Invalid(format!("{}: selecting rows: {e}", table.path())))
            })
            .collect::<Result<_>>()?;
        let seqs: Vec<i64> = rows_of.iter().map(|r| first_sequence + *r as i64).collect();
        let row_kinds: Vec<i8> = rows_of.iter().map(|r| kinds[*r] as i8).collect();
        let file = FileRows {
            partition: part,
            partition_bytes: part_bytes,
            bucket,
            total_buckets: assigner.total_buckets(),
            level: 0,
            values,
            sequences: seqs,
            kinds: row_kinds,
            min_key,
            max_key,
        };
        // Data and changelog files share the writer's name counter, as in Java.
        if is_changelog {
            let prefix = layout.options.changelog_file_prefix();
            changelog.push(store_file(table, &layout, &prefix, &writer_uuid, n, file).await?);
        } else {
            files.push(write_file(table, &layout, &writer_uuid, n, file).await?);
        }
    }
    Ok(Written { files, changelog })
}

/// How the data files of one write or compaction are encoded and named.
pub(crate) struct FileLayout {
    schema: Rc<TableSchema>,
    options: CoreOptions,
    encoding: FileEncoding,
    key_idx: Vec<usize>,
    now_millis: i64,
}

impl FileLayout {
    /// The layout of `schema` (its `file.format`, compression and stats options).
    pub(crate) fn new(schema: &Rc<TableSchema>, env: &dyn WriteEnv) -> Result<Self> {
        let options = schema.core_options();
        let key_idx = if schema.primary_keys.is_empty() {
            Vec::new()
        } else {
            indexes(schema, &schema.trimmed_primary_keys())?
        };
        Ok(Self {
            schema: schema.clone(),
            encoding: file_encoding(&options)?,
            options,
            key_idx,
            now_millis: env.now_millis(),
        })
    }

    /// Rows per file that keep files near `target-file-size`, for rows like those of `columns`.
    pub(crate) fn rows_per_file(&self, columns: &[ArrayRef], rows: usize) -> Result<usize> {
        let target = target_file_size(&self.options, !self.key_idx.is_empty())?;
        let row_bytes = columns
            .iter()
            .map(|c| c.get_array_memory_size())
            .sum::<usize>()
            .div_ceil(rows.max(1))
            .max(1);
        Ok((target / row_bytes as u64).max(1) as usize)
    }

    /// How many value columns (the table's fields) a row has.
    pub(crate) fn value_columns(&self) -> usize {
        self.schema.fields.len()
    }

    /// The primary key values at `row` of the value columns.
    pub(crate) fn key_datums(&self, values: &[ArrayRef], row: usize) -> Result<Vec<Datum>> {
        let fields = &self.schema.fields;
        self.key_idx
            .iter()
            .map(|i| datum_at(values[*i].as_ref(), row, &fields[*i].data_type))
            .collect()
    }

    /// Whether the value columns of `a` at row `i` equal those of `b` at row `j`.
    pub(crate) fn values_equal(
        &self,
        a: &[ArrayRef],
        i: usize,
        b: &[ArrayRef],
        j: usize,
    ) -> Result<bool> {
        for (n, f) in self.schema.fields.iter().enumerate() {
            let x = datum_at(a[n].as_ref(), i, &f.data_type)?;
            let y = datum_at(b[n].as_ref(), j, &f.data_type)?;
            if x.total_cmp(&y) != Ordering::Equal {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The BinaryRow of the primary key at `row` of the value columns.
    pub(crate) fn key_row(&self, values: &[ArrayRef], row: usize) -> Result<Vec<u8>> {
        let fields = &self.schema.fields;
        let key = self.key_datums(values, row)?;
        let types: Vec<DataType> = self
            .key_idx
            .iter()
            .map(|i| fields[*i].data_type.clone())
            .collect();
        serialize(&key, &types)
    }
}

/// The rows of one data file to write, with where it belongs.
pub(crate) struct FileRows {
    pub partition: Vec<Datum>,
    pub partition_bytes: Vec<u8>,
    pub bucket: i32,
    pub total_buckets: i32,
    /// LSM level (0 for new writes, the top level for a full compaction).
    pub level: i32,
    /// The table's columns.
    pub values: Vec<ArrayRef>,
    /// `_SEQUENCE_NUMBER` of each row (primary-key files store them; append files record the range).
    pub sequences: Vec<i64>,
    /// `_VALUE_KIND` of each row (primary-key files).
    pub kinds: Vec<i8>,
    /// Key BinaryRows of the first and last row (empty rows for append files).
    pub min_key: Vec<u8>,
    pub max_key: Vec<u8>,
}

/// Encodes and stores one data file (named `<data-file.prefix><writer_uuid>-<n>.<ext>`) and
/// returns it.
pub(crate) async fn write_file(
    table: &Table,
    layout: &FileLayout,
    writer_uuid: &str,
    n: usize,
    rows: FileRows,
) -> Result<NewFile> {
    let prefix = layout.options.data_file_prefix();
    store_file(table, layout, &prefix, writer_uuid, n, rows).await
}

/// Encodes and stores one changelog file of a compaction (named
/// `<changelog-file.prefix><writer_uuid>-<n>.<ext>`, at the compaction's output level and with
/// file source APPEND, as Java's `createRollingChangelogFileWriter`) and returns it.
pub(crate) async fn write_changelog_file(
    table: &Table,
    layout: &FileLayout,
    writer_uuid: &str,
    n: usize,
    rows: FileRows,
) -> Result<NewFile> {
    let prefix = layout.options.changelog_file_prefix();
    let mut file = store_file(table, layout, &prefix, writer_uuid, n, rows).await?;
    file.file.file_source = Some(0);
    Ok(file)
}

/// Encodes and stores one file of the data file layout (a data or changelog file) named
/// `<prefix><writer_uuid>-<n>.<ext>` in its bucket folder, and returns it.
async fn store_file(
    table: &Table,
    layout: &FileLayout,
    prefix: &str,
    writer_uuid: &str,
    n: usize,
    rows: FileRows,
) -> Result<NewFile> {
    let schema = &layout.schema;
    let options = &layout.options;
    let is_pk = !layout.key_idx.is_empty();
    let file_name = format!(
        "{}{}-{}.{}",
        prefix,
        writer_uuid,
        n,
        layout.encoding.extension()
    );
    let mut key_stats = SimpleStats {
        min_values: empty_row(),
        max_values: empty_row(),
        null_counts: Vec::new(),
    };
    let values = rows.values;
    let seqs = &rows.sequences;
    let value_stats = stats::collect(&schema.fields, &values, options)?;
    let (file_fields, file_columns, delete_rows) = if is_pk {
        let fields = crate::read::key_value_fields(
            layout.key_idx.iter().map(|i| &schema.fields[*i]),
            &schema.fields,
        );
        let key_fields = &fields[..layout.key_idx.len()];
        let key_cols: Vec<ArrayRef> = layout.key_idx.iter().map(|i| values[*i].clone()).collect();
        key_stats = stats::collect(key_fields, &key_cols, options)?;
        let deletes = rows.kinds.iter().filter(|k| **k == 1 || **k == 3).count() as i64;
        let mut cols = key_cols;
        cols.push(Arc::new(Int64Array::from(seqs.clone())));
        cols.push(Arc::new(Int8Array::from(rows.kinds)));
        cols.extend(values.iter().cloned());
        (fields, cols, deletes)
    } else {
        (schema.fields.clone(), values, 0)
    };
    let (bytes, row_count) = layout
        .encoding
        .encode(&file_name, &file_fields, file_columns)?;
    let meta = DataFileMeta {
        file_name: file_name.clone(),
        file_size: bytes.len() as i64,
        row_count: row_count as i64,
        min_key: rows.min_key,
        max_key: rows.max_key,
        key_stats,
        value_stats,
        min_sequence_number: seqs.iter().copied().min().unwrap_or(0),
        max_sequence_number: seqs.iter().copied().max().unwrap_or(0),
        schema_id: schema.id,
        level: rows.level,
        extra_files: Vec::new(),
        creation_time: Some(layout.now_millis),
        delete_row_count: Some(delete_rows),
        embedded_file_index: None,
        // Java's FileSource: APPEND (0) for new writes, COMPACT (1) for compaction output.
        file_source: Some(if rows.level == 0 { 0 } else { 1 }),
        value_stats_cols: None,
        external_path: None,
        first_row_id: None,
        write_cols: None,
        write_cols_sequences: None,
    };
    let path = table.data_file_path(&rows.partition, rows.bucket, &meta)?;
    table.store().put(&path, Bytes::from(bytes)).await?;
    Ok(NewFile {
        partition: rows.partition,
        partition_bytes: rows.partition_bytes,
        bucket: rows.bucket,
        total_buckets: rows.total_buckets,
        file: meta,
    })
}

/// `target-file-size` in bytes (Paimon memory-size syntax: `128 mb`, `256MB`, `1kb`, bytes);
/// default 128 MiB for primary-key tables, 256 MiB for append tables.
fn target_file_size(options: &CoreOptions, is_pk: bool) -> Result<u64> {
    let Some(v) = options.get("target-file-size") else {
        return Ok(if is_pk { 128 << 20 } else { 256 << 20 });
    };
    let text = v.trim().to_ascii_lowercase();
    let digits: String = text.chars().take_while(|c| c.is_ascii_digit()).collect();
    let unit = text[digits.len()..].trim();
    let scale: u64 = match unit {
        "" | "b" | "bytes" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => 0,
    };
    match digits.parse::<u64>() {
        Ok(n) if scale > 0 && n > 0 => Ok(n.saturating_mul(scale)),
        _ => Err(Error::Invalid(format!(
            "target-file-size '{v}' is not a memory size"
        ))),
    }
}

/// Lexicographic key order (Java compares BinaryRow keys field by field the same way).
pub(crate) fn cmp_keys(a: &[Datum], b: &[Datum]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.total_cmp(y))
        .find(|o| *o != Ordering::Equal)
        .unwrap_or(Ordering::Equal)
}

fn indexes(schema: &TableSchema, names: &[String]) -> Result<Vec<usize>> {
    names
        .iter()
        .map(|n| {
            schema.field_index(n).ok_or_else(|| Error::NotFound {
                what: format!("column {n}"),
                context: Some(format!("schema {}", schema.id)),
            })
        })
        .collect()
}
