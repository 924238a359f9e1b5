//! System tables built from a snapshot's manifests: `$files`, `$file_key_ranges`, `$manifests`,
//! `$partitions`, `$buckets`.
//!
//! Column names and types follow Paimon 1.x (`FilesTable`, `ManifestsTable`, `PartitionsTable`,
//! `BucketsTable` in `org.apache.paimon.table.system`). Values are rendered as Paimon renders
//! them: partitions of `$files`/`$manifests`/`$buckets` as a row cast to string (`{v1, v2}`),
//! `$partitions` as `k1=v1/k2=v2`, min/max keys as Java `Arrays.toString` (`[1, a]`), value
//! statistics as a Java `TreeMap` (`{a=1, b=x}`, keyed by column name, Paimon's internal
//! values: DATE as days, TIME as millis). One deliberate difference: `file_path` is the store
//! key relative to the warehouse root, not an absolute URI.

use super::render;
use crate::scan::{self, PartitionFilter, Plan};
use crate::spec::binary_row::{BinaryRow, Datum};
use crate::spec::manifest::DataFileMeta;
use crate::spec::schema::TableSchema;
use crate::spec::snapshot::Snapshot;
use crate::table::Table;
use crate::table_read::ReadOutput;
use crate::{Error, Result};
use arrow_array::builder::{
    BooleanBuilder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
    TimestampMillisecondBuilder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

fn ts_field(name: &str) -> Field {
    Field::new(name, DataType::Timestamp(TimeUnit::Millisecond, None), true)
}

fn output(fields: Vec<Field>, columns: Vec<ArrayRef>, what: &str) -> Result<ReadOutput> {
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), columns)
        .map_err(|e| Error::Invalid(format!("building {what}: {e}")))?;
    Ok(ReadOutput {
        schema,
        batches: vec![batch],
    })
}

/// The full plan of `snapshot` (no level filter: `$files` shows level-0 files too).
pub(super) async fn plan_of(table: &Table, snapshot: Option<&Snapshot>) -> Result<Option<Plan>> {
    match snapshot {
        Some(s) => Ok(Some(scan::plan(table, s, &PartitionFilter::All).await?)),
        None => Ok(None),
    }
}

/// `$file_key_ranges` (Java `FileKeyRangesTable`): `$files` (the same files and renderings)
/// reduced to `partition`, `bucket`, `file_path`, `file_format`, `schema_id`, `level`,
/// `record_count`, `file_size_in_bytes`, `min_key`, `max_key`, `first_row_id`.
pub async fn file_key_ranges(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    const COLUMNS: [&str; 11] = [
        "partition",
        "bucket",
        "file_path",
        "file_format",
        "schema_id",
        "level",
        "record_count",
        "file_size_in_bytes",
        "min_key",
        "max_key",
        "first_row_id",
    ];
    let all = files(table, snapshot).await?;
    let indices = COLUMNS
        .iter()
        .map(|c| all.schema.index_of(c))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::Invalid(format!("$file_key_ranges: {e}")))?;
    let schema = Arc::new(
        all.schema
            .project(&indices)
            .map_err(|e| Error::Invalid(format!("$file_key_ranges: {e}")))?,
    );
    let batches = all
        .batches
        .iter()
        .map(|b| b.project(&indices))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::Invalid(format!("$file_key_ranges: {e}")))?;
    Ok(ReadOutput { schema, batches })
}

/// `$files`: one row per live data file of the snapshot (empty without a snapshot).
pub async fn files(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let current = table.latest_schema().await?;
    let plan = plan_of(table, snapshot).await?;
    let mut partition = StringBuilder::new();
    let mut bucket = Int32Builder::new();
    let mut file_path = StringBuilder::new();
    let mut file_format = StringBuilder::new();
    let mut schema_id = Int64Builder::new();
    let mut level = Int32Builder::new();
    let mut record_count = Int64Builder::new();
    let mut file_size = Int64Builder::new();
    let mut min_key = StringBuilder::new();
    let mut max_key = StringBuilder::new();
    let mut null_counts = StringBuilder::new();
    let mut min_stats = StringBuilder::new();
    let mut max_stats = StringBuilder::new();
    let mut min_seq = Int64Builder::new();
    let mut max_seq = Int64Builder::new();
    let mut creation = TimestampMillisecondBuilder::new();
    let mut delete_rows = Int64Builder::new();
    let mut file_source = StringBuilder::new();
    let mut first_row_id = Int64Builder::new();
    let mut write_cols = ListBuilder::new(StringBuilder::new());
    let mut layouts = Layouts::default();
    for split in plan.iter().flat_map(|p| &p.splits) {
        let part_text = render::row_cast_to_string(&split.partition);
        let bucket_path = table.bucket_path(&split.partition, split.bucket)?;
        for file in &split.files {
            let layout = layouts.of(table, file, &current).await?;
            let path = table.data_file_path_in(&bucket_path, file)?;
            partition.append_value(&part_text);
            bucket.append_value(split.bucket);
            file_path.append_value(&path);
            file_format.append_value(
                file.file_name
                    .rsplit_once('.')
                    .map(|(_, ext)| ext)
                    .unwrap_or(""),
            );
            schema_id.append_value(file.schema_id);
            level.append_value(file.level);
            record_count.append_value(file.row_count);
            file_size.append_value(file.file_size);
            for (key, bytes) in [(&mut min_key, &file.min_key), (&mut max_key, &file.max_key)] {
                match decode_key(table, &path, bytes, &layout.key_types)? {
                    Some(values) => {
                        render::write_java_array(key, &values).map_err(rendering(&path))?;
                        key.append_value("");
                    }
                    None => key.append_null(),
                }
            }
            let nulls = &file.value_stats.null_counts;
            render::write_tree_map(&mut null_counts, &layout.names, |out, i| {
                match layout.stats_index[i].and_then(|s| nulls.get(s).copied().flatten()) {
                    Some(count) => write!(out, "{count}"),
                    None => out.write_str("null"),
                }
            })
            .map_err(rendering(&path))?;
            null_counts.append_value("");
            for (out, bytes, what) in [
                (&mut min_stats, &file.value_stats.min_values, "min"),
                (&mut max_stats, &file.value_stats.max_values, "max"),
            ] {
                let values = layout.decode_stats(&path, bytes, what)?;
                render::write_tree_map(out, &layout.names, |out, i| {
                    let value = layout.stats_index[i].and_then(|s| values.get(s));
                    render::write_internal_value(out, value.unwrap_or(&Datum::Null))
                })
                .map_err(rendering(&path))?;
                out.append_value("");
            }
            min_seq.append_value(file.min_sequence_number);
            max_seq.append_value(file.max_sequence_number);
            creation.append_option(file.creation_time);
            delete_rows.append_option(file.delete_row_count);
            file_source.append_option(file.file_source.map(|s| match s {
                0 => "APPEND".to_string(),
                1 => "COMPACT".to_string(),
                other => other.to_string(),
            }));
            first_row_id.append_option(file.first_row_id);
            match &file.write_cols {
                Some(cols) => {
                    for c in cols {
                        write_cols.values().append_value(c);
                    }
                    write_cols.append(true);
                }
                None => write_cols.append(false),
            }
        }
    }
    output(
        vec![
            Field::new("partition", DataType::Utf8, true),
            Field::new("bucket", DataType::Int32, false),
            Field::new("file_path", DataType::Utf8, false),
            Field::new("file_format", DataType::Utf8, false),
            Field::new("schema_id", DataType::Int64, false),
            Field::new("level", DataType::Int32, false),
            Field::new("record_count", DataType::Int64, false),
            Field::new("file_size_in_bytes", DataType::Int64, false),
            Field::new("min_key", DataType::Utf8, true),
            Field::new("max_key", DataType::Utf8, true),
            Field::new("null_value_counts", DataType::Utf8, false),
            Field::new("min_value_stats", DataType::Utf8, false),
            Field::new("max_value_stats", DataType::Utf8, false),
            Field::new("min_sequence_number", DataType::Int64, true),
            Field::new("max_sequence_number", DataType::Int64, true),
            ts_field("creation_time"),
            Field::new("deleteRowCount", DataType::Int64, true),
            Field::new("file_source", DataType::Utf8, true),
            Field::new("first_row_id", DataType::Int64, true),
            Field::new(
                "write_cols",
                DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
                true,
            ),
        ],
        vec![
            Arc::new(partition.finish()),
            Arc::new(bucket.finish()),
            Arc::new(file_path.finish()),
            Arc::new(file_format.finish()),
            Arc::new(schema_id.finish()),
            Arc::new(level.finish()),
            Arc::new(record_count.finish()),
            Arc::new(file_size.finish()),
            Arc::new(min_key.finish()),
            Arc::new(max_key.finish()),
            Arc::new(null_counts.finish()),
            Arc::new(min_stats.finish()),
            Arc::new(max_stats.finish()),
            Arc::new(min_seq.finish()),
            Arc::new(max_seq.finish()),
            Arc::new(creation.finish()),
            Arc::new(delete_rows.finish()),
            Arc::new(file_source.finish()),
            Arc::new(first_row_id.finish()),
            Arc::new(write_cols.finish()),
        ],
        &format!("{}$files", table.name()),
    )
}

/// Types of the key BinaryRow of files written with `schema`: the trimmed primary key, or (as
/// Paimon's `FilesTable`) the whole row for tables without one.
fn key_types(schema: &TableSchema) -> Vec<crate::spec::types::DataType> {
    let trimmed = schema.trimmed_primary_key_fields();
    if trimmed.is_empty() {
        schema.fields.iter().map(|f| f.data_type.clone()).collect()
    } else {
        trimmed.into_iter().map(|f| f.data_type.clone()).collect()
    }
}

/// The error of a value that would not render (a `Display` that failed).
fn rendering(path: &str) -> impl Fn(std::fmt::Error) -> Error + '_ {
    move |_| {
        Error::Invalid(format!(
            "rendering the keys or statistics of data file {path}"
        ))
    }
}

/// `min_key`/`max_key`'s values: `None` (NULL) for an empty key row (append tables).
fn decode_key(
    table: &Table,
    path: &str,
    bytes: &[u8],
    types: &[crate::spec::types::DataType],
) -> Result<Option<Vec<Datum>>> {
    if bytes.is_empty() || BinaryRow::arity(bytes).unwrap_or(0) == 0 {
        return Ok(None);
    }
    BinaryRow::decode_in(path, bytes, types)
        .map(Some)
        .map_err(|e| Error::Invalid(format!("{}: key of data file {path}: {e}", table.path())))
}

/// How the keys and value statistics of files written with one schema (and one
/// `value_stats_cols`) are read and printed against the current schema.
struct Layout {
    schema_id: i64,
    value_stats_cols: Option<Vec<String>>,
    /// Types of the key rows.
    key_types: Vec<crate::spec::types::DataType>,
    /// Types of the statistics rows' fields.
    stats_types: Vec<crate::spec::types::DataType>,
    /// The current schema's column names in the order Java's `TreeMap` prints them.
    names: Vec<String>,
    /// For each of `names`, its position in the statistics rows (matched by field id, as
    /// Paimon's `SimpleStatsEvolution`); `None` where the file has no statistics for it.
    stats_index: Vec<Option<usize>>,
}

impl Layout {
    fn new(file: &DataFileMeta, file_schema: &TableSchema, current: &TableSchema) -> Self {
        let stats_fields: Vec<&crate::spec::types::DataField> = match &file.value_stats_cols {
            Some(cols) => cols
                .iter()
                .filter_map(|c| file_schema.fields.iter().find(|f| &f.name == c))
                .collect(),
            None => file_schema.fields.iter().collect(),
        };
        let mut columns: Vec<(String, Option<usize>)> = current
            .fields
            .iter()
            .map(|field| {
                let index = stats_fields.iter().position(|f| f.id == field.id);
                (field.name.clone(), index)
            })
            .collect();
        columns.sort_by(|a, b| render::tree_map_order(&a.0, &b.0));
        let (names, stats_index) = columns.into_iter().unzip();
        Layout {
            schema_id: file.schema_id,
            value_stats_cols: file.value_stats_cols.clone(),
            key_types: key_types(file_schema),
            stats_types: stats_fields.iter().map(|f| f.data_type.clone()).collect(),
            names,
            stats_index,
        }
    }

    /// The min or max statistics row (`what`) of the data file `path`.
    fn decode_stats(&self, path: &str, bytes: &[u8], what: &str) -> Result<Vec<Datum>> {
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        BinaryRow::decode_in(path, bytes, &self.stats_types)
            .map_err(|e| Error::Invalid(format!("{what} statistics of data file {path}: {e}")))
    }
}

/// The [`Layout`]s met so far (a table's files share a few).
#[derive(Default)]
struct Layouts(Vec<Layout>);

impl Layouts {
    /// The layout of `file` (its schema loaded the first time it is met).
    async fn of(
        &mut self,
        table: &Table,
        file: &DataFileMeta,
        current: &TableSchema,
    ) -> Result<&Layout> {
        let found = self.0.iter().position(|l| {
            l.schema_id == file.schema_id && l.value_stats_cols == file.value_stats_cols
        });
        let index = match found {
            Some(index) => index,
            None => {
                let file_schema = table.schema(file.schema_id).await?;
                self.0.push(Layout::new(file, &file_schema, current));
                self.0.len() - 1
            }
        };
        Ok(&self.0[index])
    }
}

/// `$manifests`: the data and changelog manifests of the snapshot (base, delta, changelog lists).
pub async fn manifests(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let mut file_name = StringBuilder::new();
    let mut file_size = Int64Builder::new();
    let mut added = Int64Builder::new();
    let mut deleted = Int64Builder::new();
    let mut schema_id = Int64Builder::new();
    let mut min_part = StringBuilder::new();
    let mut max_part = StringBuilder::new();
    let mut min_row = Int64Builder::new();
    let mut max_row = Int64Builder::new();
    if let Some(s) = snapshot {
        let mut lists = vec![s.base_manifest_list.clone(), s.delta_manifest_list.clone()];
        lists.extend(s.changelog_manifest_list.clone());
        for list in lists {
            for meta in table.manifest_list(&list).await?.iter() {
                let schema = table.schema(meta.schema_id).await?;
                let types = schema.partition_types();
                let render_part = |bytes: &[u8]| -> Result<Option<String>> {
                    if bytes.is_empty() {
                        return Ok(None);
                    }
                    let values = BinaryRow::decode_in(
                        &format!("{}/manifest/{list}", table.path()),
                        bytes,
                        &types,
                    )?;
                    Ok(Some(render::row_cast_to_string(&values)))
                };
                file_name.append_value(&meta.file_name);
                file_size.append_value(meta.file_size);
                added.append_value(meta.num_added_files);
                deleted.append_value(meta.num_deleted_files);
                schema_id.append_value(meta.schema_id);
                min_part.append_option(render_part(&meta.partition_stats.min_values)?);
                max_part.append_option(render_part(&meta.partition_stats.max_values)?);
                min_row.append_option(meta.min_row_id);
                max_row.append_option(meta.max_row_id);
            }
        }
    }
    output(
        vec![
            Field::new("file_name", DataType::Utf8, false),
            Field::new("file_size", DataType::Int64, false),
            Field::new("num_added_files", DataType::Int64, false),
            Field::new("num_deleted_files", DataType::Int64, false),
            Field::new("schema_id", DataType::Int64, false),
            Field::new("min_partition_stats", DataType::Utf8, true),
            Field::new("max_partition_stats", DataType::Utf8, true),
            Field::new("min_row_id", DataType::Int64, true),
            Field::new("max_row_id", DataType::Int64, true),
        ],
        vec![
            Arc::new(file_name.finish()),
            Arc::new(file_size.finish()),
            Arc::new(added.finish()),
            Arc::new(deleted.finish()),
            Arc::new(schema_id.finish()),
            Arc::new(min_part.finish()),
            Arc::new(max_part.finish()),
            Arc::new(min_row.finish()),
            Arc::new(max_row.finish()),
        ],
        &format!("{}$manifests", table.name()),
    )
}

/// Totals of a group of live files.
#[derive(Default)]
struct Totals {
    records: i64,
    size: i64,
    files: i64,
    last_update: Option<i64>,
    total_buckets: Option<i32>,
    deleted_records: i64,
}

impl Totals {
    fn add(&mut self, file: &DataFileMeta) {
        self.records += file.row_count;
        self.size += file.file_size;
        self.files += 1;
        if let Some(t) = file.creation_time {
            self.last_update = Some(self.last_update.map_or(t, |old| old.max(t)));
        }
    }
}

/// `$partitions`: per partition the live files' record count, size, count and newest creation
/// time, sorted by the partition text (`k1=v1/k2=v2`, NULL as `partition.default-name`).
/// `created_at`, `created_by`, `updated_by` and `options` are NULL (catalog-held facts);
/// `deleted_record_count` sums deletion-vector cardinalities (0 without deletion vectors).
pub async fn partitions(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let plan = plan_of(table, snapshot).await?;
    let schema = match snapshot {
        Some(s) => table.schema(s.schema_id).await?,
        None => table.latest_schema().await?,
    };
    let options = schema.core_options();
    let default_name = options.partition_default_name();
    let bucket_option = options.bucket().unwrap_or(-1);
    let keys = schema.partition_keys.clone();
    let mut groups: BTreeMap<String, Totals> = BTreeMap::new();
    for split in plan.iter().flat_map(|p| &p.splits) {
        let text = keys
            .iter()
            .zip(&split.partition)
            .map(|(k, v)| {
                let value = if v.is_null() {
                    default_name.clone()
                } else {
                    render::cast_to_string(v)
                };
                format!("{k}={value}")
            })
            .collect::<Vec<_>>()
            .join("/");
        let totals = groups.entry(text).or_default();
        for file in &split.files {
            totals.add(file);
        }
        totals.deleted_records += split
            .deletion_files
            .values()
            .map(|d| d.cardinality.unwrap_or(0))
            .sum::<i64>();
        if split.total_buckets.is_some() {
            totals.total_buckets = split.total_buckets;
        }
    }
    let mut partition = StringBuilder::new();
    let mut records = Int64Builder::new();
    let mut size = Int64Builder::new();
    let mut count = Int64Builder::new();
    let mut last = TimestampMillisecondBuilder::new();
    let mut created_at = TimestampMillisecondBuilder::new();
    let mut created_by = StringBuilder::new();
    let mut updated_by = StringBuilder::new();
    let mut opts = StringBuilder::new();
    let mut total_buckets = Int32Builder::new();
    let mut done = BooleanBuilder::new();
    let mut deleted = Int64Builder::new();
    for (text, t) in &groups {
        partition.append_value(text);
        records.append_value(t.records);
        size.append_value(t.size);
        count.append_value(t.files);
        last.append_option(t.last_update);
        created_at.append_null();
        created_by.append_null();
        updated_by.append_null();
        opts.append_null();
        total_buckets.append_value(t.total_buckets.unwrap_or(bucket_option));
        done.append_value(false);
        deleted.append_value(t.deleted_records);
    }
    output(
        vec![
            Field::new("partition", DataType::Utf8, true),
            Field::new("record_count", DataType::Int64, false),
            Field::new("file_size_in_bytes", DataType::Int64, false),
            Field::new("file_count", DataType::Int64, false),
            ts_field("last_update_time"),
            ts_field("created_at"),
            Field::new("created_by", DataType::Utf8, true),
            Field::new("updated_by", DataType::Utf8, true),
            Field::new("options", DataType::Utf8, true),
            Field::new("total_buckets", DataType::Int32, false),
            Field::new("done", DataType::Boolean, false),
            Field::new("deleted_record_count", DataType::Int64, true),
        ],
        vec![
            Arc::new(partition.finish()),
            Arc::new(records.finish()),
            Arc::new(size.finish()),
            Arc::new(count.finish()),
            Arc::new(last.finish()),
            Arc::new(created_at.finish()),
            Arc::new(created_by.finish()),
            Arc::new(updated_by.finish()),
            Arc::new(opts.finish()),
            Arc::new(total_buckets.finish()),
            Arc::new(done.finish()),
            Arc::new(deleted.finish()),
        ],
        &format!("{}$partitions", table.name()),
    )
}

/// `$buckets`: per (partition, bucket) the live files' totals, in (partition, bucket) order.
pub async fn buckets(table: &Table, snapshot: Option<&Snapshot>) -> Result<ReadOutput> {
    let plan = plan_of(table, snapshot).await?;
    let mut partition = StringBuilder::new();
    let mut bucket = Int32Builder::new();
    let mut records = Int64Builder::new();
    let mut size = Int64Builder::new();
    let mut count = Int64Builder::new();
    let mut last = TimestampMillisecondBuilder::new();
    for split in plan.iter().flat_map(|p| &p.splits) {
        let mut t = Totals::default();
        for file in &split.files {
            t.add(file);
        }
        partition.append_value(render::row_cast_to_string(&split.partition));
        bucket.append_value(split.bucket);
        records.append_value(t.records);
        size.append_value(t.size);
        count.append_value(t.files);
        last.append_option(t.last_update);
    }
    output(
        vec![
            Field::new("partition", DataType::Utf8, true),
            Field::new("bucket", DataType::Int32, false),
            Field::new("record_count", DataType::Int64, false),
            Field::new("file_size_in_bytes", DataType::Int64, false),
            Field::new("file_count", DataType::Int64, false),
            ts_field("last_update_time"),
        ],
        vec![
            Arc::new(partition.finish()),
            Arc::new(bucket.finish()),
            Arc::new(records.finish()),
            Arc::new(size.finish()),
            Arc::new(count.finish()),
            Arc::new(last.finish()),
        ],
        &format!("{}$buckets", table.name()),
    )
}
